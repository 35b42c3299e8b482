package hints

import (
	"errors"
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
