package servesource

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/gitops/gittest"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/agentcli"
)

// A live stream's first look at a loop finds the agent's format in the loop's records;
// the next stream of the same dashboard reads them again only when one was written since
// (a record is written by a rename into its iteration's directory): a record changed in
// place, with nothing renamed, is not read, and a record written anew is.
func TestTheLiveLogsFormatIsReadAgainOnlyWhenARecordIsWritten(t *testing.T) {
	gittest.Isolate(t)
	here := gittest.NewRepo(t)
	ctx := context.Background()
	store, err := history.OpenStore(here)
	if err != nil {
		t.Fatal(err)
	}
	claude, _ := agentcli.Lookup("claude")
	codex, _ := agentcli.Lookup("codex")
	if claude.Format == codex.Format {
		t.Fatal("claude and codex write alike: the test could not tell their formats apart")
	}
	for n := 1; n <= 2; n++ {
		if _, err := store.Next(); err != nil {
			t.Fatal(err)
		}
		if err := store.Save(history.Record{Iteration: n, Agent: "claude"}); err != nil {
			t.Fatal(err)
		}
	}
	// a loop that was running when it died: its latest iteration is the last number begun
	if err := history.SaveState(here, history.State{Run: "r", Active: true, Iteration: 2}); err != nil {
		t.Fatal(err)
	}
	src := Repo{Here: here, Formats: &LiveFormats{}}
	look := func() agentcli.Format {
		t.Helper()
		read, err := src.Live(ctx, "main")
		if err != nil {
			t.Fatal(err)
		}
		live, err := read()
		if err != nil || live.Iteration != 2 {
			t.Fatalf("the live log: %+v, %v", live, err)
		}
		return live.Format
	}
	if f := look(); f != claude.Format {
		t.Fatalf("the first look found format %v, want claude's %v", f, claude.Format)
	}
	// the records changed in place, as nothing of git-ralph's does: their directories'
	// times stay, so the next stream reads nothing and keeps what it knew
	for n := 1; n <= 2; n++ {
		dir := store.IterationDir(n)
		info, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "record.toml"), []byte("not = [a record"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(dir, info.ModTime(), info.ModTime()); err != nil {
			t.Fatal(err)
		}
	}
	if f := look(); f != claude.Format {
		t.Errorf("a second stream read the records again though none was written: format %v, want claude's %v", f, claude.Format)
	}
	// a record written anew (renamed into its directory) is read
	if err := store.Save(history.Record{Iteration: 2, Agent: "codex"}); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour) // whatever the file system's clock granularity
	if err := os.Chtimes(store.IterationDir(2), later, later); err != nil {
		t.Fatal(err)
	}
	if f := look(); f != codex.Format {
		t.Errorf("after iteration 2's record was written again, the format is %v, want codex's %v", f, codex.Format)
	}
}
