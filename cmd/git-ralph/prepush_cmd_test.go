package main

import (
	"io"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/gitops/gittest"
)

// BenchmarkPrePushNothingConfigured is the work `git ralph pre-push` does on every push
// when no validate command is configured and no loop runs, without the process start
// (bench/prepush.sh measures the whole): it must not start git.
func BenchmarkPrePushNothingConfigured(b *testing.B) {
	gittest.Isolate(b)
	dir := gittest.NewRepo(b)
	b.Chdir(dir)
	refs := "refs/heads/main 1111111111111111111111111111111111111111 refs/heads/main 0000000000000000000000000000000000000000\n"
	for b.Loop() {
		if code := run([]string{"pre-push", "origin", "/srv/remote.git"}, strings.NewReader(refs), io.Discard, io.Discard); code != 0 {
			b.Fatalf("pre-push exited %d", code)
		}
	}
}
