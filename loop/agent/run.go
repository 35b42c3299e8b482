package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// DefaultGrace is how long the agent's group gets between SIGTERM and SIGKILL.
const DefaultGrace = 5 * time.Second

// drainWait bounds how long output is read after the whole group is gone: only a process
// that left the group (setsid) can still hold the pipe then, and it must not stall the loop.
const drainWait = time.Second

// Why the agent's processes are being stopped, as told to Spec.Stopping.
const (
	WhyTimeout   = "timeout"
	WhySilent    = "no output" // nothing on stdout or stderr for Spec.OutputTimeout
	WhyInterrupt = "interrupt"
	WhyLeftover  = "leftover processes" // the agent exited, some of its group did not
	WhyEscaped   = "escaped processes"  // processes of the agent that left its session
)

// Spec says what to run and how.
type Spec struct {
	Command string        // run as `sh -c Command`
	Dir     string        // working directory
	Env     []string      // added to git-ralph's own environment
	Prompt  io.Reader     // the agent's stdin
	Timeout time.Duration // 0: none
	// OutputTimeout stops an agent that writes nothing on stdout or stderr for that
	// long, like a timeout (a CLI hung on a dead connection); 0: none.
	OutputTimeout time.Duration
	Grace         time.Duration // SIGTERM→SIGKILL; 0: DefaultGrace
	MaxOutput     int           // bytes of output kept (the end)
	Live          io.Writer     // optional: receives the output as it arrives (--verbose)
	Log           io.Writer     // optional: receives all the output (the iteration's saved log)
	Hurry         <-chan struct{}
	// Stopping is told when the group is sent a signal, with why (one of the Why…
	// constants); optional.
	Stopping func(sig syscall.Signal, why string)
	// Started is told the agent's process group as soon as it exists, so a crash of
	// git-ralph can be cleaned up after; optional.
	Started func(pgid int)
	// Marker is an environment entry (such as RALPH_RUN=…) that only this agent's
	// processes carry, which should also be among Env. Processes carrying it that left
	// the agent's session (setsid) are stopped with it; optional.
	Marker string
	// Watchdog builds the command of a watchdog process (see Watch) for the marker and
	// the grace period; optional. It is started with the agent and stops the processes
	// carrying Marker if git-ralph dies before the agent is gone (kill -9, a crash).
	Watchdog func(marker string, grace time.Duration) *exec.Cmd
	// Watchdogs, when set, is the run's shared watchdog, used instead of Watchdog: one
	// process for every agent of the run rather than one started beside each.
	Watchdogs *Watchdogs
}

// Result is what one agent process did.
type Result struct {
	Output      []byte // the last MaxOutput bytes of stdout and stderr, interleaved
	OutputBytes int64  // everything it printed
	Truncated   bool
	ExitCode    int            // -1 when killed by a signal
	Signal      syscall.Signal // the signal that killed it, if any
	TimedOut    bool
	Silent      bool // stopped by OutputTimeout (TimedOut is set too)
	Interrupted bool // the context was cancelled
	Survivors   bool // some process ignored even SIGKILL (should not happen)
	Duration    time.Duration
}

// Run starts the agent in a new session (so it is its own process group and has no
// controlling terminal to block on), feeds it the prompt, and waits until it and every
// process it started are gone. It returns an error only when the agent could not start.
func Run(ctx context.Context, s Spec) (Result, error) {
	started := time.Now()
	p, err := start(s)
	if err != nil {
		return Result{}, err
	}
	res := p.supervise(ctx)
	res.Duration = time.Since(started)
	return res, nil
}

// process is one started agent and the plumbing around it.
type process struct {
	spec    Spec
	cmd     *exec.Cmd
	group   group
	output  *os.File // read end of the agent's stdout+stderr
	input   *os.File // write end of the agent's stdin
	live    *liveStream
	tail    *Tail
	waited  chan error
	reaped  bool
	waitErr error
	drained chan struct{}
	quiet   *silence // when the agent last wrote anything
	// watchdog is told the agent is gone when supervise is over; nil without one of
	// its own (none, or the run's shared one)
	watchdog *watchdog
}

func start(s Spec) (*process, error) {
	attr, err := sessionAttr()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("creating the agent's output pipe: %w", err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("creating the agent's input pipe: %w", err)
	}
	cmd := exec.Command("sh", "-c", s.Command)
	cmd.Dir = s.Dir
	cmd.Env = append(os.Environ(), s.Env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, outW
	cmd.SysProcAttr = attr
	deathSignal(cmd.SysProcAttr)
	dog, ownDog := startWatchdog(s) // first: a loop killed a moment after the agent started has one
	waited := make(chan error, 1)
	err = startAndWait(cmd, waited)
	inR.Close() // the child has its own copies now; ours would keep the pipes open
	outW.Close()
	if err != nil {
		if ownDog {
			dog.release()
		}
		outR.Close()
		inW.Close()
		return nil, fmt.Errorf("starting the agent (sh -c %q): %w", s.Command, err)
	}
	p := &process{spec: s, cmd: cmd, group: group(cmd.Process.Pid), output: outR, input: inW,
		tail: NewTail(s.MaxOutput), waited: waited, drained: make(chan struct{}), quiet: newSilence()}
	if ownDog {
		p.watchdog = dog
	}
	if s.Started != nil {
		s.Started(cmd.Process.Pid)
	}
	if s.Live != nil {
		p.live = newLiveStream(s.Live)
	}
	go feed(inW, s.Prompt)
	go p.capture()
	return p, nil
}

// startAndWait starts cmd and then waits for it in a goroutine locked to its OS thread,
// sending Wait's result to waited. The agent's parent-death signal (deathSignal) fires
// when the thread that started it ends, not the process, and the Go runtime may end an
// idle thread: locked, the thread lives exactly as long as the agent.
func startAndWait(cmd *exec.Cmd, waited chan<- error) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		waited <- cmd.Wait()
	}()
	return <-started
}

