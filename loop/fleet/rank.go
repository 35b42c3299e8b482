package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/gitops/gitsnap"
	"github.com/git-ralph/git-ralph/history"
)

// Figures are what a best-of-N ranks a candidate loop by, as it stands after its run.
type Figures struct {
	Name       string             `toml:"name"`
	Path       string             `toml:"path,omitempty"`
	Branch     string             `toml:"branch,omitempty"` // short: ralph/NAME
	Reason     history.StopReason `toml:"reason,omitempty"`
	Iterations int                `toml:"iterations"`
	// Validation is the last recorded iteration's.
	Validation Validation `toml:"validation"`
	Score      *float64   `toml:"score,omitempty"` // nil: no --score, or it failed (ScoreProblem says why)
	// ScoreProblem says why the score command gave no number.
	ScoreProblem string `toml:"score_problem,omitempty"`
	DiffLines    int    `toml:"diff_lines"` // lines added and removed, the base commit to the branch's tip
	Problem      string `toml:"problem,omitempty"`
}

// Ran reports whether the candidate ran at least one iteration.
func (f Figures) Ran() bool { return f.Iterations > 0 }

// Passed reports whether the candidate's last validation passed.
func (f Figures) Passed() bool { return f.Validation.Result == ValidationPassed }

// validationClass orders validation results: passed, then none ran, then failed.
func (f Figures) validationClass() int {
	switch f.Validation.Result {
	case ValidationPassed:
		return 0
	case ValidationNone:
		return 1
	}
	return 2
}

// Rank sorts candidates best first: those that ran an iteration, validation passing first, then the higher score (a
// candidate without a number after those with one), then fewer iterations, then the
// smaller diff against the base, then the candidate's name, so that ties are stable.
func Rank(list []Figures) {
	sort.SliceStable(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if a.Ran() != b.Ran() {
			return a.Ran()
		}
		if ca, cb := a.validationClass(), b.validationClass(); ca != cb {
			return ca < cb
		}
		if (a.Score == nil) != (b.Score == nil) {
			return a.Score != nil
		}
		if a.Score != nil && *a.Score != *b.Score {
			return *a.Score > *b.Score
		}
		if a.Iterations != b.Iterations {
			return a.Iterations < b.Iterations
		}
		if a.DiffLines != b.DiffLines {
			return a.DiffLines < b.DiffLines
		}
		return candidateLess(a.Name, b.Name)
	})
}

// candidateLess orders name-2 before name-10.
func candidateLess(a, b string) bool {
	na, errA := strconv.Atoi(a[strings.LastIndexByte(a, '-')+1:])
	nb, errB := strconv.Atoi(b[strings.LastIndexByte(b, '-')+1:])
	if errA == nil && errB == nil && na != nb {
		return na < nb
	}
	return a < b
}

// ScoreTimeout bounds one run of the score command.
const ScoreTimeout = 10 * time.Minute

// Measure reads the figures of the worktree loop name: its state, its last record, its
// diff against the commit it started from and, when score is not empty, the number the
// score command prints in its worktree. A figure it cannot read is a Problem, not an error:
// the candidate is still shown and ranked.
func Measure(ctx context.Context, dir, name, score string) Figures {
	f := Figures{Name: name, Branch: strings.TrimPrefix(BranchPrefix, "refs/heads/") + name}
	m, err := Find(ctx, dir, name)
	if err != nil {
		f.Problem = err.Error()
		return f
	}
	f.Path = m.Path
	if st, err := history.LoadState(m.Path); err != nil {
		f.Problem = err.Error()
	} else {
		f.Reason, f.Iterations = st.StopReason, st.Iteration
		if st.Active {
			f.Reason = history.StopCrashed
		}
	}
	f.Validation = ValidationOf(lastValidation(m.Path))
	if m.Worktree != nil {
		if c, err := gitsnap.DiffStat(ctx, dir, m.Worktree.BaseCommit, m.Worktree.Branch); err == nil {
			f.DiffLines = c.Insertions + c.Deletions
		} else if f.Problem == "" {
			f.Problem = err.Error()
		}
	}
	if score != "" {
		f.Score, f.ScoreProblem = runScore(ctx, m.Path, score)
	}
	return f
}

// lastValidation is the validation of the newest iteration recorded in the loop at root.
func lastValidation(root string) string {
	store, err := history.OpenStore(root)
	if err != nil {
		return ""
	}
	last, err := store.Last()
	if err != nil {
		return ""
	}
	for n := last; n >= 1 && last-n < 3; n-- { // a number allocated by a run that died is skipped
		rec, err := store.Get(n)
		if errors.Is(err, history.ErrNoRecord) {
			continue
		}
		if err != nil {
			return ""
		}
		return rec.Validation
	}
	return ""
}

// runScore runs the score command with 'sh -c' in dir, in a process group of its own
// that is killed when it ends, times out or is cancelled, and reads the one number it prints
// on stdout; higher is better. A failure or anything but one number comes back as a
// problem, in words.
func runScore(ctx context.Context, dir, score string) (*float64, string) {
	ctx, cancel := context.WithTimeout(ctx, ScoreTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", score)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.WaitDelay = time.Second // a child that keeps the pipes open does not hold us
	cmd.SysProcAttr = scoreGroup()
	cmd.Cancel = func() error { return killGroup(cmd.Process) }
	err := cmd.Run()
	if cmd.Process != nil {
		_ = killGroup(cmd.Process) // nothing it started outlives it
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Sprintf("the score command did not finish within %s", ScoreTimeout)
		}
		return nil, fmt.Sprintf("the score command failed (%v)%s", err, firstLine(errOut.String()))
	}
	text := strings.TrimSpace(out.String())
	n, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(n) || strings.ContainsAny(text, " \t\n") {
		return nil, fmt.Sprintf("the score command printed %q, not one number", clip(text, 40))
	}
	return &n, ""
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	line, _, _ := strings.Cut(s, "\n")
	return ": " + clip(line, 120)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
