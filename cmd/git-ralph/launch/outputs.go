package launch

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/eventhooks"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/notify"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/reporting"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop"
	"github.com/git-ralph/git-ralph/loop/agentcli"
)

// loopOutputs are where a loop's events go: progress lines on stderr, the JSON stream
// on stdout (--json), the structured log, the event hooks, the notifications, and the
// agent's own output (--verbose), counted for the terminal's status line.
type loopOutputs struct {
	progress *reporting.Progress
	reporter reporting.Reporters
	log      *reporting.RunLog // nil when the log could not be opened
	hooks    *eventhooks.Hooks
	notes    *notify.Notifier
	live     *outputCounter
	hurry    <-chan struct{} // closed by a second Ctrl+C
}

// outputs opens what the run reports to. A log that cannot be opened is a warning, not
// a reason to leave the agent idle.
func (l *Loop) outputs(root string, set *Settings) *loopOutputs {
	s, c := l.Streams, &l.Options
	o := &loopOutputs{progress: reporting.NewProgress(s.Stderr, c.Quiet), live: &outputCounter{}, hurry: l.Signals.Hurry}
	o.reporter = reporting.Reporters{o.progress}
	if c.JSON {
		o.reporter = append(o.reporter, reporting.NewJSONStream(root, s.Stdout))
	}
	o.live.w = l.agentOutput(set)
	if o.progress.Fancy() && o.live.w == nil { // the agent's own output would tear it
		o.progress.ShowStatusLine(o.live.bytes)
	}
	rotateCronLog(root, s.Stderr)
	l.openLog(o, root, set)
	o.hooks = eventhooks.New(set.Resolved.Hooks, root, reporting.NewEventEncoder(root).Encode, func(r eventhooks.Result) {
		o.hookFailed(s.Stderr, r)
	})
	if o.hooks.Any() {
		o.reporter = append(o.reporter, o.hooks)
	}
	o.notes = l.notifier(root, set, o.log)
	if o.notes.Any() {
		o.reporter = append(o.reporter, o.notes)
	}
	return o
}

// agentOutput is where the agent's own output is shown (--verbose, show_agent_output):
// stdout, or stderr when stdout carries the JSON events; nil when it is not shown.
func (l *Loop) agentOutput(set *Settings) io.Writer {
	s, c := l.Streams, &l.Options
	if !c.Verbose.On() && (!set.Resolved.ShowAgentOutput.V || c.Quiet) {
		return nil
	}
	w := s.Stdout
	if c.JSON {
		w = s.Stderr // stdout carries events only
	}
	if c.Verbose != VerboseRaw && set.Loop.Agent.Format != agentcli.Text {
		// a preset's JSON, rendered for reading; a custom agent's text passes as is
		w = agentcli.NewRenderWriter(w, set.Loop.Agent.Format)
	}
	return w
}

// rotateCronLog keeps cron.log bounded: the cron entries' shell appends to it; renaming
// it keeps it bounded (this run goes on writing to the renamed file, the next one starts
// a new cron.log). Never through a .ralph/logs symlink: the run refuses it (saying why)
// before any iteration, and must rename and delete nothing wherever it leads first.
func rotateCronLog(root string, stderr io.Writer) {
	if history.CheckOwnDirs(root) != nil {
		return // the loop's logbook reports it
	}
	if err := history.RotateIfLarger(history.CronLogPath(root), history.DefaultLogMax, history.DefaultLogKeep); err != nil {
		fmt.Fprintf(stderr, "warning: %v\n", err)
	}
}

// openLog opens the structured log and adds it to o's reporters, with the settings and
// the signals it records; one that cannot be opened is a warning.
func (l *Loop) openLog(o *loopOutputs, root string, set *Settings) {
	log, err := reporting.OpenRunLog(root, l.Options.logLevel(set.Resolved.LogLevel))
	if err != nil {
		fmt.Fprintf(l.Streams.Stderr, "warning: no structured log for this run: %v\n", err)
		return
	}
	o.log = log
	log.KeepSettings(set.Entries())
	o.reporter = append(o.reporter, log)
	if l.Signals.Observe != nil {
		l.Signals.Observe(func(sig os.Signal) { log.Signal(sig.String()) })
	}
}

// logLevel is the structured log's level: log_level's, but with --quiet no lower than
// warnings unless --log-level itself chose it: a run asked to be quiet (from cron, say)
// keeps its log to what went wrong too.
func (c *Options) logLevel(setting config.Value[string]) string {
	if c.Quiet && setting.Origin.Kind != config.FromFlag && (setting.V == "debug" || setting.V == "info") {
		return "warn"
	}
	return setting.V
}

