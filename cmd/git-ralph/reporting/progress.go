package reporting

import (
	"fmt"
	"io"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/history/redact"
	"github.com/git-ralph/git-ralph/loop"
	"github.com/git-ralph/git-ralph/loop/agent"
	"github.com/git-ralph/git-ralph/units"
)

// Progress prints the loop's events as timestamped lines, one per event, for people
// reading a terminal or a cron log.
type Progress struct {
	w          io.Writer
	quiet      bool // warnings and errors only
	fancy      bool // w is a terminal that welcomes redrawn lines (see fancyTerminal)
	statusLine bool // show a live status line during iterations (fancy, and no --verbose output)
	output     func() int64
	dated      bool // the next lines carry the date as well as the time
	now        func() time.Time
	ticking    *ticker
}

// NewProgress prints to w; quiet keeps warnings and errors only.
func NewProgress(w io.Writer, quiet bool) *Progress {
	// the reasons and messages it prints quote the agent, and stderr often goes to a cron log
	return &Progress{w: redact.Each{W: w}, quiet: quiet, fancy: fancyTerminal(w), now: time.Now}
}

// Fancy reports whether the stream welcomes redrawn lines (see fancyTerminal).
func (p *Progress) Fancy() bool { return p.fancy }

// ShowStatusLine turns the live status line on: during each iteration it shows how long
// the iteration has run and how much of the agent's output, counted by output, has come.
func (p *Progress) ShowStatusLine(output func() int64) {
	p.statusLine, p.output = true, output
}

// Report prints the event's line, if it has one.
func (p *Progress) Report(e loop.Event) {
	p.ticking.stop()
	switch e := e.(type) {
	case loop.RunStarted:
		p.runStarted(e)
	case loop.Warning:
		p.warning("%s", e.Message)
	case loop.IterationStarted:
		p.info("Iteration %s starting...", counter(e.Iteration, e.Max))
		p.startStatusLine(e)
	case loop.AgentStopping:
		p.stopping(e)
	case loop.OutputTruncated:
		p.warning("iteration %d printed %s, more than the %s output buffer: only its last %s were scanned for promise tags",
			e.Iteration, display.Size(e.Total), display.Size(int64(e.Kept)), display.Size(int64(e.Kept)))
	case loop.IterationFinished:
		p.finished(e)
	case loop.RunFinished:
		p.runFinished(e.Result)
	case loop.Waiting:
		p.waiting(e)
	case loop.Paused:
		p.paused(e)
	case loop.Resumed:
		p.info("Resumed after %s paused", display.Duration(e.Paused))
	case loop.BaselineTaken:
		p.info("%s", e.Summary())
	case loop.ValidationFailed:
		p.warn("Iteration %d: validation failed (%s): `%s`; its output goes into the next prompt", e.Iteration, e.Validation.Summary(), e.Validation.Command)
	case loop.UntilFailed:
		p.warn("Iteration %d: the promise command failed (%s): `%s`; its output goes into the next prompt", e.Iteration, e.Until.Summary(), e.Until.Command)
	case loop.Judged:
		p.judged(e)
	case loop.Pushed:
		if e.Err != nil {
			p.warn("Iteration %d: %s", e.Iteration, oneLine(e.Err.Error()))
		} else {
			p.info("Iteration %d: pushed %.7s to %s", e.Iteration, e.Commit, e.Target)
		}
	}
}

// waiting announces a wait before the same iteration runs again, with a countdown on
// a terminal.
func (p *Progress) waiting(e loop.Waiting) {
	left := e.Until.Sub(p.now())
	switch {
	case e.Kind == "transient":
		p.warn("Iteration %d: transient error (%s); retrying in %s", e.Iteration, oneLine(e.Message), display.Duration(left))
		return
	case e.From != "":
		p.warn("Iteration %d: waiting until %s (%s) for the usage limit the loop in %s met (%s), before running the agent", e.Iteration,
			e.Until.Local().Format("2006-01-02 15:04:05"), display.Duration(left), e.From, oneLine(e.Message))
	case e.Resumed:
		p.warn("Still waiting for a usage limit (%s) until %s (%s left)", oneLine(e.Message), e.Until.Local().Format("15:04:05"), display.Duration(left))
	default:
		p.warn("Iteration %d: usage limit (%s); waiting until %s (%s) to run it again", e.Iteration, oneLine(e.Message), e.Until.Local().Format("2006-01-02 15:04:05"), display.Duration(left))
	}
	p.info("  Ctrl+C or 'git ralph cancel' stops the loop; the next 'git ralph loop' goes on waiting")
	if p.fancy && !p.quiet {
		// the same iteration runs again at the end of the wait with no event to stop the
		// countdown: it ends itself, or it would go on over the agent's run (and its
		// --verbose output)
		p.ticking = startTicker(p.w, max(left, time.Millisecond), func() string {
			return fmt.Sprintf("waiting: %s left", max(0, e.Until.Sub(p.now())).Round(time.Second))
		})
	}
}

