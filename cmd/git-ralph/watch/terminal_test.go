package watch

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// idleView is a view that waits for keys and draws one line, as watch does between ticks.
type idleView struct{}

func (idleView) Init() tea.Cmd { return nil }
func (idleView) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok && k.String() == "q" {
		return idleView{}, tea.Quit
	}
	return idleView{}, nil
}
func (idleView) View() string { return "watching" }

// ended runs the view on in and out and returns how it ended; a view still running after
// a long while fails the test (it would run on for ever, redrawing for no one).
func ended(t *testing.T, ctx context.Context, in io.Reader, out io.Writer) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- RunView(ctx, idleView{}, in, out) }()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("the view is still running after its terminal went")
		return nil
	}
}

// failingIO fails every read or write with the error a terminal whose other side closed
// answers.
type failingIO struct{ err error }

func (f failingIO) Read([]byte) (int, error)  { return 0, f.err }
func (f failingIO) Write([]byte) (int, error) { return 0, f.err }

// A view whose input reaches its end (a closed terminal reads as EOF) ends, as one whose
// input or output fails does; bubbletea alone runs on after an EOF.
//
// The pipes' read ends stay open until the test binary ends: bubbletea's reader of a file
// (cancelreader) may still ask for its descriptor after the program returned, and a Close
// racing it was the race detector's report, not the view's fault (a terminal's input is
// never closed under a running view).
func TestAViewEndsWithItsTerminal(t *testing.T) {
	eio := errors.New("read /dev/pts/3: input/output error")
	t.Run("input at its end", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		if err := ended(t, context.Background(), r, io.Discard); !errors.Is(err, ErrTerminalClosed) {
			t.Errorf("the view ended with %v, want %v", err, ErrTerminalClosed)
		}
	})
	t.Run("input failing", func(t *testing.T) {
		if err := ended(t, context.Background(), failingIO{eio}, io.Discard); !errors.Is(err, ErrTerminalClosed) {
			t.Errorf("the view ended with %v, want %v", err, ErrTerminalClosed)
		}
	})
	t.Run("output failing", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close() // the input stays open: only the output fails
		if err := ended(t, context.Background(), r, failingIO{eio}); !errors.Is(err, ErrTerminalClosed) {
			t.Errorf("the view ended with %v, want %v", err, ErrTerminalClosed)
		}
	})
	t.Run("quit", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		w.Write([]byte("q"))
		if err := ended(t, context.Background(), r, io.Discard); err != nil {
			t.Errorf("q: the view ended with %v, want no error", err)
		}
	})
	t.Run("signal", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // as SIGHUP or SIGTERM cancels the command's context
		if err := ended(t, ctx, r, io.Discard); err != nil {
			t.Errorf("a signal: the view ended with %v, want no error", err)
		}
	})
}
