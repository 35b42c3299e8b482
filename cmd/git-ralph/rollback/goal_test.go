package rollback

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/history"
)

// firstOfRun walks the iterations the history holds, not every number below the counter,
// which a repository can commit as a billion (counting down took hours). The bound only
// tells a walk of three records from one of a billion numbers.
func TestFirstOfRunWithAHugeCounterIsQuick(t *testing.T) {
	root := t.TempDir()
	store, err := history.OpenStore(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []string{"old", "r", "r"} {
		n, err := store.Next()
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Save(history.Record{Iteration: n, Run: run}); err != nil {
			t.Fatal(err)
		}
	}
	counter := filepath.Join(root, history.Dir, "history", "last")
	if err := os.WriteFile(counter, []byte("1000000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		first int
		err   error
	}
	done := make(chan answer, 1)
	go func() {
		first, err := firstOfRun(store, "r")
		done <- answer{first, err}
	}()
	select {
	case got := <-done:
		if got.first != 2 || got.err != nil {
			t.Errorf("firstOfRun = %d, %v; want 2", got.first, got.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("firstOfRun with a counter of a billion did not end within 30 s")
	}
}