// paused says where the loop holds and how to go on; quiet mode shows it too, for a loop
// that starts no agent looks hung otherwise.
func (p *Progress) paused(e loop.Paused) {
	where := fmt.Sprintf("after iteration %d", e.Iteration-1)
	switch {
	case e.Retry:
		where = fmt.Sprintf("before running iteration %d again", e.Iteration)
	case e.Iteration <= 1:
		where = "before iteration 1"
	}
	asked := ""
	if !e.Asked.IsZero() {
		asked = " (pause asked at " + e.Asked.Local().Format("2006-01-02 15:04:05") + ")"
	}
	p.warn("Paused %s: 'git ralph resume' goes on%s", where, asked)
}

// startStatusLine keeps a line on the terminal up to date while the agent works: how
// long the iteration has run and how much the agent has printed.
func (p *Progress) startStatusLine(e loop.IterationStarted) {
	if !p.statusLine || p.quiet || p.output == nil {
		return
	}
	start, before := p.now(), p.output()
	it := counter(e.Iteration, e.Max)
	p.ticking = startTicker(p.w, 0, func() string {
		elapsed := p.now().Sub(start).Round(time.Second)
		return fmt.Sprintf("iteration %s: %s, %s of output", it, elapsed, display.Size(p.output()-before))
	})
}

func (p *Progress) runStarted(e loop.RunStarted) {
	if !p.fancy {
		// a log file (cron's, a CI job's) gathers many runs: say which day each began
		p.dated = true
		defer func() { p.dated = false }()
	}
	if e.Resumed {
		p.info("Resuming loop: %s, run %s at iteration %d (%s)", e.Mode, e.Run, e.First, limitText(e.Max))
		return
	}
	p.info("Starting loop: %s (%s)", e.Mode, limitText(e.Max))
	if e.Why != "" {
		p.info("New run %s: %s", e.Run, e.Why)
	}
}

func (p *Progress) stopping(e loop.AgentStopping) {
	if e.Signal == syscall.SIGKILL {
		p.warning("iteration %d: the agent's processes did not stop within the grace period, sending SIGKILL", e.Iteration)
		return
	}
	if e.Why == agent.WhyEscaped {
		p.warning("iteration %d: processes the agent started left its session (setsid), sending %s to them", e.Iteration, loop.SignalName(e.Signal))
		return
	}
	why := map[string]string{agent.WhyTimeout: "timeout reached", agent.WhyInterrupt: "interrupted",
		agent.WhyLeftover: "the agent exited but left processes running",
		agent.WhySilent:   "the agent printed nothing for output_timeout"}[e.Why]
	p.warning("iteration %d: %s, sending %s to the agent's process group", e.Iteration, why, loop.SignalName(e.Signal))
}

func (p *Progress) finished(e loop.IterationFinished) {
	e.Reason = oneLine(e.Reason)
	took := display.Duration(e.Duration)
	it := counter(e.Iteration, e.Max)
	switch e.Outcome {
	case loop.OutcomeSuccess:
		p.info("Iteration %s completed in %s (success%s%s%s)", it, took, idleNote(e), repeatNote(e), overageNote(e))
	case loop.OutcomeDone:
		why := "the agent signalled SUCCESS"
		if e.Until.Ran && e.Until.Passed {
			why = "the promise command passed"
		}
		p.info("Iteration %s completed in %s (done: %s%s)", it, took, why, overageNote(e))
	case loop.OutcomeHalted:
		p.warn("Iteration %s stopped after %s (%s); it runs again when the loop resumes", it, took, e.Reason)
	case loop.OutcomeInterrupted:
		p.warn("Iteration %s interrupted after %s", it, took)
	case loop.OutcomeFailure:
		p.warn("Iteration %s completed in %s (failure: %s, consecutive: %d/%d%s)", it, took, e.Reason, e.Consecutive, e.Threshold, idleNote(e))
	}
	if e.Survivors {
		p.warning("iteration %d: a process of the agent's group survived SIGKILL", e.Iteration)
	}
}

