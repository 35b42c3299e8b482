package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/fleet"
	"github.com/git-ralph/git-ralph/loop/workflow"
)

// WorkflowStatusCmd is `git ralph workflow status NAME`.
type WorkflowStatusCmd struct {
	Name string `arg:"" help:"The workflow: .ralph/workflows/NAME.toml."`
	JSON bool   `name:"json" help:"Print the stages as JSON (see docs/reference/events.md)."`
}

// stageView is one stage as status shows it.
type stageView struct {
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

type workflowView struct {
	Workflow string      `json:"workflow"`
	File     string      `json:"file"`
	Stages   []stageView `json:"stages"`
	Next     string      `json:"next"`
}

// Run prints the stages in order, their states, and the next step.
func (c *WorkflowStatusCmd) Run(ctx context.Context, s Streams) error {
	root, err := repoRoot(ctx)
	if err != nil {
		return err
	}
	wf, err := workflow.Load(root, c.Name)
	if err != nil {
		return err
	}
	state, err := history.LoadWorkflow(root, wf.Name)
	if err != nil {
		return err
	}
	view := workflowView{Workflow: wf.Name, File: wf.File, Next: workflow.NextStep(wf, &state)}
	order := wf.Order()
	for _, st := range wf.Stages {
		if st.Handler {
			order = append(order, st)
		}
	}
	for _, st := range order {
		view.Stages = append(view.Stages, newStageView(wf, st, state.Stage(st.Name)))
	}
	if c.JSON {
		enc := json.NewEncoder(s.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(view)
	}
	return printWorkflow(s, view)
}

func newStageView(wf *workflow.Workflow, st *workflow.Stage, ss *history.StageState) stageView {
	v := stageView{Name: st.Name, Status: ss.Status, Needs: wf.Needs(st), Gate: st.Gate, Worktree: ss.Worktree,
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

func printWorkflow(s Streams, v workflowView) error {
	fmt.Fprintf(s.Stdout, "Workflow %s (%s)\n", v.Workflow, v.File)
	tw := tabwriter.NewWriter(s.Stdout, 0, 0, 2, ' ', 0)
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
			fmt.Fprintf(s.Stdout, "\n%s failed:\n%s\n", st.Name, display.IndentOutput(st.Problem))
		}
	}
	_, err := fmt.Fprintf(s.Stdout, "\nNext: %s\n", display.PrintableText(v.Next))
	return err
}

func stageNote(st stageView) string {
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
func unmergedNote(st stageView) string {
	branch := strings.TrimPrefix(fleet.BranchPrefix, "refs/heads/") + st.Worktree
	switch st.Status {
	case history.StageApproved:
		return branch + " not merged yet: the next 'workflow run' merges it"
	case history.StageRejected, history.StageStale:
		return branch + " not merged: discarded when the stage runs again"
	}
	return branch + " not merged: merged once approved"
}

func exitText(code *int) string {
	if code == nil {
		return "-"
	}
	return fmt.Sprint(*code)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
