package fleet

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
)

func TestValidationOf(t *testing.T) {
	for _, c := range []struct {
		recorded string
		want     ValidationResult
		text     string
	}{
		{"", ValidationNone, "-"},
		{"passed", ValidationPassed, "passed"},
		{"failed: exit code 2", ValidationFailed, "failed: exit code 2"},
		{"timed out after 10m0s", ValidationFailed, "timed out after 10m0s"},
	} {
		v := ValidationOf(c.recorded)
		if v.Result != c.want || v.Text() != c.text {
			t.Errorf("ValidationOf(%q) = %v %q, want %v %q", c.recorded, v.Result, v.Text(), c.want, c.text)
		}
	}
}

// ranked is three candidates as a best-of ranks them: one passed with a score, one failed,
// one whose score command printed nothing of use and whose worktree was not found.
func ranked() []Figures {
	return []Figures{
		{Name: "try-2", Path: "/r/try-2", Branch: "ralph/try-2", Reason: "max-iters", Iterations: 1, Validation: ValidationOf("passed"), Score: score(7.5), DiffLines: 12},
		{Name: "try-1", Path: "/r/try-1", Branch: "ralph/try-1", Reason: "success", Iterations: 2, Validation: ValidationOf("failed: exit code 1"), Score: score(9), DiffLines: 1},
		{Name: "try-3", Branch: "ralph/try-3", ScoreProblem: "the score command printed \"oops\", not one number", Problem: "no worktree\x1b[2K"},
	}
}

func quoted(s string) string { return strconv.Quote(s)[1 : len(strconv.Quote(s))-1] }

func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, ranked(), true, quoted); err != nil {
		t.Fatal(err)
	}
	want := `RANK  CANDIDATE  STOPPED    VALIDATION           SCORE   ITERATIONS  DIFF
1     try-2      max-iters  passed               7.5     1           12 lines
2     try-1      success    failed: exit code 1  9       2           1 line
3     try-3      -          -                    failed  0           -
try-3: score: the score command printed \"oops\", not one number
try-3: no worktree\x1b[2K
`
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteTable(&b, ranked()[:1], false, quoted); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "passed      -      1") {
		t.Errorf("without a score command the score is not a dash:\n%s", b.String())
	}
}

