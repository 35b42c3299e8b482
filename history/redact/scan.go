package redact

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// A Finding is a secret in a line that a commit adds, found before a push.
type Finding struct {
	Commit string // full hash
	File   string // path in the commit, as git prints it
	Line   int    // line number in the commit's version of File
	Rule   string // the redaction rule that matched: "aws-access-key-id"
	Masked string // the secret with all but its first characters hidden
}

// Fingerprint names the finding precisely, for .ralph/secrets-allow: the same secret in
// another commit, file, line or of another kind is a new finding.
func (f Finding) Fingerprint() string {
	return fmt.Sprintf("%s:%s:%s:%d", f.Commit, f.File, f.Rule, f.Line)
}

func (f Finding) String() string {
	short := f.Commit
	if len(short) > 12 {
		short = short[:12]
	}
	return fmt.Sprintf("%s %s:%d: %s (%s)", short, f.File, f.Line, f.Rule, f.Masked)
}

// maxScanLine bounds one added line the rules look at: a minified bundle or a data file
// of megabytes on one line would cost rule matching for nothing a key fits in.
const maxScanLine = 64 << 10

// ScanDiff finds the secrets in the lines that the output of `git log -p --unified=0
// --format='commit %H'` adds: removed lines (a secret taken out) are not findings. Findings
// whose Fingerprint is in allow are left out and counted in allowed.
func ScanDiff(diff []byte, allow map[string]bool) (findings []Finding, allowed int) {
	var commit, file string
	inHeader := false
	line := 0
	lines := bufio.NewScanner(bytes.NewReader(diff))
	lines.Buffer(make([]byte, 0, 64<<10), len(diff)+1)
	for lines.Scan() {
		l := lines.Bytes()
		switch {
		case bytes.HasPrefix(l, []byte("commit ")):
			commit, file, inHeader = string(bytes.TrimSpace(l[len("commit "):])), "", false
		case bytes.HasPrefix(l, []byte("diff --git ")):
			file, inHeader = "", true
		case inHeader && bytes.HasPrefix(l, []byte("+++ ")):
			file = strings.TrimPrefix(string(l[len("+++ "):]), "b/")
		case bytes.HasPrefix(l, []byte("@@ ")):
			line, inHeader = hunkStart(l), false
		case !inHeader && file != "" && len(l) > 0 && l[0] == '+':
			for _, f := range scanLine(l[1:]) {
				f.Commit, f.File, f.Line = commit, file, line
				if allow[f.Fingerprint()] {
					allowed++
					continue
				}
				findings = append(findings, f)
			}
			line++
		}
	}
	return findings, allowed
}

// hunkStart is the first new line number of a hunk header "@@ -a,b +c,d @@".
func hunkStart(l []byte) int {
	f := strings.Fields(string(l))
	if len(f) < 3 || !strings.HasPrefix(f[2], "+") {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimPrefix(strings.SplitN(f[2], ",", 2)[0], "+"))
	return n
}

// scanLine is the secrets in one added line, by the redaction rules; a private key's
// BEGIN line stands for the key.
func scanLine(l []byte) []Finding {
	if len(l) > maxScanLine {
		l = l[:maxScanLine]
	}
	var found []Finding
	if loc := beginKey().FindIndex(l); loc != nil {
		found = append(found, Finding{Rule: "private-key", Masked: string(l[loc[0]:loc[1]])})
	}
	spans := lineSpans(l)
	if len(spans) == 0 {
		return found
	}
	for _, s := range merge(spans) {
		found = append(found, Finding{Rule: s.kind, Masked: mask(l[s.start:s.end])})
	}
	return found
}

// mask shows a secret's first four characters (a key's vendor prefix, rarely more) and
// its length: enough to find it, not enough to use it.
func mask(secret []byte) string {
	shown := min(4, len(secret)/4)
	return string(secret[:shown]) + strings.Repeat("*", 8) + fmt.Sprintf(" (%d characters)", len(secret))
}

// ParseAllow reads .ralph/secrets-allow: one fingerprint a line, as a refusal prints it;
// blank lines and lines starting with # are skipped.
func ParseAllow(text string) map[string]bool {
	allow := map[string]bool{}
	for l := range strings.SplitSeq(text, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") {
			allow[l] = true
		}
	}
	return allow
}
