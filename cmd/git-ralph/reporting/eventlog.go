package reporting

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop"
)

// RunLog is the structured log of .ralph/logs/ralph.log: one JSON object per line, from
// log/slog, with every iteration, wait, error, signal and hook failure, so that what an
// unattended run did can be read the morning after (`git ralph logs`). The file rotates
// (history.RotatingFile) so that it never grows without bound.
type RunLog struct {
	current  atomic.Pointer[slog.Logger] // gains the run's id at run_started; hooks log from their own goroutine
	file     io.Closer
	settings []config.Entry // logged at debug once the run has its id
}

// OpenRunLog opens the repository's log at the configured level ("debug", "info",
// "warn", "error"). The loop holds the repository's lock, so it is the only writer.
func OpenRunLog(root, level string) (*RunLog, error) {
	if err := history.EnsureGitignore(root); err != nil {
		return nil, err
	}
	f, err := history.OpenRotating(history.LogPath(root), history.DefaultLogMax, history.DefaultLogKeep)
	if err != nil {
		return nil, err
	}
	h := slog.NewJSONHandler(f, &slog.HandlerOptions{Level: logLevel(level)})
	l := &RunLog{file: f}
	l.current.Store(slog.New(h).With("pid", os.Getpid()))
	return l, nil
}

func logLevel(name string) slog.Level {
	var l slog.Level
	if l.UnmarshalText([]byte(strings.ToUpper(name))) != nil {
		return slog.LevelInfo
	}
	return l
}

func (l *RunLog) log() *slog.Logger { return l.current.Load() }

// Close flushes nothing (every record is written whole as it comes) and closes the file.
func (l *RunLog) Close() { l.file.Close() }

// Report logs one loop event.
func (l *RunLog) Report(e loop.Event) {
	switch e := e.(type) {
	case loop.RunStarted:
		l.current.Store(l.log().With("run", e.Run))
		l.log().Info("run started", present("mode", e.Mode, "max_iterations", e.Max, "resumed", e.Resumed,
			"first_iteration", e.First, "why", e.Why)...)
		l.debugSettings()
	case loop.IterationStarted:
		l.log().Info("iteration started", "iteration", e.Iteration, "record", e.Record)
		l.debugPrompt(e)
	case loop.IterationFinished:
		l.iterationFinished(e)
		l.debugScan(e)
	case loop.AgentStopping:
		l.log().Warn("stopping the agent", "iteration", e.Iteration, "signal", loop.SignalName(e.Signal), "why", e.Why)
	case loop.OutputTruncated:
		l.log().Warn("output truncated", "iteration", e.Iteration, "total_bytes", e.Total, "kept_bytes", e.Kept)
	case loop.Waiting:
		l.log().Warn("waiting", "iteration", e.Iteration, "kind", e.Kind, "message", e.Message,
			"wait_until", e.Until.UTC(), "attempt", e.Attempt, "resumed", e.Resumed, "from", e.From)
	case loop.Paused:
		args := []any{"iteration", e.Iteration, "retry", e.Retry}
		if !e.Asked.IsZero() {
			args = append(args, "asked_at", e.Asked.UTC())
		}
		l.log().Info("paused", args...)
	case loop.Resumed:
		l.log().Info("resumed", "iteration", e.Iteration, "paused_ms", e.Paused.Milliseconds())
	case loop.BaselineTaken:
		l.log().Info("baseline", "command", e.Command, "format", string(e.Format), "kept", e.Kept, "exit_code", e.ExitCode,
			"tests", e.Tests, "failing", len(e.Failing), "duration_ms", e.Duration.Milliseconds())
	case loop.ValidationFailed:
		v := e.Validation
		l.log().Warn("validation failed", "iteration", e.Iteration, "command", v.Command, "exit_code", v.ExitCode,
			"timed_out", v.TimedOut, "duration_ms", v.Duration.Milliseconds())
	case loop.UntilFailed:
		u := e.Until
		l.log().Warn("promise command failed", "iteration", e.Iteration, "command", u.Command, "exit_code", u.ExitCode,
			"timed_out", u.TimedOut, "duration_ms", u.Duration.Milliseconds())
	case loop.Judged:
		j := e.Judgement
		l.log().Info("judged", "iteration", e.Iteration, "judge", j.Judge, "verdict", j.Verdict, "error", j.Error,
			"duration_ms", j.Duration.Milliseconds(), "input_tokens", j.Usage.InputTokens, "output_tokens", j.Usage.OutputTokens, "cost_usd", j.Usage.CostUSD)
	case loop.Pushed:
		if e.Err != nil {
			l.log().Error("push failed", "iteration", e.Iteration, "target", e.Target, "error", e.Err.Error())
			return
		}
		l.log().Info("pushed", "iteration", e.Iteration, "target", e.Target, "commit", e.Commit)
	case loop.Warning:
		l.log().Warn(e.Message)
	case loop.RunFinished:
		l.runFinished(e.Result)
	}
}

