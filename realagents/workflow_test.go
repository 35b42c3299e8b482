package realagents

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The scenarios of tasks and their checks (inline tasks, --until, templates, judges), played by every
// real CLI: the task text must reach the model through the CLI's own prompt handling, and
// a preset judge is a second process of the same CLI, speaking to the same mock, whose
// output the preset's reader reads for its verdict, tokens and cost.

// inlineTask is the task of the inline-until scenario, given on the command line.
const inlineTask = "Create the file until.txt holding the word done"

// untilScript creates the file the promise command checks, and never says SUCCESS.
func untilScript() []turn {
	return []turn{
		{Text: "Creating until.txt.", Shell: "printf 'done\\n' > until.txt"},
		{Text: "I created until.txt; the loop can check it."},
	}
}

// checkInlineUntil: `git ralph loop "TASK" --until CMD` in a repository without a prompt
// file: the built-in task prompt carries the task to the model, the agent creates the
// file the promise command checks, and the run ends done on the promise alone (exit 0,
// cause until), without the agent saying SUCCESS.
func checkInlineUntil(r *run) {
	r.git("rm", "-q", "PROMPT_build.md") // no init: the built-in prompt frames the task
	r.git("commit", "-q", "-m", "no prompt file")
	res := r.loop(inlineTask, "--until", "test -f until.txt", "--max", "3", "--json")
	if res.code != 0 {
		r.t.Fatalf("want exit 0 (the promise command passed)\n%s", res)
	}
	if !strings.Contains(res.stderr, "Done: the promise command passed after 1 iteration") {
		r.t.Errorf("the run did not say the promise command ended it\n%s", res)
	}
	if fin := finished(r, res); fin.Status != "success" || fin.Cause != "until" {
		r.t.Errorf("run_finished: want status success, cause until; got %+v", fin)
	}
	recs := r.history()
	if len(recs) != 1 || recs[0].Outcome != "done" || recs[0].Signal != "" || recs[0].Until != "passed" {
		r.t.Fatalf("want one iteration done by the promise, without a signal; got %+v", recs)
	}
	if _, err := os.Stat(filepath.Join(r.repo, "until.txt")); err != nil {
		r.t.Errorf("the CLI's shell tool did not create until.txt: %v", err)
	}
	first := agentRequests(r)[0]
	for _, want := range []string{inlineTask, "## The task"} {
		if !bytes.Contains(first.Body, []byte(want)) {
			r.t.Errorf("the agent's first request does not hold %q: the task did not reach the model", want)
		}
	}
}

// templateTask is the task of the template scenario.
const templateTask = "The parser crashes on an empty input line"

// checkTemplate: `git ralph loop --template bugfix "TASK"`: the template's prompt, with
// the task in it, reaches the model in place of the repository's PROMPT_build.md.
func checkTemplate(r *run) {
	res := r.loop("--template", "bugfix", templateTask, "--max", "2")
	if res.code != 0 {
		r.t.Fatalf("want exit 0 (SUCCESS)\n%s", res)
	}
	if recs := r.history(); len(recs) != 1 || recs[0].Outcome != "done" {
		r.t.Errorf("want one iteration done, got %+v", recs)
	}
	first := agentRequests(r)[0]
	for _, want := range []string{templateTask, "Reproduce the bug."} {
		if !bytes.Contains(first.Body, []byte(want)) {
			r.t.Errorf("the agent's first request does not hold %q: the template or its task did not reach the model", want)
		}
	}
	if bytes.Contains(first.Body, []byte("Add a file agent.txt and commit it.")) {
		r.t.Errorf("the agent's first request holds PROMPT_build.md, which the template replaces")
	}
}

// judgeReasons are the reasons of the judge's FAIL: the agent's next prompt must carry
// them. Plain words, so that they read the same in every vendor's JSON.
const judgeReasons = "agent.txt lacks a line reviewed-by-judge"

// judgeUsage is what each of the judge's answers reports: far more than the agent's
// iteration (about 2,200 tokens), so that a budget the judge's spend alone breaks is
// easy to set, well within every CLI's context window.
var judgeUsage = usage{Input: 30000, Output: 1000}

// judgeScript: the agent commits and says SUCCESS; after the judge's FAIL it adds the
// line the judge asked for and says SUCCESS again.
func judgeScript() []turn {
	return append(successScript(),
		turn{Text: "Adding the line the judge asked for.",
			Shell: "echo reviewed-by-judge >> agent.txt && git commit -q -am 'agent: answer the judge'"},
		turn{Text: successWords})
}

