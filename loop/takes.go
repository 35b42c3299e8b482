package loop

import (
	"context"
	"fmt"

	"github.com/git-ralph/git-ralph/loop/agent"
	"github.com/git-ralph/git-ralph/loop/agentcli"
	"github.com/git-ralph/git-ralph/loop/recording"
)

// takes keeps every attempt of the agent in the run's recording (--record), one take
// each. A recording that fails is stopped with a warning: the run itself goes on.
type takes struct {
	rec  *recording.Recorder // nil: the run does not record (or its recording stopped)
	run  string
	warn func(string)
}

// begin starts recording attempt n of iteration i.
func (t *takes) begin(ctx context.Context, i, n int, prompt string) *recording.Take {
	if t.rec == nil {
		return nil
	}
	take, err := t.rec.Begin(ctx, t.run, i, n, prompt)
	if err != nil {
		t.stop(err)
		return nil
	}
	return take
}

// end completes the recording of an attempt with how it ended and what the preset's
// reader made of its output. An interrupted attempt is not kept: what Ctrl+C or cancel
// cut short is not the agent's behaviour, and the resumed run runs it again.
func (t *takes) end(ctx context.Context, take *recording.Take, res agent.Result, read agentcli.Report) {
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
		t.stop(err)
	}
}

// stop ends the recording after an error, saying so.
func (t *takes) stop(err error) {
	t.warn(fmt.Sprintf("recording stopped (%s): %v", t.rec.Dir(), err))
	t.rec = nil
}
