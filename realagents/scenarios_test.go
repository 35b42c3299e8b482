package realagents

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// scenario is one story a real CLI plays: the mock's script and the checks.
type scenario struct {
	name   string
	script []turn
	check  func(r *run)
	judge  []turn // the script of a --judge of the same CLI (workflow_test.go); nil: none
}

// The scenarios every real CLI plays against its vendor's mock. Each is one
// `git ralph loop --agent X` checked from the outside: its exit code and words, the
// history, the repository, the processes left.
var scenarios = []scenario{
	{"success", successScript(), checkSuccess, nil},
	{"tags-not-in-words", []turn{
		{Thinking: "The prompt wants <promise>SUCCESS</promise> at the end; not yet.",
			Shell: "echo '<promise>SUCCESS</promise>' && echo note >> notes.txt"},
		{Text: "I wrote a note. The work is not finished yet."},
	}, checkTagsNotInWords, nil},
	{"limit-reset", append([]turn{
		{Fail: &apiError{Kind: limitError, ResetIn: 4 * time.Second}, Lasts: 4 * time.Second},
	}, successScript()...), checkLimitReset, nil},
	{"quota", []turn{{Fail: &apiError{Kind: quotaError}}}, checkQuota, nil},
	{"bad-credentials", []turn{{Fail: &apiError{Kind: authError}}}, checkBadCredentials, nil},
	{"server-errors", append([]turn{
		// each error lasts a second: long enough for a CLI that retries on its own to
		// give up on it, short enough that git-ralph's three quick retries (0.2 + 0.4 +
		// 0.8 s apart, each a new CLI) outlast both on a fast machine (at 2 s each, a
		// CLI that starts in under a second met the second error on its fourth attempt)
		{Fail: &apiError{Kind: serverError}, Lasts: time.Second},
		{Fail: &apiError{Kind: overloadedErr}, Lasts: time.Second},
	}, successScript()...), checkServerErrors, nil},
	{"hung-stream", []turn{{Hang: true}}, checkHungStream, nil},
	// tasks and their checks (workflow_test.go)
	{"inline-until", untilScript(), checkInlineUntil, nil},
	{"until-feedback", untilFeedbackScript(), checkUntilFeedback, nil},
	{"template", successScript(), checkTemplate, nil},
	{"judge", judgeScript(), checkJudge, judgeAnswers()},
	{"judge-words", successScript(), checkJudgeWords, judgeWordsAnswers()},
	{"judge-hangs", successScript(), checkJudgeHangs, []turn{{Hang: true}}},
	{"judge-writes", []turn{{Text: "I read the code; nothing is done yet."}}, checkJudgeWrites, judgeWritesAnswers()},
	{"judge-cmd-writes", []turn{{Text: "I read the code; nothing is done yet."}}, checkJudgeCommandWrites, judgeWritesAnswers()},
}

// hungAfterChild is hung-stream after the CLI's shell tool started a process in the
// background (as a dev server or a watcher would be): the timeout must stop that one
// too, and the leftovers check must see it — the CLI's grandchild, which carries the
// run's marker only if the CLI passes its environment on. A CLI plays it in its own
// agentCLI.more (codex, gemini, qwen, pi).
var hungAfterChild = scenario{"hung-after-child", []turn{
	{Text: "Starting a watcher.", Shell: "setsid sleep 300 >/dev/null 2>&1 </dev/null &"},
	{Hang: true},
}, checkHungAfterChild, nil}

// checkHungAfterChild: hung-stream, and the hang came after the tool call (the CLI ran
// it and sent its result back); else the scenario is only hung-stream again.
func checkHungAfterChild(r *run) {
	checkHungStream(r)
	for _, s := range r.mock.requests() {
		if s.Turn == 1 {
			return
		}
	}
	r.t.Errorf("the CLI never asked for the turn after its tool call: the background process was not started")
}

