package hints

import (
	"errors"
	"fmt"

	"github.com/git-ralph/git-ralph/history"
)

// Error is an error with advice on how to fix it. The command prints every error that
// has a Hint method as git does, "error: …" then "hint: …".
type Error struct {
	err  error
	hint string
}

func (h *Error) Error() string { return h.err.Error() }
func (h *Error) Unwrap() error { return h.err }
func (h *Error) Hint() string  { return h.hint }

// Wrap gives err the advice hint, formatted with args as fmt.Sprintf does.
func Wrap(err error, hint string, args ...any) error {
	return &Error{err: err, hint: fmt.Sprintf(hint, args...)}
}

// Inline puts an error's hint into its words, "ERROR (hint: HINT)", for a view that
// shows one line (watch's keys, serve's buttons): the hint of any error with a Hint
// method, this package's or another's (fleet's advice), found anywhere in its chain.
func Inline(err error) error {
	var h interface{ Hint() string }
	if errors.As(err, &h) && h.Hint() != "" {
		return fmt.Errorf("%w (hint: %s)", err, h.Hint())
	}
	return err
}

// MissingIteration is the error for iteration n lacking what (its saved diff, output or
// checkpoint), saying why and naming the range of iterations there is.
func MissingIteration(store *history.Store, n int, what string) error {
	last, err := store.Last()
	if err != nil {
		return err
	}
	hint := "'git ralph history' lists the recorded iterations"
	switch {
	case last == 0:
		return Wrap(fmt.Errorf("no iteration %d: no iterations are recorded yet", n), "run 'git ralph loop' first")
	case n > last:
		return Wrap(fmt.Errorf("no iteration %d: the history holds iterations 1 to %d", n, last), "%s", hint)
	}
	if rec, err := store.Get(n); err == nil && rec.Pruned {
		return Wrap(fmt.Errorf("iteration %d has no %s: it was pruned by the history's retention settings", n, what),
			"history_keep and history_max_size say how much is kept ('git ralph config')")
	}
	return Wrap(fmt.Errorf("iteration %d has no %s: it is still running, or its loop stopped before keeping it", n, what), "%s", hint)
}
