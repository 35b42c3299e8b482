package loop

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitsnap"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/history/redact"
	"github.com/git-ralph/git-ralph/loop/agent"
	"github.com/git-ralph/git-ralph/loop/agentcli"
	"github.com/git-ralph/git-ralph/prompts"
	"github.com/git-ralph/git-ralph/units"
)

// A judge (setting judge) is a fresh process that reads what an iteration produced and
// says whether the task is done (a model as judge, for what a test cannot check). It runs after an iteration
// whose agent did not fail and whose validation passed (or none is configured), is run
// as the agent is (its own process group, a timeout, nothing left behind, bounded
// output), and answers with a verdict tag; see parseVerdict.

// Bounds of the judge's work.
const (
	// DefaultJudgeTimeout bounds a judge when no iteration timeout is set.
	DefaultJudgeTimeout = 10 * time.Minute
	// judgeDiffBytes bounds the iteration's diff in the judge's prompt.
	judgeDiffBytes = 64 << 10
	// maxJudgeOutput bounds what is kept of the judge's output: a verdict and reasons
	// are short, and a preset's JSON events around them are not the agent's megabytes.
	maxJudgeOutput = 1 << 20
)

// Judgement is what the judge said about one iteration.
type Judgement struct {
	Judge    string         // the preset or command
	Ran      bool           // a judge ran to the end (false: none configured, or interrupted)
	Verdict  string         // VerdictPass or VerdictFail; "" when it gave none
	Reasons  string         // its reasons, bounded and redacted
	Error    string         // why there is no verdict, when it ran without giving one
	Usage    agentcli.Usage // its tokens and cost
	Duration time.Duration
}

// judgeIteration asks the judge about iteration i, when one is configured and the
// iteration is one to judge, and applies its verdict: FAIL puts its reasons into the next
// prompt and keeps SUCCESS from ending the run; no verdict fails the iteration, so that
// a broken judge stops the run after max_consecutive_errors instead of passing work.
func (r *runner) judgeIteration(ctx context.Context, i int, it *iterationRecord, v *verdict, val Validation) Judgement {
	if !r.judges(ctx, *v, val) {
		if r.cfg.Judge != "" && v.outcome == OutcomeDone && ctx.Err() != nil { // never done unjudged
			v.outcome, v.reason = OutcomeSuccess, "the agent signalled SUCCESS but the run was interrupted before the judge"
		}
		return Judgement{}
	}
	j := r.askJudge(ctx, i, it.before, val, r.journal.store.JudgePath(it.number))
	r.report(Judged{Iteration: i, Judgement: j})
	switch {
	case j.Verdict == VerdictPass:
	case j.Verdict == VerdictFail:
		r.addFeedback(j.feedback(i, val.Ran))
		if v.outcome == OutcomeDone {
			v.outcome, v.reason = OutcomeSuccess, "the agent signalled SUCCESS but the judge said FAIL"
		}
	case !j.Ran: // interrupted: the run stops as interrupted, never as done
		if v.outcome == OutcomeDone {
			v.outcome, v.reason = OutcomeSuccess, "the agent signalled SUCCESS but the judge was interrupted"
		}
	default:
		v.outcome, v.reason = OutcomeFailure, "the judge gave no verdict: "+oneLine(j.Error, maxReasonError)
	}
	return j
}

// judges reports whether the judge looks at an iteration: one is configured, the agent
// did not fail, nothing stops the run anyway, and validation passed: a validation that
// was configured but stopped by an interrupt said nothing, and is no pass.
func (r *runner) judges(ctx context.Context, v verdict, val Validation) bool {
	validated := strings.TrimSpace(r.cfg.ValidateCmd) == "" || (val.Ran && val.Passed)
	return r.cfg.Judge != "" && ctx.Err() == nil && v.stop == "" && validated &&
		(v.outcome == OutcomeSuccess || v.outcome == OutcomeDone)
}