func TestWriteWinner(t *testing.T) {
	var b bytes.Buffer
	if err := WriteWinner(&b, ranked()[0], quoted); err != nil {
		t.Fatal(err)
	}
	want := "\nWinner: try-2 (branch ralph/try-2, /r/try-2)\nMerge it: git ralph merge try-2\n" +
		"The other candidates stay until you discard them; 'git ralph runs' lists them.\n"
	if b.String() != want {
		t.Errorf("winner:\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	_ = WriteWinner(&b, ranked()[1], quoted)
	if !strings.Contains(b.String(), "Its validation failed too: no candidate passed.") {
		t.Errorf("a failed winner is not said so:\n%s", b.String())
	}
}

func TestRankingKeptAndReadBack(t *testing.T) {
	dir := newRepo(t)
	ctx := context.Background()
	if _, found, err := LoadRanking(ctx, dir, "try"); found || err != nil {
		t.Fatalf("before any: found %v, err %v", found, err)
	}
	at := time.Date(2026, 11, 28, 21, 3, 0, 0, time.UTC)
	r := Ranking{Name: "try", Candidates: []string{"try-1", "try-2", "try-3"}, Score: "./score.sh", StartedAt: at.Add(-time.Hour), RankedAt: at, Ranked: ranked()}
	if err := KeepRanking(ctx, dir, r); err != nil {
		t.Fatal(err)
	}
	got, found, err := LoadRanking(ctx, dir, "try")
	if err != nil || !found {
		t.Fatalf("LoadRanking: found %v, err %v", found, err)
	}
	if !got.IsRanked() || !got.RankedAt.Equal(at) || got.Score != "./score.sh" || len(got.Ranked) != 3 {
		t.Fatalf("read back %+v", got)
	}
	w, ok := got.Winner()
	if !ok || w.Name != "try-2" || *w.Score != 7.5 || w.Validation.Result != ValidationPassed || w.DiffLines != 12 {
		t.Errorf("winner %+v", w)
	}
	if f := got.Ranked[1]; f.Validation.Detail != "failed: exit code 1" || f.Reason != "success" || f.Iterations != 2 {
		t.Errorf("second %+v", f)
	}
	if f := got.Ranked[2]; f.Score != nil || f.ScoreProblem == "" || f.Problem != "no worktree\x1b[2K" {
		t.Errorf("third %+v", f)
	}
	// a group whose candidates run again has no ranking, no winner
	if err := KeepRanking(ctx, dir, Ranking{Name: "try", Candidates: r.Candidates, StartedAt: at}); err != nil {
		t.Fatal(err)
	}
	got, _, _ = LoadRanking(ctx, dir, "try")
	if _, ok := got.Winner(); ok || got.IsRanked() || !got.Has("try-3") || got.Has("try-4") {
		t.Errorf("unranked group: %+v", got)
	}
	list, bad, err := Rankings(ctx, dir)
	if err != nil || len(bad) != 0 || len(list) != 1 || list[0].Name != "try" {
		t.Errorf("Rankings = %v, %v, %v", list, bad, err)
	}
}

// A ranking's file torn, edited or planted is an error naming the file and what is
// wrong, with a hint; never a panic, and never a ranking of loops that are not the
// group's candidates.
func TestRankingFileHostile(t *testing.T) {
	dir := newRepo(t)
	ctx := context.Background()
	common, err := gitops.CommonDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	good := "schema_version = 1\nname = \"try\"\ncandidates = [\"try-1\", \"try-2\"]\n"
	for _, c := range []struct{ name, text, want string }{
		{"torn", good + "ranked_at = 2026-11-28T21:03:00Z\n[[ranked]]\nname = \"try-", "try.toml:"},
		{"binary", "\x00\xff\xfe", "cannot be read"},
		{"other group", strings.Replace(good, `name = "try"`, `name = "other"`, 1), `names the group "other"`},
		{"bad group name", strings.ReplaceAll(good, "try", "../x"), ""},
		{"newer", strings.Replace(good, "schema_version = 1", "schema_version = 99", 1), "newer git-ralph"},
		{"foreign candidate", strings.Replace(good, `"try-2"`, `"main"`, 1), `candidates[1]: "main", not "try-2"`},
		{"no candidates", "schema_version = 1\nname = \"try\"\ncandidates = []\n", "candidates: 0 of them"},
		{"ranked stranger", good + "[[ranked]]\nname = \"victim\"\niterations = 1\ndiff_lines = 0\n[ranked.validation]\nresult = \"passed\"\n", `"victim" is not a candidate`},
		{"ranked twice", good + "[[ranked]]\nname = \"try-1\"\n[[ranked]]\nname = \"try-1\"\n", "ranked twice"},
		{"nan score", good + "[[ranked]]\nname = \"try-1\"\nscore = nan\n", "is not a score"},
		{"negative", good + "[[ranked]]\nname = \"try-1\"\niterations = -3\n", "negative"},
		{"unknown validation", good + "[[ranked]]\nname = \"try-1\"\n[ranked.validation]\nresult = \"great\"\n", "no validation result"},
		{"wrong type", good + "[[ranked]]\nname = 5\n", "try.toml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := "try"
			if c.name == "bad group name" {
				name = "x"
				c.text = strings.Replace(c.text, `name = "../x"`, `name = "x"`, 1)
			}
			path := rankingFile(common, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.Remove(path)
			_, found, err := LoadRanking(ctx, dir, name)
			var e *Error
			if err == nil || found || !errors.As(err, &e) || e.Hint() == "" {
				t.Fatalf("LoadRanking = found %v, %v; want an error with a hint", found, err)
			}
			if !strings.Contains(err.Error(), path) && !strings.Contains(err.Error(), filepath.Base(path)) {
				t.Errorf("the error does not name the file: %v", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
			if _, bad, err := Rankings(ctx, dir); err != nil || len(bad) != 1 {
				t.Errorf("Rankings: bad %v, err %v; want the one bad file", bad, err)
			}
		})
	}
	// a name that is no loop's names no file: "../x" would read outside the directory
	if err := os.WriteFile(filepath.Join(common, "ralph", "x.toml"), []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"../x", "", "a/b", "main"} {
		if _, found, err := LoadRanking(ctx, dir, name); found || err != nil {
			t.Errorf("LoadRanking(%q) = found %v, %v; want none", name, found, err)
		}
	}
	// a directory where the file should be
	path := rankingFile(common, "dir")
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadRanking(ctx, dir, "dir"); err == nil {
		t.Error("a directory was read as a ranking")
	}
}
