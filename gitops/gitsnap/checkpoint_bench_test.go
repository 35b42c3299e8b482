package gitsnap

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-ralph/git-ralph/gitops"
)

func benchRepo(b *testing.B) string {
	if testing.Short() {
		b.Skip("generates a 20,000-file repository")
	}
	bench.once.Do(func() { bench.dir, bench.err = makeBenchRepo() })
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return bench.dir
}

func makeBenchRepo() (string, error) {
	dir, err := os.MkdirTemp("", "gitops-bench-")
	if err != nil {
		return "", err
	}
	for d := range 200 {
		sub := filepath.Join(dir, fmt.Sprintf("dir%03d", d))
		if err := os.Mkdir(sub, 0o755); err != nil {
			return dir, err
		}
		for f := range 100 {
			content := fmt.Sprintf("package p%d\n\n// file %d of directory %d\nconst N = %d\n", d, f, d, f)
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%03d.go", f)), []byte(content), 0o644); err != nil {
				return dir, err
			}
		}
	}
	ctx := context.Background()
	if err := gitops.Init(ctx, dir, "main"); err != nil {
		return dir, err
	}
	if _, err := gitops.CommitAll(ctx, dir, "generated"); err != nil {
		return dir, err
	}
	return dir, nil
}

func removeBenchRepo() {
	if bench.dir != "" {
		os.RemoveAll(bench.dir)
	}
}

// benchStates runs body on the clean repository, then with 10 files modified and 10 untracked.
func benchStates(b *testing.B, body func(b *testing.B, dir string)) {
	dir := benchRepo(b)
	b.Run("clean", func(b *testing.B) { body(b, dir) })
	b.Run("dirty", func(b *testing.B) {
		for i := range 10 {
			write(b, dir, fmt.Sprintf("dir%03d/f000.go", i*20), fmt.Sprintf("package changed\n// %d\n", i))
			write(b, dir, fmt.Sprintf("dir%03d/untracked.go", i*20), "package untracked\n")
		}
		defer func() {
			run(b, dir, "reset", "-q", "--hard")
			run(b, dir, "clean", "-q", "-f")
		}()
		body(b, dir)
	})
}

func BenchmarkCheckpoint(b *testing.B) {
	ctx := context.Background()
	benchStates(b, func(b *testing.B, dir string) {
		for b.Loop() {
			if _, err := TakeCheckpoint(ctx, dir, keepNothing); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkShellMinimum is the baseline: the three processes a shell script would start to see
// whether anything happened.
func BenchmarkShellMinimum(b *testing.B) {
	ctx := context.Background()
	benchStates(b, func(b *testing.B, dir string) {
		for b.Loop() {
			for _, args := range [][]string{{"rev-parse", "HEAD"}, {"status", "--porcelain"}, {"diff", "--stat"}} {
				if _, err := gitops.Git(ctx, dir, args...); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
