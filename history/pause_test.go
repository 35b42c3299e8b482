package history

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestPauseRequestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), PauseFile)
	if _, asked, err := ReadPause(path); err != nil || asked {
		t.Fatalf("ReadPause with no file = %v, %v", asked, err)
	}
	first := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	if req, already, err := RequestPause(path, first); err != nil || already || !req.At.Equal(first) {
		t.Fatalf("RequestPause = %+v, %v, %v", req, already, err)
	}
	// asked again: the first time stays, and the caller learns it was paused already
	if req, already, err := RequestPause(path, first.Add(time.Hour)); err != nil || !already || !req.At.Equal(first) {
		t.Fatalf("RequestPause again = %+v, %v, %v", req, already, err)
	}
	if req, asked, err := ReadPause(path); err != nil || !asked || !req.At.Equal(first) {
		t.Fatalf("ReadPause = %+v, %v, %v", req, asked, err)
	}
	if had, err := ClearPause(path); err != nil || !had {
		t.Fatalf("ClearPause = %v, %v", had, err)
	}
	if had, err := ClearPause(path); err != nil || had {
		t.Fatalf("ClearPause again = %v, %v", had, err)
	}
}

// TestPauseRequestThatIsNotAFile: a FIFO or garbage there still asks for a pause, and
// reading it never blocks.
func TestPauseRequestThatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	if req, asked, err := ReadPause(fifo); err != nil || !asked || !req.At.IsZero() {
		t.Errorf("ReadPause(fifo) = %+v, %v, %v", req, asked, err)
	}
	junk := filepath.Join(dir, "junk")
	os.WriteFile(junk, []byte("not a time"), 0o644)
	if req, asked, err := ReadPause(junk); err != nil || !asked || !req.At.IsZero() {
		t.Errorf("ReadPause(junk) = %+v, %v, %v", req, asked, err)
	}
}

// TestPausedAtOfAFIFONeverBlocks: ReadPause checks the request is a regular file before it
// reads its time, but something else can take its place in between (an agent may write in
// .git); reading the time must not then block the loop on a FIFO with no writer.
func TestPausedAtOfAFIFONeverBlocks(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), PauseFile)
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	got := make(chan time.Time, 1)
	go func() { got <- readPausedAt(fifo) }()
	select {
	case at := <-got:
		if !at.IsZero() {
			t.Errorf("readPausedAt(fifo) = %v, want zero", at)
		}
	case <-time.After(time.Minute): // a FIFO with no writer blocks for ever
		t.Fatal("reading the time of a pause request that became a FIFO blocked")
	}
}