func (p *Progress) runFinished(r loop.Result) {
	r.Reason = oneLine(r.Reason)
	total := display.Duration(r.Elapsed)
	switch r.Status {
	case loop.StatusSuccess:
		if r.Cause == loop.CauseUntil && r.Iterations == 0 { // it held before the first: nothing to pay for
			p.info("Done: %s, so no iteration ran (total: %s)", r.Reason, total)
			break
		}
		if r.Cause == loop.CauseUntil {
			p.info("Done: the promise command passed after %s (total: %s)", display.Plural(r.Iterations, "iteration"), total)
			break
		}
		p.info("Done: the agent signalled SUCCESS after %s (total: %s)", display.Plural(r.Iterations, "iteration"), total)
	case loop.StatusMaxIters:
		p.info("Reached max iterations: %d (%stotal: %s)", r.Last, thisInvocation(r), total)
	case loop.StatusIdle:
		p.line("Stopping: %s in a row changed nothing in git (%s completed, total: %s)", display.Plural(r.Idle, "iteration"), display.Plural(r.Iterations, "iteration"), total)
	case loop.StatusAborted:
		if r.Reason != "" {
			p.line("ERROR: Stopping: %s (%s completed, total: %s)", r.Reason, display.Plural(r.Iterations, "iteration"), total)
			break
		}
		p.line("ERROR: Aborting after %d consecutive failures (%s completed, total: %s)", r.Consecutive, display.Plural(r.Iterations, "iteration"), total)
	case loop.StatusLimited:
		p.line("Stopped: %s (%s completed, total: %s)", r.Reason, display.Plural(r.Iterations, "iteration"), total)
		hint := r.Hint
		if hint == "" {
			hint = "the run resumes where it stopped with the next 'git ralph loop'"
		}
		fmt.Fprintf(p.w, "hint: %s\n", hint)
	case loop.StatusFatal:
		p.line("ERROR: Stopping: %s (%s completed, total: %s)", r.Reason, display.Plural(r.Iterations, "iteration"), total)
		if r.Hint != "" {
			fmt.Fprintf(p.w, "hint: %s\n", r.Hint)
		}
		fmt.Fprintf(p.w, "hint: run the agent by hand once in this repository to fix it (log in, set its API key, check its flags); its output is in %s\n", outputLogPath(r.Record))
	case loop.StatusInterrupted:
		what := "Interrupted"
		if r.Cancelled {
			what = "Cancelled"
		}
		p.line("%s (%s completed, total: %s)", what, display.Plural(r.Iterations, "iteration"), total)
	case loop.StatusBudget, loop.StatusStagnant:
		p.line("Stopped: %s (%s completed, total: %s)", r.Reason, display.Plural(r.Iterations, "iteration"), total)
		if r.Hint != "" {
			fmt.Fprintf(p.w, "hint: %s\n", r.Hint)
		}
	}
	if r.Stats.Count > 0 && (!p.quiet || r.Status == loop.StatusAborted) {
		fmt.Fprintf(p.w, "  Iteration timing: count=%d, min=%s, max=%s, mean=%s, stddev=%s\n", r.Stats.Count,
			display.Duration(r.Stats.Min), display.Duration(r.Stats.Max), display.Duration(r.Stats.Mean()), display.Duration(r.Stats.Stddev()))
	}
	if (r.SpentUSD > 0 || r.SpentTokens > 0) && (!p.quiet || r.Status == loop.StatusBudget) {
		fmt.Fprintf(p.w, "  Spend: %s, %s tokens (the run so far, as the agent reported it)\n", display.Cost(r.SpentUSD, r.SpentUncosted), display.Count(r.SpentTokens))
	}
}

