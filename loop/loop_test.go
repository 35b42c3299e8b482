package loop

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/gitops/gittest"
	"github.com/git-ralph/git-ralph/history"
)

type recorder struct{ events []Event }

func (r *recorder) Report(e Event) { r.events = append(r.events, e) }

func (r *recorder) finished() []IterationFinished {
	var out []IterationFinished
	for _, e := range r.events {
		if f, ok := e.(IterationFinished); ok {
			out = append(out, f)
		}
	}
	return out
}

func TestMain(m *testing.M) { gittest.Main(m, nil) }

// newRepo makes a git repository, without a commit, with a build prompt.
func newRepo(t *testing.T) string {
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "PROMPT_build.md"), []byte("do it\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// config is a run that never stops for idleness unless a test says so.
func config(dir, agentCmd string, max int) Config {
	return Config{Dir: dir, Mode: "build", AgentCmd: agentCmd, MaxIterations: max,
		MaxConsecutiveErrors: 3, MaxOutputBuffer: 1 << 20}
}

func TestRunStopConditions(t *testing.T) {
	tests := []struct {
		name       string
		agent      string
		max        int
		want       Status
		iterations int
	}{
		{"max iterations", "true", 3, StatusMaxIters, 3},
		{"success signal", `[ "$RALPH_ITERATION" = 2 ] && echo "<promise>SUCCESS</promise>"; true`, 5, StatusSuccess, 2},
		{"consecutive failures", "exit 1", 10, StatusAborted, 3},
		{"failure counter resets on success",
			`case $RALPH_ITERATION in 3) exit 0;; *) exit 1;; esac`, 10, StatusAborted, 6},
		{"unlimited until success", `[ "$RALPH_ITERATION" = 8 ] && echo "<promise>SUCCESS</promise>"; true`, 0, StatusSuccess, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			res, err := Run(context.Background(), config(newRepo(t), tt.agent, tt.max), Deps{Reporter: rec})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != tt.want || res.Iterations != tt.iterations || res.Stats.Count != tt.iterations {
				t.Errorf("status %s after %d iterations (stats %d), want %s after %d",
					res.Status, res.Iterations, res.Stats.Count, tt.want, tt.iterations)
			}
			if got := len(rec.finished()); got != tt.iterations {
				t.Errorf("%d IterationFinished events, want %d", got, tt.iterations)
			}
		})
	}
}

func TestRunGivesTheAgentItsEnvironment(t *testing.T) {
	dir := newRepo(t)
	cfg := config(dir, `echo "$RALPH_ITERATION $RALPH_MODE [$RALPH_MAX_ITERATIONS] ${RALPH_RUN:+run} $(cat)" >> env.log`, 2)
	if _, err := Run(context.Background(), cfg, Deps{}); err != nil {
		t.Fatal(err)
	}
	cfg.MaxIterations, cfg.AgentCmd = 0, `echo "[$RALPH_MAX_ITERATIONS]" >> env.log; echo "<promise>SUCCESS</promise>"`
	if _, err := Run(context.Background(), cfg, Deps{}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "env.log"))
	want := "1 build [2] run do it\n2 build [2] run do it\n[]\n"
	if string(got) != want {
		t.Errorf("env.log = %q, want %q", got, want)
	}
}

func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	dir := newRepo(t)
	// interrupt once the agent runs, not after a fixed time: on a loaded machine the
	// snapshot before the first iteration took longer than that, and was what got cancelled
	go func() {
		defer cancel()
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
				return
			}
		}
	}()
	rec := &recorder{}
	res, err := Run(ctx, config(dir, "touch started; sleep 30", 5), Deps{Reporter: rec})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusInterrupted || res.Status.ExitCode() != 130 || res.Iterations != 0 {
		t.Errorf("status %s after %d iterations", res.Status, res.Iterations)
	}
	if f := rec.finished(); len(f) != 1 || f[0].Outcome != OutcomeInterrupted {
		t.Errorf("finished events: %+v", f)
	}
}

func TestRunTimeoutIsAFailureEvenWithSuccess(t *testing.T) {
	cfg := config(newRepo(t), `echo "<promise>SUCCESS</promise>"; sleep 30`, 1)
	cfg.Timeout = 200 * time.Millisecond
	rec := &recorder{}
	res, err := Run(context.Background(), cfg, Deps{Reporter: rec})
	if err != nil {
		t.Fatal(err)
	}
	f := rec.finished()
	if res.Status != StatusMaxIters || len(f) != 1 || f[0].Outcome != OutcomeFailure || f[0].Reason != "timed out after 200ms" {
		t.Errorf("status %s, finished %+v", res.Status, f)
	}
}

func TestRunFailsWhenThePromptVanishes(t *testing.T) {
	dir := newRepo(t)
	rec := &recorder{}
	_, err := Run(context.Background(), config(dir, "rm PROMPT_build.md", 3), Deps{Reporter: rec})
	if err == nil {
		t.Fatal("Run went on without a prompt file")
	}
	last, ok := rec.events[len(rec.events)-1].(RunFinished)
	if !ok || last.Result.Status != StatusAborted || !strings.Contains(last.Result.Reason, "PROMPT_build.md") {
		t.Errorf("a started run that fails does not end with RunFinished, aborted, saying why: %#v", rec.events[len(rec.events)-1])
	}
}

