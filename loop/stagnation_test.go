package loop

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/history"
)

// stagnant is a run with the stagnation check on, at its defaults.
func stagnant(dir, agentCmd string, max int) Config {
	cfg := config(dir, agentCmd, max)
	cfg.StagnationThreshold, cfg.StagnationSimilarity = DefaultStagnationThreshold, DefaultStagnationSimilarity
	return cfg
}

func TestTheSameFailureNudgesThenStops(t *testing.T) {
	dir := newRepo(t)
	// the agent keeps its prompts outside the work tree, edits a file each time (progress
	// as git sees it), and says the same; validation fails the same way, timings aside
	cfg := stagnant(dir, `cat > .git/prompt-$RALPH_ITERATION.txt
		echo "attempt $RALPH_ITERATION" >> parse.go
		echo "Fixed the off-by-one in parse."`, 10)
	cfg.ValidateCmd = `echo "--- FAIL: TestParse (0.0$RALPH_ITERATION s)"; echo "    parse_test.go:12: got 3, want 4"; exit 1`
	rec := &recorder{}
	res, err := Run(context.Background(), cfg, Deps{Reporter: rec})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusStagnant || res.StopCause() != "repeated_attempt" || res.Iterations != 4 || res.Status.ExitCode() != 6 {
		t.Fatalf("status %s (cause %s) after %d iterations, want stagnation (repeated_attempt) after 4", res.Status, res.StopCause(), res.Iterations)
	}
	for _, want := range []string{"iteration 4 repeated the same attempt", "the validation failed the same way", "4 iterations in a row"} {
		if !strings.Contains(res.Reason, want) {
			t.Errorf("reason %q lacks %q", res.Reason, want)
		}
	}
	if !strings.Contains(res.Hint, "stagnation_threshold = 0") {
		t.Errorf("hint %q does not say how to turn the check off", res.Hint)
	}
	for n := 1; n <= 4; n++ {
		prompt, _ := os.ReadFile(filepath.Join(dir, ".git", "prompt-"+string(rune('0'+n))+".txt"))
		if got := strings.Contains(string(prompt), "You are repeating the same attempt"); got != (n == 4) {
			t.Errorf("prompt of iteration %d carries the nudge: %v, want %v:\n%s", n, got, n == 4, prompt)
		}
	}
	f := rec.finished()
	if f[0].Record.Similarity != nil {
		t.Errorf("iteration 1 has figures with nothing to compare: %+v", f[0].Record.Similarity)
	}
	third := f[2].Record.Similarity
	if third == nil || *third.Message != 100 || *third.Validation != 100 || third.Repeats != 3 || !third.Nudged {
		t.Errorf("iteration 3's figures = %+v, want 100 %% alike, 3 repeats, nudged", third)
	}
	saved, err := history.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := saved.Get(f[3].Record.Iteration); err != nil || got.Similarity == nil || got.Similarity.Repeats != 4 {
		t.Errorf("record of iteration 4 as saved: %+v, %v; want 4 repeats", got.Similarity, err)
	}
	warned := false
	for _, e := range rec.events {
		if w, ok := e.(Warning); ok && strings.Contains(w.Message, "iteration 3 repeated the same attempt") {
			warned = true
		}
	}
	if !warned {
		t.Error("no warning told of the nudge")
	}
}

func TestAnOscillatingAgentStops(t *testing.T) {
	dir := newRepo(t)
	cfg := stagnant(dir, `if [ $((RALPH_ITERATION % 2)) = 1 ]; then echo A > limit.txt; v=A; else echo B > limit.txt; v=B; fi
		echo "Set the limit to $v."`, 10)
	res, err := Run(context.Background(), cfg, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusStagnant || res.StopCause() != "oscillation" || res.Iterations != 4 {
		t.Fatalf("status %s (cause %s) after %d iterations, want stagnation (oscillation) after 4: %s", res.Status, res.StopCause(), res.Iterations, res.Reason)
	}
	if !strings.Contains(res.Reason, "went back to what they were two iterations ago") {
		t.Errorf("reason %q does not name the oscillation", res.Reason)
	}
}

func TestProgressThatLooksAlikeGoesOn(t *testing.T) {
	dir := newRepo(t)
	// a plan of ten items; each iteration does one and says "Done."; validation lists
	// what is left, so it fails almost the same way every time, but less each time
	if err := os.WriteFile(filepath.Join(dir, "TODO"), []byte("alpha\nbravo\ncharlie\ndelta\necho\nfoxtrot\ngolf\nhotel\nindia\njuliet\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := stagnant(dir, `sed -i 1d TODO; echo Done.`, 8)
	cfg.ValidateCmd = `test ! -s TODO || { echo "left to do:"; cat TODO; exit 1; }`
	res, err := Run(context.Background(), cfg, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusMaxIters || res.Iterations != 8 {
		t.Fatalf("status %s after %d iterations, want max-iters after 8: %s", res.Status, res.Iterations, res.Reason)
	}
}

func TestStagnationOffByDefaultInConfig(t *testing.T) {
	dir := newRepo(t)
	cfg := config(dir, `echo "attempt" >> f; echo Same.`, 5)
	cfg.ValidateCmd = `echo FAIL; exit 1`
	res, err := Run(context.Background(), cfg, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusMaxIters {
		t.Fatalf("status %s with the check at 0, want max-iters", res.Status)
	}
}

// The agent's last words are compared by their end, bounded however long the output.
func TestFinalWords(t *testing.T) {
	prompt := "do it\n"
	long := strings.Repeat("working on it\n", 1<<20/14) + "Fixed the parser.\n"
	got := finalWords(long, prompt)
	if !strings.HasSuffix(got, "Fixed the parser.") || len(got) > finalBytes || strings.Count(got, "\n") >= finalLines {
		t.Errorf("finalWords of %d bytes = %d bytes, %d lines, ending %q", len(long), len(got), strings.Count(got, "\n")+1, got[max(0, len(got)-30):])
	}
	if got := finalWords("do it\nDone.\n", prompt); got != "Done." {
		t.Errorf("finalWords with the prompt echoed = %q, want %q", got, "Done.")
	}
	// an echo of a long prompt that reaches into the part kept is removed whole
	longPrompt := strings.Repeat("a line of a long prompt\n", 2000)
	if got := finalWords("start\n"+longPrompt+"Done.\n", longPrompt); got != "start\nDone." {
		t.Errorf("finalWords with a long prompt echoed = %q", got[:min(len(got), 200)])
	}
	// a plain-text agent's last words are its whole output, up to max_output_buffer: only
	// the end is read (reading all of 10 MiB took 0.6 s, redacting it), so ten times the
	// output takes about as long, against a baseline of the same run (the least processor
	// time of three runs of each: other processes of a busy machine do not add to it)
	line := "some agent output line with words and numbers 12345\n"
	one, ten := strings.Repeat(line, 1<<20/len(line)), strings.Repeat(line, 10<<20/len(line))
	ratio := float64(fastest(func() { finalWords(ten, prompt) })) / float64(fastest(func() { finalWords(one, prompt) }))
	if ratio > 4 {
		t.Errorf("finalWords of 10 MiB took %.1f times as long as of 1 MiB: it reads more than the end", ratio)
	}
}

// fastest is the least processor time of three runs of f.
func fastest(f func()) time.Duration {
	best := time.Duration(1<<63 - 1)
	for range 3 {
		start := cpuTime()
		f()
		best = min(best, cpuTime()-start)
	}
	return best
}