// judgeAnswers: FAIL with reasons, then PASS.
func judgeAnswers() []turn {
	return []turn{
		{Text: "<verdict>FAIL</verdict>\n<reasons>" + judgeReasons + "</reasons>", Usage: judgeUsage},
		{Text: "The file has the line now.\n<verdict>PASS</verdict>", Usage: judgeUsage},
	}
}

// checkJudge: `--judge PRESET` with the same CLI as the agent. The judge's FAIL keeps the
// agent's SUCCESS from ending the run and its reasons reach the agent's next prompt; its
// PASS ends the run; its tokens and cost are recorded as the CLI itself counted them, and
// count toward the run's budget.
func checkJudge(r *run) {
	res := r.loop("--judge", r.cli.preset, "--max", "4")
	if res.code != 0 {
		r.t.Fatalf("want exit 0 (SUCCESS after the judge's PASS)\n%s", res)
	}
	for _, want := range []string{"the judge said FAIL", judgeReasons, "the judge said PASS"} {
		if !strings.Contains(res.stderr, want) {
			r.t.Errorf("the progress lines do not say %q\n%s", want, res)
		}
	}
	recs := r.history()
	if len(recs) != 2 {
		r.t.Fatalf("want 2 iterations (FAIL, then PASS), got %d: %+v", len(recs), recs)
	}
	if j := recs[0].Judge; recs[0].Outcome != "success" || recs[0].Signal != "SUCCESS" || j == nil || j.Verdict != "FAIL" || j.Reasons != judgeReasons {
		r.t.Errorf("iteration 1: want a success the judge failed with its reasons; got %+v, judge %+v", recs[0], j)
	}
	if j := recs[1].Judge; recs[1].Outcome != "done" || j == nil || j.Verdict != "PASS" {
		r.t.Errorf("iteration 2: want done after the judge's PASS; got %+v, judge %+v", recs[1], j)
	}
	checkJudgeRequests(r)
	for _, rec := range recs {
		if rec.Judge != nil {
			checkJudgeUsage(r, rec)
		}
	}
	checkJudgeBudget(r, recs[0])
}

// checkJudgeRequests: the mock answered two judge requests, the first with the
// iteration's diff in its prompt, and the agent's first request after the FAIL (its
// second iteration's prompt) carries the judge's reasons, which no earlier one did.
func checkJudgeRequests(r *run) {
	reqs := r.mock.bodiesServed()
	judged, fail := 0, -1
	for i, q := range reqs {
		if q.Judge {
			judged++
			if fail < 0 {
				fail = i
			}
		}
	}
	if judged != 2 || fail < 0 {
		r.t.Fatalf("want 2 requests of the judge, got %d", judged)
	}
	if !bytes.Contains(reqs[fail].Body, []byte("made by the agent")) {
		r.t.Errorf("the judge's prompt does not hold the iteration's diff")
	}
	next := -1
	for i, q := range reqs {
		switch {
		case q.Judge:
		case i < fail && bytes.Contains(q.Body, []byte(judgeReasons)):
			r.t.Errorf("the agent's request %d, before the judge answered, holds its reasons", i)
		case i > fail && next < 0:
			next = i
		}
	}
	if next < 0 {
		r.t.Fatalf("the agent made no request after the judge's FAIL")
	}
	if !bytes.Contains(reqs[next].Body, []byte(judgeReasons)) {
		r.t.Errorf("the agent's prompt after the judge's FAIL does not carry its reasons")
	}
}

