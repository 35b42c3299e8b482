package hints

import "fmt"

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