func (l *RunLog) iterationFinished(e loop.IterationFinished) {
	r := e.Record
	level := slog.LevelInfo
	if e.Outcome != loop.OutcomeSuccess && e.Outcome != loop.OutcomeDone {
		level = slog.LevelWarn
	}
	l.log().Log(context.Background(), level, "iteration finished", present("iteration", e.Iteration, "record", r.Iteration,
		"outcome", e.Outcome, "reason", e.Reason, "exit_code", e.ExitCode, "duration_ms", e.Duration.Milliseconds(),
		"timed_out", e.TimedOut, "progress", e.Progress, "commit_after", r.CommitAfter, "files_changed", r.FilesChanged,
		"insertions", r.Insertions, "deletions", r.Deletions, "validation", r.Validation, "push", r.Push,
		"note", e.Note, "output_bytes", e.OutputBytes, "output", r.OutputPath)...)
}

func (l *RunLog) runFinished(r loop.Result) {
	level := slog.LevelInfo
	if r.Status.ExitCode() == 1 {
		level = slog.LevelError
	}
	l.log().Log(context.Background(), level, "run finished", present("status", r.Status, "exit_code", r.Status.ExitCode(),
		"reason", r.Reason, "iterations", r.Iterations, "last_iteration", r.Last, "cancelled", r.Cancelled,
		"elapsed_ms", r.Elapsed.Milliseconds())...)
}

// HookFailed logs an event hook that failed: the hook's setting, its command, the
// event, how it failed, its output and how long it ran. The loop goes on.
func (l *RunLog) HookFailed(hook, command, event string, err error, output string, took time.Duration) {
	l.log().Error("hook failed", present("hook", hook, "command", command, "event", event, "error", err.Error(),
		"output", output, "duration_ms", took.Milliseconds())...)
}

// NotifyFailed logs a notification that could not be delivered: where to, for which
// event, why, and how long it tried. The loop goes on.
func (l *RunLog) NotifyFailed(destination, event string, err error, took time.Duration) {
	l.log().Warn("notification failed", "destination", destination, "event", event, "error", err.Error(),
		"duration_ms", took.Milliseconds())
}

// Signal logs a signal the loop received.
func (l *RunLog) Signal(name string) { l.log().Warn("signal received", "signal", name) }

// Failed logs an error that ended the run without a run_finished event.
func (l *RunLog) Failed(err error) { l.log().Error("run failed", "error", err.Error()) }

// present drops the key-value pairs whose value is an empty string, so that a record
// says what happened and not what did not.
func present(kv ...any) []any {
	out := kv[:0:0]
	for i := 0; i+1 < len(kv); i += 2 {
		if s, ok := kv[i+1].(string); ok && s == "" {
			continue
		}
		out = append(out, kv[i], kv[i+1])
	}
	return out
}