// feed writes the prompt to the agent's stdin and closes it. An agent that exits without
// reading it all makes the write fail; that is the agent's business, not an error.
func feed(w *os.File, prompt io.Reader) {
	defer w.Close()
	if prompt != nil {
		_, _ = io.Copy(w, prompt)
	}
}

// capture copies the agent's output into the tail (and the live writer) until EOF or
// until the read end is closed. The live copy (--verbose, often a cron log) is redacted
// (see liveStream); the tail is not, since it is what the loop reads SUCCESS and limits
// from.
func (p *process) capture() {
	defer close(p.drained)
	sinks := []io.Writer{p.quiet, p.tail}
	if p.spec.Log != nil {
		sinks = append(sinks, bestEffort{p.spec.Log})
	}
	if p.live != nil {
		sinks = append(sinks, p.live)
	}
	sink := io.MultiWriter(sinks...)
	buf := make([]byte, 64*1024)
	_, _ = io.CopyBuffer(sink, p.output, buf)
}

// bestEffort never fails, so a closed terminal or a full disk cannot stop the capture.
type bestEffort struct{ w io.Writer }

func (l bestEffort) Write(b []byte) (int, error) {
	_, _ = l.w.Write(b)
	return len(b), nil
}

func (p *process) supervise(ctx context.Context) Result {
	var res Result
	var timeout <-chan time.Time
	if p.spec.Timeout > 0 {
		timer := time.NewTimer(p.spec.Timeout)
		defer timer.Stop()
		timeout = timer.C
	}
	silent, stopWatching := p.quiet.watch(p.spec.OutputTimeout)
	defer stopWatching()
	select {
	case p.waitErr = <-p.waited:
		p.reaped = true
		if p.group.alive() {
			p.stop(WhyLeftover, &res)
		}
	case <-silent:
		if p.exitedAlready() {
			break
		}
		res.TimedOut, res.Silent = true, true
		p.stop(WhySilent, &res)
	case <-timeout:
		if p.exitedAlready() {
			break // it finished as the timer fired: not a timeout
		}
		res.TimedOut = true
		p.stop(WhyTimeout, &res)
	case <-ctx.Done():
		res.Interrupted = true
		p.stop(WhyInterrupt, &res)
	}
	p.stopEscapees(&res)
	p.watchdog.release()
	p.finishOutput()
	res.Output, res.OutputBytes, res.Truncated = p.tail.Bytes(), p.tail.Total(), p.tail.Truncated()
	res.ExitCode, res.Signal = exitStatus(p.reap())
	return res
}

// exitedAlready reports, without waiting, whether the agent has exited.
func (p *process) exitedAlready() bool {
	select {
	case p.waitErr = <-p.waited:
		p.reaped = true
		if p.group.alive() {
			// leftovers are stopped like after any exit
			p.stop(WhyLeftover, &Result{})
		}
		return true
	default:
		return false
	}
}

// stop ends the whole group: SIGTERM, the grace period (cut short by Hurry), SIGKILL.
// It always reaps the agent.
func (p *process) stop(why string, res *Result) {
	p.notify(syscall.SIGTERM, why)
	p.group.signal(syscall.SIGTERM)
	if !p.group.awaitExit(p.grace(), p.spec.Hurry) {
		p.notify(syscall.SIGKILL, why)
		p.group.signal(syscall.SIGKILL)
		res.Survivors = !p.group.awaitExit(time.Second, nil)
	}
	p.reap()
}

// stopEscapees stops the processes that carry the agent's marker but left its session
// with setsid: nothing the agent started may outlive the iteration.
func (p *process) stopEscapees(res *Result) {
	if p.spec.Marker == "" {
		return
	}
	sessions := sessionsOfRun(p.spec.Marker)
	if len(sessions) == 0 {
		return
	}
	p.notify(syscall.SIGTERM, WhyEscaped)
	if !stopSessions(sessions, p.grace(), p.spec.Hurry) {
		res.Survivors = true
	}
}

func (p *process) grace() time.Duration {
	if p.spec.Grace > 0 {
		return p.spec.Grace
	}
	return DefaultGrace
}

// errUnreaped stands for the exit status of an agent that outlived SIGKILL (a process
// stuck in the kernel); the loop goes on rather than hang with it.
var errUnreaped = errors.New("the agent did not exit after SIGKILL")

// reap collects the agent's exit status once, whichever path ends the process.
func (p *process) reap() error {
	if !p.reaped {
		select {
		case p.waitErr = <-p.waited:
		case <-time.After(time.Second):
			p.waitErr = errUnreaped
		}
		p.reaped = true
	}
	return p.waitErr
}

// finishOutput waits for the capture to reach EOF, closing the pipe if a process that
// escaped the group still holds it. It also closes stdin, which unblocks the prompt
// writer if such a process holds stdin open without reading it.
func (p *process) finishOutput() {
	select {
	case <-p.drained:
	case <-time.After(drainWait):
		p.output.Close()
		<-p.drained
	}
	p.output.Close()
	p.input.Close()
	if p.live != nil {
		p.live.close(drainWait)
	}
}

func (p *process) notify(sig syscall.Signal, why string) {
	if p.spec.Stopping != nil {
		p.spec.Stopping(sig, why)
	}
}

// exitStatus turns Wait's error into an exit code and, for a process killed by a
// signal, that signal.
func exitStatus(err error) (int, syscall.Signal) {
	if err == nil {
		return 0, 0
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return -1, 0
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, ws.Signal()
	}
	return exit.ExitCode(), 0
}
