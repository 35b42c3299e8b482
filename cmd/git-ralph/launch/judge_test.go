package launch

import (
	"strings"
	"testing"
)

// TestShowJudgeMode: the dry run says how a preset judge runs; a judge command, which
// runs as written, gets no line.
func TestShowJudgeMode(t *testing.T) {
	tests := []struct{ judge, want string }{
		{"codex", "    the judge runs in codex's read-only mode: codex exec --json --sandbox read-only -\n"},
		{"amp", "    the judge runs with the agent's permissions: amp has no read-only mode git-ralph knows; a change it makes gives no verdict\n"},
		{"kiro", "    the judge runs with the agent's permissions: kiro-cli has no read-only mode git-ralph knows; a change it makes gives no verdict\n"},
		{"claude -p --dangerously-skip-permissions", ""},
	}
	for _, tt := range tests {
		t.Run(tt.judge, func(t *testing.T) {
			var out strings.Builder
			showJudgeMode(&out, tt.judge)
			if out.String() != tt.want {
				t.Errorf("got %q\nwant %q", out.String(), tt.want)
			}
		})
	}
}
