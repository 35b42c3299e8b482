package workflow

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// Exit codes of a workflow's run, besides its failing stage's own.
const (
	ExitDone        = 0   // every stage done
	ExitFailed      = 1   // a stage's artifacts, its merge or its start failed
	ExitAwaiting    = 7   // a stage waits for a person's approval
	ExitInterrupted = 130 // Ctrl+C, SIGTERM
)

// StageRun is one start of a stage's loop.
type StageRun struct {
	Stage   *Stage
	Fresh   bool   // a new run of the loop; false: resume the stage's unfinished one
	Again   bool   // the stage ran before: a worktree stage starts over from the base
	Context string // the text for the prompt's Context section: the stage's own and its feedback
	Loop    string // the worktree loop's name, for a worktree stage
	State   history.StageState
}

// StageResult is how a stage's loop ended.
type StageResult struct {
	ExitCode   int
	Run        string
	Iterations int
	StopReason string
	Error      string // the last error the loop printed, with its hints: why it stopped when its state cannot say
}

// Runner runs a workflow's stages. Its functions are the outside world: the cmd layer
// runs a loop as a child git-ralph process, merges through the queue, runs commands under
// trust, and says what happens.
type Runner struct {
	Root     string
	Workflow *Workflow
	State    *history.WorkflowState
	RunStage func(ctx context.Context, r StageRun) (StageResult, error)
	Merge    func(ctx context.Context, s *Stage, loop string) error // with the stage's validate, when it has one
	Command  func(ctx context.Context, s *Stage, key, command string, exitCode int) error
	Save     func(history.WorkflowState) error
	Say      func(format string, args ...any)
	Awaiting func(s *Stage) // a gate is reached: notify
	Now      func() time.Time

	mu    sync.Mutex                    // guards State while worktree stages run at once
	prior map[string]history.StageState // each stage's state before its last start
}

// resumable are the loop exit codes after which the loop's run is unfinished and the
// next start resumes it: a usage limit, a budget, an interruption.
var resumable = map[int]bool{4: true, 5: true, 130: true}

// exitBusy is the loop's exit code when another loop holds its work tree's lock.
const exitBusy = 75

// LoopName is the worktree loop of a worktree stage.
func LoopName(workflow, stage string) string { return "wf-" + workflow + "-" + stage }

// Run runs the stages that are not complete, in order, until all are (0), a gate waits
// (7), a stage fails (its loop's code, or 1), or ctx is done (130).
func (r *Runner) Run(ctx context.Context) (int, error) {
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.awaiting() != nil { // a person decides first: nothing runs past a gate, nor beside it
		return r.finish(), nil
	}
	if code, stop, err := r.mergeApproved(ctx); err != nil || stop {
		return code, err
	}
	for {
		if ctx.Err() != nil {
			return ExitInterrupted, nil
		}
		ready := r.ready()
		if len(ready) == 0 {
			return r.finish(), nil
		}
		var code int
		var stop bool
		var err error
		if ready[0].Worktree {
			code, stop, err = r.runBatch(ctx, worktreeOnly(ready))
		} else {
			code, stop, err = r.runOne(ctx, ready[0])
		}
		if err != nil || stop {
			return code, err
		}
	}
}

// ready are the stages that may start now: not complete nor awaiting, every stage they
// need complete.
func (r *Runner) ready() []*Stage {
	var out []*Stage
	for _, s := range r.Workflow.Order() {
		switch r.State.Stage(s.Name).Status {
		case history.StageDone, history.StageApproved, history.StageAwaiting:
			continue
		}
		if r.needsComplete(s) {
			out = append(out, s)
		}
	}
	return out
}

func (r *Runner) needsComplete(s *Stage) bool {
	for _, d := range r.Workflow.Needs(s) {
		if !r.State.Stage(d).Status.Complete() {
			return false
		}
	}
	return true
}

func worktreeOnly(list []*Stage) []*Stage {
	var out []*Stage
	for _, s := range list {
		if s.Worktree {
			out = append(out, s)
		}
	}
	return out
}

