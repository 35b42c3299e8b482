package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// errInterrupted is the cause of the root context's cancellation by SIGINT or SIGTERM.
var errInterrupted = errors.New("interrupted")

// interrupts turns signals into cancellation. SIGINT or SIGTERM: the first cancels the
// root context (the agent gets SIGTERM and its grace period), the second closes hurry
// (the agent's group gets SIGKILL at once and git-ralph exits). SIGUSR1, which
// `git ralph cancel` sends, closes finish: stop after the current iteration.
type interrupts struct {
	hurry  chan struct{}
	finish chan struct{}
	stop   func()
}

func watchSignals(parent context.Context, stderr io.Writer) (context.Context, *interrupts) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	in := &interrupts{hurry: make(chan struct{}), finish: make(chan struct{})}
	go in.watchCancel(stderr)
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

func (in *interrupts) watch(sigs <-chan os.Signal, done <-chan struct{}, cancel context.CancelCauseFunc, stderr io.Writer) {
	for n := 0; n < 2; n++ {
		select {
		case sig := <-sigs:
			if n == 0 {
				fmt.Fprintf(stderr, "git-ralph: %s received, stopping the agent (again to kill it at once)\n", sig)
				cancel(errInterrupted)
			} else {
				fmt.Fprintf(stderr, "git-ralph: %s received again, killing the agent\n", sig)
				close(in.hurry)
			}
		case <-done:
			return
		}
	}
}

// watchCancel closes finish on the first SIGUSR1 from `git ralph cancel`.
func (in *interrupts) watchCancel(stderr io.Writer) {
	usr := make(chan os.Signal, 1)
	signal.Notify(usr, cancelSignal)
	<-usr
	fmt.Fprintf(stderr, "git-ralph: cancel requested, stopping after the current iteration\n")
	close(in.finish)
}

// cancelSignal is what `git ralph cancel` sends to the loop.
const cancelSignal = syscall.SIGUSR1

// lockedWriter serialises writes from the loop's reporter and the signal watcher.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
