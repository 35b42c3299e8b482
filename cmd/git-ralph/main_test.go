package main

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	cmds := map[string]func(){
		"git-ralph":    func() { os.Exit(Main()) },
		"fake-agent":   func() { os.Exit(fakeAgent(os.Args[1:])) },
		"crontab":      func() { os.Exit(fakeCrontab(os.Args[1:])) },
		"same-records": func() { os.Exit(sameRecords(os.Args[1:])) },
	}
	for _, name := range fakeCLIs {
		cmds[name] = func() { os.Exit(fakeCLI(name, os.Args[1:])) }
	}
	storiesInParallel()
	testscript.Main(m, cmds)
}

// storiesInParallel runs six stories at a time unless -parallel says otherwise: they
// spend most of their time waiting (agents that sleep, grace periods, timeouts), not on
// the CPU, so the default of one at a time per core left this package at about 200 s of
// the suite's 210 s on two cores; six at a time take about 85 s.
func storiesInParallel() {
	explicit := false
	for _, arg := range os.Args[1:] {
		explicit = explicit || strings.HasPrefix(arg, "-test.parallel") || strings.HasPrefix(arg, "-parallel")
	}
	if !explicit && runtime.GOMAXPROCS(0) < 6 {
		flag.Set("test.parallel", "6")
	}
}

// TestScripts runs the stories in testdata/script: each is a git repository in a
// temporary directory where `git ralph` (through git's own subcommand lookup) and fake
// agents are on PATH.
func TestScripts(t *testing.T) {
	setWaitBound(t)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		Setup:               hermeticGit,
		Cmds:                scriptCommands(),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
	})
}

// userGoCache is the user's Go build cache, read before any story changes HOME.
var userGoCache = func() string {
	if c := os.Getenv("GOCACHE"); c != "" {
		return c
	}
	dir, _ := os.UserCacheDir()
	return filepath.Join(dir, "go-build")
}()

// hermeticGit isolates git from the machine's configuration and fixes identities.
// HOME and TMPDIR live outside $WORK, which is the repository of most stories.
func hermeticGit(env *testscript.Env) error {
	home, err := os.MkdirTemp("", "ralph-home-")
	if err != nil {
		return err
	}
	env.Defer(func() { os.RemoveAll(home) })
	tmp := filepath.Join(home, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	fixtures, err := filepath.Abs(filepath.Join("..", "..", "loop", "agentcli", "testdata"))
	if err != nil {
		return err
	}
	gitconfig := filepath.Join(home, ".gitconfig")
	config := "[user]\n\tname = Ralph Test\n\temail = ralph@example.com\n[init]\n\tdefaultBranch = main\n"
	if err := os.WriteFile(gitconfig, []byte(config), 0o644); err != nil {
		return err
	}
	for k, v := range map[string]string{
		"HOME": home, "TMPDIR": tmp, "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"GIT_CONFIG_GLOBAL": gitconfig, "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_CEILING_DIRECTORIES": filepath.Dir(env.WorkDir),
		"GIT_AUTHOR_DATE":         "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
		// a story's real `go test` (baseline_go_test) builds with the user's cache, not a cold one
		"GOCACHE": userGoCache, "GOTOOLCHAIN": "local", "GOFLAGS": "", "GOWORK": "off",
		"AGENT_FIXTURES": fixtures, "RECORDINGS": filepath.Join(filepath.Dir(filepath.Dir(fixtures)), "..", "cmd", "git-ralph", "testdata", "recordings"),
	} {
		env.Setenv(k, v)
	}
	return nil
}

// exitCodeOf returns a command's exit code, or -1 when it did not run or died of a signal.
func exitCodeOf(err error) int {
	if err == nil {
		return 0
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	return -1
}
