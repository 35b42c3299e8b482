package loop

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/agent"
	"github.com/git-ralph/git-ralph/loop/agentcli"
	"github.com/git-ralph/git-ralph/loop/recording"
)

// Defaults of the waits between attempts.
const (
	DefaultBackoffBase  = time.Second
	DefaultBackoffMax   = 60 * time.Second
	DefaultMaxLimitWait = 6 * time.Hour
	// transientRetries is how many quick retries a transient error (overloaded, 5xx) gets
	// before the attempt counts as a failed iteration.
	transientRetries = 3
	// resetMargin is added to a stated reset time: the times agents print are rounded
	// (to the minute or hour), so a retry at the exact second may find the limit still on.
	resetMargin = 30 * time.Second
)

// attempt is the agent's last run for one iteration, after any retries.
type attempt struct {
	res        agent.Result
	read       agentcli.Report
	promise    Promise           // the promise in the last run's words
	final      string            // the end of the last run's last words, for the stagnation check
	tries      []history.Attempt // every run's figures, the last one last
	usage      agentcli.Usage    // the tokens and cost of every run, summed: each was paid for
	overage    bool              // a run was served on paid extra usage
	planResets time.Time         // when the plan's window resets, as the overage runs stated it
	limitWaits int               // attempts that hit a usage or rate limit
	retries    int               // attempts retried after a transient error
	waited     time.Duration     // time spent waiting between attempts
	// halt: StatusLimited, StatusFatal or StatusBudget, the run stops after this iteration
	halt
	haltKept string // halt.why as the record and last_error keep it: "" when the same
}

// add keeps the figures of run n, whose result is res and whose output read says.
func (a *attempt) add(n int, res agent.Result, read agentcli.Report) {
	u := read.Usage
	a.tries = append(a.tries, history.Attempt{Attempt: n, ExitCode: res.ExitCode,
		DurationMS: res.Duration.Milliseconds(), Model: u.Model, InputTokens: u.InputTokens,
		OutputTokens: u.OutputTokens, CacheRead: u.CacheReadTokens, CacheWrite: u.CacheWriteTokens,
		CostUSD: u.CostUSD, Overage: read.Overage, Error: bounded(read.Error)})
	a.usage.InputTokens += u.InputTokens
	a.usage.OutputTokens += u.OutputTokens
	a.usage.CacheReadTokens += u.CacheReadTokens
	a.usage.CacheWriteTokens += u.CacheWriteTokens
	a.usage.CostUSD += u.CostUSD
	a.usage.HasCost = a.usage.HasCost || u.HasCost
	a.usage.CachedInInput = a.usage.CachedInInput || u.CachedInInput
	if u.Model != "" {
		a.usage.Model = u.Model
	}
	a.overage = a.overage || read.Overage
	if read.OverageUntil.After(a.planResets) {
		a.planResets = read.OverageUntil
	}
}

// maxErrorText bounds the agent's error text kept in a record and the state.
const maxErrorText = 2000

// bounded is s cut to maxErrorText bytes, at a rune boundary.
func bounded(s string) string { return cutRedacted(strings.TrimSpace(s), maxErrorText) }

