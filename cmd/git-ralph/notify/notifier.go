package notify

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/git-ralph/git-ralph/loop"
)

// DefaultTimeout bounds each destination's send: a webhook that does not answer, a
// desktop notifier that hangs.
const DefaultTimeout = 5 * time.Second

// Notifier sends messages to its destinations beside the loop: Send returns at once,
// each destination works on a goroutine of its own within Timeout, and Close waits for
// what is still being sent — so the loop never waits for a notification longer than
// Timeout, and only once, as it exits. A destination that fails is reported through
// failed; it never fails the loop.
type Notifier struct {
	dests   []Destination
	where   Where
	timeout time.Duration
	failed  func(Failure) // called from the senders' goroutines, one at a time
	mu      sync.Mutex    // serialises failed; guards closed
	closed  bool          // a message after Close is dropped: nothing waits for it
	ended   bool          // a run_finished was sent: a later Failed says nothing new
	sending sync.WaitGroup
	abandon context.Context // cancelled when the user will not wait (a second Ctrl+C)
	stop    context.CancelFunc
	now     func() time.Time
}

// Failure is a destination that could not deliver a message.
type Failure struct {
	Destination string
	Event       string
	Err         error
	Duration    time.Duration
}

// New makes a notifier for the loop at where; failed hears of every failed send.
func New(dests []Destination, where Where, failed func(Failure)) *Notifier {
	abandon, stop := context.WithCancel(context.Background())
	return &Notifier{dests: dests, where: where, timeout: DefaultTimeout, failed: failed, abandon: abandon, stop: stop, now: time.Now}
}

// WithTimeout sets the bound of each send (tests use a short one).
func (n *Notifier) WithTimeout(d time.Duration) *Notifier {
	n.timeout = d
	return n
}

// Any reports whether there is somewhere to send to.
func (n *Notifier) Any() bool { return n != nil && len(n.dests) > 0 }

// Where is the loop the notifier speaks of.
func (n *Notifier) Where() Where { return n.where }

// Report hears the loop's events and sends a message when a run ends.
func (n *Notifier) Report(e loop.Event) {
	if e, ok := e.(loop.RunFinished); ok {
		at := e.At
		if at.IsZero() {
			at = n.now()
		}
		n.Send(RunFinished(n.where, e.Result, at))
		n.mu.Lock()
		n.ended = true
		n.mu.Unlock()
	}
}

// Failed sends the message for a loop that failed with err, unless its run's end was
// said already: a started run that cannot go on ends with run_finished (aborted, the
// error as its reason), so run_failed is for a loop that could not start its run.
func (n *Notifier) Failed(err error) {
	n.mu.Lock()
	ended := n.ended
	n.mu.Unlock()
	if !ended {
		n.Send(RunFailed(n.where, err, n.now()))
	}
}

// Send starts sending m to every destination and returns at once.
func (n *Notifier) Send(m Message) {
	if !n.Any() {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return
	}
	for _, d := range n.dests {
		n.sending.Add(1)
		go func() {
			defer n.sending.Done()
			n.sendOne(d, m)
		}()
	}
}

func (n *Notifier) sendOne(d Destination, m Message) {
	ctx, cancel := context.WithTimeout(n.abandon, n.timeout)
	defer cancel()
	start := time.Now()
	err := d.Send(ctx, m)
	switch {
	case err == nil:
		return
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		err = fmt.Errorf("timed out after %s", n.timeout)
	case n.abandon.Err() != nil:
		err = errors.New("abandoned: git-ralph was told to stop at once")
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.failed(Failure{Destination: d.Name(), Event: m.Event, Err: err, Duration: time.Since(start)})
}

// Close waits for the messages still being sent (each bounded by the timeout), unless
// hurry closes first (a second Ctrl+C): then they are abandoned.
func (n *Notifier) Close(hurry <-chan struct{}) {
	if n == nil {
		return
	}
	n.mu.Lock()
	n.closed = true
	n.mu.Unlock()
	done := make(chan struct{})
	go func() { n.sending.Wait(); close(done) }()
	select {
	case <-done:
	case <-hurry:
		n.stop()
		<-done
	}
}