// commitCommand is what the model asks the CLI's own shell tool to run: a real commit.
const commitCommand = "printf 'made by the agent\\n' > agent.txt && git add agent.txt && git commit -q -m 'agent: add agent.txt'"

const successWords = "I added agent.txt and committed it.\n<promise>SUCCESS</promise>"

func successScript() []turn {
	return []turn{
		{Thinking: "I will add the file with one shell command.", Text: "Adding agent.txt.", Shell: commitCommand},
		{Text: successWords},
	}
}

// concurrent bounds the loops running at once: each real CLI is a heavy process and the
// machines have two cores.
var concurrent = make(chan struct{}, 3)

func TestRealAgents(t *testing.T) {
	if why := skipReason(); why != "" {
		t.Skip("the real agent CLIs are not run:", why)
	}
	for _, c := range sortedCLIs() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// a CLI's own scenarios (agentCLI.more) come after the common ones
			for _, sc := range append(scenarios[:len(scenarios):len(scenarios)], c.more...) {
				t.Run(sc.name, func(t *testing.T) {
					if why, ok := c.skip[sc.name]; ok {
						t.Skip(why)
					}
					t.Parallel()
					concurrent <- struct{}{}
					defer func() { <-concurrent }()
					r := newRun(t, c, sc.script)
					if sc.judge != nil {
						r.mock.setJudge(sc.judge)
					}
					// deferred, so that a check that stopped the test with Fatal still
					// shows what the mock served and records what the CLI printed: the
					// recording of a failed scenario is the one scripts/agents-latest.sh
					// needs most
					defer func() {
						if t.Failed() {
							t.Logf("the mock served: %+v", r.mock.requests())
						}
						r.record(sc.name)
					}()
					sc.check(r)
				})
			}
		})
	}
}

// checkSuccess: the CLI's own shell tool made a real commit, the agent said SUCCESS in
// its words, and the history (record, tokens and cost, diff) says so.
func checkSuccess(r *run) {
	res := r.loop("--max", "2")
	if res.code != 0 {
		r.t.Fatalf("want exit 0 (SUCCESS)\n%s", res)
	}
	if got := r.git("log", "-1", "--format=%s"); strings.TrimSpace(got) != "agent: add agent.txt" {
		r.t.Errorf("the agent's commit is not HEAD: %q", got)
	}
	recs := r.history()
	if len(recs) != 1 {
		r.t.Fatalf("want 1 iteration in the history, got %d: %+v", len(recs), recs)
	}
	rec := recs[0]
	if rec.Outcome != "done" || rec.Signal != "SUCCESS" || rec.CommitAfter == rec.CommitBefore || rec.FilesChanged != 1 {
		r.t.Errorf("record: want outcome done, signal SUCCESS, one file changed by a commit; got %+v", rec)
	}
	diff := r.ralph("history", "--diff", "1") // history has no positional N
	if diff.code != 0 || !strings.Contains(diff.stdout, "agent.txt") || !strings.Contains(diff.stdout, "+made by the agent") {
		r.t.Errorf("history --diff 1 does not show the agent's change:\n%s", diff)
	}
	checkUsage(r, rec)
}

// checkUsage: the tokens and cost recorded are the CLI's own totals.
func checkUsage(r *run, rec record) {
	if r.cli.totals == nil {
		// the CLI prints no token counts of its own (copilot): git-ralph must record
		// none rather than make some up
		if rec.InputTokens != 0 || rec.OutputTokens != 0 || rec.CostUSD != 0 {
			r.t.Errorf("the CLI prints no totals, yet git-ralph recorded tokens in %d, out %d, $%v",
				rec.InputTokens, rec.OutputTokens, rec.CostUSD)
		}
		return
	}
	tokens, cost, ok := r.cli.totals(r.output(rec.Iteration))
	if !ok {
		r.t.Errorf("the CLI printed no totals of its own in iteration %d", rec.Iteration)
		return
	}
	if tokens.Input == 0 || tokens.Output == 0 {
		r.t.Errorf("the CLI's own totals are empty: %+v", tokens)
	}
	if rec.InputTokens != tokens.Input || rec.OutputTokens != tokens.Output {
		r.t.Errorf("recorded tokens in %d, out %d; the CLI's own totals: in %d, out %d",
			rec.InputTokens, rec.OutputTokens, tokens.Input, tokens.Output)
	}
	if math.Abs(rec.CostUSD-cost) > 1e-9 {
		r.t.Errorf("recorded cost $%v; the CLI's own total: $%v", rec.CostUSD, cost)
	}
}

