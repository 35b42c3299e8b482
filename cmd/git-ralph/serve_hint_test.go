package main

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/git-ralph/git-ralph/loop/fleet"
)

// failingCmd is a command that prints a line and fails with err, as a view runs it.
type failingCmd struct{ err error }

func (c failingCmd) Run(_ context.Context, s Streams) error {
	fmt.Fprintln(s.Stdout, "trying")
	return c.err
}

// A button's error keeps its hint on the page's one line, whichever package gave it
// the hint: fleet's advice as well as hints'.
func TestServeActionKeepsHint(t *testing.T) {
	err := &fleet.Error{Err: errors.New("the loop x was discarded"), Advice: "'git branch ralph/x abc' brings its branch back"}
	said, got := runForView(context.Background(), failingCmd{fmt.Errorf("pause: %w", err)}, "")
	want := "pause: the loop x was discarded (hint: 'git branch ralph/x abc' brings its branch back)"
	if said != "trying" || got == nil || got.Error() != want {
		t.Errorf("runForView = %q, %v; want %q, %q", said, got, "trying", want)
	}
	if !errors.Is(got, err) {
		t.Errorf("the hint hides the error: %v", got)
	}
}