// attempts runs the agent for iteration i until an attempt counts: a limited attempt is
// not an iteration and not an error, so the same iteration runs again after a wait; a
// transient error gets a few quick retries. An attempt whose words carry a promise is
// never run again: SUCCESS or FAILURE is the agent's own word on the work, and an error
// after it (an API 500 as it wrapped up) does not undo the work in git. Every attempt's
// output goes to the same log.
func (r *runner) attempts(ctx context.Context, i int, it *iterationRecord, prompt string) (attempt, error) {
	var a attempt
	for n := 1; ; n++ {
		if n > 1 && !r.mayRetry(ctx, i, &a) {
			return a, nil
		}
		if err := r.try(ctx, i, n, it, prompt, &a); err != nil {
			return a, err
		}
		if a.res.Interrupted || a.res.TimedOut || a.promise != PromiseNone {
			return a, nil
		}
		until, kind, msg := r.waits.retryPlan(&a, r.cfg.Replay)
		if kind == "" {
			return a, nil
		}
		a.tries[len(a.tries)-1].Retried = kind
		// one line, so that the log shows (and a reader finds) where the next attempt begins
		fmt.Fprintf(it.output, "\n[git-ralph: attempt %d: %s: %s; retrying at %s]\n", n, kind, oneLine(msg, maxErrorText), until.Format(time.RFC3339))
		ev := Waiting{Iteration: i, Kind: kind, Message: msg, Until: until, Attempt: a.limitWaits + a.retries}
		if !r.res.waitedOut(r.waits.timed(ctx, &a, ev)) {
			a.res.Interrupted = true
			return a, nil
		}
	}
}

// mayRetry reports whether another attempt at iteration i runs: after a limit another
// loop shared meanwhile is waited out, and when the budgets can still be expected to
// cover it (other loops spend during the waits); otherwise a says why not.
func (r *runner) mayRetry(ctx context.Context, i int, a *attempt) bool {
	if !r.res.waitedOut(r.waits.beforeRetry(ctx, i, a)) {
		a.res.Interrupted = true
		return false
	}
	if h, over := r.budget.over(r.state); over {
		a.halt = h
		return false
	}
	return true
}

// try runs attempt n of iteration i and adds what it did to a: its result, what its
// output said, its figures and its spend (the run's and the day's), and the account the
// agent named, which keys the shared limits.
func (r *runner) try(ctx context.Context, i, n int, it *iterationRecord, prompt string, a *attempt) error {
	take := r.takes.begin(ctx, i, n, prompt)
	res, read, err := r.runAgent(ctx, i, it, prompt, take)
	if err != nil {
		take.Discard()
		return err
	}
	a.res, a.read = res, read
	r.takes.end(ctx, take, res, a.read)
	if a.read.Account != "" {
		r.waits.shared.learned(a.read.Account)
		r.state.AgentAccount = a.read.Account
	}
	a.promise = ScanPromise(withoutEcho(a.read.Said, prompt))
	a.final = finalWords(a.read.Final, prompt)
	a.add(n, res, a.read)
	r.budget.spend(r.state, a.read.Usage)
	return nil
}

// runAgent runs the agent once for iteration i, and reads what it said: in-process for
// an API preset (its report is apiagent's), else as a process whose output the preset
// reads.
func (r *runner) runAgent(ctx context.Context, i int, it *iterationRecord, prompt string, take *recording.Take) (agent.Result, agentcli.Report, error) {
	var log io.Writer = it.output
	if take != nil {
		log = io.MultiWriter(log, take.Output())
	}
	if r.cfg.inProcess() {
		res, read := runInProcess(ctx, inProcess{api: r.cfg.API, preset: r.cfg.Agent, procs: r.procs, i: i,
			prompt: prompt, timeout: r.cfg.Timeout, keep: r.cfg.MaxOutputBuffer, out: log, live: r.deps.Live})
		r.truncated(i, res)
		return res, read, nil
	}
	res, err := r.runProcess(ctx, i, log, prompt)
	if err != nil {
		return res, agentcli.Report{}, err
	}
	return res, readOutput(r.cfg.Agent, res, r.deps.Now()), nil
}

// runProcess runs the agent's process once for iteration i, its output to log.
func (r *runner) runProcess(ctx context.Context, i int, log io.Writer, prompt string) (agent.Result, error) {
	spec := r.cfg.agentSpec(r.procs, i, prompt)
	spec.Live, spec.Log = r.deps.Live, log
	spec.Stopping = func(sig syscall.Signal, why string) {
		r.report(AgentStopping{Iteration: i, Signal: sig, Why: why})
	}
	spec.Env = append(identityEnv(ctx, r.cfg.Dir, r.cfg.Agent), spec.Env...) // the loop's own entries win
	if r.cfg.runsPreset() && r.cfg.Agent.Prompt == agentcli.File {
		file, err := writePromptFile(prompt)
		if err != nil {
			return agent.Result{}, err
		}
		defer os.Remove(file)
		spec.Command, spec.Prompt = r.cfg.Agent.CommandLine(file), nil
	}
	res, err := agent.Run(ctx, spec)
	if err != nil {
		return res, err
	}
	r.truncated(i, res)
	return res, nil
}

