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
// output), and answers with a verdict tag (PASS or FAIL; see parseVerdict): in the loop
// "verdict" is the judge's word alone.

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

// judge asks a fresh process whether an iteration did the task. It is built once per run
// (newJudge), with the judge prompt read when the run started; ask is its one entry
// point. It reads the repository and writes only the judge's log: what its answer means
// for the iteration (applyJudgement) and its spend are the caller's.
type judge struct {
	command  string          // the preset or command (setting judge)
	criteria prompts.Section // the judge prompt: read once, before the agent could rewrite it
	task     prompts.Spec    // the agent's task (inline, or its prompt files and context)
	timeout  time.Duration   // the iteration timeout, else DefaultJudgeTimeout
	silence  time.Duration   // output_timeout
	validate string          // the validate command; "": none
	procs    procs
	api      *APIAgent // an in-process judge's model (Config.JudgeAPI); nil: none
	now      func() time.Time
	warn     func(string)
}

// newJudge builds the run's judge, or nil when none is set. criteria is the judge prompt
// read when the run started: the agent under judgment could otherwise rewrite
// .ralph/PROMPT_judge.md into "say PASS".
func newJudge(cfg Config, criteria prompts.Section, p procs, now func() time.Time) *judge {
	if cfg.Judge == "" {
		return nil
	}
	timeout := cfg.Timeout // the judge is an agent too
	if timeout <= 0 {
		timeout = DefaultJudgeTimeout
	}
	return &judge{command: cfg.Judge, criteria: criteria, timeout: timeout, silence: cfg.OutputTimeout,
		validate: cfg.ValidateCmd, procs: p, api: cfg.JudgeAPI, now: now, warn: p.warn,
		task: prompts.Spec{Dir: cfg.Dir, Mode: cfg.Mode, Files: cfg.Prompts, Context: cfg.Context, Task: cfg.Task}}
}

// looksAt reports whether the judge looks at an iteration classified so: one is set, the
// agent did not fail, nothing stops the run anyway, and validation passed: a validation
// that was configured but stopped by an interrupt said nothing, and is no pass.
func (jg *judge) looksAt(ctx context.Context, class classification, val Validation) bool {
	if jg == nil {
		return false
	}
	validated := strings.TrimSpace(jg.validate) == "" || (val.Ran && val.Passed)
	return ctx.Err() == nil && class.stop == "" && validated &&
		(class.outcome == OutcomeSuccess || class.outcome == OutcomeDone)
}

// ask runs the judge on iteration i's change since before and reads its verdict; its
// output is saved, redacted, at logPath. A judge that changed the repository gives no
// verdict that counts.
func (jg *judge) ask(ctx context.Context, i int, before gitops.Checkpoint, val Validation, logPath string) Judgement {
	j := Judgement{Judge: jg.command}
	prompt, err := jg.prompt(ctx, i, before, val)
	if err != nil {
		j.Ran, j.Error = true, err.Error()
		return j
	}
	log, closeLog := jg.openLog(logPath)
	defer closeLog()
	// a judge must only read: what it changed is compared with the state it was shown
	pre, preErr := gitsnap.TakeCheckpoint(ctx, jg.procs.dir, func(gitops.Checkpoint) []gitops.Ref { return nil })
	res, read, err := jg.run(ctx, i, prompt, log)
	j.Duration, j.Usage = res.Duration, read.Usage
	jg.read(&j, res, read, err, prompt)
	if !j.Ran || preErr != nil {
		return j
	}
	if changed := judgeChanged(ctx, jg.procs.dir, pre); changed != "" {
		// its verdict does not count: a PASS of work it did itself is no second opinion,
		// and what it wrote could make the promise command pass
		if j.Error != "" {
			changed += " (and " + j.Error + ")"
		}
		j.Verdict, j.Reasons, j.Error = "", "", changed
	}
	return j
}

// read fills in j from how the judge's run ended (err: it could not start) and what it
// said: its verdict and reasons, or why it gave none.
func (jg *judge) read(j *Judgement, res agent.Result, read agentcli.Report, err error, prompt string) {
	switch {
	case err != nil:
		j.Ran, j.Error = true, err.Error()
	case res.Interrupted:
	case res.Silent:
		j.Ran, j.Error = true, fmt.Sprintf("the judge printed nothing for %s and was stopped", jg.silence)
	case res.TimedOut:
		j.Ran, j.Error = true, fmt.Sprintf("the judge did not answer within %s and was stopped", jg.timeout)
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
		var perr error
		j.Verdict, j.Reasons, perr = parseVerdict(withoutEcho(read.Said, prompt))
		if perr != nil {
			j.Error = perr.Error()
		}
	}
}

// openLog opens the judge's log at logPath: redacted like the agent's output (no secrets
// in the history) and bounded (a judge that floods fills no disk); nil, with a warning,
// when it cannot be created.
func (jg *judge) openLog(logPath string) (io.Writer, func()) {
	f, err := os.Create(logPath)
	if err != nil {
		jg.warn(fmt.Sprintf("cannot save the judge's output: %v", err))
		return nil, func() {}
	}
	saved := redact.NewWriter(f)
	return &head{w: saved, room: maxJudgeOutput}, func() { saved.Flush(); f.Close() }
}

