package schedule

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// NewJob is the job that runs 'git ralph loop' with loopFlags in the repository at repo
// on the schedule spec (as ParseSpec returned it), with exe as git-ralph. programs are
// the paths of the programs the loop runs (the agent, the validate command): cron's
// PATH must find them and their interpreters. The job's output goes to the repository's
// cron log.
func NewJob(spec, repo, exe string, loopFlags, programs []string) (Job, error) {
	j := Job{schedule: spec, repo: repo, exe: exe, flags: cronFlags(loopFlags),
		log: history.CronLogPath(repo)}
	j.path = cronPath(programDirs(exe, programs), userPath())
	if err := j.checkOneLine(); err != nil {
		return Job{}, err
	}
	return j, nil
}

// Flags are the loop flags the job passes, after the --skip-if-busy it always passes.
func (j Job) Flags() []string { return j.flags }

// Log is the file the job's output is appended to.
func (j Job) Log() string { return j.log }

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

// Executable is the git-ralph that cron will run. It prefers the name PATH finds,
// when that is this very program: package managers point a stable name such as
// /usr/local/bin/git-ralph at a versioned file that an upgrade removes. Otherwise it is
// os.Executable with symlinks resolved. It never turns the name into a different
// program's (in tests, git-ralph is the test binary under that name and dispatches on it).
func Executable() (string, []string, error) {
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

// programDirs are the directories cron's PATH needs: git-ralph's, git's, and those of
// the programs the loop runs, the agent and the validate command (each with its
// interpreter's, for scripts such as npm's `#!/usr/bin/env node`).
func programDirs(exe string, programs []string) []string {
	dirs := []string{filepath.Dir(exe)}
	if dir := FindInPath("git", userPath()); dir != "" {
		dirs = append(dirs, dir)
	}
	for _, program := range programs {
		dirs = append(dirs, filepath.Dir(program))
		if dir := interpreterDir(program); dir != "" {
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

// FindInPath is the directory of the first executable regular file called name in
// path's directories, as sh would find it; "" if there is none. Relative directories are
// skipped: cron starts elsewhere.
func FindInPath(name, path string) string {
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
