package main

import (
	"io"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/gitops/gittest"
)

// BenchmarkPrePushNothingConfigured is the work `git ralph pre-push` does on every push
// when no validate command is configured and no loop runs, without the process start
// (bench/prepush.sh measures the whole): no validation, one git process, the secret scan
// of the pushed commit.
func BenchmarkPrePushNothingConfigured(b *testing.B) {
	gittest.Isolate(b)
	dir := gittest.NewRepo(b)
	b.Chdir(dir)
	head := strings.TrimSpace(gittest.Git(b, dir, "rev-parse", "HEAD"))
	refs := "refs/heads/main " + head + " refs/heads/main 0000000000000000000000000000000000000000\n"
	for b.Loop() {
		var stderr strings.Builder
		if code := run([]string{"pre-push", "origin", "/srv/remote.git"}, strings.NewReader(refs), io.Discard, &stderr); code != 0 {
			b.Fatalf("pre-push exited %d: %s", code, stderr.String())
		}
	}
}