// checkJudgeUsage: the judge's tokens and cost in the record are the totals the CLI
// printed in the judge's own output (.ralph/history/N/judge.log).
func checkJudgeUsage(r *run, rec record) {
	j := rec.Judge
	if r.cli.totals == nil {
		if j.InputTokens != 0 || j.OutputTokens != 0 || j.CostUSD != 0 {
			r.t.Errorf("the CLI prints no totals, yet git-ralph recorded the judge's tokens in %d, out %d, $%v",
				j.InputTokens, j.OutputTokens, j.CostUSD)
		}
		return
	}
	log, err := os.ReadFile(filepath.Join(r.repo, ".ralph", "history", strconv.Itoa(rec.Iteration), "judge.log"))
	if err != nil {
		r.t.Errorf("the judge's output of iteration %d was not saved: %v", rec.Iteration, err)
		return
	}
	tokens, cost, ok := r.cli.totals(log)
	if !ok || tokens.Input == 0 || tokens.Output == 0 {
		r.t.Errorf("the judge printed no totals of its own in iteration %d (%+v)\n%s", rec.Iteration, tokens, log)
		return
	}
	if j.InputTokens != tokens.Input || j.OutputTokens != tokens.Output || abs(j.CostUSD-cost) > 1e-9 {
		r.t.Errorf("iteration %d: recorded the judge's tokens in %d, out %d, $%v; its own totals: in %d, out %d, $%v",
			rec.Iteration, j.InputTokens, j.OutputTokens, j.CostUSD, tokens.Input, tokens.Output, cost)
	}
}

// checkJudgeBudget: the judge's spend counts toward the run's budget. A second run of
// the same story gets a budget (max_cost when the CLI reports cost, else max_tokens) that
// two agent iterations fit but one agent iteration and its judge do not: counted, the
// judge's spend stops the run before iteration 2 (exit 5); uncounted, it would not.
func checkJudgeBudget(r *run, first record) {
	agentCost, judgeCost := first.CostUSD, first.Judge.CostUSD
	agentTokens := float64(first.InputTokens + first.OutputTokens)
	judgeTokens := float64(first.Judge.InputTokens + first.Judge.OutputTokens)
	var flag, cause string
	var limit float64
	switch {
	case judgeCost > 0:
		flag, cause, limit = "--max-cost", "max_cost", between(agentCost, judgeCost)
	case judgeTokens > 0:
		flag, cause, limit = "--max-tokens", "max_tokens", float64(int64(between(agentTokens, judgeTokens)))
	default:
		r.t.Logf("the judge's spend is not checked against a budget: the %s CLI reports no tokens or cost", r.cli.name)
		return
	}
	if limit <= 0 {
		r.t.Fatalf("no %s discriminates: the agent's iteration took %v and %v tokens, the judge %v and %v tokens",
			flag, agentCost, agentTokens, judgeCost, judgeTokens)
	}
	b := newRun(r.t, r.cli, judgeScript())
	b.mock.setJudge(judgeAnswers())
	res := b.loop("--judge", r.cli.preset, "--max", "4", flag, strconv.FormatFloat(limit, 'f', -1, 64))
	if res.code != 5 || !strings.Contains(res.stderr, "budget reached") || !strings.Contains(res.stderr, cause) {
		r.t.Fatalf("want exit 5 (%s %v: the judge's spend counts)\n%s", flag, limit, res)
	}
	if recs := b.history(); len(recs) != 1 || recs[0].Judge == nil {
		r.t.Errorf("want the budget to stop the run after the judged iteration 1, got %+v", recs)
	}
}

// between is a budget that an agent's iteration spending agent fits twice (the loop's
// forecast of the next iteration is its mean so far) but the iteration with its judge's
// spend does not; 0 when there is none.
func between(agent, judge float64) float64 {
	if judge <= agent {
		return 0
	}
	return (2*agent + agent + judge) / 2
}

func abs(x float64) float64 { return max(x, -x) }

// agentRequests returns the agent's model requests (not the judge's); the test fails when
// there is none.
func agentRequests(r *run) []request {
	var out []request
	for _, q := range r.mock.bodiesServed() {
		if !q.Judge {
			out = append(out, q)
		}
	}
	if len(out) == 0 {
		r.t.Fatalf("the mock got no model request of the agent")
	}
	return out
}

// runFinished is the part of the run_finished event the scenarios check.
type runFinished struct {
	Status string `json:"status"`
	Cause  string `json:"cause"`
}

// finished returns the run_finished event of a `loop --json` run.
func finished(r *run, res result) runFinished {
	r.t.Helper()
	sc := bufio.NewScanner(strings.NewReader(res.stdout))
	sc.Buffer(make([]byte, 0, 1<<16), 4<<20)
	for sc.Scan() {
		var e struct {
			Event string `json:"event"`
			runFinished
		}
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Event == "run_finished" {
			return e.runFinished
		}
	}
	r.t.Fatalf("no run_finished event on stdout\n%s", res)
	return runFinished{}
}

