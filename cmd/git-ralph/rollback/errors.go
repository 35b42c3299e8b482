package rollback

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// hinted is an error with advice on how to fix it; the command prints it as git does,
// "hint: …", through its Hint method.
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

// printable shows a path or name from the repository as it is when it prints as itself,
// else quoted in Go syntax with every character that would drive a terminal spelled out
// (the command's printable, of which this is a copy: a sub-package never imports main).
func printable(v string) string {
	if !utf8.ValidString(v) || strings.ContainsFunc(v, func(r rune) bool { return r != ' ' && !unicode.IsPrint(r) }) {
		return strconv.Quote(v)
	}
	return v
}
