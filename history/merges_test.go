package history

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestMergeRecords(t *testing.T) {
	common := t.TempDir()
	if _, found, err := LoadMerge(common, "a"); found || err != nil {
		t.Fatalf("LoadMerge before any = %v, %v", found, err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	for i, name := range []string{"b", "a"} {
		m := Merge{Name: name, State: MergeQueued, How: "merge", BaseBranch: "refs/heads/main", RequestedAt: now.Add(time.Duration(i) * time.Second)}
		if err := SaveMerge(common, m); err != nil {
			t.Fatal(err)
		}
	}
	list, bad, err := Merges(common)
	if err != nil || len(bad) != 0 || len(list) != 2 || list[0].Name != "b" || list[1].Name != "a" {
		t.Fatalf("Merges = %+v, %v, %v; want b then a, oldest request first", list, bad, err)
	}
	// a file that names another loop is reported, not taken for it
	os.WriteFile(filepath.Join(common, "ralph", "merges", "c.toml"), []byte("schema_version = 1\nname = \"a\"\n"), 0o644)
	if _, bad, _ := Merges(common); len(bad) != 1 {
		t.Fatalf("Merges with a bad file: bad = %v", bad)
	}
	if err := RemoveMerge(common, "a"); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := LoadMerge(common, "a"); found {
		t.Fatal("RemoveMerge left the record")
	}
	if err := RemoveMerge(common, "a"); err != nil {
		t.Fatalf("removing it twice: %v", err)
	}
}

func TestHoldMerge(t *testing.T) {
	common := t.TempDir()
	if MergeHeld(common, "a") {
		t.Fatal("MergeHeld before anyone holds it")
	}
	l, err := HoldMerge(common, "a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := HoldMerge(common, "a"); !errors.Is(err, ErrMergePending) {
		t.Fatalf("a second HoldMerge = %v, want ErrMergePending", err)
	}
	if !MergeHeld(common, "a") {
		t.Fatal("MergeHeld while held")
	}
	l.Release()
	if MergeHeld(common, "a") {
		t.Fatal("MergeHeld after the release")
	}
}

func TestLockMergeQueue(t *testing.T) {
	common := t.TempDir()
	ctx := context.Background()
	first, err := LockMergeQueue(ctx, common, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LockMergeQueue(ctx, common, false); !errors.Is(err, ErrLocked) {
		t.Fatalf("without waiting = %v, want ErrLocked", err)
	}
	ctx2, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := LockMergeQueue(ctx2, common, true); err == nil {
		t.Fatal("waiting past the context's end must fail")
	}
	go func() { time.Sleep(50 * time.Millisecond); first.Release() }()
	second, err := LockMergeQueue(ctx, common, true)
	if err != nil {
		t.Fatalf("waiting for the first to let go: %v", err)
	}
	second.Release()
}
