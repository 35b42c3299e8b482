package ledgerview

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/gitops/gitnotes"
	"github.com/git-ralph/git-ralph/gitops/gittest"
	"github.com/git-ralph/git-ralph/history/ledger"
	"github.com/git-ralph/git-ralph/loop"
)

func TestMain(m *testing.M) { gittest.Main(m, nil) }

// noteIteration commits n files on the current branch and notes the last commit as one
// iteration that made them.
func noteIteration(t *testing.T, dir, name string, n int) {
	before := gittest.Git(t, dir, "rev-parse", "HEAD")
	for i := range n {
		gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", name+" "+string(rune('a'+i)))
	}
	e := ledger.Entry{Run: "r", Iteration: 1, Mode: "build", Outcome: "success", Before: before, Commits: n}
	if err := gitnotes.Append(context.Background(), dir, loop.NotesRef, gittest.Git(t, dir, "rev-parse", "HEAD"), ledger.Format(e)); err != nil {
		t.Fatal(err)
	}
}

func made(l *Ledger) map[string]bool {
	by := map[string]bool{}
	for _, c := range l.Commits {
		if c.MadeBy != "" {
			by[c.Subject] = true
		}
	}
	return by
}

// TestAttributeAfterRebase: an iteration's earlier commits are its own; once a rebase
// copied the note onto the new commits (notes.rewriteRef), the commits between the note's
// start and the new commit are not all its own, and none is claimed.
func TestAttributeAfterRebase(t *testing.T) {
	ctx := context.Background()
	dir := gittest.NewRepo(t)
	gittest.Git(t, dir, "checkout", "-q", "-b", "feature")
	noteIteration(t, dir, "it", 2)
	l, err := Read(ctx, Request{Root: dir, Revs: []string{"main..feature"}, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	if by := made(l); !by["it a"] || len(by) != 1 || l.WithoutNote != 0 {
		t.Fatalf("made by the iteration: %v, without a note: %d", by, l.WithoutNote)
	}
	gittest.Git(t, dir, "checkout", "-q", "main")
	gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "main moves")
	gittest.Git(t, dir, "checkout", "-q", "feature")
	gittest.Git(t, dir, "-c", "notes.rewriteRef="+loop.NotesRef, "rebase", "-q", "--keep-empty", "main")
	l, err = Read(ctx, Request{Root: dir, Revs: []string{"HEAD"}, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	if by := made(l); len(by) != 0 {
		t.Fatalf("after the rebase, claimed: %v", by)
	}
	if l.Totals.Iterations != 1 || l.WithoutNote != 3 {
		t.Fatalf("iterations %d, without a note %d", l.Totals.Iterations, l.WithoutNote)
	}
}

func TestRangeRefusesOptions(t *testing.T) {
	_, _, err := rangeOf(context.Background(), Request{Revs: []string{"--output=/tmp/x"}})
	if err == nil || !strings.Contains(err.Error(), "is not a revision range") {
		t.Fatalf("err = %v", err)
	}
	var h interface{ Hint() string }
	if !errors.As(err, &h) || !strings.Contains(h.Hint(), "main..HEAD") {
		t.Errorf("no hint on %v", err)
	}
}
