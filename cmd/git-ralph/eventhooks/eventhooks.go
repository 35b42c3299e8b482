package eventhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/history/redact"
	"github.com/git-ralph/git-ralph/loop"
	"github.com/git-ralph/git-ralph/loop/agent"
)

// Hooks runs the commands of [hooks] on loop events, each with the event's JSON on
// stdin. They run one at a time, in order, on a goroutine of their own, so that a slow
// webhook neither delays the next iteration nor runs out of order; Close waits for the
// last of them (each bounded by its timeout) so that on_complete is not lost on exit.
// A hook that fails or times out is reported and logged, and the loop goes on.
type Hooks struct {
	hooks   config.Hooks
	dir     string
	encode  Encoder
	queue   chan Call
	done    chan struct{}
	failed  func(Result)    // called from the hooks' goroutine
	abandon context.Context // cancelled when the user will not wait for the hooks
	stop    context.CancelFunc
	started bool
	closed  bool // Report and Close come from the loop's goroutine only
}

// Encoder turns a loop event into its name and the object written as its JSON (the
// same as --json writes); ok is false for an event that has no JSON form.
type Encoder func(loop.Event) (name string, obj any, ok bool)

// Call is one hook command to run with its event.
type Call struct {
	Name    string // "on_iteration", …
	Command string
	Event   string // "iteration_finished", …
	payload []byte
}

// Result is how a hook command ended; Err is nil when it succeeded.
type Result struct {
	Call
	Err      error
	Output   string // the end of what it printed
	Duration time.Duration
}

// hookQueue bounds the events waiting for a slow hook; beyond it, events are dropped
// (and said so) rather than piling up in memory on a long unattended run.
const hookQueue = 64

// New makes the hooks of h, run in dir; failed hears of every hook that fails.
func New(h config.Hooks, dir string, encode Encoder, failed func(Result)) *Hooks {
	abandon, stop := context.WithCancel(context.Background())
	return &Hooks{hooks: h, dir: dir, encode: encode, failed: failed, abandon: abandon, stop: stop,
		queue: make(chan Call, hookQueue), done: make(chan struct{})}
}

// Any reports whether a hook command is configured at all.
func (h *Hooks) Any() bool {
	return h.hooks.OnIteration.V != "" || h.hooks.OnComplete.V != "" || h.hooks.OnFailure.V != "" || h.hooks.OnLimit.V != ""
}

// Report queues the hooks that the event calls for.
func (h *Hooks) Report(e loop.Event) {
	event, obj, ok := h.encode(e)
	if !ok {
		return
	}
	for _, name := range hooksFor(e) {
		command := h.command(name)
		if command == "" {
			continue
		}
		payload, _ := json.Marshal(obj)
		h.enqueue(Call{Name: name, Command: command, Event: event, payload: redact.Bytes(append(payload, '\n'))})
	}
}

// hooksFor names the hooks an event calls: on_iteration after every iteration that ran
// to its end, on_limit when the loop starts waiting for a usage limit or a run stops on
// one, on_failure when a run aborts or the agent cannot run, on_complete when a run ends
// any other way (success, max iterations, idle, interrupted).
func hooksFor(e loop.Event) []string {
	switch e := e.(type) {
	case loop.IterationFinished:
		if e.Outcome.Counts() {
			return []string{"on_iteration"}
		}
	case loop.Waiting:
		if e.Kind == "limit" {
			return []string{"on_limit"}
		}
	case loop.RunFinished:
		switch e.Result.Status {
		case loop.StatusLimited:
			return []string{"on_limit"}
		case loop.StatusAborted, loop.StatusFatal, loop.StatusBudget, loop.StatusStagnant:
			return []string{"on_failure"}
		}
		return []string{"on_complete"}
	}
	return nil
}

func (h *Hooks) command(name string) string {
	return map[string]string{"on_iteration": h.hooks.OnIteration.V, "on_complete": h.hooks.OnComplete.V,
		"on_failure": h.hooks.OnFailure.V, "on_limit": h.hooks.OnLimit.V}[name]
}

func (h *Hooks) enqueue(c Call) {
	if h.closed {
		return // an event after the end: nothing waits for its hook any more
	}
	if !h.started {
		h.started = true
		go h.work()
	}
	select {
	case h.queue <- c:
	default:
		h.failed(Result{Call: c, Err: fmt.Errorf("skipped: %d earlier hook calls are still waiting", hookQueue)})
	}
}

func (h *Hooks) work() {
	defer close(h.done)
	for c := range h.queue {
		if h.abandon.Err() != nil {
			continue // the user stopped waiting: drop what is queued
		}
		if r := runHook(h.abandon, c, h.dir, h.timeout()); r.Err != nil {
			h.failed(r)
		}
	}
}

func (h *Hooks) timeout() time.Duration {
	if h.hooks.Timeout.V <= 0 {
		return 30 * time.Second
	}
	return h.hooks.Timeout.V
}

// Close waits for the queued hooks to finish, unless hurry closes first (a second
// Ctrl+C): then the running hook is killed and the queued ones are dropped. Closing
// again does nothing.
func (h *Hooks) Close(hurry <-chan struct{}) {
	if h.closed {
		return
	}
	h.closed = true
	close(h.queue)
	if !h.started {
		return
	}
	select {
	case <-h.done:
	case <-hurry:
		h.stop()
		<-h.done
	}
}

// hookOutputKept is how much of a hook's output is kept for the log when it fails.
const hookOutputKept = 2 << 10

// runHook runs one hook command as the loop runs its agent (loop/agent): sh -c in dir,
// the event on stdin, in a session of its own that is stopped whole at the timeout or
// when abandoned, with whatever it leaves running. It does not use the loop's context:
// the hook for an interrupted run must still run.
func runHook(abandon context.Context, c Call, dir string, timeout time.Duration) Result {
	res, err := agent.Run(abandon, agent.Spec{
		Command: c.Command, Dir: dir, Prompt: bytes.NewReader(c.payload), Timeout: timeout,
		Env: []string{"RALPH_EVENT=" + c.Event, "RALPH_HOOK=" + c.Name}, MaxOutput: hookOutputKept,
	})
	switch {
	case err != nil:
		err = fmt.Errorf("could not run: %w", err)
	case res.Interrupted:
		err = errors.New("killed: git-ralph was told to stop at once")
	case res.TimedOut:
		err = fmt.Errorf("timed out after %s", timeout)
	case res.Signal != 0:
		err = fmt.Errorf("killed by %s", loop.SignalName(res.Signal))
	case res.ExitCode != 0:
		err = fmt.Errorf("exit status %d", res.ExitCode)
	}
	return Result{Call: c, Err: err, Output: strings.TrimSpace(string(res.Output)), Duration: res.Duration}
}
