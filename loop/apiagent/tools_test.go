package apiagent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/gitops/gittest"
)

// newToolbox is a toolbox on a fresh repository, with a file and symbolic links: one
// pointing out of the work tree, one at .git, one at a file inside.
func newToolbox(t *testing.T) (*toolbox, string) {
	t.Helper()
	dir := gittest.NewRepo(t)
	outside := filepath.Join(filepath.Dir(dir), "outside")
	must(t, os.MkdirAll(outside, 0o755))
	must(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("outside secret\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\nthree\ntwo\n"), 0o644))
	must(t, os.Symlink(outside, filepath.Join(dir, "out")))
	must(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "secret-link")))
	must(t, os.Symlink(".git", filepath.Join(dir, "g")))
	must(t, os.Symlink("a.txt", filepath.Join(dir, "alias.txt")))
	tb, err := openToolbox(dir, DefaultMaxToolOutput, bashSettings{timeout: time.Minute,
		marker: "RALPH_RUN=apiagent-test-" + filepath.Base(filepath.Dir(dir)), env: []string{"RALPH_RUN=apiagent-test-" + filepath.Base(filepath.Dir(dir))}},
		scrubber(testKey))
	must(t, err)
	t.Cleanup(tb.close)
	return tb, dir
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func use(t *testing.T, tb *toolbox, name string, input any) toolResult {
	t.Helper()
	return tb.run(context.Background(), toolCall{ID: "1", Name: name, Input: mustJSON(input)})
}

