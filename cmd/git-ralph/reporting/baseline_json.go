package reporting

import "github.com/git-ralph/git-ralph/loop"

// baselineJSON is the baseline event: the validate command's result before the run's
// first iteration (docs/reference/events.md).
type baselineJSON struct {
	eventHeader
	Command    string   `json:"command"`
	Format     string   `json:"format"` // validate_format; "none": judged by the exit code
	Kept       bool     `json:"kept"`   // a resumed run's, from its state: it did not run again
	Moved      bool     `json:"moved"`  // taken again, of the base, after the branch took in new commits of it
	ExitCode   int      `json:"exit_code"`
	TimedOut   bool     `json:"timed_out"`
	DurationMS int64    `json:"duration_ms"`
	Tests      int      `json:"tests"`
	Failing    []string `json:"failing"` // the tests failing then, at most 100
}

func newBaselineJSON(h eventHeader, e loop.BaselineTaken) baselineJSON {
	format := string(e.Format)
	if format == "" {
		format = "none"
	}
	failing := []string{}
	for i, t := range e.Failing {
		if i == 100 {
			break
		}
		failing = append(failing, t.String())
	}
	return baselineJSON{h, e.Command, format, e.Kept, e.Moved, e.ExitCode, e.TimedOut, e.Duration.Milliseconds(), e.Tests, failing}
}
