package reporting

import (
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/internal/testio"
	"github.com/git-ralph/git-ralph/loop"
)

// TestPausedSaysWhereAndHowToGoOn: the paused line names where the loop holds and the
// command that goes on, in quiet mode too (a loop that starts no agent looks hung).
func TestPausedSaysWhereAndHowToGoOn(t *testing.T) {
	tests := []struct {
		name  string
		event loop.Paused
		want  string
	}{
		{"between iterations", loop.Paused{Iteration: 4}, "Paused after iteration 3: 'git ralph resume' goes on\n"},
		{"before the first", loop.Paused{Iteration: 1}, "Paused before iteration 1: 'git ralph resume' goes on\n"},
		{"after a limit's wait", loop.Paused{Iteration: 2, Retry: true}, "Paused before running iteration 2 again: 'git ralph resume' goes on\n"},
		{"asked earlier", loop.Paused{Iteration: 1, Asked: time.Date(2026, 5, 6, 7, 8, 9, 0, time.Local)},
			"Paused before iteration 1: 'git ralph resume' goes on (pause asked at 2026-05-06 07:08:09)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out testio.Buffer
			p := &Progress{w: &out, quiet: true, now: time.Now}
			p.Report(tt.event)
			p.Report(loop.Resumed{Iteration: tt.event.Iteration, Paused: 90 * time.Second})
			got := out.String()
			if !strings.HasSuffix(strings.SplitN(got, "\n", 2)[0]+"\n", tt.want) {
				t.Errorf("got %q, want a line ending %q", got, tt.want)
			}
			if strings.Contains(got, "Resumed") {
				t.Errorf("quiet mode printed the resumed line: %q", got)
			}
		})
	}
}
