package loop

import (
	"context"
	"fmt"

	"github.com/git-ralph/git-ralph/loop/agent"
	"github.com/git-ralph/git-ralph/loop/agentcli"
	"github.com/git-ralph/git-ralph/loop/recording"
)

// beginTake starts recording attempt n of iteration i, when the run records (--record).
// A recording that fails is stopped with a warning: the run itself goes on.
func (r *runner) beginTake(ctx context.Context, i, n int, prompt string) *recording.Take {
	if r.cfg.Record == nil {
		return nil
	}
	take, err := r.cfg.Record.Begin(ctx, r.res.Run, i, n, prompt)
	if err != nil {
		r.stopRecording(err)
		return nil
	}
	return take
}

// endTake completes the recording of an attempt with how it ended and what the preset's
// reader made of its output. An interrupted attempt is not kept: what Ctrl+C or cancel
// cut short is not the agent's behaviour, and the resumed run runs it again.
func (r *runner) endTake(ctx context.Context, take *recording.Take, res agent.Result, read agentcli.Report) {
	if take == nil {
		return
	}
	if res.Interrupted || ctx.Err() != nil {
		take.Discard()
		return
	}
	u := read.Usage
	out := recording.Result{ExitCode: res.ExitCode, TimedOut: res.TimedOut, Duration: res.Duration,
		Usage: recording.Usage{Model: u.Model, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
			CacheRead: u.CacheReadTokens, CacheWrite: u.CacheWriteTokens, CostUSD: u.CostUSD, HasCost: u.HasCost}}
	if res.Signal != 0 {
		out.Signal = SignalName(res.Signal)
	}
	if err := take.End(ctx, out); err != nil {
		r.stopRecording(err)
	}
}

// stopRecording ends the recording after an error, saying so.
func (r *runner) stopRecording(err error) {
	r.report(Warning{Message: fmt.Sprintf("recording stopped (%s): %v", r.cfg.Record.Dir(), err)})
	r.cfg.Record = nil
}
