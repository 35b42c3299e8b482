package gitops

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hangingFilter makes every `git add` of f in dir hang in a clean filter that writes its
// pid to the returned file (whole, or not at all), sleeps for two minutes and then leaves a file "ended" beside
// it: a git-ralph that waited for the filter instead of stopping it gets that far.
func hangingFilter(t *testing.T, dir string) string {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "filter.pid")
	ended := filepath.Join(filepath.Dir(pidFile), "ended")
	run(t, dir, "config", "filter.hang.clean", "sh -c 'echo $$ > "+pidFile+".new; mv "+pidFile+".new "+pidFile+"; sleep 120; touch "+ended+"'")
	write(t, dir, ".gitattributes", "f filter=hang\n")
	write(t, dir, "f", "content\n")
	return pidFile
}

// requireGone fails when the filter whose pid is in pidFile outlived the git command or
// ran to its end. A stopped filter may take a moment to go on a busy machine: it is
// waited for while it lasts, that is for the two minutes of its sleep at most.
func requireGone(t *testing.T, pidFile string) {
	t.Helper()
	pid := filterPID(pidFile)
	if pid <= 0 {
		t.Fatalf("the filter never ran")
	}
	for syscall.Kill(pid, 0) == nil {
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(pidFile), "ended")); err == nil {
		t.Fatalf("the filter git started (pid %d) ran to its end: the git command was waited for, not stopped", pid)
	}
}

// filterPID is the pid of the filter that wrote pidFile; 0 before it has started.
func filterPID(pidFile string) int {
	data, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return pid
}

func TestCallTimeoutStopsAHungGit(t *testing.T) {
	dir := committedRepo(t)
	pidFile := hangingFilter(t, dir)
	defer func(old time.Duration) { CallTimeout = old }(CallTimeout)
	// the bound must outlast git's start, or the filter is never reached: a busy machine
	// can take longer than 300ms for that, and the bound doubles until it is reached
	for CallTimeout = 300 * time.Millisecond; ; CallTimeout *= 2 {
		_, err := Git(context.Background(), dir, "add", "f")
		if !errors.Is(err, ErrGitHung) {
			t.Fatalf("err = %v, want ErrGitHung", err)
		}
		if want := "git add ran longer than " + CallTimeout.String(); !strings.Contains(err.Error(), want) {
			t.Errorf("err = %q, want it to name the command and the bound (%q)", err, want)
		}
		if filterPID(pidFile) > 0 || CallTimeout > time.Minute {
			break
		}
	}
	requireGone(t, pidFile)
}

func TestCancelStopsGitAndItsChildren(t *testing.T) {
	dir := committedRepo(t)
	pidFile := hangingFilter(t, dir)
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() { // cancelled once git has started the filter
		for filterPID(pidFile) <= 0 {
			time.Sleep(10 * time.Millisecond)
		}
		cancel(errors.New("interrupted"))
	}()

	_, err := Git(ctx, dir, "add", "f")
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "git add stopped: interrupted") {
		t.Fatalf("err = %v, want the cancellation and its cause", err)
	}
	requireGone(t, pidFile)
}

// git-ralph's own ref updates run no hook of the repository; push still runs pre-push.
func TestOwnRefUpdatesRunNoHooks(t *testing.T) {
	dir := committedRepo(t)
	marker := filepath.Join(t.TempDir(), "hook-ran")
	hook := filepath.Join(dir, ".git", "hooks", "reference-transaction")
	write(t, filepath.Dir(hook), filepath.Base(hook), "#!/bin/sh\ntouch "+marker+"\n")
	if err := os.Chmod(hook, 0o755); err != nil {
		t.Fatal(err)
	}
	head := run(t, dir, "rev-parse", "HEAD")
	if err := KeepAliveAll(context.Background(), dir, []Ref{{Name: "refs/ralph/test", Hash: head}}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("KeepAliveAll ran the repository's reference-transaction hook")
	}
	if got, err := HooksDir(context.Background(), dir); err != nil || got != filepath.Join(dir, ".git", "hooks") {
		t.Fatalf("HooksDir = %q, %v; want the real hooks directory", got, err)
	}
}

func TestGitArgs(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		hooks bool
	}{
		{[]string{"status"}, false},
		{[]string{"update-ref", "--stdin"}, false},
		{[]string{"push", "origin"}, true},
		{[]string{"-c", "push.default=current", "push", "origin"}, true},
		{[]string{"rev-parse", "--git-path", "hooks"}, true},
	} {
		got := strings.Join(gitArgs(tc.args), " ")
		if !strings.Contains(got, "core.fsmonitor=false") {
			t.Errorf("%v: %q does not switch off core.fsmonitor", tc.args, got)
		}
		if runsHooks := !strings.Contains(got, "core.hooksPath=/dev/null"); runsHooks != tc.hooks {
			t.Errorf("%v: runs hooks = %v, want %v (%q)", tc.args, runsHooks, tc.hooks, got)
		}
		if !strings.HasSuffix(got, strings.Join(tc.args, " ")) {
			t.Errorf("%v: %q does not end with the command", tc.args, got)
		}
	}
}
