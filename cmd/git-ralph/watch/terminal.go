package watch

import (
	"context"
	"errors"
	"io"
	"os"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// ErrTerminalClosed ends a full-screen view whose terminal is gone.
var ErrTerminalClosed = errors.New("the terminal closed (its input ended or failed, or its output failed)")

// viewTeardown bounds how long a view that must end (its terminal gone, a signal) waits
// for bubbletea to restore the terminal: a terminal that takes no more output (its tmux
// server stopped, not dead) would hold that forever.
const viewTeardown = 3 * time.Second

// RunView runs a full-screen view (watch's, the loop picker's) on the terminal of in and
// out until it quits, ctx ends (Ctrl+C from outside, SIGTERM, SIGHUP: the watch ends,
// the loop goes on) or the terminal goes: input at its end (a terminal whose other side
// closed reads as EOF, which bubbletea takes for no more keys and runs on, redrawing for
// no one), input or output failing. Its error is ErrTerminalClosed then; ctx's end is no
// error.
func RunView(ctx context.Context, m tea.Model, in io.Reader, out io.Writer) error {
	viewCtx, end := context.WithCancelCause(ctx)
	defer end(nil)
	gone := func() { end(ErrTerminalClosed) }
	// signals end the view through ctx alone (watchSignals cancels it on SIGINT, SIGTERM
	// and SIGHUP): bubbletea's own handler would race it to say how the view ended
	// the mouse: its wheel scrolls the output (Shift held, the terminal selects text)
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithContext(viewCtx), tea.WithoutSignalHandler(),
		tea.WithInput(endingInput(in, gone)), tea.WithOutput(failingOutput(out, gone)))
	done := make(chan error, 1)
	go func() {
		_, err := p.Run()
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-viewCtx.Done():
		select {
		case err = <-done:
		case <-time.After(viewTeardown):
			// bubbletea is stuck restoring a terminal no one reads: leave it to the exit
		}
	}
	switch {
	case errors.Is(context.Cause(viewCtx), ErrTerminalClosed):
		return ErrTerminalClosed
	case errors.Is(err, tea.ErrProgramKilled), errors.Is(err, tea.ErrInterrupted), errors.Is(err, context.Canceled), ctx.Err() != nil:
		return nil
	}
	return err
}

// endingInput is in, calling gone when a read fails or finds the end. A file stays a file
// (its descriptor is what bubbletea puts in raw mode and waits on).
func endingInput(in io.Reader, gone func()) io.Reader {
	if f, ok := in.(*os.File); ok {
		return &endingFile{File: f, gone: gone}
	}
	return &endingReader{r: in, gone: gone}
}

type endingFile struct {
	*os.File
	gone func()
}

func (f *endingFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	if err != nil {
		f.gone()
	}
	return n, err
}

type endingReader struct {
	r    io.Reader
	gone func()
}

func (r *endingReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil {
		r.gone()
	}
	return n, err
}

// failingOutput is out, calling gone when a write fails: a terminal whose other side
// closed answers writes with EIO.
func failingOutput(out io.Writer, gone func()) io.Writer {
	if f, ok := out.(*os.File); ok {
		return &failingFile{File: f, gone: gone}
	}
	return &failingWriter{w: out, gone: gone}
}

type failingFile struct {
	*os.File
	gone func()
}

func (f *failingFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	if err != nil {
		f.gone()
	}
	return n, err
}

type failingWriter struct {
	w    io.Writer
	gone func()
}

func (w *failingWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		w.gone()
	}
	return n, err
}
