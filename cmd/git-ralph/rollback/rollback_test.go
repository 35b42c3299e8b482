package rollback

import (
	"strings"
	"testing"
)

func TestBackupTrailersNeedHeadBranchAndRestored(t *testing.T) {
	msg := "git-ralph rollback backup\n\nRalph-Head: \nRalph-Branch: refs/heads/main\nRalph-Restored: abc\n"
	tr, ok := backupTrailers(msg)
	if !ok || tr[trailerHead] != "" || tr[trailerBranch] != "refs/heads/main" || tr[trailerRestored] != "abc" {
		t.Errorf("backupTrailers = %v, %v", tr, ok)
	}
	if _, ok := backupTrailers("Ralph-Head: x\nRalph-Restored: abc\n"); ok {
		t.Error("a message without Ralph-Branch passed as a backup")
	}
}

func TestSummarisePathsCountsWhatItDoesNotName(t *testing.T) {
	paths := strings.Split("a b c d e f g h i j k l", " ")
	if got, want := summarisePaths(paths), "a, b, c, d, e, f, g, h, i, j and 2 more"; got != want {
		t.Errorf("summarisePaths = %q, want %q", got, want)
	}
	if got := summarisePaths(paths[:2]); got != "a, b" {
		t.Errorf("summarisePaths = %q", got)
	}
}

func TestIntersectPathsKeepsTheOrderOfTheFirst(t *testing.T) {
	got := intersectPaths([]string{"c", "a", "b"}, []string{"b", "c"})
	if strings.Join(got, " ") != "c b" {
		t.Errorf("intersectPaths = %v", got)
	}
}
