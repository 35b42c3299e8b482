package mergequeue

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/gitops/gitmerge"
	"github.com/git-ralph/git-ralph/gitops/gittest"
	"github.com/git-ralph/git-ralph/gitops/gitwt"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

func TestMain(m *testing.M) { gittest.Main(m, nil) }

// git runs git in dir, failing the test on an error.
var git = gittest.Git

// halfMerged is a repository with a worktree loop k one commit ahead of main, main one
// commit ahead of where k started, and the merge of the two built (not landed): what a
// merge killed after its build leaves.
func halfMerged(t *testing.T) (r repo, before, result string) {
	t.Helper()
	ctx := context.Background()
	main := gittest.NewRepo(t)
	l, err := fleet.Open(ctx, main, "k", "")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(l.Path, "k.txt"), []byte("k\n"), 0o644)
	git(t, l.Path, "add", "k.txt")
	git(t, l.Path, "commit", "-q", "-m", "k")
	os.WriteFile(filepath.Join(main, "m.txt"), []byte("m\n"), 0o644)
	git(t, main, "add", "m.txt")
	git(t, main, "commit", "-q", "-m", "m")
	before = git(t, main, "rev-parse", "main")
	built, err := gitmerge.Build(ctx, main, before, git(t, main, "rev-parse", "ralph/k"), gitmerge.HowMerge, "merged")
	if err != nil {
		t.Fatal(err)
	}
	r, _, err = open(ctx, main, "k")
	if err != nil {
		t.Fatal(err)
	}
	return r, before, built.Commit
}

func TestRecoverByPhase(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		phase     string
		swapped   bool // the base had already moved when the command died
		wantMoved bool
		wantState string // "" : the entry is gone
	}{
		{history.PhaseBuilding, false, false, ""},
		{history.PhaseValidating, false, false, ""},
		{history.PhaseLanding, false, true, history.MergeMerged}, // validated: the landing is finished
		{history.PhaseLanding, true, true, history.MergeMerged},
		{history.PhaseUpdating, true, true, history.MergeMerged},
	} {
		t.Run(fmt.Sprintf("%s-swapped=%v", tc.phase, tc.swapped), func(t *testing.T) {
			r, before, result := halfMerged(t)
			scratch := r.scratchPath("k")
			if err := gitwt.Add(ctx, r.dir, scratch, result); err != nil {
				t.Fatal(err)
			}
			e := history.Merge{Name: "k", State: history.MergeMerging, How: gitmerge.HowMerge, BaseBranch: "refs/heads/main",
				RequestedAt: time.Now(), Phase: tc.phase, Scratch: scratch, BaseBefore: before, Tip: git(t, r.dir, "rev-parse", "ralph/k"), Result: result}
			if tc.phase == history.PhaseBuilding {
				e.Result = ""
			}
			history.SaveMerge(r.common, e)
			if tc.swapped {
				git(t, r.dir, "update-ref", "refs/heads/main", result, before)
			}
			notes, err := Recover(ctx, r.dir)
			if err != nil || len(notes) == 0 {
				t.Fatalf("Recover = %v, %v; want a note", notes, err)
			}
			want := before
			if tc.wantMoved {
				want = result
			}
			if now := git(t, r.dir, "rev-parse", "main"); now != want {
				t.Errorf("main is at %s, want %s", now, want)
			}
			if st := git(t, r.main, "status", "--porcelain", "--untracked-files=no"); st != "" {
				t.Errorf("the main work tree does not match main: %q", st)
			}
			if _, err := os.Lstat(scratch); err == nil {
				t.Error("the scratch worktree is still there")
			}
			got, found, _ := history.LoadMerge(r.common, "k")
			if (tc.wantState == "") == found || (found && got.State != tc.wantState) {
				t.Errorf("the entry is %+v (found %v), want state %q", got, found, tc.wantState)
			}
		})
	}
}

func TestRecoverLeavesALiveMergeAlone(t *testing.T) {
	ctx := context.Background()
	r, before, _ := halfMerged(t)
	own, err := history.HoldMerge(r.common, "k") // its command lives
	if err != nil {
		t.Fatal(err)
	}
	history.SaveMerge(r.common, history.Merge{Name: "k", State: history.MergeQueued, BaseBranch: "refs/heads/main", RequestedAt: time.Now()})
	if notes, err := Recover(ctx, r.dir); err != nil || len(notes) != 0 {
		t.Fatalf("Recover = %v, %v; want nothing done", notes, err)
	}
	if got, found, _ := history.LoadMerge(r.common, "k"); !found || got.State != history.MergeQueued {
		t.Fatalf("a live queued merge was touched: %+v %v", got, found)
	}
	if now := git(t, r.dir, "rev-parse", "main"); now != before {
		t.Fatal("main moved")
	}
	own.Release()
	if notes, _ := Recover(ctx, r.dir); len(notes) != 1 {
		t.Fatalf("once its command is gone, the queued merge is dropped: notes %v", notes)
	}
	if _, found, _ := history.LoadMerge(r.common, "k"); found {
		t.Fatal("the dead queued merge is still there")
	}
}
