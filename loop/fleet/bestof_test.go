package fleet

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/history"
)

func TestCandidateNames(t *testing.T) {
	got, err := CandidateNames("try", 3)
	if err != nil || strings.Join(got, " ") != "try-1 try-2 try-3" {
		t.Fatalf("CandidateNames = %q, %v", got, err)
	}
	for _, n := range []int{0, -1, MaxCandidates + 1} {
		var e *Error
		if _, err := CandidateNames("try", n); !errors.As(err, &e) || e.Hint() == "" {
			t.Errorf("CandidateNames(%d) = %v, want an error with a hint", n, err)
		}
	}
	if _, err := CandidateNames(strings.Repeat("x", maxName-1), 2); err == nil {
		t.Error("a name too long once numbered was taken")
	}
}

func score(f float64) *float64 { return &f }

func TestRank(t *testing.T) {
	list := []Figures{
		{Name: "c-1", Validation: ValidationOf("failed: exit code 1"), Score: score(99), Iterations: 1},
		{Name: "c-2", Validation: ValidationOf("passed"), Score: score(1), Iterations: 5, DiffLines: 100},
		{Name: "c-3", Validation: ValidationOf("passed"), ScoreProblem: "not a number", Iterations: 1},
		{Name: "c-4", Validation: ValidationOf("passed"), Score: score(1), Iterations: 5, DiffLines: 10},
		{Name: "c-5", Validation: ValidationOf("passed"), Score: score(2), Iterations: 9, DiffLines: 500},
		{Name: "c-6", Validation: ValidationOf(""), Score: score(50), Iterations: 1},
		{Name: "c-8", Validation: ValidationOf(""), Score: score(80)},
		{Name: "c-7", Validation: ValidationOf("passed"), Score: score(1), Iterations: 3, DiffLines: 900},
		{Name: "c-10", Validation: ValidationOf("passed"), Score: score(1), Iterations: 5, DiffLines: 10},
	}
	Rank(list)
	var got []string
	for _, f := range list {
		got = append(got, f.Name)
	}
	// passed before none before failed; a higher score; fewer iterations; a smaller diff;
	// a failed score after the numbers; c-4 before c-10; one that never ran last
	want := "c-5 c-7 c-4 c-10 c-2 c-3 c-6 c-1 c-8"
	if strings.Join(got, " ") != want {
		t.Errorf("Rank = %s, want %s", strings.Join(got, " "), want)
	}
}

func TestRunEachRunsAtMostJobsAtATime(t *testing.T) {
	var now, most atomic.Int32
	names := []string{"a", "b", "c", "d", "e"}
	errs := RunEach(context.Background(), names, 2, func(ctx context.Context, name string) error {
		n := now.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(20 * time.Millisecond)
		now.Add(-1)
		if name == "c" {
			return errors.New("c failed")
		}
		return nil
	})
	if most.Load() != 2 {
		t.Errorf("at most %d ran at a time, want 2", most.Load())
	}
	if len(errs) != 5 || errs["c"] == nil || errs["a"] != nil {
		t.Errorf("errors = %v", errs)
	}
}

func TestRunEachStartsNothingOnceCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var ran []string
	errs := RunEach(ctx, []string{"a", "b", "c"}, 1, func(ctx context.Context, name string) error {
		mu.Lock()
		ran = append(ran, name)
		mu.Unlock()
		cancel()
		<-ctx.Done()
		return nil
	})
	if len(ran) != 1 || errs["b"] == nil || errs["c"] == nil {
		t.Errorf("ran %v after a cancel, errors %v", ran, errs)
	}
}

func TestRunScore(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	if n, problem := runScore(ctx, dir, "echo ' 4.5 '"); n == nil || *n != 4.5 || problem != "" {
		t.Errorf("a number: %v, %q", n, problem)
	}
	for cmd, want := range map[string]string{
		"echo abc":              `printed "abc", not one number`,
		"echo 1 2":              "not one number",
		"true":                  `printed "", not one number`,
		"echo NaN":              "not one number",
		"echo oops >&2; exit 3": "failed (exit status 3): oops",
	} {
		if n, problem := runScore(ctx, dir, cmd); n != nil || !strings.Contains(problem, want) {
			t.Errorf("runScore(%q) = %v, %q; want a problem with %q", cmd, n, problem, want)
		}
	}
}

func TestPrefixedKeepsLinesWhole(t *testing.T) {
	var b strings.Builder
	p := NewPrefixed(&b)
	one, two := p.Writer("[1] "), p.Writer("[2] ")
	one.Write([]byte("half"))
	two.Write([]byte("whole\n"))
	one.Write([]byte(" line\nlast"))
	one.Close()
	two.Close()
	if want := "[2] whole\n[1] half line\n[1] last\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// A candidate whose run ended for good is not run again; one never started, interrupted,
// crashed or limited is.
func TestUnfinished(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	states := map[string]history.State{
		"c-1": {StopReason: history.StopSuccess},
		"c-2": {StopReason: history.StopInterrupted},
		"c-3": {StopReason: history.StopMaxIters, Active: true}, // died mid-run: crashed
		"c-4": {StopReason: history.StopLimited},
		"c-5": {StopReason: history.StopIdle},
	}
	for name, st := range states {
		l, err := Open(ctx, repo, name, "")
		if err != nil {
			t.Fatal(err)
		}
		st.SchemaVersion, st.Run, st.Iteration = history.StateSchema, "r", 1
		if err := history.SaveState(l.Path, st); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Unfinished(ctx, repo, []string{"c-1", "c-2", "c-3", "c-4", "c-5", "c-6"})
	if err != nil || strings.Join(got, " ") != "c-2 c-3 c-4 c-6" {
		t.Errorf("Unfinished = %q, %v; want c-2 c-3 c-4 c-6", got, err)
	}
}

// A score command that times out or is cancelled takes what it started with it.
func TestRunScoreLeavesNoProcess(t *testing.T) {
	dir := t.TempDir()
	pidFile := dir + "/pid"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { // cancelled once the command has started its child, however long that takes
		for readPID(pidFile) <= 0 {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	n, problem := runScore(ctx, dir, "sleep 300 & echo $! > "+pidFile+".new; mv "+pidFile+".new "+pidFile+"; wait")
	if n != nil || problem == "" {
		t.Fatalf("a cancelled score = %v, %q", n, problem)
	}
	pid := readPID(pidFile)
	// a busy machine may take a while to stop it: a minute, which its sleep 300 outlasts
	for deadline := time.Now().Add(time.Minute); alive(pid) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if alive(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the score command's child %d still runs", pid)
	}
}

// readPID is the pid written whole in file; 0 when there is none yet.
func readPID(file string) int {
	data, _ := os.ReadFile(file)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return pid
}

// alive reports whether pid runs: a zombie, killed and not yet reaped, does not.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i > 0 && i+2 < len(stat) && stat[i+2] != 'Z' && stat[i+2] != 'X'
}
