package history

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWorktreeLoopsRoundTrip(t *testing.T) {
	common := t.TempDir()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, name := range []string{"b", "a"} {
		l := WorktreeLoop{Name: name, Branch: "refs/heads/ralph/" + name, Path: "/w/" + name, BaseBranch: "refs/heads/main", BaseCommit: "abc", CreatedAt: at}
		if err := SaveWorktreeLoop(common, l); err != nil {
			t.Fatal(err)
		}
	}
	got, found, err := LoadWorktreeLoop(common, "a")
	if err != nil || !found || got.Path != "/w/a" || got.BaseBranch != "refs/heads/main" || !got.CreatedAt.Equal(at) {
		t.Fatalf("LoadWorktreeLoop = %+v, %v, %v", got, found, err)
	}
	if _, found, err := LoadWorktreeLoop(common, "c"); found || err != nil {
		t.Errorf("a loop never saved: found %v, %v", found, err)
	}
	// a damaged file, a file under another name and a temp file do not hide the others
	dir := filepath.Join(common, "ralph", "worktrees")
	os.WriteFile(filepath.Join(dir, "bad.toml"), []byte("name = \n"), 0o644)
	os.WriteFile(filepath.Join(dir, "renamed.toml"), []byte("schema_version = 1\nname = \"other\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".a.toml.123.tmp"), []byte("x"), 0o644)
	list, bad, err := WorktreeLoops(common)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Name != "a" || list[1].Name != "b" {
		t.Errorf("WorktreeLoops = %+v, want a then b", list)
	}
	if len(bad) != 2 || !strings.Contains(bad[0].Error()+bad[1].Error(), `names the loop "other"`) {
		t.Errorf("bad = %v, want bad.toml and renamed.toml", bad)
	}
}

func TestWorktreeLoopsEmptyRepository(t *testing.T) {
	list, bad, err := WorktreeLoops(t.TempDir())
	if list != nil || bad != nil || err != nil {
		t.Errorf("WorktreeLoops of a repository without any = %v, %v, %v", list, bad, err)
	}
}

func TestLockWorktreeLoopsWaitsForTheHolder(t *testing.T) {
	common := t.TempDir()
	first, err := LockWorktreeLoops(common)
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan time.Time, 1)
	go func() {
		time.Sleep(200 * time.Millisecond)
		released <- time.Now()
		first.Release()
	}()
	second, err := LockWorktreeLoops(common)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Release()
	if got := time.Now(); got.Before(<-released) {
		t.Error("the second lock was taken while the first was held")
	}

	defer func(old time.Duration) { lockWait = old }(lockWait)
	lockWait = 100 * time.Millisecond
	if _, err := LockWorktreeLoops(common); err == nil {
		t.Error("a held lock was taken again")
	}
}