// finish is the code once no stage can start: 7 while a gate waits, else 0.
func (r *Runner) finish() int {
	if s := r.awaiting(); s != nil {
		r.Say("workflow %s: the stage %s awaits approval", r.Workflow.Name, s.Name)
		return ExitAwaiting
	}
	r.Say("workflow %s: every stage is done", r.Workflow.Name)
	return ExitDone
}

// awaiting is the first stage that awaits approval, or nil.
func (r *Runner) awaiting() *Stage {
	for _, s := range r.Workflow.Order() {
		if r.State.Stage(s.Name).Status == history.StageAwaiting {
			return s
		}
	}
	return nil
}

// runOne runs a stage and what follows from its end.
func (r *Runner) runOne(ctx context.Context, s *Stage) (int, bool, error) {
	res, err := r.start(ctx, s)
	if err != nil {
		return ExitFailed, true, err
	}
	return r.ended(ctx, s, res)
}

// runBatch runs worktree stages at once (at most Jobs), then merges and ends each in
// the file's order; the first failure or gate stops the workflow after the others ended.
func (r *Runner) runBatch(ctx context.Context, batch []*Stage) (int, bool, error) {
	names := make([]string, len(batch))
	for i, s := range batch {
		names[i] = s.Name
	}
	jobs := r.Workflow.Jobs
	if jobs == 0 {
		jobs = len(batch)
	}
	results := map[string]StageResult{}
	errs := fleet.RunEach(ctx, names, jobs, func(ctx context.Context, name string) error {
		res, err := r.start(ctx, r.Workflow.Stage(name))
		r.mu.Lock()
		results[name] = res
		r.mu.Unlock()
		return err
	})
	code, stop := 0, false
	for _, s := range batch {
		if err := errs[s.Name]; err != nil {
			if ctx.Err() != nil {
				return ExitInterrupted, true, nil
			}
			return ExitFailed, true, err
		}
		c, st, err := r.ended(ctx, s, results[s.Name])
		if err != nil {
			return c, true, err
		}
		if st && !stop {
			code, stop = c, true
		}
	}
	return code, stop, nil
}

// start marks the stage running and runs its loop: afresh, or resuming the run a
// stopped workflow left unfinished.
func (r *Runner) start(ctx context.Context, s *Stage) (StageResult, error) {
	r.mu.Lock()
	st := r.State.Stage(s.Name)
	run := StageRun{Stage: s, Fresh: st.Status != history.StageRunning}
	if r.prior == nil {
		r.prior = map[string]history.StageState{}
	}
	r.prior[s.Name] = *st // what a start refused as busy goes back to
	if s.Worktree {
		run.Loop = LoopName(r.Workflow.Name, s.Name)
	}
	dir := r.artifactRoot(s)
	if !run.Fresh {
		fresh, ended := resumeAt(dir, st.Before, st.Run)
		if ended != nil {
			r.Say("workflow %s: stage %s had ended (%s)", r.Workflow.Name, s.Name, ended.StopReason)
			r.mu.Unlock()
			return *ended, nil
		}
		run.Fresh = fresh
	}
	if run.Fresh && st.Status == history.StageRunning { // its loop never began: the same start again
		st.Before = currentRun(dir)
		run.Again = st.Runs > 1 // a kill may have come before the earlier worktree was discarded
	} else if run.Fresh {
		st.Before = currentRun(dir)
		run.Again = st.Runs > 0
		if run.Again {
			r.markStale(s.Name)
		}
		st.Runs++
		st.Context = r.promptContext(s, st)
		st.Status, st.StartedAt, st.EndedAt, st.Iterations, st.Run = history.StageRunning, r.Now(), time.Time{}, 0, ""
		st.Unmerged = false // an earlier run's branch is discarded, not merged
		st.Worktree = run.Loop
		r.Say("workflow %s: stage %s starts (run %d)", r.Workflow.Name, s.Name, st.Runs)
	} else {
		r.Say("workflow %s: stage %s resumes", r.Workflow.Name, s.Name)
	}
	run.Context, run.State = st.Context, *st
	err := r.save()
	r.mu.Unlock()
	if err != nil {
		return StageResult{}, err
	}
	return r.RunStage(ctx, run)
}