// judgeWordsAnswers: the judge's PASS tag is only in its thinking and in its shell
// tool's output; its own words say FAIL. The verdict is FAIL: a reader that took the
// thinking or the tool output would see PASS too, which is no verdict.
func judgeWordsAnswers() []turn {
	return []turn{
		{Thinking: "The format wants <verdict>PASS</verdict> or FAIL; let me look first.",
			Text: "Looking at the file.", Shell: "echo '<verdict>PASS</verdict>' && cat agent.txt"},
		{Text: "<verdict>FAIL</verdict>\n<reasons>" + judgeReasons + "</reasons>", Usage: judgeUsage},
	}
}

// checkJudgeWords: the judge's verdict is read from its words alone.
func checkJudgeWords(r *run) {
	res := r.loop("--judge", r.cli.preset, "--max", "1")
	if res.code != 2 {
		r.t.Fatalf("want exit 2 (max iterations: the judge said FAIL)\n%s", res)
	}
	recs := r.history()
	if len(recs) != 1 || recs[0].Judge == nil {
		r.t.Fatalf("want one judged iteration, got %+v", recs)
	}
	if j := recs[0].Judge; recs[0].Outcome != "success" || j.Verdict != "FAIL" || j.Reasons != judgeReasons {
		r.t.Errorf("want the judge's FAIL from its words, with its reasons; got %+v, judge %+v", recs[0], j)
	}
	judged := 0
	for _, q := range r.mock.requests() {
		if q.Judge {
			judged++
		}
	}
	if judged < 2 {
		r.t.Errorf("the judge asked the mock %d times: its shell tool call was not run", judged)
	}
}

// checkJudgeHangs: a judge whose stream never ends is stopped by the iteration timeout,
// with everything it started; the iteration fails with the judge's error, never passes.
func checkJudgeHangs(r *run) {
	res := r.loop("--judge", r.cli.preset, "--max", "1", "--timeout", "15s")
	if res.code == 0 {
		r.t.Fatalf("want a failed run: the judge gave no verdict\n%s", res)
	}
	recs := r.history()
	if len(recs) != 1 || recs[0].Judge == nil {
		r.t.Fatalf("want one judged iteration, got %+v", recs)
	}
	if j := recs[0].Judge; recs[0].Outcome != "failure" || j.Verdict != "error" || !strings.Contains(j.Error, "did not answer within 15s") {
		r.t.Errorf("want a failure: the judge timed out; got %+v, judge %+v", recs[0], j)
	}
	if !r.mock.hangsEnded(5 * time.Second) {
		r.t.Errorf("the judge's hung connection to the API is still open after the loop ended")
	}
	if left := r.leftovers(); len(left) > 0 {
		r.t.Errorf("processes left after the judge's timeout:\n%s", strings.Join(left, "\n"))
	}
}

// judgeWritesAnswers: the judge, which must only read, writes the file the promise
// command checks (as a judge with the agent's own tools can), then says PASS.
func judgeWritesAnswers() []turn {
	return []turn{
		{Text: "I will make it pass myself.", Shell: "printf 'done\\n' > until.txt"},
		{Text: "<verdict>PASS</verdict>"},
	}
}

// checkJudgeWrites: a preset judge that tries to write. Where the CLI has a read-only
// mode, the judge runs in it and the CLI refuses the write (checkJudgeRefused); where it
// has none, git-ralph's check afterwards catches the change (checkJudgeChanged).
func checkJudgeWrites(r *run) {
	if r.cli.judgeRefuses == "" {
		checkJudgeChanged(r, r.cli.preset)
		return
	}
	checkJudgeRefused(r)
}