// askJudge runs the judge on the change since before and reads its verdict; its output
// is saved, redacted, at logPath. Its usage counts toward the run's spend and the day's,
// like an agent's attempt.
func (r *runner) askJudge(ctx context.Context, i int, before gitops.Checkpoint, val Validation, logPath string) Judgement {
	j := Judgement{Judge: r.cfg.Judge}
	prompt, err := r.judgePrompt(ctx, i, before, val)
	if err != nil {
		j.Ran, j.Error = true, err.Error()
		return j
	}
	var log io.Writer
	if f, err := os.Create(logPath); err != nil {
		r.report(Warning{Message: fmt.Sprintf("cannot save the judge's output: %v", err)})
	} else {
		defer f.Close()
		saved := redact.NewWriter(f) // like the agent's output: no secrets in the history
		defer saved.Flush()
		log = &head{w: saved, room: maxJudgeOutput} // a judge that floods fills no disk
	}
	// a judge must only read: what it changed is compared with the state it was shown
	pre, preErr := gitsnap.TakeCheckpoint(ctx, r.cfg.Dir, func(gitops.Checkpoint) []gitops.Ref { return nil })
	res, read, err := r.runJudge(ctx, i, prompt, log)
	j.Duration, j.Usage = res.Duration, read.Usage
	r.spend(res, read.Usage)
	switch {
	case err != nil:
		j.Ran, j.Error = true, err.Error()
	case res.Interrupted:
	case res.Silent:
		j.Ran, j.Error = true, fmt.Sprintf("the judge printed nothing for %s and was stopped", r.cfg.OutputTimeout)
	case res.TimedOut:
		j.Ran, j.Error = true, fmt.Sprintf("the judge did not answer within %s and was stopped", r.judgeTimeout())
	case read.Fatal != "":
		j.Ran, j.Error = true, "the judge cannot run: "+read.Fatal
	case read.Limit != nil:
		j.Ran, j.Error = true, "the judge hit a usage limit: "+read.Limit.Message
	case res.Signal != 0:
		j.Ran, j.Error = true, "the judge was killed by "+SignalName(res.Signal)+judgeWords(read.Error)
	case res.ExitCode != 0:
		j.Ran, j.Error = true, "the judge failed with "+exitReason(res.ExitCode)+judgeWords(read.Error)
	default:
		j.Ran = true
		j.Verdict, j.Reasons, err = parseVerdict(withoutEcho(read.Said, prompt))
		if err != nil {
			j.Error = err.Error()
		}
	}
	if !j.Ran || preErr != nil {
		return j
	}
	if changed := r.judgeChanged(ctx, pre); changed != "" {
		// its verdict does not count: a PASS of work it did itself is no second opinion,
		// and what it wrote could make the promise command pass
		if j.Error != "" {
			changed += " (and " + j.Error + ")"
		}
		j.Verdict, j.Reasons, j.Error = "", "", changed
	}
	return j
}

// judgeChanged says how the judge changed the repository since pre, which a judge must
// only read: a commit, or a file of the work tree (ignored files, such as a test run's
// output, and git-ralph's own directory are not counted). "" when it changed nothing, or
// when that cannot be read. The change is left as it is, for the user to review.
func (r *runner) judgeChanged(ctx context.Context, pre gitops.Checkpoint) string {
	if pre.Tree == "" || ctx.Err() != nil {
		return ""
	}
	post, err := gitsnap.TakeCheckpoint(ctx, r.cfg.Dir, func(gitops.Checkpoint) []gitops.Ref { return nil })
	if err != nil || (post.Head == pre.Head && post.Tree == pre.Tree) {
		return ""
	}
	var what []string
	if post.Head != pre.Head {
		what = append(what, "moved HEAD")
	}
	paths, _ := gitsnap.ChangedPaths(ctx, r.cfg.Dir, pre.Tree, post.Tree) // unread: HEAD may still say
	var files []string
	for _, p := range paths {
		if p != history.Dir && !strings.HasPrefix(p, history.Dir+"/") {
			files = append(files, safeName(p))
		}
	}
	if len(files) > 0 {
		what = append(what, "changed "+namesCut(files, 5))
	}
	if len(what) == 0 {
		return ""
	}
	return "the judge changed the repository, which a judge must only read (it " + strings.Join(what, " and ") +
		"): its verdict does not count, and its change is left in the work tree for you to review"
}

// safeName is a path as the user may see it in a terminal: quoted when it holds control
// characters or anything else a terminal could act on (a hostile judge names its files).
func safeName(p string) string {
	if q := strconv.Quote(p); q[1:len(q)-1] != p {
		return q
	}
	return p
}