// truncated reports an agent's output longer than the loop keeps.
func (r *runner) truncated(i int, res agent.Result) {
	if res.Truncated {
		r.report(OutputTruncated{Iteration: i, Total: res.OutputBytes, Kept: len(res.Output)})
	}
}

// agentSpec is how the agent of iteration i runs, but for where its output goes.
func (c Config) agentSpec(p procs, i int, prompt string) agent.Spec {
	spec := p.spec(i, c.command())
	spec.Env = append(spec.Env, c.Agent.Env...)
	spec.Prompt, spec.Started = strings.NewReader(prompt), p.started
	spec.Timeout, spec.OutputTimeout, spec.MaxOutput = c.Timeout, c.OutputTimeout, c.MaxOutputBuffer
	return spec
}

// writePromptFile puts the prompt where an agent that cannot read stdin finds it: a
// private temp file outside the repository, so the agent's `git add -A` cannot take it.
func writePromptFile(prompt string) (string, error) {
	f, err := os.CreateTemp("", "git-ralph-prompt-*.md")
	if err != nil {
		return "", fmt.Errorf("writing the prompt file: %w", err)
	}
	_, err = f.WriteString(prompt)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("writing the prompt file: %w", err)
	}
	return f.Name(), nil
}

// readOutput reads what the agent said, with its preset's parser when it has one.
func readOutput(p agentcli.Preset, res agent.Result, now time.Time) agentcli.Report {
	if p.Name == "" {
		return agentcli.ReadText(res.Output, res.ExitCode, now)
	}
	return p.Read(res.Output, res.ExitCode, now)
}

// limitWaitHint is what to do about a limit that resets later than max_limit_wait.
const limitWaitHint = "the run resumes where it stopped with the next 'git ralph loop'; raise max_limit_wait to wait longer"

// tooLong says why a limit's wait is not made: when it ends, how long that really is
// from now (and what the iteration already waited), against max_limit_wait. Without now
// (a zero time), only when it ends: the text kept for later readers.
func tooLong(until, now time.Time, waited, limit time.Duration, msg string) string {
	when := until.Local().Format("2006-01-02 15:04:05")
	if !now.IsZero() {
		left := roughly(until.Sub(now)) + " from now"
		if waited > 0 {
			left += ", after " + roughly(waited) + " already waited"
		}
		when += " (" + left + ")"
	}
	return fmt.Sprintf("usage limit until %s, longer than max_limit_wait (%s): %s", when, roughly(limit), msg)
}

// roughly prints d to the second under an hour and to the minute above, without the
// zero units time.Duration prints ("6h", not "6h0m0s").
func roughly(d time.Duration) string {
	if d >= time.Hour {
		d = d.Round(time.Minute)
	} else {
		d = d.Round(time.Second)
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// runsPreset reports whether the preset's own command line runs (no custom command).
func (c Config) runsPreset() bool { return strings.TrimSpace(c.AgentCmd) == "" }

// inProcess reports whether the loop runs the agent itself (an API preset, no custom
// command: a replay of an API agent's recording runs as a command and is read as its
// exchange).
func (c Config) inProcess() bool { return c.runsPreset() && c.Agent.InProcess() && c.API != nil }

// command is the agent's command line: the custom one, or the preset's (whose prompt
// file, if it takes one, runAgent fills in).
func (c Config) command() string {
	if c.runsPreset() {
		return c.Agent.CommandLine("")
	}
	return c.AgentCmd
}
