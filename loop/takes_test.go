package loop

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/loop/recording"
)

func newRecording(t *testing.T, dir string) (*recording.Recorder, string) {
	rec := filepath.Join(t.TempDir(), "rec")
	r, err := recording.Create(context.Background(), rec, dir, recording.Manifest{})
	if err != nil {
		t.Fatal(err)
	}
	return r, rec
}

// An attempt cut short by an interrupt is not the agent's behaviour: it is not kept, and
// leaves nothing half written.
func TestInterruptedAttemptIsNotRecorded(t *testing.T) {
	dir := newRepo(t)
	mark := filepath.Join(t.TempDir(), "started")
	cfg := config(dir, "echo working; touch "+mark+"; sleep 30", 1)
	var rec string
	cfg.Record, rec = newRecording(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(mark); err == nil {
				break
			}
		}
		cancel()
	}()
	res, err := Run(ctx, cfg, Deps{Grace: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusInterrupted {
		t.Fatalf("status %s, want interrupted", res.Status)
	}
	entries, _ := os.ReadDir(filepath.Join(rec, "attempts"))
	if len(entries) != 0 || recording.Count(rec) != 0 {
		t.Errorf("the interrupted attempt left %v in the recording", entries)
	}
}

// A recording that cannot be written stops with a warning; the run goes on.
func TestRecordingThatFailsStopsWithAWarning(t *testing.T) {
	dir := newRepo(t)
	cfg := config(dir, `echo "<promise>SUCCESS</promise>"`, 2)
	var rec string
	cfg.Record, rec = newRecording(t, dir)
	if err := os.RemoveAll(filepath.Join(rec, "attempts")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rec, "attempts"), []byte("in the way"), 0o644); err != nil {
		t.Fatal(err)
	}
	reported := &recorder{}
	res, err := Run(context.Background(), cfg, Deps{Reporter: reported})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusSuccess {
		t.Errorf("status %s, want success", res.Status)
	}
	warned := 0
	for _, e := range reported.events {
		if w, ok := e.(Warning); ok && strings.Contains(w.Message, "recording stopped ("+rec+")") {
			warned++
		}
	}
	if warned != 1 {
		t.Errorf("%d warnings of the stopped recording, want 1: %v", warned, reported.events)
	}
}
