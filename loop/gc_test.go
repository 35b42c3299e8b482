package loop

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/history"
)

// TestRunRecordsIterationWhoseCheckpointWasPruned: the checkpoint an iteration started from
// loses its objects anyway (here the agent deletes the refs that kept it, then prunes, as
// no gc would). The iteration is still recorded, without its changes and with a warning,
// and the run goes on.
func TestRunRecordsIterationWhoseCheckpointWasPruned(t *testing.T) {
	dir := newRepo(t)
	if err := os.WriteFile(filepath.Join(dir, "draft.txt"), []byte("dirty at the start\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	agent := `if [ "$RALPH_ITERATION" = 1 ]; then
		git update-ref -d refs/ralph/latest && git update-ref -d refs/ralph/latest-tree &&
		find .git/objects -type f -exec touch -d '1 hour ago' {} + && git prune --expire=now || exit 9
	fi
	echo "$RALPH_ITERATION" >> draft.txt`
	rec := &recorder{}
	res, err := Run(context.Background(), config(dir, agent, 2), Deps{Reporter: rec})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Status != StatusMaxIters || res.Iterations != 2 {
		t.Fatalf("status %s after %d iterations, want %s after 2", res.Status, res.Iterations, StatusMaxIters)
	}
	warned := false
	for _, e := range rec.events {
		if w, ok := e.(Warning); ok && strings.Contains(w.Message, "iteration 1 is recorded without its changes") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning that iteration 1's changes are unknown; events: %v", rec.events)
	}
	store, err := history.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 2; n++ {
		r, err := store.Get(n)
		if err != nil {
			t.Fatalf("record of iteration %d: %v", n, err)
		}
		if n == 2 && r.FilesChanged != 1 {
			t.Errorf("iteration 2 changed %d files, want 1", r.FilesChanged)
		}
	}
}

// TestRunRemovesScratchLeftovers: the scratch index of a snapshot whose loop was killed is
// removed by the next loop.
func TestRunRemovesScratchLeftovers(t *testing.T) {
	dir := newRepo(t)
	leftover := filepath.Join(dir, ".git", "ralph-index-4242")
	if err := os.MkdirAll(leftover, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(leftover, "index"), []byte("DIRC"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), config(dir, "true", 1), Deps{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(leftover); !os.IsNotExist(err) {
		t.Errorf("the leftover scratch index %s is still there (%v)", leftover, err)
	}
}
