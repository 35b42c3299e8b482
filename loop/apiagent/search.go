package apiagent

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

const (
	maxMatches   = 500     // glob's paths, grep's lines
	maxWalked    = 200_000 // entries a search visits before it stops
	maxGrepBytes = 4 << 20 // larger files are not searched
	binarySniff  = 8000    // bytes looked at for a NUL
)

// errEnough ends a walk that has found enough.
var errEnough = errors.New("enough")

func sortedEntries(entries []fs.DirEntry) []fs.DirEntry {
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries
}

// walk visits the files under start (a local path) in lexical order, never entering .git
// nor following a symbolic link, and passes each file's slash path to visit. It reports
// whether it stopped early (visit had enough, or the tree is too large to search).
func (t *toolbox) walk(start string, visit func(p string) error) (bool, error) {
	seen := 0
	err := fs.WalkDir(t.root.FS(), filepath.ToSlash(start), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == filepath.ToSlash(start) {
				return err
			}
			return nil // an unreadable directory is passed over
		}
		if seen++; seen > maxWalked {
			return errEnough
		}
		if d.IsDir() {
			if isGitDir(d.Name()) && p != "." {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		return visit(p)
	})
	if errors.Is(err, errEnough) {
		return true, nil
	}
	return false, err
}

type globArgs struct {
	Pattern string `json:"pattern"`
}

func (t *toolbox) glob(a globArgs) (string, error) {
	pattern := strings.TrimPrefix(path.Clean(filepath.ToSlash(a.Pattern)), "./")
	if _, err := path.Match(strings.ReplaceAll(pattern, "**", "*"), ""); err != nil || a.Pattern == "" {
		return "", refuse("%q is not a pattern glob can read: use * and ? within a name, ** across directories", a.Pattern)
	}
	var found []string
	cut, err := t.walk(".", func(p string) error {
		if matchGlob(pattern, p) {
			if found = append(found, p); len(found) == maxMatches {
				return errEnough
			}
		}
		return nil
	})
	if err != nil {
		return "", t.pathError(".", err)
	}
	if len(found) == 0 {
		return "no file matches " + a.Pattern, nil
	}
	out := strings.Join(found, "\n") + "\n"
	if cut {
		out += "[the search stopped here: narrow the pattern]\n"
	}
	return out, nil
}

// matchGlob matches a slash path against a pattern whose "**" segments match any number
// of directories, and whose other segments path.Match reads.
func matchGlob(pattern, name string) bool {
	return matchParts(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func matchParts(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(name); i++ {
				if matchParts(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

type grepArgs struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	Glob       string `json:"glob"`
	IgnoreCase bool   `json:"ignore_case"`
}

func (t *toolbox) grep(a grepArgs) (string, error) {
	expr := a.Pattern
	if a.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return "", refuse("the pattern is not a regular expression grep can read (RE2 syntax): %v", err)
	}
	start, err := t.local(a.Path)
	if err != nil {
		return "", err
	}
	glob := strings.TrimPrefix(filepath.ToSlash(a.Glob), "./")
	var b strings.Builder
	matches := 0
	cut, err := t.walk(start, func(p string) error {
		if glob != "" && !matchGlob(glob, p) && !matchGlob("**/"+glob, p) {
			return nil
		}
		matches += t.grepFile(p, re, &b, maxMatches-matches)
		if matches >= maxMatches {
			return errEnough
		}
		return nil
	})
	if err != nil {
		return "", t.pathError(a.Path, err)
	}
	if matches == 0 {
		return "no line matches " + a.Pattern, nil
	}
	if cut {
		b.WriteString("[the search stopped here: narrow the pattern or the path]\n")
	}
	return b.String(), nil
}

// grepFile writes up to room matching lines of the text file p as "p:line: text" and
// returns how many it wrote. Binary and very large files are passed over.
func (t *toolbox) grepFile(p string, re *regexp.Regexp, b *strings.Builder, room int) int {
	info, err := t.root.Stat(filepath.FromSlash(p))
	if err != nil || info.Size() > maxGrepBytes {
		return 0
	}
	data, err := t.root.ReadFile(filepath.FromSlash(p))
	if err != nil || bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0 {
		return 0
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxGrepBytes)
	for line := 1; sc.Scan() && n < room; line++ {
		if re.Match(sc.Bytes()) {
			fmt.Fprintf(b, "%s:%d: %s\n", p, line, cutLine(sc.Text()))
			n++
		}
	}
	return n
}