// checkJudgeRefused: the preset judge runs in its CLI's read-only mode, so the CLI itself
// refuses the judge's write: the judge's next request carries the CLI's refusal back to
// the model, the file never appears, and with nothing changed the judge's PASS counts.
// The promise command, which the write would have made pass, fails: the run goes on
// (exit 2 at --max 1) rather than ending on the judge's own work.
func checkJudgeRefused(r *run) {
	res := r.loop(inlineTask, "--until", "test -f until.txt", "--judge", r.cli.preset, "--max", "1")
	if res.code != 2 {
		r.t.Fatalf("want exit 2 (max iterations: the judge's write was refused, the promise command failed)\n%s", res)
	}
	if _, err := os.Stat(filepath.Join(r.repo, "until.txt")); err == nil {
		r.t.Fatalf("the judge wrote until.txt: its CLI did not run it read-only")
	}
	recs := r.history()
	if len(recs) != 1 || recs[0].Judge == nil {
		r.t.Fatalf("want one judged iteration, got %+v", recs)
	}
	if j := recs[0].Judge; recs[0].Outcome != "success" || j.Verdict != "PASS" || j.Error != "" || recs[0].Until == "passed" {
		r.t.Errorf("want a success whose judge said PASS, having changed nothing, and a failed promise; got %+v, judge %+v", recs[0], j)
	}
	var after []byte // the judge's request after its write: the tool's result
	for _, q := range r.mock.bodiesServed() {
		if q.Judge && q.Turn == 1 {
			after = q.Body
		}
	}
	if after == nil {
		r.t.Fatalf("the judge made no request after its write")
	}
	if !bytes.Contains(after, []byte(r.cli.judgeRefuses)) {
		r.t.Errorf("the judge's request after its write does not carry the CLI's refusal %q", r.cli.judgeRefuses)
	}
}

// checkJudgeCommandWrites: a judge command the user wrote is run as written, here the
// same CLI with its permissions skipped (agentCLI.judgeCmd), so nothing stops its write:
// git-ralph's check afterwards does.
func checkJudgeCommandWrites(r *run) {
	checkJudgeChanged(r, r.cli.judgeCmd)
}

// checkJudgeChanged: a judge that changed the repository gave no verdict: its PASS does
// not count, and its change does not end the run through the promise command, which it
// made pass; the iteration fails saying so.
func checkJudgeChanged(r *run, judge string) {
	res := r.loop(inlineTask, "--until", "test -f until.txt", "--judge", judge, "--max", "1")
	if res.code == 0 {
		r.t.Fatalf("want a failed run: the judge changed the repository\n%s", res)
	}
	recs := r.history()
	if len(recs) != 1 || recs[0].Judge == nil {
		r.t.Fatalf("want one judged iteration, got %+v", recs)
	}
	if j := recs[0].Judge; recs[0].Outcome != "failure" || j.Verdict != "error" || !strings.Contains(j.Error, "changed the repository") {
		r.t.Errorf("want a failure: the judge changed the repository; got %+v, judge %+v", recs[0], j)
	}
	if !strings.Contains(res.stderr, "until.txt") {
		r.t.Errorf("the run does not name the file the judge changed\n%s", res)
	}
	if _, err := os.Stat(filepath.Join(r.repo, "until.txt")); err != nil {
		r.t.Errorf("the judge's change is gone (it must be left for the user to see): %v", err)
	}
}

// untilFeedbackScript: the first iteration writes the wrong word, the second (after the
// promise command's failure reached its prompt) the right one.
func untilFeedbackScript() []turn {
	return []turn{
		{Text: "Writing until.txt.", Shell: "printf 'almost\\n' > until.txt"},
		{Text: "I wrote until.txt."},
		{Text: "Fixing the word.", Shell: "printf 'done\\n' > until.txt"},
		{Text: "until.txt holds the word done now."},
	}
}

// untilCheck is the promise command of until-feedback: it says what it found.
const untilCheck = `grep -qx done until.txt || { echo "until.txt holds $(cat until.txt), want done"; exit 1; }`

// checkUntilFeedback: a failing promise command is no agent error: the loop goes on, and
// the command's words reach the agent's next prompt; the second iteration passes it.
func checkUntilFeedback(r *run) {
	res := r.loop(inlineTask, "--until", untilCheck, "--max", "3")
	if res.code != 0 {
		r.t.Fatalf("want exit 0 (the promise command passed in iteration 2)\n%s", res)
	}
	recs := r.history()
	if len(recs) != 2 || recs[0].Until != "failed: exit code 1" || recs[1].Until != "passed" || recs[1].Outcome != "done" {
		r.t.Fatalf("want iteration 1's promise failed, iteration 2's passed; got %+v", recs)
	}
	var second *request
	for _, q := range agentRequests(r) {
		if q.Turn == 2 {
			second = &q
			break
		}
	}
	switch {
	case second == nil:
		r.t.Errorf("the mock served no first request of iteration 2")
	case !bytes.Contains(second.Body, []byte("until.txt holds almost, want done")):
		r.t.Errorf("the agent's prompt in iteration 2 does not carry the promise command's failure")
	}
}
