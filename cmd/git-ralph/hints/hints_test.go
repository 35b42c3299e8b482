package hints

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

// The advice is formatted, and the error under it can still be found.
func TestWrap(t *testing.T) {
	err := Wrap(fs.ErrNotExist, "create %s first", "PROMPT_build.md")
	var h interface{ Hint() string }
	if !errors.As(err, &h) || h.Hint() != "create PROMPT_build.md first" {
		t.Errorf("hint of %v: %v", err, h)
	}
	if !errors.Is(err, fs.ErrNotExist) || err.Error() != fs.ErrNotExist.Error() {
		t.Errorf("Wrap hides its error: %v", err)
	}
}

// adviced is an error of another package that carries advice.
type adviced struct{ error }

func (adviced) Hint() string { return "try again" }

// Inline puts the hint of any error with one, however deep, into its one line; an error
// without a hint, or nil, is left as it is.
func TestInline(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{Wrap(fs.ErrNotExist, "create it"), "file does not exist (hint: create it)"},
		{fmt.Errorf("reading: %w", adviced{errors.New("busy")}), "reading: busy (hint: try again)"},
		{errors.New("plain"), "plain"},
		{Wrap(errors.New("no advice"), ""), "no advice"},
	} {
		if got := Inline(c.err); got == nil || got.Error() != c.want || !errors.Is(got, c.err) {
			t.Errorf("Inline(%v) = %v, want %q", c.err, got, c.want)
		}
	}
	if Inline(nil) != nil {
		t.Error("Inline(nil) is not nil")
	}
}
