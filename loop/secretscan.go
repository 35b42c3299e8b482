package loop

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-ralph/git-ralph/gitops/gitpush"
	"github.com/git-ralph/git-ralph/history/redact"
)

// SecretsAllowFile is the repository's list of findings that may be pushed: one
// fingerprint (commit:file:rule:line) a line.
const SecretsAllowFile = ".ralph/secrets-allow"

// maxFindingsShown bounds the findings a refusal lists.
const maxFindingsShown = 10

// SecretsFound is the refusal of a push whose commits add secrets.
type SecretsFound struct {
	Findings []redact.Finding
}

func (e *SecretsFound) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "secret scan: the commits to push add %d secret(s); nothing was pushed", len(e.Findings))
	for i, f := range e.Findings {
		if i == maxFindingsShown {
			fmt.Fprintf(&b, "\n  … and %d more", len(e.Findings)-i)
			break
		}
		fmt.Fprintf(&b, "\n  %s", f)
	}
	return b.String()
}

// Hint tells how to go on: git-ralph never rewrites commits, so taking the secret out is
// the user's; a finding that is no secret (a test fixture) can be allowed.
func (e *SecretsFound) Hint() string {
	var b strings.Builder
	b.WriteString("remove the secret from those commits (amend or rewrite them: git-ralph never rewrites commits), ")
	fmt.Fprintf(&b, "or, if it is no secret, allow that one finding with a line in %s (then 'git ralph trust'):", SecretsAllowFile)
	for i, f := range e.Findings {
		if i == maxFindingsShown {
			break
		}
		fmt.Fprintf(&b, "\n  %s", f.Fingerprint())
	}
	return b.String()
}

// ScanPush scans the lines added by the commits reachable from tips that neither exclude
// nor remote's refs reach, with the redaction rules. It returns *SecretsFound for
// findings not in allow, and a warning when the diff was too large to scan whole.
func ScanPush(ctx context.Context, dir string, tips, exclude []string, remote string, allow map[string]bool) (warning string, err error) {
	diff, truncated, err := gitpush.Diff(ctx, dir, tips, exclude, remote)
	if err != nil {
		return "", fmt.Errorf("secret scan: %w", err)
	}
	if truncated {
		warning = fmt.Sprintf("secret scan: the commits to push change more than %d MB; only the first %d MB were scanned", gitpush.MaxDiff>>20, gitpush.MaxDiff>>20)
	}
	findings, _ := redact.ScanDiff(diff, allow)
	if len(findings) > 0 {
		return warning, &SecretsFound{Findings: findings}
	}
	return warning, nil
}
