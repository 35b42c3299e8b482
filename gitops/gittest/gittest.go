package gittest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Main runs a package's tests, as TestMain, with git kept away from the user's own
// configuration and repositories: a temporary HOME and XDG_CONFIG_HOME, no system or global
// config, no repository above the temp dir, a fixed author and committer (plus extra, e.g.
// fixed dates), and none of the GIT_DIR family a hook or a surrounding git may have set.
func Main(m *testing.M, extra map[string]string) {
	os.Exit(Run(m, extra))
}

// Run is Main for a TestMain with work of its own after the tests: it returns their exit
// code.
func Run(m *testing.M, extra map[string]string) int {
	home, err := os.MkdirTemp("", "git-ralph-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(home)
	for _, name := range gitDirFamily {
		os.Unsetenv(name)
	}
	for name, value := range env(home, extra) {
		os.Setenv(name, value)
	}
	return m.Run()
}

// Isolate gives one test (not run in parallel) the environment of Main, with a HOME of its
// own, for a package whose TestMain cannot be Main: the test's end restores the former one.
func Isolate(t testing.TB) {
	t.Helper()
	for _, name := range gitDirFamily {
		if value, ok := os.LookupEnv(name); ok {
			t.Setenv(name, value) // restored at the test's end
			os.Unsetenv(name)
		}
	}
	for name, value := range env(t.TempDir(), nil) {
		t.Setenv(name, value)
	}
}

// gitDirFamily are the variables that point git at another repository than the one its
// working directory is in.
var gitDirFamily = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY"}

// env is the hermetic environment with home as HOME, plus extra.
func env(home string, extra map[string]string) map[string]string {
	env := map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": home, "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_CONFIG_GLOBAL": filepath.Join(home, "gitconfig"), "GIT_CEILING_DIRECTORIES": os.TempDir(),
		"GIT_AUTHOR_NAME": "Ralph", "GIT_AUTHOR_EMAIL": "ralph@example.com",
		"GIT_COMMITTER_NAME": "Ralph", "GIT_COMMITTER_EMAIL": "ralph@example.com",
	}
	for name, value := range extra {
		env[name] = value
	}
	return env
}

// Git runs git in dir and returns its output, less its last newline, failing the test on
// an error. It runs git itself, not through gitops, so that gitops's own tests may use this
// package: with no prompt for credentials, no colour and no hooks, as gitops runs it.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "color.ui=false", "-c", "core.hooksPath=/dev/null"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSuffix(string(out), "\n")
}

// NewRepo is a repository with one empty commit on main, in a directory "repo" of its own
// inside the test's temp dir (symlinks resolved), so that what git-ralph puts beside a work
// tree (the worktree loops' directory) stays inside the temp dir too.
func NewRepo(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(dir, "repo")
	if err := os.Mkdir(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	Git(t, repo, "init", "--quiet", "--initial-branch=main")
	Git(t, repo, "commit", "-q", "--allow-empty", "-m", "init")
	return repo
}