// notifier sends the notify setting's messages for this loop; a failed one is a warning
// on stderr and in the log (when there is one).
func (l *Loop) notifier(root string, set *Settings, log *reporting.RunLog) *notify.Notifier {
	repo := root
	if len(set.TrustedAt) > 0 { // a worktree loop: named after the main work tree
		repo = set.TrustedAt[0]
	}
	return NewNotifier(l.Streams.Stderr, set.Resolved.Notify.V, notify.Where{Repository: filepath.Base(repo), Loop: l.Worktree}, log)
}

// startFailed notifies that the loop could not start (its agent or validate command
// missing, say): from cron, nobody reads its stderr. Only through destinations the user
// chose or approved: a repository's webhooks are under trust, not asked for here.
func (l *Loop) startFailed(root string, set *Settings, err error) {
	notify := set.Resolved.Notify
	if notify.Origin.Kind == config.FromRepo {
		ok, terr := l.Trust.Trusted(set.Resolved.RepoCommands(), root, set.TrustedAt...)
		if !ok || terr != nil {
			return
		}
	}
	n := l.notifier(root, set, nil)
	n.Failed(err)
	n.Close(nil)
}

// NewNotifier makes the notifier of a notify setting; its warnings go to stderr, and to
// log unless nil.
func NewNotifier(stderr io.Writer, list []string, where notify.Where, log *reporting.RunLog) *notify.Notifier {
	var bell io.Writer
	if reporting.IsTerminal(stderr) {
		bell = stderr
	}
	return notify.New(notify.Destinations(list, bell), where, func(f notify.Failure) {
		fmt.Fprintf(stderr, "warning: notification to %s failed for %s: %v\n", display.Printable(f.Destination), f.Event, display.Printable(f.Err.Error()))
		if log != nil {
			log.NotifyFailed(f.Destination, f.Event, f.Err, f.Duration)
		}
	})
}

func (o *loopOutputs) deps(sig Signals) loop.Deps {
	return loop.Deps{Reporter: o.reporter, Live: o.live, Hurry: sig.Hurry, Finish: sig.Finish, Watchdog: WatchdogCommand,
		Grace: testGrace()}
}

// hookFailed says that a hook failed, on stderr and in the log; the loop goes on.
func (o *loopOutputs) hookFailed(stderr io.Writer, r eventhooks.Result) {
	last := r.Output
	if i := strings.LastIndexByte(last, '\n'); i >= 0 {
		last = last[i+1:]
	}
	if last != "" {
		last = ": " + display.Printable(last) // a hook's colours or \r must not reach a log file
	}
	fmt.Fprintf(stderr, "warning: hook %s (`%s`) failed for %s: %v%s\n", r.Name, display.Printable(r.Command), r.Event, r.Err, last)
	if o.log != nil {
		o.log.HookFailed(r.Name, r.Command, r.Event, r.Err, r.Output, r.Duration)
	}
}

// failed logs an error that stopped the loop before it could finish the run.
func (o *loopOutputs) failed(err error) {
	if o.log != nil {
		o.log.Failed(err)
	}
	o.notes.Failed(err)
}

// close waits for the hooks still running and the notifications still being sent (a
// second Ctrl+C stops the wait) and closes the log.
func (o *loopOutputs) close() {
	o.hooks.Close(o.hurry)
	o.notes.Close(o.hurry)
	if o.log != nil {
		o.log.Close()
	}
}

// outputCounter counts the agent's output for the status line and passes it on to w
// (--verbose) when set. Writes to w are one at a time: the live copy of an iteration
// whose terminal was too slow may still be writing when the next iteration's starts
// (loop/agent leaves it behind rather than wait), and the rendering keeps state.
type outputCounter struct {
	w  io.Writer
	n  atomic.Int64
	mu sync.Mutex
}

func (c *outputCounter) Write(p []byte) (int, error) {
	c.n.Add(int64(len(p)))
	if c.w == nil {
		return len(p), nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.w.Write(p)
}

func (c *outputCounter) bytes() int64 { return c.n.Load() }

// Flush ends one run's output: the rendering shows what it held back.
func (c *outputCounter) Flush() error {
	if f, ok := c.w.(interface{ Flush() error }); ok {
		c.mu.Lock()
		defer c.mu.Unlock()
		return f.Flush()
	}
	return nil
}
