package workflowview

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/fleet"
	"github.com/git-ralph/git-ralph/loop/workflow"
)

// Stage is one stage as `workflow status` shows it; its JSON form is --json's.
type Stage struct {
	Name       string              `json:"name"`
	Status     history.StageStatus `json:"status"`
	Needs      []string            `json:"needs"`
	Gate       string              `json:"gate,omitempty"`
	Worktree   string              `json:"worktree,omitempty"`
	Unmerged   bool                `json:"unmerged,omitempty"`
	Handler    bool                `json:"on_failure_only,omitempty"`
	Runs       int                 `json:"runs"`
	Iterations int                 `json:"iterations"`
	ExitCode   *int                `json:"exit_code,omitempty"`
	Run        string              `json:"run,omitempty"`
	Problem    string              `json:"problem,omitempty"`
	Feedback   string              `json:"feedback,omitempty"`
	StaleSince string              `json:"stale_since,omitempty"`
	EndedAt    time.Time           `json:"ended_at,omitzero"`
	State      *history.StageState `json:"-"`
	Stage      *workflow.Stage     `json:"-"`
}

// View is the workflow as `workflow status` shows it: its stages in order (the
// handlers of on_failure last) and the next step.
type View struct {
	Workflow string  `json:"workflow"`
	File     string  `json:"file"`
	Stages   []Stage `json:"stages"`
	Next     string  `json:"next"`
}

// newStage is stage st of wf with its state ss.
func newStage(wf *workflow.Workflow, st *workflow.Stage, ss *history.StageState) Stage {
	v := Stage{Name: st.Name, Status: ss.Status, Needs: wf.Needs(st), Gate: st.Gate, Worktree: ss.Worktree,
		Unmerged: ss.Unmerged, Handler: st.Handler, Runs: ss.Runs, Iterations: ss.Iterations, Run: ss.Run, Problem: ss.Problem,
		Feedback: ss.Feedback, StaleSince: ss.StaleSince, EndedAt: ss.EndedAt}
	if v.Needs == nil {
		v.Needs = []string{}
	}
	if ss.Runs > 0 && ss.Status != history.StageRunning {
		code := ss.ExitCode
		v.ExitCode = &code
	}
	return v
}

// Print prints the stages as a table, the failures' problems under it, and the next step.
func Print(w io.Writer, v View) error {
	fmt.Fprintf(w, "Workflow %s (%s)\n", v.Workflow, v.File)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STAGE\tSTATUS\tAFTER\tRUNS\tITERATIONS\tEXIT\tNOTE")
	for _, st := range v.Stages {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\n", st.Name, st.Status, display.OrDash(strings.Join(st.Needs, ",")),
			st.Runs, st.Iterations, exitText(st.ExitCode), display.Printable(stageNote(st)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, st := range v.Stages {
		if st.Problem != "" && st.Status == history.StageFailed {
			fmt.Fprintf(w, "\n%s failed:\n%s\n", st.Name, display.IndentOutput(st.Problem))
		}
	}
	_, err := fmt.Fprintf(w, "\nNext: %s\n", display.PrintableText(v.Next))
	return err
}

// stageNote is the NOTE column: the gate, the worktree, the branch, and what else applies.
func stageNote(st Stage) string {
	var notes []string
	if st.Gate != "" {
		notes = append(notes, "gate: "+st.Gate)
	}
	if st.Worktree != "" {
		notes = append(notes, "worktree "+st.Worktree)
	}
	if st.Unmerged {
		notes = append(notes, "branch "+unmergedNote(st))
	}
	if st.Handler {
		notes = append(notes, "runs on failure only")
	}
	if st.StaleSince != "" && st.Status == history.StageStale {
		notes = append(notes, st.StaleSince+" ran again")
	}
	if st.Feedback != "" {
		notes = append(notes, "feedback: "+firstLine(st.Feedback))
	}
	return strings.Join(notes, "; ")
}

// unmergedNote says what becomes of the branch of a gated worktree stage not merged yet.
func unmergedNote(st Stage) string {
	branch := strings.TrimPrefix(fleet.BranchPrefix, "refs/heads/") + st.Worktree
	switch st.Status {
	case history.StageApproved:
		return branch + " not merged yet: the next 'workflow run' merges it"
	case history.StageRejected, history.StageStale:
		return branch + " not merged: discarded when the stage runs again"
	}
	return branch + " not merged: merged once approved"
}

// exitText is the EXIT column: the stage's last exit code, "-" before it ended.
func exitText(code *int) string {
	if code == nil {
		return "-"
	}
	return fmt.Sprint(*code)
}

// firstLine is the first line of s, with " …" where more follows.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// New is the view of wf with its state.
func New(wf *workflow.Workflow, state *history.WorkflowState) View {
	view := View{Workflow: wf.Name, File: wf.File, Next: workflow.NextStep(wf, state)}
	order := wf.Order()
	for _, st := range wf.Stages {
		if st.Handler {
			order = append(order, st)
		}
	}
	for _, st := range order {
		view.Stages = append(view.Stages, newStage(wf, st, state.Stage(st.Name)))
	}
	return view
}