// namesCut lists up to n paths, saying how many more there are.
func namesCut(paths []string, n int) string {
	if len(paths) <= n {
		return strings.Join(paths, ", ")
	}
	return strings.Join(paths[:n], ", ") + fmt.Sprintf(" and %d more", len(paths)-n)
}

// judgeWords is the end of what a failed judge said, for its error.
func judgeWords(said string) string {
	if strings.TrimSpace(said) == "" {
		return ""
	}
	return ": " + oneLine(tailLines(said, 5, 500), 500)
}

// judgePrompt is the judge's prompt for iteration i: the judge prompt, the task, and
// what the iteration produced.
func (r *runner) judgePrompt(ctx context.Context, i int, before gitops.Checkpoint, val Validation) (string, error) {
	task, source, err := r.judgeTask()
	if err != nil {
		return "", fmt.Errorf("reading the task for the judge: %w", err)
	}
	spec := prompts.JudgeSpec{Dir: r.cfg.Dir, Task: task, TaskSource: source, Iteration: i, Validation: "none is configured",
		Criteria: r.judgeCriteria}
	if val.Ran {
		spec.Validation = fmt.Sprintf("`%s` passed", val.Command)
	}
	spec.Diff, spec.DiffNote = r.iterationDiff(ctx, before)
	p, err := prompts.AssembleJudge(spec)
	if err != nil {
		return "", fmt.Errorf("assembling the judge's prompt: %w", err)
	}
	return p.Text(), nil
}

// judgeTask is the task the agent was given: the inline task, else its prompt files and
// context (without the feedback and injected texts, which change every iteration).
func (r *runner) judgeTask() (text, source string, err error) {
	if strings.TrimSpace(r.cfg.Task) != "" {
		return r.cfg.Task, "the task given to git ralph loop", nil
	}
	p, err := prompts.Assemble(prompts.Spec{Dir: r.cfg.Dir, Mode: r.cfg.Mode, Files: r.cfg.Prompts, Context: r.cfg.Context})
	if err != nil {
		return "", "", err
	}
	var sources []string
	for _, s := range p.Sections {
		sources = append(sources, s.Source)
	}
	return p.Text(), strings.Join(sources, ", "), nil
}

// iterationDiff is the change since before (commits and uncommitted work), bounded, with
// a note when it was cut or could not be read.
func (r *runner) iterationDiff(ctx context.Context, before gitops.Checkpoint) (string, string) {
	if before.Tree == "" {
		return "", "(The change could not be read: the checkpoint before the iteration is lost.)"
	}
	now, err := gitsnap.TakeCheckpoint(ctx, r.cfg.Dir, func(gitops.Checkpoint) []gitops.Ref { return nil })
	if err != nil {
		return "", "(The change could not be read: " + oneLine(err.Error(), maxReasonError) + ".)"
	}
	if now.Tree == before.Tree {
		return "", ""
	}
	var diff capped
	diff.limit = judgeDiffBytes
	// bounded as the saved diff is: a huge change costs about its `git diff --stat`
	changes, err := gitsnap.DiffCounted(ctx, r.cfg.Dir, before.Tree, now.Tree, &diff)
	if err != nil {
		return "", "(The change could not be read: " + oneLine(err.Error(), maxReasonError) + ".)"
	}
	text, left := diff.text()
	if left > 0 {
		return text, fmt.Sprintf("(The diff is cut here, after %s; the whole change is %d files, %d lines added and %d deleted. Judge from what is shown and say so if it is not enough.)",
			units.Size(int64(len(text))), changes.Files, changes.Insertions, changes.Deletions)
	}
	return text, ""
}

// capped keeps the first limit bytes written to it and counts the rest.
type capped struct {
	limit   int
	kept    []byte
	dropped int64
}

func (c *capped) Write(p []byte) (int, error) {
	room := max(0, c.limit-len(c.kept))
	c.kept = append(c.kept, p[:min(room, len(p))]...)
	c.dropped += int64(len(p) - min(room, len(p)))
	return len(p), nil
}