// checkTagsNotInWords: promise tags in a thinking block, a tool call's input and its
// output are not the agent's words: the loop does not stop.
func checkTagsNotInWords(r *run) {
	res := r.loop("--max", "1")
	if res.code != 2 {
		r.t.Fatalf("want exit 2 (max iterations: the tags were not the agent's words)\n%s", res)
	}
	recs := r.history()
	if len(recs) != 1 || recs[0].Signal != "" {
		r.t.Fatalf("want one iteration without a signal, got %+v", recs)
	}
	// the shell tool really ran (else the tags were in no tool output): notes.txt is in
	// the work tree, whether the agent, git-ralph or nobody committed it
	if note, err := os.ReadFile(filepath.Join(r.repo, "notes.txt")); err != nil || !strings.HasPrefix(string(note), "note\n") {
		r.t.Errorf("the tool call did not run: notes.txt %q, %v", note, err)
	}
}

// checkLimitReset: a usage limit with a stated reset is not an iteration: the loop waits
// for it, then runs the same iteration again, which succeeds.
func checkLimitReset(r *run) {
	res := r.loop("--max", "1")
	if res.code != 0 {
		r.t.Fatalf("want exit 0 after waiting for the limit\n%s", res)
	}
	if !strings.Contains(res.stderr, "usage limit") {
		r.t.Errorf("the loop did not say it waits for a usage limit\n%s", res)
	}
	recs := r.history()
	if len(recs) != 1 || recs[0].Iteration != 1 || recs[0].RateLimitWaits < 1 || recs[0].Outcome != "done" {
		r.t.Fatalf("want iteration 1 done after at least one limit wait, got %+v", recs)
	}
}

// checkQuota: a permanent quota stops the loop at once with the agent's own message.
func checkQuota(r *run) {
	res := r.loop("--max", "3")
	if res.code != 4 {
		r.t.Fatalf("want exit 4 (a permanent limit)\n%s", res)
	}
	checkSays(r, res, quotaError)
	if strings.Contains(res.stderr, "waiting until") {
		r.t.Errorf("the loop waits for a permanent quota\n%s", res)
	}
}

// checkBadCredentials: bad credentials are fatal at once: no wait, no retry.
func checkBadCredentials(r *run) {
	res := r.loop("--max", "3")
	if res.code != 1 {
		r.t.Fatalf("want exit 1 (the agent cannot run)\n%s", res)
	}
	checkSays(r, res, authError)
	if strings.Contains(res.stderr, "waiting until") || strings.Contains(res.stderr, "retrying") {
		r.t.Errorf("the loop waits or retries after bad credentials\n%s", res)
	}
	if recs := r.history(); len(recs) > 1 {
		r.t.Errorf("want at most one iteration, got %d", len(recs))
	}
}

// checkServerErrors: 500 and overload answers are transient: retried quickly, not
// counted as limits, and the iteration then succeeds.
func checkServerErrors(r *run) {
	res := r.loop("--max", "1")
	if res.code != 0 {
		r.t.Fatalf("want exit 0 once the server answers again\n%s", res)
	}
	recs := r.history()
	if len(recs) != 1 || recs[0].Outcome != "done" || recs[0].RateLimitWaits != 0 {
		r.t.Fatalf("want iteration 1 done with no limit waits, got %+v", recs)
	}
	if n := len(r.mock.requests()); n < 3 {
		r.t.Errorf("the mock answered only %d model requests: the errors were not served", n)
	}
}

