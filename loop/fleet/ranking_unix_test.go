//go:build unix

package fleet

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
)

// A ranking file an agent replaced with a FIFO, or with a symlink to a file elsewhere, is
// refused at once: serve, watch and the best-of's ranking read it, and none may hang on a
// pipe nobody writes or read what the link points at.
func TestARankingFileThatIsNoFileIsRefusedAtOnce(t *testing.T) {
	dir := newRepo(t)
	ctx := context.Background()
	common, err := gitops.CommonDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	path := rankingFile(common, "try")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(t.TempDir(), "planted.toml")
	if err := os.WriteFile(elsewhere, []byte("schema_version = 1\nname = \"try\"\ncandidates = [\"try-1\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		plant func() error
		want  string
	}{
		{"fifo", func() error { return syscall.Mkfifo(path, 0o644) }, "not a regular file"},
		{"symlink", func() error { return os.Symlink(elsewhere, path) }, "symlink"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := c.plant(); err != nil {
				t.Fatal(err)
			}
			defer os.Remove(path)
			done := make(chan error, 1)
			go func() {
				_, _, err := LoadRanking(ctx, dir, "try")
				done <- err
			}()
			select {
			case err := <-done:
				var e *Error
				if err == nil || !errors.As(err, &e) || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("LoadRanking = %v; want the fleet error saying %q", err, c.want)
				}
			case <-time.After(30 * time.Second): // a bound for a failing test, not a speed
				t.Fatal("LoadRanking still waits on the planted file")
			}
		})
	}
}
