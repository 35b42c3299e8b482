package reporting

import (
	"bytes"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/internal/testio"
	"github.com/git-ralph/git-ralph/loop"
)

func TestLimitWaitCountsDownOnATerminalOnly(t *testing.T) {
	wait := loop.Waiting{Iteration: 3, Kind: "limit", Message: "You've hit your limit", Until: time.Now().Add(time.Hour)}
	for _, terminal := range []bool{true, false} {
		var out testio.Buffer
		p := &Progress{w: &out, fancy: terminal, now: time.Now}
		p.Report(wait)
		time.Sleep(50 * time.Millisecond)
		p.Report(loop.IterationStarted{Iteration: 3, Max: 5})
		got := out.String()
		if !strings.Contains(got, "Iteration 3: usage limit (You've hit your limit); waiting until") {
			t.Errorf("terminal=%v: no wait line in %q", terminal, got)
		}
		hasCountdown := strings.Contains(got, "\r  waiting: 1h0m0s left") || strings.Contains(got, "\r  waiting: 59m59s left")
		cleared := strings.Contains(got, "\r\x1b[K[")
		if terminal && (!hasCountdown || !cleared) {
			t.Errorf("terminal: countdown %v, cleared before the next line %v: %q", hasCountdown, cleared, got)
		}
		if !terminal && strings.ContainsAny(got, "\r\x1b") {
			t.Errorf("not a terminal: control characters in %q", got)
		}
	}
}

func TestStatusLineShowsElapsedAndOutputOnATerminalOnly(t *testing.T) {
	for _, terminal := range []bool{true, false} {
		var out testio.Buffer
		var printed atomic.Int64
		printed.Store(1000)
		p := &Progress{w: &out, fancy: terminal, statusLine: terminal, now: time.Now, output: printed.Load}
		p.Report(loop.IterationStarted{Iteration: 3, Max: 5})
		printed.Add(2048)
		time.Sleep(1100 * time.Millisecond)
		p.Report(loop.IterationFinished{Iteration: 3, Max: 5, Outcome: loop.OutcomeSuccess, Progress: true})
		got := out.String()
		if !strings.Contains(got, "Iteration 3/5 starting...") || !strings.Contains(got, "Iteration 3/5 completed") {
			t.Errorf("terminal=%v: progress lines missing in %q", terminal, got)
		}
		if terminal && (!strings.Contains(got, "\r  iteration 3/5: 1s, 2.0 KiB of output \x1b[K") || !strings.Contains(got, "\r\x1b[K[")) {
			t.Errorf("terminal: no status line with elapsed time and output, cleared before the next line: %q", got)
		}
		if !terminal && strings.ContainsAny(got, "\r\x1b") {
			t.Errorf("not a terminal: control characters in %q", got)
		}
	}
}

// A progress line names the validate command and carries the agent's words (limit and
// error messages): escapes in them are spelled out, never sent to the terminal.
func TestProgressLinesQuoteControlCharacters(t *testing.T) {
	var out bytes.Buffer
	p := &Progress{w: &out, now: time.Now}
	p.Report(loop.ValidationFailed{Iteration: 2, Validation: loop.Validation{Command: "touch /tmp/PWN #\r\x1b[2K make test", ExitCode: 1}})
	p.Report(loop.Waiting{Iteration: 3, Kind: "transient", Message: "overloaded\x1b]0;owned\a", Until: time.Now().Add(time.Minute)})
	got := out.String()
	if strings.ContainsAny(got, "\r\x1b\a") {
		t.Errorf("control characters reached the output: %q", got)
	}
	for _, want := range []string{`touch /tmp/PWN #\r\x1b[2K make test`, `overloaded\x1b]0;owned\a`} {
		if !strings.Contains(got, want) {
			t.Errorf("output %q does not spell out %s", got, want)
		}
	}
}