// Every file tool refuses a path out of the work tree, through a link or not, and every
// writing tool refuses .git, by any of its names: the model is told why.
func TestToolsStayInTheWorkTree(t *testing.T) {
	tb, dir := newToolbox(t)
	for _, tc := range []struct {
		tool  string
		input obj
		says  string
	}{
		{toolRead, obj{"path": "../outside/secret.txt"}, "outside the work tree"},
		{toolRead, obj{"path": filepath.Join(filepath.Dir(dir), "outside", "secret.txt")}, "outside the work tree"},
		{toolRead, obj{"path": "out/secret.txt"}, "outside the work tree"},
		{toolRead, obj{"path": "secret-link"}, "outside the work tree"},
		{toolList, obj{"path": "out"}, "outside the work tree"},
		{toolList, obj{"path": ".."}, "outside the work tree"},
		{toolGrep, obj{"pattern": "x", "path": "../outside"}, "outside the work tree"},
		{toolWrite, obj{"path": "../escaped.txt", "content": "x"}, "outside the work tree"},
		{toolWrite, obj{"path": "out/new.txt", "content": "x"}, "symbolic link"},
		{toolWrite, obj{"path": "secret-link", "content": "x"}, "symbolic link"},
		{toolWrite, obj{"path": ".git/config", "content": "x"}, "inside .git"},
		{toolWrite, obj{"path": "./.GIT/hooks/pre-commit", "content": "x"}, "inside .git"},
		{toolWrite, obj{"path": "sub/../.git/HEAD", "content": "x"}, "inside .git"},
		{toolWrite, obj{"path": "g/hooks/pre-commit", "content": "x"}, "symbolic link"},
		{toolWrite, obj{"path": "alias.txt", "content": "x"}, "symbolic link"},
		{toolEdit, obj{"path": ".git/HEAD", "old_text": "main", "new_text": "x"}, "inside .git"},
		{toolWrite, obj{"path": "sub/.git", "content": "gitdir: /tmp/hostile\n"}, "names one (.git)"},
		{toolWrite, obj{"path": "a/b/.Git. /config", "content": "x"}, "names one (.Git. )"},
		{toolWrite, obj{"path": "sub/.GIT", "content": "x"}, "names one (.GIT)"},
		{toolEdit, obj{"path": "g/HEAD", "old_text": "main", "new_text": "x"}, "symbolic link"},
		{toolEdit, obj{"path": "out/secret.txt", "old_text": "outside", "new_text": "x"}, "symbolic link"},
	} {
		res := use(t, tb, tc.tool, tc.input)
		if !res.IsError || !strings.Contains(res.Output, tc.says) {
			t.Errorf("%s %v: %q (error %v), want a refusal saying %q", tc.tool, tc.input, res.Output, res.IsError, tc.says)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(filepath.Dir(dir), "outside", "secret.txt")); string(data) != "outside secret\n" {
		t.Errorf("the file outside was changed: %q", data)
	}
	if _, err := os.Lstat(filepath.Join(dir, "sub")); err == nil {
		t.Error("a refused write made sub/")
	}
	if head, _ := os.ReadFile(filepath.Join(dir, ".git", "HEAD")); !strings.Contains(string(head), "main") {
		t.Errorf(".git/HEAD was changed: %q", head)
	}
	for _, p := range []string{filepath.Join(filepath.Dir(dir), "escaped.txt"), filepath.Join(dir, ".git/hooks/pre-commit")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	// searches neither enter .git nor follow a link out
	for _, tc := range []struct {
		tool  string
		input obj
	}{{toolGlob, obj{"pattern": "**/*"}}, {toolGrep, obj{"pattern": "secret|main"}}} {
		res := use(t, tb, tc.tool, tc.input)
		if strings.Contains(res.Output, "outside secret") || strings.Contains(res.Output, "HEAD") || strings.Contains(res.Output, ".git/") {
			t.Errorf("%s found what is out of the work tree or in .git: %q", tc.tool, res.Output)
		}
	}
	// a link that stays inside is read through
	if res := use(t, tb, toolRead, obj{"path": "alias.txt"}); res.IsError || !strings.Contains(res.Output, "three") {
		t.Errorf("reading a link inside the work tree: %q", res.Output)
	}
}

func TestEditRefusesMissingAndAmbiguousText(t *testing.T) {
	tb, dir := newToolbox(t)
	for _, tc := range []struct {
		input obj
		says  string
		isErr bool
	}{
		{obj{"path": "a.txt", "old_text": "four", "new_text": "4"}, "was not found in a.txt", true},
		{obj{"path": "a.txt", "old_text": "two", "new_text": "2"}, "occurs 2 times in a.txt (at lines 2, 4)", true},
		{obj{"path": "a.txt", "old_text": "", "new_text": "2"}, "old_text is empty", true},
		{obj{"path": "none.txt", "old_text": "a", "new_text": "b"}, "none.txt does not exist", true},
		{obj{"path": "a.txt", "old_text": "two\nthree", "new_text": "2\n3"}, "replaced 1 occurrence", false},
		{obj{"path": "a.txt", "old_text": "o", "new_text": "0", "replace_all": true}, "replaced 2 occurrences", false},
	} {
		res := use(t, tb, toolEdit, tc.input)
		if res.IsError != tc.isErr || !strings.Contains(res.Output, tc.says) {
			t.Errorf("edit %v: %q (error %v), want %q", tc.input, res.Output, res.IsError, tc.says)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != "0ne\n2\n3\ntw0\n" {
		t.Errorf("a.txt is %q", data)
	}
}

func TestReadFileRangesAndBounds(t *testing.T) {
	tb, dir := newToolbox(t)
	var long strings.Builder
	for i := 1; i <= 5000; i++ {
		long.WriteString(strings.Repeat("x", 20) + "\n")
	}
	must(t, os.WriteFile(filepath.Join(dir, "long.txt"), []byte(long.String()), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "bin"), []byte("a\x00b"), 0o644))
	for _, tc := range []struct {
		input     obj
		has, lack string
		isErr     bool
	}{
		{obj{"path": "a.txt", "offset": 2, "limit": 2}, "     2\ttwo\n     3\tthree\n[more lines follow: read on with offset 4]", "one", false},
		{obj{"path": "a.txt", "offset": 9}, "the file has 4 lines", "", false},
		{obj{"path": "long.txt"}, "[more lines follow: read on with offset ", "  5000\t", false},
		{obj{"path": "long.txt", "offset": 4990}, "  5000\t", "more lines", false},
		{obj{"path": "bin"}, "binary file", "", true},
		{obj{"path": "."}, "is a directory: use list_dir", "", true},
	} {
		res := use(t, tb, toolRead, tc.input)
		if res.IsError != tc.isErr || !strings.Contains(res.Output, tc.has) || tc.lack != "" && strings.Contains(res.Output, tc.lack) {
			t.Errorf("read %v: %q (error %v), want %q without %q", tc.input, cut(res.Output), res.IsError, tc.has, tc.lack)
		}
		if len(res.Output) > DefaultMaxToolOutput {
			t.Errorf("read %v: %d bytes, over the bound", tc.input, len(res.Output))
		}
	}
}

func cut(s string) string {
	if len(s) > 300 {
		return s[:150] + "…" + s[len(s)-150:]
	}
	return s
}

func TestGlobAndGrep(t *testing.T) {
	tb, dir := newToolbox(t)
	must(t, os.MkdirAll(filepath.Join(dir, "src/deep/er"), 0o755))
	for _, f := range []string{"src/main.go", "src/deep/er/x.go", "src/deep/notes.md"} {
		must(t, os.WriteFile(filepath.Join(dir, f), []byte("package x\n// TODO: more\n"), 0o644))
	}
	if res := use(t, tb, toolGlob, obj{"pattern": "src/**/*.go"}); res.Output != "src/deep/er/x.go\nsrc/main.go\n" {
		t.Errorf("glob: %q", res.Output)
	}
	if res := use(t, tb, toolGlob, obj{"pattern": "*.md"}); res.Output != "no file matches *.md" {
		t.Errorf("glob of the top only: %q", res.Output)
	}
	if res := use(t, tb, toolGrep, obj{"pattern": "todo", "ignore_case": true, "glob": "*.go"}); res.Output != "src/deep/er/x.go:2: // TODO: more\nsrc/main.go:2: // TODO: more\n" {
		t.Errorf("grep: %q", res.Output)
	}
	if res := use(t, tb, toolGrep, obj{"pattern": "(unclosed"}); !res.IsError || !strings.Contains(res.Output, "RE2") {
		t.Errorf("grep of a bad pattern: %q", res.Output)
	}
	if res := use(t, tb, toolList, obj{}); !strings.Contains(res.Output, "a.txt (18 bytes)\n") || !strings.Contains(res.Output, "src/\n") || !strings.Contains(res.Output, "out (symbolic link)") {
		t.Errorf("list_dir: %q", res.Output)
	}
}

// A tool's result is bounded, and says what was cut; the key never reaches the model.
func TestToolResultsAreBoundedAndKeyFree(t *testing.T) {
	tb, dir := newToolbox(t)
	tb.maxOut = 300
	must(t, os.WriteFile(filepath.Join(dir, "key.txt"), []byte("the key is "+testKey+"\n"), 0o644))
	for i := range 50 {
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%02d.txt", i)), nil, 0o644))
	}
	if res := use(t, tb, toolRead, obj{"path": "key.txt"}); strings.Contains(res.Output, testKey) || !strings.Contains(res.Output, "[api key]") {
		t.Errorf("read: %q", res.Output)
	}
	res := use(t, tb, toolBash, obj{"command": "seq 1 1000"})
	if len(res.Output) > 300 || !strings.Contains(res.Output, "[the output was 3893 bytes: only its last") || !strings.HasSuffix(res.Output, "\n999\n1000\n") {
		t.Errorf("a long output: %d bytes, %q", len(res.Output), res.Output)
	}
	res = use(t, tb, toolList, obj{})
	if len(res.Output) > 300+100 || !strings.Contains(res.Output, "git-ralph cut this result: 300 of its") {
		t.Errorf("a long listing: %d bytes, %q", len(res.Output), res.Output)
	}
}

// An absolute path inside the work tree is its relative path, whether it names the work
// tree as git-ralph was given it or with its links resolved (as pwd may print it).
func TestAbsolutePathsInsideTheWorkTree(t *testing.T) {
	_, dir := newToolbox(t)
	link := filepath.Join(t.TempDir(), "link")
	must(t, os.Symlink(dir, link))
	tb, err := openToolbox(link, DefaultMaxToolOutput, bashSettings{timeout: time.Minute}, scrubber(testKey))
	must(t, err)
	defer tb.close()
	for _, p := range []string{filepath.Join(link, "a.txt"), filepath.Join(dir, "a.txt")} {
		if res := use(t, tb, toolRead, obj{"path": p}); res.IsError || !strings.Contains(res.Output, "three") {
			t.Errorf("read %s: %q", p, res.Output)
		}
	}
	if res := use(t, tb, toolWrite, obj{"path": filepath.Join(dir, "b.txt"), "content": "b"}); res.IsError {
		t.Errorf("write by the resolved path: %q", res.Output)
	}
}

// A file hard-linked to one of .git's (bash can make one) is replaced by the file tools,
// never written through.
func TestWritesDoNotGoThroughHardLinks(t *testing.T) {
	tb, dir := newToolbox(t)
	gitFile := filepath.Join(dir, ".git", "description")
	before, err := os.ReadFile(gitFile)
	must(t, err)
	must(t, os.Link(gitFile, filepath.Join(dir, "w.txt")))
	must(t, os.Link(gitFile, filepath.Join(dir, "e.txt")))
	if res := use(t, tb, toolWrite, obj{"path": "w.txt", "content": "written"}); res.IsError {
		t.Fatalf("write: %q", res.Output)
	}
	if res := use(t, tb, toolEdit, obj{"path": "e.txt", "old_text": string(before[:5]), "new_text": "edited"}); res.IsError {
		t.Fatalf("edit: %q", res.Output)
	}
	if after, _ := os.ReadFile(gitFile); string(after) != string(before) {
		t.Errorf(".git/description was written through a hard link: %q", after)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "w.txt")); string(got) != "written" {
		t.Errorf("w.txt is %q", got)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("a temporary file was left: %s", e.Name())
		}
	}
}

func TestEditKeepsTheFilesMode(t *testing.T) {
	tb, dir := newToolbox(t)
	script := filepath.Join(dir, "run.sh")
	must(t, os.WriteFile(script, []byte("#!/bin/sh\necho one\n"), 0o755))
	must(t, os.Chmod(script, 0o755))
	if res := use(t, tb, toolEdit, obj{"path": "run.sh", "old_text": "one", "new_text": "two"}); res.IsError {
		t.Fatalf("edit: %q", res.Output)
	}
	if info, err := os.Stat(script); err != nil || info.Mode().Perm() != 0o755 {
		t.Errorf("run.sh's mode after the edit: %v (%v), want 0755", info.Mode(), err)
	}
}

// A read-only run that calls a tool there is not is told the tools it has, the ones
// that read only.
func TestReadOnlyNoSuchTool(t *testing.T) {
	tb, _ := newToolbox(t)
	tb.readOnly = true
	res := use(t, tb, "rm_rf", obj{})
	want := `there is no tool "rm_rf"; the tools are read_file, list_dir, glob, grep`
	if !res.IsError || res.Output != want {
		t.Errorf("%q, want %q", res.Output, want)
	}
}
