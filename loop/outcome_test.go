package loop

import (
	"syscall"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/loop/agent"
)

func TestScanPromise(t *testing.T) {
	tests := []struct {
		output string
		want   Promise
	}{
		{"all good", PromiseNone},
		{"done\n<promise>SUCCESS</promise>\n", PromiseSuccess},
		{"<promise>FAILURE</promise>", PromiseFailure},
		{"<promise>SUCCESS</promise> then <promise>FAILURE</promise>", PromiseBoth},
		{"<promise>success</promise>", PromiseNone},
		{"<promise> SUCCESS </promise>", PromiseNone},
		{"<PROMISE>SUCCESS</PROMISE>", PromiseNone},
		{"<promise>SUCCESS", PromiseNone},
		{"<Promise>Success</Promise>", PromiseNone},
	}
	for _, tt := range tests {
		if got := ScanPromise(tt.output); got != tt.want {
			t.Errorf("ScanPromise(%q) = %q, want %q", tt.output, got, tt.want)
		}
	}
}

func TestClassifyOutcomeMatrix(t *testing.T) {
	tests := []struct {
		name    string
		res     agent.Result
		promise Promise
		want    Outcome
	}{
		{"exit 0, no signal", agent.Result{}, PromiseNone, OutcomeSuccess},
		{"exit 0, SUCCESS", agent.Result{}, PromiseSuccess, OutcomeDone},
		{"exit 0, FAILURE", agent.Result{}, PromiseFailure, OutcomeFailure},
		{"exit 0, both", agent.Result{}, PromiseBoth, OutcomeFailure},
		{"exit 1, no signal", agent.Result{ExitCode: 1}, PromiseNone, OutcomeFailure},
		{"exit 1, SUCCESS", agent.Result{ExitCode: 1}, PromiseSuccess, OutcomeDone},
		{"exit 1, FAILURE", agent.Result{ExitCode: 1}, PromiseFailure, OutcomeFailure},
		{"exit 1, both", agent.Result{ExitCode: 1}, PromiseBoth, OutcomeFailure},
		{"timeout beats SUCCESS", agent.Result{TimedOut: true, Signal: syscall.SIGTERM}, PromiseSuccess, OutcomeFailure},
		{"crash with SUCCESS", agent.Result{ExitCode: -1, Signal: syscall.SIGSEGV}, PromiseSuccess, OutcomeDone},
		{"crash", agent.Result{ExitCode: -1, Signal: syscall.SIGSEGV}, PromiseNone, OutcomeFailure},
		{"interrupted", agent.Result{Interrupted: true}, PromiseSuccess, OutcomeInterrupted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := Classify(tt.res, tt.promise); got != tt.want {
				t.Errorf("Classify = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestClassifyNamesTheSignal(t *testing.T) {
	_, reason := Classify(agent.Result{ExitCode: -1, Signal: syscall.SIGKILL}, PromiseNone)
	if reason != "killed by SIGKILL" {
		t.Errorf("reason = %q", reason)
	}
	_, reason = Classify(agent.Result{ExitCode: 139}, PromiseNone)
	if reason != "exit code 139 (SIGSEGV in the shell's words)" {
		t.Errorf("reason = %q", reason)
	}
}

func TestStatsWelford(t *testing.T) {
	var s Stats
	for _, sec := range []float64{2, 4, 4, 4, 5, 5, 7, 9} {
		s.Add(time.Duration(sec * float64(time.Second)))
	}
	if s.Count != 8 || s.Min != 2*time.Second || s.Max != 9*time.Second {
		t.Errorf("count/min/max = %d/%v/%v", s.Count, s.Min, s.Max)
	}
	if s.Mean() != 5*time.Second || s.Stddev() != 2*time.Second {
		t.Errorf("mean/stddev = %v/%v, want 5s/2s", s.Mean(), s.Stddev())
	}
}
