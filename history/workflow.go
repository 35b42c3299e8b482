package history

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/git-ralph/git-ralph/history/redact"
	"github.com/git-ralph/git-ralph/prompts/repofile"
	"github.com/pelletier/go-toml/v2"
)

// WorkflowDir holds the state of each workflow of the repository, one file per workflow:
// .ralph/workflow-state/NAME.toml. It is not .ralph/workflows/, where the workflow files
// that are shared through git live.
const WorkflowDir = Dir + "/workflow-state"

// StageStatus is where a stage of a workflow stands.
type StageStatus string

// The statuses of a stage.
const (
	StagePending  StageStatus = "pending"           // never run
	StageRunning  StageStatus = "running"           // its loop started and has not ended for good: resumed
	StageDone     StageStatus = "done"              // its loop succeeded and its artifacts passed
	StageFailed   StageStatus = "failed"            // its loop or its artifacts failed
	StageAwaiting StageStatus = "awaiting-approval" // done, waiting for `git ralph approve`
	StageApproved StageStatus = "approved"          // a person approved it
	StageRejected StageStatus = "rejected"          // a person rejected it: it runs again with the feedback
	StageStale    StageStatus = "stale"             // a stage it needs ran again since: it runs again
)

// Complete reports whether later stages may build on a stage with this status.
func (s StageStatus) Complete() bool { return s == StageDone || s == StageApproved }

// StageState is what the workflow remembers of one stage.
type StageState struct {
	Status StageStatus `toml:"status" json:"status"`
	Runs   int         `toml:"runs" json:"runs"` // how many times its loop was started afresh
	// Run is the loop run of the stage's last start; Before the run the work tree's state
	// named just before it started, so that a workflow resumed after a crash can tell
	// whether the stage's loop had begun.
	Run        string    `toml:"run,omitempty" json:"run,omitempty"`
	Before     string    `toml:"before,omitempty" json:"-"`
	Worktree   string    `toml:"worktree,omitempty" json:"worktree,omitempty"` // the loop's name when it runs in a worktree
	Iterations int       `toml:"iterations" json:"iterations"`
	ExitCode   int       `toml:"exit_code" json:"exit_code"`
	StopReason string    `toml:"stop_reason,omitempty" json:"stop_reason,omitempty"`
	Problem    string    `toml:"problem,omitempty" json:"problem,omitempty"`   // why it failed, in a sentence or a few lines
	Feedback   string    `toml:"feedback,omitempty" json:"feedback,omitempty"` // a reviewer's, from `git ralph reject`
	StartedAt  time.Time `toml:"started_at,omitzero" json:"started_at,omitzero"`
	EndedAt    time.Time `toml:"ended_at,omitzero" json:"ended_at,omitzero"`
	ApprovedAt time.Time `toml:"approved_at,omitzero" json:"approved_at,omitzero"`
	StaleSince string    `toml:"stale_since,omitempty" json:"stale_since,omitempty"` // the stage whose new run made it stale
	// Unmerged is a worktree stage with a gate whose branch is merged once it is approved.
	Unmerged bool `toml:"unmerged,omitempty" json:"unmerged,omitempty"`
	// Context is the text the prompt of its current run gets (its own context, feedback),
	// kept so that a resumed run gets the same.
	Context string `toml:"context,omitempty" json:"-"`
}

// WorkflowState is the state of one workflow's stages.
type WorkflowState struct {
	SchemaVersion int                    `toml:"schema_version" json:"-"`
	Workflow      string                 `toml:"workflow" json:"workflow"`
	UpdatedAt     time.Time              `toml:"updated_at,omitzero" json:"updated_at,omitzero"`
	Stages        map[string]*StageState `toml:"stages" json:"stages"`
	// Params are the --set values the run started with: its stages' tasks were filled
	// with them, so the run resumes only with the same.
	Params map[string]string `toml:"params,omitempty" json:"params,omitempty"`
}

