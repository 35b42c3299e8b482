package loop

import (
	"testing"

	"github.com/git-ralph/git-ralph/history"
)

func TestResumesKeepsOrReplacesTheTask(t *testing.T) {
	unfinished := history.State{SchemaVersion: history.StateSchema, Run: "r1", Mode: "build", Task: "fix the parser", StopReason: history.StopInterrupted}
	tests := []struct {
		name   string
		task   string
		resume bool
		why    string
	}{
		{"no task given: the run's", "", true, ""},
		{"the same task", "fix the parser", true, ""},
		{"another task: a new run", "write the docs", false, "a new task was given"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resume, why := Resumes(Config{Mode: "build", Task: tt.task}, unfinished)
			if resume != tt.resume || why != tt.why {
				t.Errorf("Resumes = %v, %q; want %v, %q", resume, why, tt.resume, tt.why)
			}
		})
	}
}
