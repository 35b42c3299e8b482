package gitnotes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
)

// The notes Append writes in process are the ones `git notes append` writes: the same
// tree, note for note, whitespace cleaned as git cleans it, appended with a blank line.
func TestAppendQuickWritesWhatGitWrites(t *testing.T) {
	ctx := context.Background()
	ours, gits := committedRepo(t), committedRepo(t)
	first := run(t, ours, "rev-parse", "HEAD")
	if got := run(t, gits, "rev-parse", "HEAD^{tree}"); got != run(t, ours, "rev-parse", "HEAD^{tree}") {
		t.Fatal("the two repositories differ")
	}
	notes := []string{"git-ralph ledger v1\nrun: r\n", "\n\nsecond  \n\n\nparagraph\t\n\n", "third"}
	for _, text := range notes {
		if err := appendNoteQuick(ctx, ours, testNotes, first, text); err != nil {
			t.Fatalf("the note was not written in process: %v", err)
		}
		gitNotesAppend(t, gits, first, text)
	}
	if got, want := run(t, ours, "rev-parse", testNotes+"^{tree}"), run(t, gits, "rev-parse", testNotes+"^{tree}"); got != want {
		t.Errorf("notes tree %s, git's %s:\n%s\nwant:\n%s", got, want,
			run(t, ours, "notes", "--ref="+testNotes, "show", first), run(t, gits, "notes", "--ref="+testNotes, "show", first))
	}
	if got := run(t, ours, "rev-list", "--count", testNotes); got != "3" {
		t.Errorf("%s commits on the notes ref, want 3", got)
	}
	run(t, ours, "fsck", "--strict", "--no-dangling")
}

// A notes tree that git fanned out (ab/cdef… once there are many notes) gets the new note
// where git looks for it, and an appended note stays one note.
func TestAppendQuickInAFannedOutTree(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	const noted = 300 // git fans out beyond 256 notes
	var marked strings.Builder
	for i := range noted {
		fmt.Fprintf(&marked, "commit refs/heads/many\nmark :%d\ncommitter a <a@b> %d +0000\ndata 8\ncommit%2d\n", i+1, 1700000000+i, i%100)
		if i == 0 {
			marked.WriteString("from HEAD\n")
		}
		fmt.Fprintf(&marked, "\ncommit %s\ncommitter a <a@b> %d +0000\ndata 9\nnote %03d\n", testNotes, 1700000000+i, i)
		fmt.Fprintf(&marked, "N inline :%d\ndata 8\nnote%03d\n\n", i+1, i)
	}
	if err := gitops.GitTo(ctx, dir, nil, strings.NewReader(marked.String()), &strings.Builder{}, "fast-import", "--quiet"); err != nil {
		t.Fatal(err)
	}
	if run(t, dir, "ls-tree", testNotes) == "" || !strings.Contains(run(t, dir, "ls-tree", testNotes), "tree") {
		t.Fatalf("git wrote no fanned-out notes tree:\n%s", run(t, dir, "ls-tree", testNotes))
	}
	old := run(t, dir, "rev-parse", "many~7")
	fresh := run(t, dir, "rev-parse", "HEAD")
	for _, c := range []string{old, fresh} {
		if err := appendNoteQuick(ctx, dir, testNotes, c, "appended\n"); err != nil {
			t.Fatalf("the note was not written in process: %v", err)
		}
	}
	if got := run(t, dir, "notes", "--ref="+testNotes, "show", old); got != "note292\n\nappended" {
		t.Errorf("the fanned-out note is %q", got)
	}
	if got := run(t, dir, "notes", "--ref="+testNotes, "show", fresh); got != "appended" {
		t.Errorf("the new note is %q", got)
	}
	if got := len(strings.Split(run(t, dir, "notes", "--ref="+testNotes, "list"), "\n")); got != noted+1 {
		t.Errorf("%d notes, want %d", got, noted+1)
	}
}

func gitNotesAppend(t *testing.T, dir, commit, text string) {
	t.Helper()
	if err := gitops.GitTo(context.Background(), dir, nil, strings.NewReader(text), &strings.Builder{}, "notes", "--ref="+testNotes, "append", "-F", "-", commit); err != nil {
		t.Fatal(err)
	}
}

// A notes ref locked by another writer at that moment (git's ref.lock file) is waited for,
// not given up on: the note lands once the lock is gone.
func TestAppendWaitsForALockedRef(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	head := run(t, dir, "rev-parse", "HEAD")
	if err := Append(ctx, dir, testNotes, head, "first\n"); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(dir, ".git", testNotes+".lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	go func() {
		defer close(released)
		time.Sleep(150 * time.Millisecond)
		os.Remove(lock)
	}()
	err := Append(ctx, dir, testNotes, head, "second\n")
	<-released
	if err != nil {
		t.Fatalf("the note was not written after the lock went: %v", err)
	}
	if got := noteOf(t, dir, head); got != "first\n\nsecond\n" {
		t.Errorf("note = %q", got)
	}
}

// A shared repository's notes objects are group-writable, as git writes them there.
func TestAppendInASharedRepository(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	run(t, dir, "config", "core.sharedRepository", "group")
	head := run(t, dir, "rev-parse", "HEAD")
	if err := Append(ctx, dir, testNotes, head, "shared\n"); err != nil {
		t.Fatal(err)
	}
	blob := run(t, dir, "rev-parse", testNotes+":"+head)
	info, err := os.Stat(filepath.Join(dir, ".git", "objects", blob[:2], blob[2:]))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm()&0o040 == 0 {
		t.Errorf("the note's blob has mode %v in a shared repository", info.Mode().Perm())
	}
}
