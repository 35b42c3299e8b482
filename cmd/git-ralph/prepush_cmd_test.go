package main

import (
	"io"
	"os/exec"
	"strings"
	"testing"
)

// BenchmarkPrePushNothingConfigured is the work `git ralph pre-push` does on every push
// when no validate command is configured and no loop runs, without the process start
// (bench/prepush.sh measures the whole): it must not start git.
func BenchmarkPrePushNothingConfigured(b *testing.B) {
	dir := b.TempDir()
	b.Setenv("XDG_CONFIG_HOME", b.TempDir())
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"-c", "user.name=b", "-c", "user.email=b@example.com", "commit", "-q", "--allow-empty", "-m", "a"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	b.Chdir(dir)
	refs := "refs/heads/main 1111111111111111111111111111111111111111 refs/heads/main 0000000000000000000000000000000000000000\n"
	for b.Loop() {
		if code := run([]string{"pre-push", "origin", "/srv/remote.git"}, strings.NewReader(refs), io.Discard, io.Discard); code != 0 {
			b.Fatalf("pre-push exited %d", code)
		}
	}
}
