// Package docs holds git-ralph's documentation; its tests check that the links between the
// pages resolve and that every page the code names exists, so that moving a section never
// leaves a reader at a dead end, and that the README's exit codes are the reference's.
package docs

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// link matches a Markdown inline link [text](target); images ![alt](target) too.
var link = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// fence opens or closes a code block, where nothing is a link.
var fence = regexp.MustCompile("^\\s*(```|~~~)")

// TestLinksResolve: every relative link in README.md and docs/**/*.md names a file that
// exists, and every #anchor names a heading of that file, by GitHub's rules for heading
// anchors.
func TestLinksResolve(t *testing.T) {
	pages := markdownPages(t)
	anchors := map[string]map[string]bool{}
	for _, p := range pages {
		for _, l := range links(t, p) {
			target, anchor, _ := strings.Cut(l.target, "#")
			file := p
			if target != "" {
				file = filepath.Join(filepath.Dir(p), filepath.FromSlash(target))
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s:%d: link to %s: no such file", p, l.line, l.target)
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(file, ".md") {
				continue
			}
			if anchors[file] == nil {
				anchors[file] = headingAnchors(t, file)
			}
			if !anchors[file][anchor] {
				t.Errorf("%s:%d: link to %s: %s has no heading with the anchor #%s", p, l.line, l.target, file, anchor)
			}
		}
	}
}

// TestSlug pins GitHub's anchor rules on headings the pages use.
func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"Tasks, promises and templates":                              "tasks-promises-and-templates",
		"The log: `git ralph logs`":                                  "the-log-git-ralph-logs",
		"`git ralph serve`: a web dashboard":                         "git-ralph-serve-a-web-dashboard",
		"The hierarchy: plan → spec → phase → code":                  "the-hierarchy-plan--spec--phase--code",
		"E3. The server compares under its lock, even for `--force`": "e3-the-server-compares-under-its-lock-even-for---force",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

type pageLink struct {
	line   int
	target string
}

// markdownPages lists README.md and every Markdown file under docs/, as paths relative to
// this directory.
func markdownPages(t *testing.T) []string {
	t.Helper()
	pages := []string{filepath.Join("..", "README.md")}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

// links returns the relative links of a page, outside code blocks and code spans.
func links(t *testing.T, page string) []pageLink {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var out []pageLink
	inCode := false
	for i, line := range strings.Split(string(data), "\n") {
		if fence.MatchString(line) {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		for _, m := range link.FindAllStringSubmatch(withoutCodeSpans(line), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			out = append(out, pageLink{line: i + 1, target: target})
		}
	}
	return out
}

// withoutCodeSpans blanks `code spans`, whose brackets are not links.
func withoutCodeSpans(line string) string {
	parts := strings.Split(line, "`")
	for i := 1; i < len(parts); i += 2 {
		parts[i] = ""
	}
	return strings.Join(parts, "`")
}

// headingAnchors returns the anchors GitHub gives the headings of a page, a repeated one
// numbered -1, -2, … as GitHub does.
func headingAnchors(t *testing.T, page string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	out := map[string]bool{}
	inCode := false
	for _, line := range strings.Split(string(data), "\n") {
		if fence.MatchString(line) {
			inCode = !inCode
			continue
		}
		if inCode || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimLeft(line, "#")
		if !strings.HasPrefix(text, " ") {
			continue
		}
		s := slug(strings.TrimSpace(text))
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// slug is GitHub's anchor of a heading: lower case, markup and punctuation dropped
// (hyphens and underscores kept), each space a hyphen.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_':
			b.WriteRune(r)
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r > 127 && isLetter(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isLetter(r rune) bool {
	return strings.ToUpper(string(r)) != strings.ToLower(string(r))
}

// docPath is a path of this directory as code, scripts and pages name it: docs/… at the
// start of a path, not the end of another (a release archive's tmp/docs/man/…).
var docPath = regexp.MustCompile(`(?:^|[^/\w])(docs/[A-Za-z0-9_/.-]+\.(?:md|1|png))\b`)

// TestNamedDocsExist: every docs/… page that the code, the scripts and the pages name
// (in comments, messages, hints) exists, so that moving a page cannot leave a message
// pointing at nothing. Test data is left out: it quotes other projects.
func TestNamedDocsExist(t *testing.T) {
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == ".git" || name == "testdata" || name == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".sh", ".toml", ".txt", ".1", "":
		default:
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.IndexByte(data, 0) >= 0 {
			return nil // a program built in the tree, not a text that names a page
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range docPath.FindAllStringSubmatch(line, -1) {
				named := m[1]
				if _, err := os.Stat(filepath.Join("..", filepath.FromSlash(named))); err != nil {
					t.Errorf("%s:%d names %s, which does not exist", path, i+1, named)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestReadmeExitCodesAreTheReferences: the README's short table of the loop's exit codes
// lists the same codes as the reference page's full one.
func TestReadmeExitCodesAreTheReferences(t *testing.T) {
	short := tableCodes(t, filepath.Join("..", "README.md"), "## Exit codes")
	full := tableCodes(t, filepath.Join("reference", "exit-codes.md"), "## Exit codes of `git ralph loop`")
	if strings.Join(short, " ") != strings.Join(full, " ") {
		t.Errorf("README.md's exit codes %v differ from reference/exit-codes.md's %v", short, full)
	}
}

// tableCodes returns the first column of the first table under heading.
func tableCodes(t *testing.T, page, heading string) []string {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s has no heading %q", page, heading)
	}
	var codes []string
	inTable := false
	for _, line := range strings.Split(section, "\n") {
		if cells := strings.Split(line, "|"); len(cells) > 2 && strings.HasPrefix(line, "|") {
			inTable = true
			if code := strings.TrimSpace(cells[1]); code != "" && code != "code" && !strings.HasPrefix(code, "-") {
				codes = append(codes, code)
			}
		} else if inTable {
			break
		}
	}
	if len(codes) == 0 {
		t.Fatalf("%s: no table under %q", page, heading)
	}
	return codes
}
