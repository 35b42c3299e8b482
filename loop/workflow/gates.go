package workflow

import (
	"fmt"
	"time"

	"github.com/git-ralph/git-ralph/history"
)

// GateError is an approve or reject that does not apply to the stage as it stands.
type GateError struct {
	Msg, HintText string
}

func (e *GateError) Error() string { return e.Msg }

// Hint says what would apply.
func (e *GateError) Hint() string { return e.HintText }

// Approve lets a stage that awaits approval count as complete, so that the next run goes
// on with the stages that need it.
func Approve(w *Workflow, st *history.WorkflowState, stage string, now time.Time) error {
	s, err := stageNamed(w, stage)
	if err != nil {
		return err
	}
	ss := st.Stage(s.Name)
	if ss.Status != history.StageAwaiting {
		return &GateError{Msg: fmt.Sprintf("the stage %s of workflow %s does not await approval: it is %s", s.Name, w.Name, ss.Status),
			HintText: "'git ralph workflow status " + w.Name + "' shows each stage and what to do next"}
	}
	ss.Status, ss.ApprovedAt = history.StageApproved, now
	return nil
}

// Reject sends a stage back with a reviewer's feedback: it runs again, with the feedback
// in its prompt, at the next run, and every stage built on it is stale. It returns the
// stages marked stale.
func Reject(w *Workflow, st *history.WorkflowState, stage, feedback string) ([]string, error) {
	s, err := stageNamed(w, stage)
	if err != nil {
		return nil, err
	}
	ss := st.Stage(s.Name)
	switch ss.Status {
	case history.StagePending, history.StageRunning:
		return nil, &GateError{Msg: fmt.Sprintf("the stage %s of workflow %s has no result to reject: it is %s", s.Name, w.Name, ss.Status),
			HintText: "reject a stage once it is done or awaits approval"}
	}
	ss.Status, ss.Feedback, ss.ApprovedAt = history.StageRejected, feedback, time.Time{}
	return MarkStale(w, st, s.Name), nil
}

func stageNamed(w *Workflow, name string) (*Stage, error) {
	if s := w.Stage(name); s != nil {
		return s, nil
	}
	return nil, &GateError{Msg: fmt.Sprintf("the workflow %s has no stage %q", w.Name, name), HintText: stageHint(name, w.Names())}
}

// NextStep says, in one line, what a person does next with the workflow.
func NextStep(w *Workflow, st *history.WorkflowState) string {
	run := RunCommand(w, st)
	for _, s := range w.Order() {
		switch ss := st.Stage(s.Name); ss.Status {
		case history.StageAwaiting:
			where := s.Name
			if s.Worktree {
				where += " on its branch ralph/" + LoopName(w.Name, s.Name) + " (merged once approved)"
			}
			return fmt.Sprintf("review the work of %s, then 'git ralph approve %s' or 'git ralph reject %s --feedback \"…\"'; then '%s'", where, s.Name, s.Name, run)
		case history.StageFailed:
			return fmt.Sprintf("%s failed: fix what it says, then '%s' runs it again", s.Name, run)
		case history.StageRunning:
			return fmt.Sprintf("%s is running or was interrupted: '%s' resumes it", s.Name, run)
		}
	}
	for _, s := range w.Order() {
		if !st.Stage(s.Name).Status.Complete() {
			return fmt.Sprintf("'%s' runs %s next", run, s.Name)
		}
	}
	return "nothing: every stage is done"
}