// text is what was kept, cut back to the last whole line when something was dropped,
// and how many bytes that leaves out.
func (c *capped) text() (string, int64) {
	s := string(c.kept)
	if c.dropped > 0 {
		if n := strings.LastIndexByte(s, '\n'); n >= 0 {
			s = s[:n+1]
		}
	}
	return s, c.dropped + int64(len(c.kept)-len(s))
}

// head passes on the first room bytes written to it and drops the rest.
type head struct {
	w    io.Writer
	room int
}

func (h *head) Write(p []byte) (int, error) {
	n := min(h.room, len(p))
	h.room -= n
	if n > 0 {
		if _, err := h.w.Write(p[:n]); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// runJudge runs the judge once with prompt, as an agent runs: the preset's command line
// (in the CLI's read-only mode, where it has one) and output reader when Judge names a
// preset, else Judge as a command, as written, with sh -c and the prompt on stdin, read
// as plain text.
func (r *runner) runJudge(ctx context.Context, i int, prompt string, log io.Writer) (agent.Result, agentcli.Report, error) {
	preset, isPreset := agentcli.Lookup(r.cfg.Judge)
	preset, _ = preset.AsJudge() // in the CLI's read-only mode, where it has one
	spec := agent.Spec{Command: r.cfg.Judge, Dir: r.cfg.Dir, Env: r.agentEnv(i), Prompt: strings.NewReader(prompt), Log: log,
		Timeout: r.judgeTimeout(), OutputTimeout: r.cfg.OutputTimeout, Grace: r.deps.Grace, MaxOutput: maxJudgeOutput,
		Hurry: r.deps.Hurry, Started: r.agentStarted, Marker: "RALPH_RUN=" + r.res.Run, Watchdogs: r.dogs}
	if isPreset {
		spec.Command, spec.Env = preset.CommandLine(""), append(spec.Env, preset.Env...)
		if preset.Prompt == agentcli.File {
			file, err := writePromptFile(prompt)
			if err != nil {
				return agent.Result{}, agentcli.Report{}, err
			}
			defer os.Remove(file)
			spec.Command, spec.Prompt = preset.CommandLine(file), nil
		}
	}
	res, err := agent.Run(ctx, spec)
	if err != nil {
		return res, agentcli.Report{}, fmt.Errorf("starting the judge: %w", err)
	}
	if isPreset {
		return res, preset.Read(res.Output, res.ExitCode, r.deps.Now()), nil
	}
	return res, agentcli.ReadText(res.Output, res.ExitCode, r.deps.Now()), nil
}

// judgeTimeout bounds the judge: the iteration timeout when there is one (the judge is an
// agent too), else DefaultJudgeTimeout.
func (r *runner) judgeTimeout() time.Duration {
	if r.cfg.Timeout > 0 {
		return r.cfg.Timeout
	}
	return DefaultJudgeTimeout
}

// feedback is the part of the next prompt that carries a FAIL's reasons; validated says
// whether a validate command passed before the judge ran.
func (j Judgement) feedback(i int, validated bool) string {
	after := fmt.Sprintf("After iteration %d the judge", i)
	if validated {
		after = fmt.Sprintf("After iteration %d the validation passed, but the judge", i)
	}
	reasons := j.Reasons
	if reasons == "" {
		reasons = "(the judge gave no reasons)"
	}
	fence := codeFence(reasons)
	return fmt.Sprintf("%s (`%s`) found the task not done. Address its reasons before anything else:\n\n%s\n%s\n%s",
		after, redact.String(j.Judge), fence, reasons, fence)
}

// Record is the judgement as the iteration's record keeps it; nil when no judge ran.
func (j Judgement) Record() *history.Judgement {
	if !j.Ran {
		return nil
	}
	verdict := j.Verdict
	if verdict == "" {
		verdict = "error"
	}
	rec := &history.Judgement{Judge: redact.String(j.Judge), Verdict: verdict, Reasons: j.Reasons, Error: bounded(j.Error),
		DurationMS: j.Duration.Milliseconds(), Model: j.Usage.Model,
		InputTokens: j.Usage.InputTokens, OutputTokens: j.Usage.OutputTokens}
	if j.Usage.HasCost {
		rec.CostUSD = j.Usage.CostUSD
	}
	return rec
}