// outputLogPath is where the output of history iteration n is kept.
func outputLogPath(n int) string {
	if n <= 0 {
		return ".ralph/history/<N>/output.log"
	}
	return fmt.Sprintf(".ralph/history/%d/output.log", n)
}

// oneLine keeps an agent's or git's message (which may span lines) on one progress
// line: its lines joined with " / ", runs of blanks made one space.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(strings.TrimSpace(s), "\n", " / ")), " ")
}

// judged says what the judge said about an iteration: a line for PASS, a warning line
// (shown in quiet mode too) for FAIL or no verdict.
func (p *Progress) judged(e loop.Judged) {
	j := e.Judgement
	cost := ""
	if u := j.Usage; u.InputTokens+u.OutputTokens > 0 || u.HasCost {
		cost = fmt.Sprintf(" (judge: %s tokens", units.Count(u.InputTokens+u.OutputTokens))
		if u.HasCost {
			cost += ", " + units.Dollars(u.CostUSD)
		}
		cost += ")"
	}
	switch j.Verdict {
	case loop.VerdictPass:
		p.info("Iteration %d: the judge said PASS%s", e.Iteration, cost)
	case loop.VerdictFail:
		p.warn("Iteration %d: the judge said FAIL%s: %s; its reasons go into the next prompt", e.Iteration, cost, cut(oneLine(j.Reasons), 300))
	default:
		if j.Ran {
			p.warn("Iteration %d: the judge gave no verdict%s: %s", e.Iteration, cost, cut(oneLine(j.Error), 300))
		}
	}
}

// cut shortens s to about n bytes, at a rune boundary, with "…" where it was cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func (p *Progress) info(format string, args ...any) {
	if !p.quiet {
		p.line(format, args...)
	}
}

// warn prints what quiet mode still shows: failed and interrupted iterations.
func (p *Progress) warn(format string, args ...any) { p.line(format, args...) }

// warning prints a warning proper, prefixed as git does.
func (p *Progress) warning(format string, args ...any) { p.line("warning: "+format, args...) }

func (p *Progress) line(format string, args ...any) {
	layout := "15:04:05"
	if p.dated {
		layout = "2006-01-02 15:04:05"
	}
	// a line names commands, and the agent's and validation's words: none may drive the
	// terminal or break the one-event-per-line log
	fmt.Fprintf(p.w, "[%s] %s\n", p.now().Format(layout), display.Printable(fmt.Sprintf(format, args...)))
}

// overageNote says that an iteration was served on paid extra usage.
func overageNote(e loop.IterationFinished) string {
	if !e.Record.Overage {
		return ""
	}
	return ", served on extra usage"
}

// repeatNote says that an iteration repeated the attempt of the one before it (the
// stagnation check), and how many in a row; for one that changed nothing, the idle count
// says enough.
func repeatNote(e loop.IterationFinished) string {
	s := e.Record.Similarity
	switch {
	case s == nil || s.Repeats < 2 || idleNote(e) != "":
		return ""
	case s.Oscillation:
		return fmt.Sprintf(", files back to two iterations ago: %d in a row", s.Repeats)
	}
	return fmt.Sprintf(", same attempt: %d in a row", s.Repeats)
}

// idleNote adds the idle count to a successful iteration that changed nothing in git
// (a failure is not idle: it counts towards the consecutive failures).
func idleNote(e loop.IterationFinished) string {
	if e.Progress || e.IdleThreshold == 0 || e.Outcome == loop.OutcomeFailure {
		return ""
	}
	return fmt.Sprintf(", no changes: %d/%d", e.Idle, e.IdleThreshold)
}

func counter(i, max int) string {
	if max == 0 {
		return fmt.Sprint(i)
	}
	return fmt.Sprintf("%d/%d", i, max)
}

func limitText(max int) string {
	if max == 0 {
		return "unlimited"
	}
	return "max " + display.Plural(max, "iteration")
}

// thisInvocation counts the iterations of a resumed run that this invocation ran, when
// they are not all of the run's: "2 in this invocation, ".
func thisInvocation(r loop.Result) string {
	if r.Iterations == r.Last {
		return ""
	}
	return fmt.Sprintf("%d in this invocation, ", r.Iterations)
}