// judgeChanged says how the judge changed the repository at dir since pre, which a judge
// must only read: a commit, or a file of the work tree (ignored files, such as a test
// run's output, and git-ralph's own directory are not counted). "" when it changed
// nothing, or when that cannot be read. The change is left as it is, for the user to review.
func judgeChanged(ctx context.Context, dir string, pre gitops.Checkpoint) string {
	if pre.Tree == "" || ctx.Err() != nil {
		return ""
	}
	post, err := gitsnap.TakeCheckpoint(ctx, dir, func(gitops.Checkpoint) []gitops.Ref { return nil })
	if err != nil || (post.Head == pre.Head && post.Tree == pre.Tree) {
		return ""
	}
	var what []string
	if post.Head != pre.Head {
		what = append(what, "moved HEAD")
	}
	paths, _ := gitsnap.ChangedPaths(ctx, dir, pre.Tree, post.Tree) // unread: HEAD may still say
	var files []string
	for _, p := range paths {
		if p != history.Dir && !strings.HasPrefix(p, history.Dir+"/") {
			files = append(files, quotedPath(p))
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

// quotedPath is a path as the user may see it in a terminal: quoted when it holds
// control characters or anything else a terminal could act on (a hostile judge names
// its files).
func quotedPath(p string) string {
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

// prompt is the judge's prompt for iteration i: the judge prompt, the task, and what
// the iteration produced.
func (jg *judge) prompt(ctx context.Context, i int, before gitops.Checkpoint, val Validation) (string, error) {
	task, source, err := judgeTask(jg.task)
	if err != nil {
		return "", fmt.Errorf("reading the task for the judge: %w", err)
	}
	spec := prompts.JudgeSpec{Dir: jg.procs.dir, Task: task, TaskSource: source, Iteration: i, Validation: "none is configured",
		Criteria: jg.criteria}
	if val.Ran {
		spec.Validation = fmt.Sprintf("`%s` passed", val.Command)
	}
	spec.Diff, spec.DiffNote = iterationDiff(ctx, jg.procs.dir, before)
	p, err := prompts.AssembleJudge(spec)
	if err != nil {
		return "", fmt.Errorf("assembling the judge's prompt: %w", err)
	}
	return p.Text(), nil
}

// judgeTask is the task the agent was given: the inline task, else its prompt files and
// context (without the feedback and injected texts, which change every iteration).
func judgeTask(spec prompts.Spec) (text, source string, err error) {
	if strings.TrimSpace(spec.Task) != "" {
		return spec.Task, "the task given to git ralph loop", nil
	}
	p, err := prompts.Assemble(prompts.Spec{Dir: spec.Dir, Mode: spec.Mode, Files: spec.Files, Context: spec.Context})
	if err != nil {
		return "", "", err
	}
	var sources []string
	for _, s := range p.Sections {
		sources = append(sources, s.Source)
	}
	return p.Text(), strings.Join(sources, ", "), nil
}

// iterationDiff is the change at dir since before (commits and uncommitted work),
// bounded, with a note when it was cut or could not be read.
func iterationDiff(ctx context.Context, dir string, before gitops.Checkpoint) (string, string) {
	if before.Tree == "" {
		return "", "(The change could not be read: the checkpoint before the iteration is lost.)"
	}
	now, err := gitsnap.TakeCheckpoint(ctx, dir, func(gitops.Checkpoint) []gitops.Ref { return nil })
	if err != nil {
		return "", "(The change could not be read: " + oneLine(err.Error(), maxReasonError) + ".)"
	}
	if now.Tree == before.Tree {
		return "", ""
	}
	var diff capped
	diff.limit = judgeDiffBytes
	// bounded as the saved diff is: a huge change costs about its `git diff --stat`
	changes, err := gitsnap.DiffCounted(ctx, dir, before.Tree, now.Tree, &diff)
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

// run runs the judge once with prompt, as an agent runs: the preset's command line (in
// the CLI's read-only mode, where it has one) and output reader when the judge names a
// preset, else the judge as a command, as written, with sh -c and the prompt on stdin,
// read as plain text.
func (jg *judge) run(ctx context.Context, i int, prompt string, log io.Writer) (agent.Result, agentcli.Report, error) {
	preset, isPreset := agentcli.Lookup(jg.command)
	preset, _ = preset.AsJudge()                         // in the CLI's read-only mode, where it has one
	if isPreset && preset.InProcess() && jg.api != nil { // offered only the tools that read
		res, read := runInProcess(ctx, inProcess{api: jg.api, preset: preset, procs: jg.procs, i: i, prompt: prompt,
			timeout: jg.timeout, keep: maxJudgeOutput, out: log, readOnly: true})
		return res, read, nil
	}
	spec := jg.procs.spec(i, jg.command)
	spec.Prompt, spec.Log, spec.Started = strings.NewReader(prompt), log, jg.procs.started
	spec.Timeout, spec.OutputTimeout, spec.MaxOutput = jg.timeout, jg.silence, maxJudgeOutput
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
		return res, preset.Read(res.Output, res.ExitCode, jg.now()), nil
	}
	return res, agentcli.ReadText(res.Output, res.ExitCode, jg.now()), nil
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
