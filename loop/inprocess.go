package loop

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"time"

	"github.com/git-ralph/git-ralph/loop/agent"
	"github.com/git-ralph/git-ralph/loop/agentcli"
	"github.com/git-ralph/git-ralph/loop/apiagent"
)

// APIAgent is how an in-process agent (an API preset: Agent.InProcess()) reaches its
// model (docs/design/api-agents.md): no process starts; the loop calls apiagent.Run.
type APIAgent struct {
	Model   string
	BaseURL string // "": the vendor's own
	// Key is the API key; "" sends none (a local server). Never written anywhere: the
	// exchange replaces it, and the command adds it to the redaction of everything else.
	Key        string
	MaxTurns   int   // model requests per iteration; 0: apiagent's default
	MaxContext int64 // the conversation's tokens at most; 0: no cap of git-ralph's own
	// Price is the model's, which turns its tokens into a cost; nil: the model has none,
	// and its cost is unknown (never $0.00), as an agent's that reports none.
	Price *apiagent.Price
}

// Account is what keys the limits the user's loops share for this agent: a fingerprint
// of the key (never the key), or of the server when no key is sent.
func (a *APIAgent) Account() string {
	if a == nil {
		return ""
	}
	if a.Key == "" {
		return "no key, " + a.BaseURL
	}
	sum := sha256.Sum256([]byte(a.Key))
	return "key " + hex.EncodeToString(sum[:6])
}

// inProcessLimitWait is the longest rate limit an in-process agent waits out inside its
// conversation: a per-minute limit then costs a pause, not the conversation so far;
// a longer one ends the iteration, for the loop's own limit wait.
const inProcessLimitWait = time.Minute

// inProcess is one run of an in-process agent: the iteration's agent or its judge.
type inProcess struct {
	api      *APIAgent
	preset   agentcli.Preset
	procs    procs
	i        int
	prompt   string
	timeout  time.Duration // the iteration's; 0: none
	keep     int           // the bytes of the exchange kept in the Result's Output
	out      io.Writer     // the saved log (and a recording's take), redacted by their writers
	live     io.Writer     // --verbose; nil: none
	readOnly bool          // a judge's run: only the tools that read
}

// runInProcess runs an in-process agent once and gives its result as an agent process's
// (the exchange as its output, exit 1 for a failed iteration) and its report from
// apiagent's Result, which the loop reads as a CLI agent's read output.
func runInProcess(ctx context.Context, in inProcess) (agent.Result, agentcli.Report) {
	started := time.Now()
	runCtx, cancel := ctx, context.CancelFunc(func() {})
	if in.timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, in.timeout)
	}
	defer cancel()
	tail := agent.NewTail(in.keep)
	sinks := []io.Writer{tail}
	if in.out != nil {
		sinks = append(sinks, in.out)
	}
	if in.live != nil {
		live, end := agent.Live(in.live)
		defer end()
		sinks = append(sinks, live)
	}
	res, _ := apiagent.Run(runCtx, apiagent.Request{
		Protocol: in.preset.API.Protocol, Model: in.api.Model, BaseURL: in.api.BaseURL, Key: in.api.Key,
		WorkTree: in.procs.dir, Prompt: in.prompt, MaxTurns: in.api.MaxTurns, MaxContext: in.api.MaxContext,
		Marker: "RALPH_RUN=" + in.procs.run, Watchdogs: in.procs.dogs, ReadOnly: in.readOnly, Price: in.api.Price,
		LimitWait: inProcessLimitWait, Env: in.procs.env(in.i),
		Out: io.MultiWriter(sinks...),
	})
	out := agent.Result{Output: tail.Bytes(), OutputBytes: tail.Total(), Truncated: tail.Truncated(),
		Duration: time.Since(started)}
	if res.Err != nil {
		out.ExitCode = 1
		if res.Err.Kind == apiagent.Interrupted {
			out.Interrupted = ctx.Err() != nil
			out.TimedOut = !out.Interrupted && errors.Is(runCtx.Err(), context.DeadlineExceeded)
		}
	}
	return out, res.Report()
}
