package mergequeue

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitmerge"
	"github.com/git-ralph/git-ralph/history"
)

// killedAfterSwap is what a merge killed between moving the base and its work tree
// leaves: its merge record at landing, main at the merge, and the main work tree's
// index and files still at the old commit, with the user's edit of m.txt (a file the
// merge does not change) not staged.
func killedAfterSwap(t *testing.T, state string) (r repo, before, result string) {
	t.Helper()
	r, before, result = halfMerged(t)
	os.WriteFile(filepath.Join(r.main, "m.txt"), []byte("m\nmine\n"), 0o644)
	e := history.Merge{Name: "k", State: state, How: gitmerge.HowMerge, BaseBranch: "refs/heads/main", RequestedAt: time.Now(),
		BaseBefore: before, Tip: git(t, r.dir, "rev-parse", "ralph/k"), Result: result}
	if state == history.MergeMerging {
		e.Phase = history.PhaseLanding
	}
	if err := history.SaveMerge(r.common, e); err != nil {
		t.Fatal(err)
	}
	git(t, r.dir, "update-ref", "refs/heads/main", result, before)
	if st := git(t, r.main, "status", "--porcelain", "--untracked-files=no"); !strings.Contains(st, "D  k.txt") {
		t.Fatalf("the simulated kill should leave the tree behind (k.txt a staged deletion): %q", st)
	}
	return r, before, result
}

// assertFollowed checks that the main work tree stands at main with the user's edit
// kept: git status shows the edit and nothing of the merge.
func assertFollowed(t *testing.T, r repo, result string) {
	t.Helper()
	if now := git(t, r.dir, "rev-parse", "main"); now != result {
		t.Fatalf("main is at %s, want the merge %s", now, result)
	}
	if st := git(t, r.main, "status", "--porcelain", "--untracked-files=no"); st != " M m.txt" {
		t.Fatalf("git status = %q, want only the user's edit ' M m.txt'", st)
	}
	if data, _ := os.ReadFile(filepath.Join(r.main, "m.txt")); string(data) != "m\nmine\n" {
		t.Fatalf("the user's edit was lost: m.txt = %q", data)
	}
}

func TestRecoverBringsTheTreeOfAKilledLandingKeepingEdits(t *testing.T) {
	ctx := context.Background()
	r, _, result := killedAfterSwap(t, history.MergeMerging)
	notes, err := Recover(ctx, r.dir)
	if err != nil || len(notes) != 1 || !strings.Contains(notes[0], "finished") || !strings.Contains(notes[0], "followed, its changes kept") {
		t.Fatalf("Recover = %q, %v; want one note: finished, the tree followed", notes, err)
	}
	assertFollowed(t, r, result)
	if got, _, _ := history.LoadMerge(r.common, "k"); got.State != history.MergeMerged {
		t.Fatalf("the merge is %s, want merged", got.State)
	}
	if notes, _ := Recover(ctx, r.dir); len(notes) != 0 {
		t.Fatalf("a second Recover has nothing to do, said %q", notes)
	}
}

func TestRecoverPutsTheBaseBackWhenAnEditIsInTheWay(t *testing.T) {
	ctx := context.Background()
	r, before, _ := killedAfterSwap(t, history.MergeMerging)
	// after the kill, the user wrote a file of their own where the merge brings k.txt
	os.WriteFile(filepath.Join(r.main, "k.txt"), []byte("mine\n"), 0o644)
	notes, err := Recover(ctx, r.dir)
	if err != nil || len(notes) != 1 || !strings.Contains(notes[0], "undone") || !strings.Contains(notes[0], "k.txt") {
		t.Fatalf("Recover = %q, %v; want one note: undone, naming k.txt", notes, err)
	}
	if now := git(t, r.dir, "rev-parse", "main"); now != before {
		t.Fatalf("main is at %s, want it put back at %s", now, before)
	}
	if st := git(t, r.main, "status", "--porcelain"); st != " M m.txt\n?? k.txt" {
		t.Fatalf("git status = %q, want the user's edit and file only", st)
	}
	if data, _ := os.ReadFile(filepath.Join(r.main, "k.txt")); string(data) != "mine\n" {
		t.Fatalf("the user's file was overwritten: %q", data)
	}
	if _, found, _ := history.LoadMerge(r.common, "k"); found {
		t.Fatal("the undone merge is still in the merge record")
	}
}

// A merge recorded as merged whose tree lags (left by a version that recorded the merge
// before its trees followed): Recover, which status and merge call, brings it along.
func TestRecoverRepairsATreeLeftBehindAMergedRecord(t *testing.T) {
	ctx := context.Background()
	r, _, result := killedAfterSwap(t, history.MergeMerged)
	notes, err := Recover(ctx, r.dir)
	if err != nil || len(notes) != 1 || !strings.Contains(notes[0], "had not followed the merge of k") {
		t.Fatalf("Recover = %q, %v; want one note: the tree was brought along", notes, err)
	}
	assertFollowed(t, r, result)
	if notes, _ := Recover(ctx, r.dir); len(notes) != 0 {
		t.Fatalf("a second Recover has nothing to do, said %q", notes)
	}
	// the record now says its tree followed: a revert the user stages later is theirs
	if e, _, _ := history.LoadMerge(r.common, "k"); !e.TreesFollowed {
		t.Fatalf("the record after the repair: %+v, want trees_followed", e)
	}
	// the user's next commit of everything keeps the merge
	git(t, r.main, "commit", "-q", "-a", "-m", "mine")
	if _, err := gitops.Git(ctx, r.main, "cat-file", "-e", "HEAD:k.txt"); err != nil {
		t.Fatal("the user's commit -a undid the merge")
	}
}