// Stage is the state of the stage name, created pending when there is none.
func (w *WorkflowState) Stage(name string) *StageState {
	if w.Stages == nil {
		w.Stages = map[string]*StageState{}
	}
	s, ok := w.Stages[name]
	if !ok || s == nil {
		s = &StageState{Status: StagePending}
		w.Stages[name] = s
	}
	return s
}

// WorkflowStatePath is where the state of the workflow name is kept.
func WorkflowStatePath(root, name string) string {
	return filepath.Join(root, filepath.FromSlash(WorkflowDir), name+".toml")
}

const workflowHeader = "# git-ralph workflow state, rewritten as the stages run. Do not edit while the workflow runs.\n"

// LoadWorkflow reads the state of the workflow name; none yet is its zero state with
// every stage pending. A file that does not parse is kept aside, as state.toml is.
func LoadWorkflow(root, name string) (WorkflowState, error) {
	rel := WorkflowDir + "/" + name + ".toml"
	data, err := repofile.ReadIn(root, rel, rel, repofile.StateLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return WorkflowState{Workflow: name}, nil
	}
	if err != nil {
		return WorkflowState{}, fmt.Errorf("reading %s: %w", rel, err)
	}
	var w WorkflowState
	err = toml.Unmarshal(data, &w)
	switch {
	case err == nil && w.SchemaVersion > StateSchema:
		return WorkflowState{}, &NewerStateError{Path: WorkflowStatePath(root, name), Version: w.SchemaVersion}
	case err == nil && w.SchemaVersion < 1:
		err = fmt.Errorf("schema_version is %d, want %d", w.SchemaVersion, StateSchema)
	}
	if err != nil { // left in place: forgetting it would run every stage again
		return WorkflowState{}, &CorruptWorkflowStateError{Path: rel, Line: errorLine(err), Err: err}
	}
	w.Workflow = name
	return w, nil
}

// CorruptWorkflowStateError is a workflow state that does not parse. Unlike a loop's
// state.toml it is not moved aside: without it every stage, approved ones included,
// would run again, so the person decides.
type CorruptWorkflowStateError struct {
	Path string // relative to the repository root
	Line int    // 1-based; 0 when unknown
	Err  error
}

func (e *CorruptWorkflowStateError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("corrupt workflow state %s, line %d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("corrupt workflow state %s: %v", e.Path, e.Err)
}

func (e *CorruptWorkflowStateError) Unwrap() error { return e.Err }

// Hint says the two ways on.
func (e *CorruptWorkflowStateError) Hint() string {
	return "fix it (it records which stages are done, approved or waiting), or remove it to start the workflow over: every stage runs again"
}

// SaveWorkflow writes the state of a workflow atomically.
func SaveWorkflow(root string, w WorkflowState) error {
	if err := EnsureGitignore(root); err != nil {
		return err
	}
	dir := filepath.Join(root, filepath.FromSlash(WorkflowDir))
	if info, err := os.Lstat(dir); err == nil && !info.IsDir() {
		return &OwnDirError{Path: WorkflowDir, Reason: "it is not a directory"}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", WorkflowDir, err)
	}
	w.SchemaVersion = StateSchema
	body, err := toml.Marshal(w)
	if err != nil {
		return fmt.Errorf("encoding the workflow state: %w", err)
	}
	// problems and feedback quote validation output and reviewers
	return WriteFileAtomic(WorkflowStatePath(root, w.Workflow), append([]byte(workflowHeader), redact.Bytes(body)...), 0o644)
}

// LockWorkflow takes the lock of one workflow at path (in the git directory, where the
// agent cannot commit it), which its run holds throughout and approve and reject hold
// while they change its state. It returns ErrLocked at once when another process holds
// it; the lock dies with its process.
func LockWorkflow(path string) (*FileLock, error) {
	f, err := openLockFile(path)
	if err != nil {
		return nil, err
	}
	if err := flock(f, lockExclusive|lockNonBlocking); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return &FileLock{f: f}, nil
}