// checkHungStream: a stream that never ends is stopped by the iteration timeout, with
// the CLI and everything it started.
func checkHungStream(r *run) {
	res := r.loop("--max", "1", "--timeout", "15s")
	if res.code == 0 {
		r.t.Fatalf("want a failed run after the timeout\n%s", res)
	}
	recs := r.history()
	if len(recs) != 1 || !recs[0].TimedOut {
		r.t.Fatalf("want one iteration that timed out, got %+v", recs)
	}
	if !r.mock.hangsEnded(5 * time.Second) {
		r.t.Errorf("the CLI's hung connection to the API is still open after the loop ended")
	}
	if left := r.leftovers(); len(left) > 0 {
		r.t.Errorf("processes left after the timeout:\n%s", strings.Join(left, "\n"))
	}
}

// checkSays checks that git-ralph passed on the CLI's own words about a failure.
func checkSays(r *run, res result, kind errorKind) {
	words := r.cli.says[kind]
	if words == "" {
		r.t.Errorf("the %s CLI has no words for %s failures (agentCLI.says)", r.cli.name, kind)
		return
	}
	if !strings.Contains(res.stderr+res.stdout, words) {
		r.t.Errorf("git-ralph did not pass on the agent's message %q\n%s", words, res)
	}
}

// record keeps what the CLI printed in each attempt of each iteration when
// RALPH_REALAGENTS_RECORD names a directory: DIR/CLI/SCENARIO-ITERATION-ATTEMPT.out, with
// the run's own paths and the mock's address replaced by $REPO, $HOME and $MOCK, and the
// attempt's exit code in DIR/CLI/exits.txt. scripts/agents-latest.sh compares such
// recordings; copied into loop/agentcli/testdata/recorded they are the readers' fixtures.
func (r *run) record(scenario string) {
	dir := os.Getenv("RALPH_REALAGENTS_RECORD")
	if dir == "" {
		return
	}
	// the mock's address also without its scheme: claude names it so in its 5xx messages
	paths := strings.NewReplacer(r.repo, "$REPO", r.home, "$HOME", r.mock.URL(), "$MOCK",
		strings.TrimPrefix(r.mock.URL(), "http://"), "$MOCK_HOST")
	var exits strings.Builder
	for _, rec := range r.history() {
		for k, out := range splitAttempts(r.output(rec.Iteration)) {
			exit := rec.ExitCode
			if k < len(rec.Attempts) {
				exit = rec.Attempts[k].ExitCode
			}
			name := fmt.Sprintf("%s-%d-%d.out", scenario, rec.Iteration, k+1)
			writeFile(r.t, filepath.Join(dir, r.cli.name, name), paths.Replace(string(out)))
			fmt.Fprintf(&exits, "%s %d\n", name, exit)
		}
	}
	recordMu.Lock()
	defer recordMu.Unlock()
	f, err := os.OpenFile(filepath.Join(dir, r.cli.name, "exits.txt"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		r.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(exits.String()); err != nil {
		r.t.Fatal(err)
	}
}

var recordMu sync.Mutex

// attemptMark is the line git-ralph writes into an iteration's output log between two
// attempts (loop/attempts.go).
var attemptMark = regexp.MustCompile(`(?m)^\[git-ralph: attempt \d+: .*\]\n`)

// splitAttempts cuts an iteration's output log into what each attempt printed.
func splitAttempts(log []byte) [][]byte {
	var out [][]byte
	for _, part := range attemptMark.Split(string(log), -1) {
		out = append(out, []byte(part))
	}
	// the mark is written after a newline of its own
	for i := 0; i < len(out)-1; i++ {
		out[i] = bytes.TrimSuffix(out[i], []byte("\n"))
	}
	return out
}
