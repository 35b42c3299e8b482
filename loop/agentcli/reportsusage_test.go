package agentcli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReportsUsageMatchesRecordings: what a preset says its output carries (tokens, a
// cost), which decides whether a budget can stop it, is what the real CLI's recorded
// successful run carried.
func TestReportsUsageMatchesRecordings(t *testing.T) {
	for _, preset := range []string{"claude", "codex", "gemini", "opencode", "copilot", "pi", "qwen"} {
		t.Run(preset, func(t *testing.T) {
			output, err := os.ReadFile(filepath.Join("testdata", "recorded", preset, "success-1-1.out"))
			if err != nil {
				t.Fatal(err)
			}
			got := read(t, preset, output, 0).Usage
			p, _ := Lookup(preset)
			tokens, cost := p.ReportsUsage()
			if hasTokens := got.InputTokens+got.OutputTokens > 0; tokens != hasTokens {
				t.Errorf("ReportsUsage says tokens %v; the recorded run has %d in, %d out", tokens, got.InputTokens, got.OutputTokens)
			}
			if cost != got.HasCost {
				t.Errorf("ReportsUsage says cost %v; the recorded run reports one: %v", cost, got.HasCost)
			}
		})
	}
}