func TestValidate(t *testing.T) {
	good := config("/tmp", "true", 1)
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*Config){
		"no agent":          func(c *Config) { c.AgentCmd = " " },
		"negative max":      func(c *Config) { c.MaxIterations = -1 },
		"negative timeout":  func(c *Config) { c.Timeout = -time.Second },
		"zero threshold":    func(c *Config) { c.MaxConsecutiveErrors = 0 },
		"zero output bytes": func(c *Config) { c.MaxOutputBuffer = 0 },
	} {
		c := good
		mutate(&c)
		if c.Validate() == nil {
			t.Errorf("%s: Validate accepted it", name)
		}
	}
}

func TestOutputLogKeepsBeginningAndEnd(t *testing.T) {
	tests := []struct {
		name, output string
		limit, ring  int
		want         string
	}{
		{"fits", "hello", 10, 10, "hello"},
		{"head and tail overlap", "abcdefgh", 5, 6, "abcdefgh"},
		{"a gap", "abcdefghijklmnop", 4, 4, "abcd\n[git-ralph: 8 bytes of output omitted]\nmnop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "output.log")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			log := newOutputLog(f, int64(tt.limit))
			for i := 0; i < len(tt.output); i += 3 {
				log.Write([]byte(tt.output[i:min(i+3, len(tt.output))]))
			}
			tail := tt.output[max(0, len(tt.output)-tt.ring):]
			if err := log.close([]byte(tail), int64(len(tt.output))); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(path); string(got) != tt.want {
				t.Errorf("log = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRunIgnoresTheTagsOfAnEchoedPrompt(t *testing.T) {
	dir := newRepo(t)
	prompt := "Print <promise>SUCCESS</promise> when done, <promise>FAILURE</promise> when blocked.\n"
	os.WriteFile(filepath.Join(dir, "PROMPT_build.md"), []byte(prompt), 0o644)
	rec := &recorder{}
	res, err := Run(context.Background(), config(dir, "cat; echo did some work", 2), Deps{Reporter: rec})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusMaxIters || res.Consecutive != 0 {
		t.Errorf("an echoed prompt decided the run: %s, consecutive %d", res.Status, res.Consecutive)
	}
	res, err = Run(context.Background(), config(dir, "cat; echo '<promise>SUCCESS</promise>'", 2), Deps{Reporter: rec})
	if err != nil || res.Status != StatusSuccess {
		t.Errorf("the agent's own SUCCESS after an echo: %s %v", res.Status, err)
	}
}

// Each cause of a stop has its exit code (SPEC "Exit codes"), and a cause word for
// --json's run_finished, so that a script can tell them apart without reading words.
func TestExitCodesAndCausesPerStop(t *testing.T) {
	for _, c := range []struct {
		res   Result
		code  int
		cause string
	}{
		{Result{Status: StatusSuccess}, 0, "success"},
		{Result{Status: StatusAborted}, 1, "consecutive_errors"},
		{Result{Status: StatusAborted, Reason: "git failed"}, 1, "error"},
		{Result{Status: StatusAborted, Reason: "pushed nothing", Cause: "push_failed"}, 1, "push_failed"},
		{Result{Status: StatusFatal}, 1, "agent_cannot_run"},
		{Result{Status: StatusMaxIters}, 2, "max_iterations"},
		{Result{Status: StatusIdle}, 3, "idle"},
		{Result{Status: StatusLimited}, 4, "usage_limit"},
		{Result{Status: StatusLimited, Cause: "overage"}, 4, "overage"},
		{Result{Status: StatusBudget}, 5, "budget"},
		{Result{Status: StatusStagnant}, 6, "stagnation"},
		{Result{Status: StatusInterrupted}, 130, "interrupted"},
		{Result{Status: StatusInterrupted, Cancelled: true}, 130, "cancelled"},
	} {
		if got := c.res.Status.ExitCode(); got != c.code {
			t.Errorf("%s: exit code %d, want %d", c.res.Status, got, c.code)
		}
		if got := c.res.StopCause(); got != c.cause {
			t.Errorf("%+v: cause %q, want %q", c.res, got, c.cause)
		}
	}
}

// A run stopped because the push after SUCCESS failed says so in its cause.
func TestPushFailedAfterSuccessIsItsOwnCause(t *testing.T) {
	dir := newRepo(t)
	commit := `git -c user.name=a -c user.email=a@a commit -q --allow-empty -m work`
	cfg := config(dir, commit+`; echo "<promise>SUCCESS</promise>"`, 3)
	cfg.Push, cfg.Remote = true, "nowhere"
	res, err := Run(context.Background(), cfg, Deps{Reporter: &recorder{}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusAborted || res.StopCause() != "push_failed" {
		t.Fatalf("status %s, cause %q (%s), want aborted by push_failed", res.Status, res.StopCause(), res.Reason)
	}
}

// The state says an iteration is under way before its agent starts, not only once the
// agent's process group is saved: the pre-push hook reads it, and an agent (or a person)
// quick enough pushed half-done work through the gap.
func TestStateSaysInIterationBeforeTheAgentRuns(t *testing.T) {
	dir := newRepo(t)
	cfg := config(dir, `cp .ralph/state.toml seen.toml`, 1)
	if _, err := Run(context.Background(), cfg, Deps{Reporter: &recorder{}}); err != nil {
		t.Fatal(err)
	}
	seen, err := os.ReadFile(filepath.Join(dir, "seen.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(seen), "in_iteration = true") {
		t.Errorf("the state the agent saw as it started does not say an iteration is under way:\n%s", seen)
	}
	st, _ := history.LoadState(dir)
	if st.InIteration {
		t.Errorf("the state still says an iteration is under way after the run")
	}
}
