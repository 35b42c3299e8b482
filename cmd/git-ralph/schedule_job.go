package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// parseLoopFlags reads the flags with the loop's own command-line model, without
// running the loop, so that a typo fails now rather than in the cron log at 2 a.m.
func parseLoopFlags(flags []string) (lc *LoopCmd, err error) {
	for _, f := range flags {
		if strings.ContainsAny(f, "\n\r") {
			return nil, withHint(fmt.Errorf("loop flag %q holds a line break, which a crontab line cannot", f),
				"put long text in a file the prompt includes, or in .ralph/config.toml")
		}
	}
	var cli CLI
	quiet := Streams{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard}
	k, err := parser(&cli, quiet, func(int) { panic(helpExit{}) })
	if err != nil {
		return nil, fmt.Errorf("building the loop's command line: %w", err)
	}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(helpExit); !ok {
				panic(r)
			}
			lc, err = nil, withHint(errors.New("--help and --version are not loop flags to schedule"), "'git ralph loop -h' lists the loop's flags")
		}
	}()
	if _, err := k.Parse(joinNegativeValues(k, append([]string{"loop"}, flags...))); err != nil {
		return nil, withHint(fmt.Errorf("loop flags: %w", err),
			"'git ralph loop -h' lists the loop's flags; they go after --, e.g.\ngit ralph schedule add --cron \"0 2 * * *\" -- --mode build --max 10")
	}
	return &cli.Loop, checkCronFlags(&cli.Loop)
}

// checkCronFlags refuses flags that parse but make no sense unattended.
func checkCronFlags(lc *LoopCmd) error {
	switch {
	case lc.DryRun:
		return withHint(errors.New("--dry-run runs nothing: the entry would only print the settings every time"),
			"try the flags now with 'git ralph loop --dry-run …', then schedule them without it")
	case lc.Verbose && lc.Quiet:
		return withHint(errors.New("--verbose and --quiet contradict each other"), "pick one")
	}
	return nil
}

// cronFlags are the loop flags as the entry passes them: --skip-if-busy is always there.
func cronFlags(flags []string) []string {
	out := []string{}
	for _, f := range flags {
		if f != "--skip-if-busy" {
			out = append(out, f)
		}
	}
	return out
}

// ralphExecutable is the git-ralph that cron will run. It prefers the name PATH finds,
// when that is this very program: package managers point a stable name such as
// /usr/local/bin/git-ralph at a versioned file that an upgrade removes. Otherwise it is
// os.Executable with symlinks resolved. It never turns the name into a different
// program's (in tests, git-ralph is the test binary under that name and dispatches on it).
func ralphExecutable() (string, []string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", nil, fmt.Errorf("finding git-ralph's own executable: %w", err)
	}
	if found, err := exec.LookPath("git-ralph"); err == nil && sameFile(found, exe) {
		exe, err = filepath.Abs(found)
		if err != nil {
			return "", nil, err
		}
	} else if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	var warnings []string
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		warnings = append(warnings, fmt.Sprintf("git-ralph runs from a temporary build (%s), which 'go run' removes: install it (go install) and add the entry again", exe))
	}
	return exe, warnings, nil
}

// sameFile reports whether both paths name the same existing file.
func sameFile(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(ia, ib)
}

// programDirs are the directories cron's PATH needs: git-ralph's, git's, the agent
// program's (and its interpreter's, for scripts such as npm's `#!/usr/bin/env node`)
// and the validate command's.
func programDirs(exe string, set *settings) []string {
	dirs := []string{filepath.Dir(exe)}
	if dir := findInPath("git", userPath()); dir != "" {
		dirs = append(dirs, dir)
	}
	programs := []programCheck{}
	if check, any := set.checkAgent(); any {
		programs = append(programs, check)
	}
	if set.loop.ValidateCmd != "" {
		programs = append(programs, checkAgentProgram(set.loop.Dir, set.loop.ValidateCmd))
	}
	for _, check := range programs {
		if !check.ok || check.path == "" {
			continue
		}
		dirs = append(dirs, filepath.Dir(check.path))
		if dir := interpreterDir(check.path); dir != "" {
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

// interpreterDir is the directory of a script's interpreter, from its #! line; "" for
// a binary or when the interpreter cannot be found.
func interpreterDir(program string) string {
	f, err := repofile.Open(program, program) // a FIFO must not hang 'schedule add'
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(io.LimitReader(f, 256)).ReadString('\n')
	words := strings.Fields(strings.TrimPrefix(line, "#!"))
	if !strings.HasPrefix(line, "#!") || len(words) == 0 {
		return ""
	}
	if filepath.Base(words[0]) != "env" {
		return filepath.Dir(words[0])
	}
	for _, w := range words[1:] {
		if !strings.HasPrefix(w, "-") && !strings.Contains(w, "=") {
			if path, err := exec.LookPath(w); err == nil {
				return filepath.Dir(path)
			}
			return ""
		}
	}
	return ""
}

// userPath is the PATH git-ralph was started with, without the directory of git's own
// helpers that git puts first when it runs a subcommand: the shell's PATH, as cron
// should have it.
func userPath() string {
	gitExec := filepath.Clean(os.Getenv("GIT_EXEC_PATH"))
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if d == "" || filepath.Clean(d) != gitExec {
			keep = append(keep, d)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// findInPath is the directory of the first executable file called name in path; "" if
// there is none.
func findInPath(name, path string) string {
	for _, d := range filepath.SplitList(path) {
		info, err := os.Stat(filepath.Join(d, name))
		if err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 && filepath.IsAbs(d) {
			return d
		}
	}
	return ""
}

// cronPath is the PATH an entry runs with. cron's own is /usr/bin:/bin, where neither
// git-ralph nor most agents live. The programs' directories come first; then the PATH
// the entry was added with, since the agent runs the project's tools too (go, npm,
// make); then the system's directories. Relative entries are dropped: cron starts
// elsewhere; so are entries with a line break, which a crontab line cannot hold.
func cronPath(dirs []string, userPath string) string {
	all := append(slices.Clone(dirs), filepath.SplitList(userPath)...)
	all = append(all, "/usr/local/bin", "/usr/bin", "/bin")
	var keep []string
	for _, d := range all {
		d = filepath.Clean(d)
		if filepath.IsAbs(d) && !strings.ContainsAny(d, "\n\r") && !slices.Contains(keep, d) {
			keep = append(keep, d)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}