func TestRecoverNamesATreeItCannotRepair(t *testing.T) {
	ctx := context.Background()
	r, before, result := killedAfterSwap(t, history.MergeMerged)
	os.WriteFile(filepath.Join(r.main, "k.txt"), []byte("mine\n"), 0o644)
	notes, err := Recover(ctx, r.dir)
	if err != nil || len(notes) != 1 || !strings.Contains(notes[0], "read-tree -m -u "+short(before)+" "+short(result)) {
		t.Fatalf("Recover = %q, %v; want one note with the command that updates the tree", notes, err)
	}
	if data, _ := os.ReadFile(filepath.Join(r.main, "k.txt")); string(data) != "mine\n" {
		t.Fatalf("the user's file was overwritten: %q", data)
	}
	if now := git(t, r.dir, "rev-parse", "main"); now != result {
		t.Fatal("a merge recorded as merged is not undone")
	}
}

// A tree that followed and whose user then changed a merged file is not lagging.
func TestLagOf(t *testing.T) {
	ctx := context.Background()
	r, before, result := killedAfterSwap(t, history.MergeMerged)
	l, err := lagOf(ctx, r.main, before, result)
	if err != nil || !l.lagging() {
		t.Fatalf("lagOf a tree behind = %+v, %v; want lagging", l, err)
	}
	if err := gitmerge.MoveCheckout(ctx, r.main, before, result); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(r.main, "k.txt"), []byte("changed\n"), 0o644)
	git(t, r.main, "add", "k.txt")
	if l, err := lagOf(ctx, r.main, before, result); err != nil || l.partly() {
		t.Fatalf("lagOf a tree that followed, then changed = %+v, %v; want not behind", l, err)
	}
}

// A change made between the dry run and the landing: the tree refuses to follow, and the
// base goes back to its old commit, the user's file untouched.
func TestLandingUndoneWhenATreeRefuses(t *testing.T) {
	ctx := context.Background()
	r, before, result := halfMerged(t)
	e := history.Merge{Name: "k", BaseBranch: "refs/heads/main", BaseBefore: before, Result: result}
	trees := r.checkouts(ctx, e.BaseBranch, before, result)
	if err := inTheWay(e, trees, false); err != nil || len(trees) != 1 {
		t.Fatalf("a clean main work tree: trees %+v, in the way: %v", trees, err)
	}
	os.WriteFile(filepath.Join(r.main, "k.txt"), []byte("mine\n"), 0o644) // meanwhile
	git(t, r.dir, "update-ref", "refs/heads/main", result, before)
	trees, moved, err := r.followAll(ctx, e, trees)
	if err == nil || len(moved) != 0 || trees[0].Problem == "" {
		t.Fatalf("followAll = %+v, %v, %v; want the tree refusing", trees, moved, err)
	}
	if !r.undoLanding(ctx, e, moved) {
		t.Fatal("undoLanding could not put the base back")
	}
	if now := git(t, r.dir, "rev-parse", "main"); now != before {
		t.Fatalf("main is at %s, want it back at %s", now, before)
	}
	if st := git(t, r.main, "status", "--porcelain"); st != "?? k.txt" {
		t.Fatalf("git status = %q, want the user's file only", st)
	}
	if err := inTheWay(e, trees, true); err == nil || !strings.Contains(err.Error(), "was put back at") || !strings.Contains(err.Error(), "k.txt") {
		t.Fatalf("the error = %v; want it to name k.txt and say the base was put back", err)
	}
}

// Killed halfway through the tree's move: git had written k.txt (the merge's version)
// but not the index. The recovery finishes the move rather than undoing the merge.
func TestRecoverFinishesAMoveKilledHalfway(t *testing.T) {
	ctx := context.Background()
	r, _, result := killedAfterSwap(t, history.MergeMerging)
	os.WriteFile(filepath.Join(r.main, "k.txt"), []byte("k\n"), 0o644)
	notes, err := Recover(ctx, r.dir)
	if err != nil || len(notes) != 1 || !strings.Contains(notes[0], "finished") {
		t.Fatalf("Recover = %q, %v; want one note: finished", notes, err)
	}
	assertFollowed(t, r, result)
}

// TestUndoThatCannotMoveTheBaseLeavesTheTreesWithIt: a landing undone after the base
// moved on (a commit made on it meanwhile) cannot put the base back, so the merge stays;
// the trees already moved back to the old commit follow the merge again rather than
// stand behind their branch (a 'git commit -a' there would undo the merge).
func TestUndoThatCannotMoveTheBaseLeavesTheTreesWithIt(t *testing.T) {
	ctx := context.Background()
	r, before, result := halfMerged(t)
	e := history.Merge{Name: "k", BaseBranch: "refs/heads/main", BaseBefore: before, Result: result}
	git(t, r.dir, "update-ref", "refs/heads/main", result, before)
	if err := gitmerge.MoveCheckout(ctx, r.main, before, result); err != nil {
		t.Fatal(err)
	}
	onTop := git(t, r.dir, "commit-tree", "-p", result, "-m", "meanwhile", result+"^{tree}")
	git(t, r.dir, "update-ref", "refs/heads/main", onTop, result)
	if r.undoLanding(ctx, e, []string{r.main}) {
		t.Fatal("undoLanding put the base back although it had moved on")
	}
	if st := git(t, r.main, "status", "--porcelain", "--untracked-files=no"); st != "" {
		t.Fatalf("git status = %q, want the tree with its branch (the merge's files kept)", st)
	}
}
