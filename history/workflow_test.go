package history

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWorkflowStateRoundTrip(t *testing.T) {
	root := t.TempDir()
	w, err := LoadWorkflow(root, "ship")
	if err != nil || len(w.Stages) != 0 || w.Stage("plan").Status != StagePending {
		t.Fatalf("no file: %+v, %v", w, err)
	}
	s := w.Stage("plan")
	s.Status, s.Runs, s.Feedback, s.EndedAt = StageAwaiting, 2, "more\nlines", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := SaveWorkflow(root, w); err != nil {
		t.Fatal(err)
	}
	got, err := LoadWorkflow(root, "ship")
	if err != nil {
		t.Fatal(err)
	}
	if p := got.Stage("plan"); *p != *s {
		t.Errorf("read back %+v, want %+v", *p, *s)
	}
	if _, err := os.Stat(filepath.Join(root, ".ralph", "workflow-state", "ship.toml")); err != nil {
		t.Errorf("the state is not where docs/reference/files.md says: %v", err)
	}
}

// An unreadable workflow state is refused, not moved aside: forgetting it would run every
// stage again, approved gates included, at the next run, and a read-only status would
// have done the forgetting.
func TestCorruptWorkflowStateIsRefusedAndLeftInPlace(t *testing.T) {
	root := t.TempDir()
	path := WorkflowStatePath(root, "ship")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte("schema_version = 1\nstages = [\n"), 0o644)
	_, err := LoadWorkflow(root, "ship")
	var corrupt *CorruptWorkflowStateError
	if !errors.As(err, &corrupt) {
		t.Fatalf("err = %v, want a *CorruptWorkflowStateError", err)
	}
	if want := ".ralph/workflow-state/ship.toml, line 2: "; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q, want it to contain %q", err, want)
	}
	if !strings.Contains(corrupt.Hint(), "fix it") || !strings.Contains(corrupt.Hint(), "every stage runs again") {
		t.Errorf("hint %q", corrupt.Hint())
	}
	if data, _ := os.ReadFile(path); string(data) != "schema_version = 1\nstages = [\n" {
		t.Errorf("the file was changed or moved: %q", data)
	}
	os.WriteFile(path, []byte("schema_version = 99\n"), 0o644)
	var newer *NewerStateError
	if _, err := LoadWorkflow(root, "ship"); !errors.As(err, &newer) {
		t.Errorf("newer file: %v", err)
	}
}

func TestWorkflowStateDirMustNotBeASymlink(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".ralph"), 0o755)
	if err := os.Symlink(t.TempDir(), filepath.Join(root, ".ralph", "workflow-state")); err != nil {
		t.Fatal(err)
	}
	var own *OwnDirError
	if err := SaveWorkflow(root, WorkflowState{Workflow: "ship"}); !errors.As(err, &own) {
		t.Errorf("SaveWorkflow through a symlinked directory: %v", err)
	}
}
