package githooks

import "fmt"

// hinted is an error with advice on how to fix it; the command prints it as git does,
// "hint: …", as it prints every error with a Hint method.
type hinted struct {
	err  error
	hint string
}

func (h *hinted) Error() string { return h.err.Error() }
func (h *hinted) Unwrap() error { return h.err }
func (h *hinted) Hint() string  { return h.hint }

func withHint(err error, hint string, args ...any) error {
	return &hinted{err: err, hint: fmt.Sprintf(hint, args...)}
}
