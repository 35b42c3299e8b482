package gitnotes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/gitops/gitpush"
)

const testNotes = "refs/notes/ralph"

func noteOf(t *testing.T, dir, commit string) string {
	t.Helper()
	notes, err := Read(context.Background(), dir, testNotes, []string{commit}, Bounds{Each: 1 << 20, Total: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	return notes[commit].Text
}

func TestAppend(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	head := run(t, dir, "rev-parse", "HEAD")
	if err := Append(ctx, dir, testNotes, head, "first\n"); err != nil {
		t.Fatal(err)
	}
	if err := Append(ctx, dir, testNotes, head, "second\n"); err != nil {
		t.Fatal(err)
	}
	if got := noteOf(t, dir, head); got != "first\n\nsecond\n" {
		t.Errorf("note = %q", got)
	}
	if refs := run(t, dir, "for-each-ref", "refs/notes/"); strings.Contains(refs, "scratch") {
		t.Errorf("a scratch ref was left:\n%s", refs)
	}
}

// TestAppendWithoutIdentity: a repository where git knows no user still gets its notes.
func TestAppendWithoutIdentity(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	head := run(t, dir, "rev-parse", "HEAD")
	for _, v := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	run(t, dir, "config", "user.useConfigOnly", "true")
	if err := Append(ctx, dir, testNotes, head, "noted\n"); err != nil {
		t.Fatal(err)
	}
	if got := run(t, dir, "log", "-1", "--format=%an", testNotes); got != "git-ralph" {
		t.Errorf("notes commit by %q", got)
	}
}

// TestAppendConcurrently: writers at once, in two work trees of one repository as two
// loops would be, all on one commit: every note lands. With a bare `git notes append` on
// the ref, about half of them were lost, without an error from git.
func TestAppendConcurrently(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	run(t, dir, "worktree", "add", "-q", "-b", "side", wt)
	head := run(t, dir, "rev-parse", "HEAD")
	const writers, each = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			where := []string{dir, wt}[w%2]
			for i := range each {
				errs <- Append(ctx, where, testNotes, head, fmt.Sprintf("writer %d note %d\n", w, i))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	note := noteOf(t, dir, head)
	for w := range writers {
		for i := range each {
			if !strings.Contains(note, fmt.Sprintf("writer %d note %d\n", w, i)) {
				t.Errorf("writer %d note %d is lost", w, i)
			}
		}
	}
}

func TestMergeKeepsBothSides(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	head := run(t, dir, "rev-parse", "HEAD")
	write(t, dir, "b.txt", "b\n")
	run(t, dir, "add", "b.txt")
	run(t, dir, "commit", "-q", "-m", "second")
	second := run(t, dir, "rev-parse", "HEAD")
	if err := Append(ctx, dir, testNotes, head, "shared\n"); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "update-ref", "refs/notes/theirs", testNotes)
	run(t, dir, "notes", "--ref=theirs", "append", "-m", "theirs on head", head)
	run(t, dir, "notes", "--ref=theirs", "add", "-m", "theirs on second", second)
	if err := Append(ctx, dir, testNotes, head, "ours\n"); err != nil {
		t.Fatal(err)
	}
	if err := Merge(ctx, dir, testNotes, "refs/notes/theirs"); err != nil {
		t.Fatal(err)
	}
	got := noteOf(t, dir, head)
	for _, want := range []string{"shared", "ours", "theirs on head"} {
		if !strings.Contains(got, want) {
			t.Errorf("note of head lost %q:\n%s", want, got)
		}
	}
	if got := noteOf(t, dir, second); got != "theirs on second\n" {
		t.Errorf("note of second = %q", got)
	}
}

func TestNotesPushMergesWhenTheRemoteMoved(t *testing.T) {
	ctx := context.Background()
	work, bare := pushRepos(t)
	head := run(t, work, "rev-parse", "HEAD")
	run(t, work, "push", "-q", "origin", "main")
	other := filepath.Join(t.TempDir(), "other")
	run(t, work, "clone", "-q", bare, other)

	if found, err := Fetch(ctx, other, "origin", testNotes); err != nil || found {
		t.Fatalf("fetch of notes the remote lacks: %v, %v", found, err)
	}
	if err := Append(ctx, work, testNotes, head, "from work\n"); err != nil {
		t.Fatal(err)
	}
	if err := Push(ctx, work, "origin", testNotes); err != nil {
		t.Fatal(err)
	}
	if err := Append(ctx, other, testNotes, head, "from other\n"); err != nil {
		t.Fatal(err)
	}
	if err := Push(ctx, other, "origin", testNotes); err != nil { // rejected, fetched, merged, pushed
		t.Fatal(err)
	}
	if found, err := Fetch(ctx, work, "origin", testNotes); err != nil || !found {
		t.Fatalf("fetch: %v, %v", found, err)
	}
	for _, dir := range []string{work, other, bare} {
		got := noteOf(t, dir, head)
		if !strings.Contains(got, "from work") || !strings.Contains(got, "from other") {
			t.Errorf("%s: note = %q", filepath.Base(dir), got)
		}
	}
	if refs := run(t, other, "for-each-ref", "refs/notes/"); strings.Contains(refs, "scratch") {
		t.Errorf("a scratch ref was left:\n%s", refs)
	}
}

func TestPushUnreachable(t *testing.T) {
	work, bare := pushRepos(t)
	head := run(t, work, "rev-parse", "HEAD")
	if err := Append(context.Background(), work, testNotes, head, "n\n"); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(bare)
	err := Push(context.Background(), work, "origin", testNotes)
	if err == nil || !strings.Contains(err.Error(), "git push of refs/notes/ralph to origin failed") {
		t.Fatalf("err = %v", err)
	}
}

func TestReadBounds(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	first := run(t, dir, "rev-parse", "HEAD")
	run(t, dir, "notes", "--ref=ralph", "add", "-m", strings.Repeat("x", 100), first)
	var commits []string
	for i := range 3 {
		run(t, dir, "commit", "-q", "--allow-empty", "-m", fmt.Sprint(i))
		commits = append(commits, run(t, dir, "rev-parse", "HEAD"))
		run(t, dir, "notes", "--ref=ralph", "add", "-m", fmt.Sprintf("%019d", i), commits[i])
	}
	notes, err := Read(ctx, dir, testNotes, append(commits, first), Bounds{Each: 50, Total: 45})
	if err != nil {
		t.Fatal(err)
	}
	if n := notes[first]; n.Text != "" || n.TooLarge != 101 {
		t.Errorf("the large note = %+v", n)
	}
	read, skipped := 0, 0
	for _, c := range commits {
		if notes[c].Skipped {
			skipped++
		} else if notes[c].Text != "" {
			read++
		}
	}
	if read != 2 || skipped != 1 {
		t.Errorf("read %d, skipped %d of three 20-byte notes within 45 bytes in all", read, skipped)
	}
	if notes, _ := Read(ctx, dir, testNotes, commits[:1], Bounds{Each: 50, Total: 50}); len(notes) != 1 {
		t.Errorf("notes of commits not asked for were read: %v", notes)
	}
	if notes, err := Read(ctx, dir, "refs/notes/none", commits, Bounds{Each: 50, Total: 50}); err != nil || len(notes) != 0 {
		t.Errorf("no notes ref: %v, %v", notes, err)
	}
}

func TestRemoveScratch(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	head := run(t, dir, "rev-parse", "HEAD")
	mine := scratchRef()
	dead := scratchNotes + "999999999-abc"
	for _, ref := range []string{mine, dead, scratchNotes + "junk"} {
		run(t, dir, "update-ref", ref, head)
	}
	removed, err := RemoveScratch(ctx, dir)
	if err != nil || removed != 2 {
		t.Fatalf("removed %d, %v; want the dead writer's and the unnamed one", removed, err)
	}
	if left := run(t, dir, "for-each-ref", "--format=%(refname)", scratchNotes); left != mine {
		t.Errorf("left: %q, want %q", left, mine)
	}
}

// BenchmarkAppend measures what the ledger adds to an iteration: one note written by
// compare-and-swap (seven git processes), against a bare `git notes append` (one, which
// can lose a concurrent writer's note).
func BenchmarkAppend(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	run(b, dir, "init", "-q")
	run(b, dir, "commit", "-q", "--allow-empty", "-m", "one")
	head := run(b, dir, "rev-parse", "HEAD")
	b.Run("in-process", func(b *testing.B) {
		for b.Loop() {
			if err := appendNoteQuick(ctx, dir, testNotes, head, "git-ralph ledger v1\nrun: r\n"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("git-notes-swap", func(b *testing.B) {
		for b.Loop() {
			if err := appendNoteGit(ctx, dir, testNotes, head, "git-ralph ledger v1\nrun: r\n"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bare-git-notes", func(b *testing.B) {
		for b.Loop() {
			run(b, dir, "notes", "--ref=bare", "append", "-m", "git-ralph ledger v1\nrun: r", head)
		}
	})
}

// A remote that rejects the push (its notes moved) and then stops answering the fetch
// must not hang the loop: the fetch is bounded as the push is.
func TestPushBoundsTheFetchOfARejectedPush(t *testing.T) {
	ctx := context.Background()
	work, bare := pushRepos(t)
	head := run(t, work, "rev-parse", "HEAD")
	run(t, work, "push", "-q", "origin", "main")
	other := filepath.Join(t.TempDir(), "other")
	run(t, work, "clone", "-q", bare, other)
	if err := Append(ctx, work, testNotes, head, "from work\n"); err != nil {
		t.Fatal(err)
	}
	if err := Push(ctx, work, "origin", testNotes); err != nil {
		t.Fatal(err)
	}
	if err := Append(ctx, other, testNotes, head, "from other\n"); err != nil {
		t.Fatal(err)
	}
	run(t, other, "config", "remote.origin.uploadpack", "sleep 30 #") // the fetch hangs
	defer func(old time.Duration) { gitpush.Timeout = old }(gitpush.Timeout)
	gitpush.Timeout = time.Second
	start := time.Now()
	err := Push(ctx, other, "origin", testNotes)
	if err == nil {
		t.Fatal("Push succeeded through a fetch that hangs")
	}
	if took := time.Since(start); took >= 30*time.Second { // what the silent remote takes
		t.Errorf("Push waited %s for the silent remote, past its 1s bound: %v", took, err)
	}
}