// maxContext bounds the context a stage's loop is given: it goes as one command-line
// argument, which Linux caps at 128 KiB.
const maxContext = 96 << 10

// promptContext is the stage's context, then a reviewer's feedback and why its last run
// failed: the text every iteration of its next run gets, each part within a third of
// maxContext.
func (r *Runner) promptContext(s *Stage, st *history.StageState) string {
	part := (maxContext - 1024) / 3
	parts := []string{}
	if s.Context != "" {
		parts = append(parts, cutText(s.Context, part))
	}
	if st.Feedback != "" {
		parts = append(parts, "A reviewer rejected the last result of this stage (workflow "+r.Workflow.Name+", stage "+s.Name+") and asks:\n"+cutText(st.Feedback, part))
	}
	if st.Status == history.StageFailed && st.Problem != "" {
		parts = append(parts, "The last run of this stage failed:\n"+cutText(st.Problem, part))
	}
	return strings.Join(parts, "\n\n")
}

// cutText is text within n bytes, cut at a character's start, with a note when cut.
func cutText(text string, n int) string {
	if len(text) <= n {
		return text
	}
	note := fmt.Sprintf("\n[… cut at %d KiB]", n>>10)
	end := n - len(note)
	for end > 0 && !utf8.RuneStart(text[end]) {
		end--
	}
	return text[:end] + note
}

// markStale marks every stage built on name as stale, so that it runs again.
func (r *Runner) markStale(name string) []string {
	return MarkStale(r.Workflow, r.State, name)
}

// MarkStale marks the stages that need name, directly or not, and have run (or wait to),
// as stale; it returns their names.
func MarkStale(w *Workflow, st *history.WorkflowState, name string) []string {
	var marked []string
	for _, d := range w.Dependents(name) {
		ds := st.Stage(d)
		if ds.Status == history.StagePending || ds.Status == history.StageStale {
			continue
		}
		ds.Status, ds.StaleSince = history.StageStale, name
		marked = append(marked, d)
	}
	return marked
}

// ended records how the stage's loop ended and does what follows: checks, merge, gate,
// on_complete or on_failure. stop says the workflow's run ends here with code.
func (r *Runner) ended(ctx context.Context, s *Stage, res StageResult) (int, bool, error) {
	st := r.State.Stage(s.Name)
	st.ExitCode, st.StopReason, st.EndedAt = res.ExitCode, res.StopReason, r.Now()
	if res.Run != "" {
		st.Run = res.Run
	}
	st.Iterations = res.Iterations
	switch {
	case res.ExitCode == exitBusy: // another loop holds the work tree: the stage never started
		*st = r.prior[s.Name]
		r.Say("workflow %s: stage %s did not start: another loop holds its work tree; run the workflow again once it has ended", r.Workflow.Name, s.Name)
		return res.ExitCode, true, r.save()
	case resumable[res.ExitCode]:
		r.Say("workflow %s: stage %s stopped unfinished (exit %d); '%s' resumes it", r.Workflow.Name, s.Name, res.ExitCode, RunCommand(r.Workflow, r.State))
		return res.ExitCode, true, r.save()
	case res.ExitCode != 0:
		return r.failed(ctx, s, res.ExitCode, loopProblem(res))
	}
	if problem := CheckArtifacts(r.artifactRoot(s), s); problem != "" {
		return r.failed(ctx, s, ExitFailed, problem)
	}
	switch {
	case s.Worktree && s.Gate == GateApproval: // merged once approved: a rejected result never reaches the base
		st.Unmerged = true
	case s.Worktree:
		if err := r.Merge(ctx, s, LoopName(r.Workflow.Name, s.Name)); err != nil {
			return r.failed(ctx, s, ExitFailed, "merging its branch failed: "+err.Error())
		}
	}
	return r.completed(ctx, s)
}

