package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
)

// errInterrupted is the cause of the root context's cancellation by SIGINT or SIGTERM.
var errInterrupted = errors.New("interrupted")

// stoppedByInterrupt reports whether err is what became of a command that SIGINT or
// SIGTERM (Ctrl+C, 'git ralph cancel --now') interrupted before it could end on its own
// terms: at any moment, even while the loop still reads the repository before its first
// iteration (a git command killed, a checkpoint cut short), that is exit 130, never an
// error of git's. Only an exit code alone, the end of a run the loop reported itself
// (interrupted, or finished just before), stays as it is.
func stoppedByInterrupt(ctx context.Context, err error) bool {
	if err == nil || !errors.Is(context.Cause(ctx), errInterrupted) {
		return false
	}
	var exit *exitcode.Error
	return !errors.As(err, &exit) || exit.Err != nil
}

// interrupts turns signals into cancellation.
//
//   - SIGINT, SIGTERM or SIGHUP: the first cancels the root context (the agent's group
//     gets SIGTERM and its grace period); a second one closes hurry (SIGKILL at once).
//     A repeat within doubleSignal of the first is the same event delivered twice (git
//     forwards the terminal's Ctrl+C to git-ralph, which got it from the terminal too),
//     not a second Ctrl+C.
//   - SIGUSR1, which `git ralph cancel` sends, closes finish: stop after this iteration.
//   - SIGPIPE is caught so that a closed stdout or stderr (`git ralph loop | head`)
//     makes writes fail instead of killing git-ralph with its agent still running.
type interrupts struct {
	hurry    chan struct{}
	finish   chan struct{}
	stop     func()
	observer atomic.Pointer[func(os.Signal)] // the loop's log, once it is open
}

// observe has f told of every signal that stops or cancels the loop.
func (in *interrupts) observe(f func(os.Signal)) { in.observer.Store(&f) }

func (in *interrupts) notify(sig os.Signal) {
	if f := in.observer.Load(); f != nil {
		(*f)(sig)
	}
}

// launch is what a loop that launch starts is given of the signals.
func (in *interrupts) launch() launch.Signals {
	return launch.Signals{Hurry: in.hurry, Finish: in.finish, Observe: in.observe}
}

// doubleSignal is how soon a repeated signal counts as the same one.
const doubleSignal = 500 * time.Millisecond

func watchSignals(parent context.Context, stderr io.Writer) (context.Context, *interrupts) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE, cancelSignal)
	in := &interrupts{hurry: make(chan struct{}), finish: make(chan struct{})}
	done := make(chan struct{})
	var once sync.Once
	in.stop = func() {
		once.Do(func() {
			signal.Stop(sigs)
			close(done)
			cancel(nil)
		})
	}
	go in.watch(sigs, done, cancel, stderr)
	return ctx, in
}

func (in *interrupts) watch(sigs chan os.Signal, done <-chan struct{}, cancel context.CancelCauseFunc, stderr io.Writer) {
	var first time.Time
	for {
		select {
		case sig := <-sigs:
			if sig != syscall.SIGPIPE {
				in.notify(sig)
			}
			switch {
			case sig == syscall.SIGPIPE:
			case sig == cancelSignal:
				in.cancelRequested(stderr)
			case first.IsZero():
				first = time.Now()
				fmt.Fprintf(stderr, "git-ralph: %s received, stopping (again to stop at once)\n", sig)
				cancel(errInterrupted)
			case time.Since(first) >= doubleSignal:
				fmt.Fprintf(stderr, "git-ralph: %s received again, killing the agent\n", sig)
				close(in.hurry)
				signal.Reset(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP) // a third one ends git-ralph
				return
			}
		case <-done:
			return
		}
	}
}

// cancelRequested closes finish once.
func (in *interrupts) cancelRequested(stderr io.Writer) {
	select {
	case <-in.finish:
	default:
		fmt.Fprintf(stderr, "git-ralph: cancel requested, stopping after the current iteration\n")
		close(in.finish)
	}
}
