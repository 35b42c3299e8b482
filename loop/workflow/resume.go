package workflow

import (
	"github.com/git-ralph/git-ralph/history"
)

// ResultAt is how the stage's loop in the work tree dir ended, from its exit code and
// the state it left; before is the run the state named before the stage started, so
// that a loop that failed before starting a run of its own is not credited with another's.
func ResultAt(dir string, code int, before string) StageResult {
	res := StageResult{ExitCode: code}
	st, err := history.LoadState(dir)
	if err != nil || !st.Exists() || st.Run == before {
		return res
	}
	res.Run, res.Iterations, res.StopReason = st.Run, st.Iteration, string(st.StopReason)
	return res
}

// currentRun is the run the state of the work tree dir names, "" for none.
func currentRun(dir string) string {
	st, err := history.LoadState(dir)
	if err != nil {
		return ""
	}
	return st.Run
}

// resumeAt decides how a stage left running goes on in the work tree dir: its loop never
// started a run (start afresh), its run ended before the workflow could record it (take
// that end), or its run is unfinished (resume it).
//
// run is the stage's loop run when the workflow learned it (the stage stopped unfinished
// before); a work tree whose state names another run has had another loop since, whose
// run is not the stage's. Otherwise before tells: the run the state named before the
// stage started is not the stage's.
func resumeAt(dir, before, run string) (fresh bool, ended *StageResult) {
	st, err := history.LoadState(dir)
	switch {
	case err != nil || !st.Exists():
		return true, nil
	case run != "" && st.Run != run, run == "" && st.Run == before:
		return true, nil
	case !st.Active && st.StopReason.Finished():
		return false, &StageResult{ExitCode: st.ExitCode, Run: st.Run, Iterations: st.Iteration, StopReason: string(st.StopReason)}
	}
	return false, nil
}