// mergeApproved merges the branches of the worktree stages a person approved since the
// last run, before anything builds on them; a merge that fails fails its stage.
func (r *Runner) mergeApproved(ctx context.Context) (int, bool, error) {
	for _, s := range r.Workflow.Order() {
		st := r.State.Stage(s.Name)
		if st.Status != history.StageApproved || !st.Unmerged || !s.Worktree {
			continue
		}
		r.Say("workflow %s: stage %s was approved: its branch is merged", r.Workflow.Name, s.Name)
		if err := r.Merge(ctx, s, LoopName(r.Workflow.Name, s.Name)); err != nil {
			st.Unmerged = false // failed: it runs again, afresh
			return r.failed(ctx, s, ExitFailed, "merging its branch after the approval failed: "+err.Error())
		}
		st.Unmerged = false
		if err := r.save(); err != nil {
			return ExitFailed, true, err
		}
	}
	return 0, false, nil
}

// artifactRoot is the work tree where the stage left its files.
func (r *Runner) artifactRoot(s *Stage) string {
	if s.Worktree {
		return fleet.Place(r.Root, LoopName(r.Workflow.Name, s.Name))
	}
	return r.Root
}

// completed ends a stage that succeeded: its gate, its on_complete.
func (r *Runner) completed(ctx context.Context, s *Stage) (int, bool, error) {
	st := r.State.Stage(s.Name)
	st.Problem, st.Feedback, st.StaleSince = "", "", ""
	if _, cmd := r.Workflow.Next(s.OnComplete); cmd != "" {
		if err := r.Command(ctx, s, "on_complete", cmd, 0); err != nil {
			r.Say("workflow %s: warning: the on_complete command of %s failed: %v", r.Workflow.Name, s.Name, err)
		}
	}
	if s.Gate == GateApproval {
		st.Status = history.StageAwaiting
		if err := r.save(); err != nil {
			return ExitFailed, true, err
		}
		r.Say("workflow %s: stage %s is done and awaits approval", r.Workflow.Name, s.Name)
		r.Awaiting(s)
		return ExitAwaiting, true, nil
	}
	st.Status = history.StageDone
	r.Say("workflow %s: stage %s is done (%d iteration(s))", r.Workflow.Name, s.Name, st.Iterations)
	if err := r.save(); err != nil {
		return ExitFailed, true, err
	}
	if s.OnComplete == Stop {
		r.Say("workflow %s: stage %s says stop (on_complete); '%s' goes on with the rest", r.Workflow.Name, s.Name, RunCommand(r.Workflow, r.State))
		return ExitDone, true, nil
	}
	return 0, false, nil
}

// failed ends a stage that failed, runs its on_failure, and stops the workflow with code.
func (r *Runner) failed(ctx context.Context, s *Stage, code int, problem string) (int, bool, error) {
	st := r.State.Stage(s.Name)
	st.Status, st.Problem, st.ExitCode = history.StageFailed, problem, code
	r.Say("workflow %s: stage %s failed: %s", r.Workflow.Name, s.Name, problem)
	if err := r.save(); err != nil {
		return code, true, err
	}
	handler, cmd := r.Workflow.Next(s.OnFailure)
	switch {
	case handler != "":
		h := r.Workflow.Stage(handler)
		if hr, err := r.start(ctx, h); err != nil {
			r.Say("workflow %s: the on_failure stage %s did not run: %v", r.Workflow.Name, handler, err)
		} else {
			r.ended(ctx, h, hr)
		}
	case cmd != "":
		if err := r.Command(ctx, s, "on_failure", cmd, code); err != nil {
			r.Say("workflow %s: warning: the on_failure command of %s failed: %v", r.Workflow.Name, s.Name, err)
		}
	}
	return code, true, nil
}

func (r *Runner) save() error { return r.Save(*r.State) }

// loopProblem says why a stage's loop failed: its stop reason, the error it printed.
func loopProblem(res StageResult) string {
	problem := fmt.Sprintf("its loop stopped with exit code %d", res.ExitCode)
	if res.StopReason != "" {
		problem += " (" + res.StopReason + ")"
	}
	if res.Error != "" {
		return problem + ": " + res.Error
	}
	if res.StopReason == "" {
		problem += " (no reason recorded)"
	}
	return problem
}
