package agentcli

import (
	"slices"
	"strings"
	"testing"
)

// TestJudgeCommandLines: a judge runs in its CLI's read-only mode where the CLI has one
// (the flags each pinned version's --help names; realagents shows each refusing a
// judge's write), with the agent's headless and output flags kept so that the same
// reader reads it; the others run as the agent does.
func TestJudgeCommandLines(t *testing.T) {
	tests := []struct {
		preset string
		line   string // the judge's command line; "" means the agent's own
		env    []string
	}{
		{"claude", `exec 'claude' '-p' '--output-format' 'stream-json' '--verbose' '--permission-mode' 'plan'`, nil},
		{"codex", `exec 'codex' 'exec' '--json' '--sandbox' 'read-only' '-'`, nil},
		{"gemini", `exec 'gemini' '--output-format' 'stream-json' '--approval-mode' 'plan' '--skip-trust'`, nil},
		{"opencode", `exec 'opencode' 'run' '--format' 'json' '--agent' 'plan'`, []string{`OPENCODE_PERMISSION={"bash":"deny"}`}},
		{"copilot", `exec 'copilot' '--allow-all' '--no-ask-user' '--output-format' 'json' '--plan'`, nil},
		{"qwen", `exec 'qwen' '--output-format' 'stream-json' '--approval-mode' 'plan'`, nil},
		{"pi", `exec 'pi' '-p' '--mode' 'json' '--tools' 'read,grep,find,ls'`, nil},
		{"aider", "", nil},
		{"amp", "", nil},
		{"cursor-agent", "", nil},
		{"kiro-cli", "", nil},
		{"anthropic-api", "in-process", nil},
		{"openai-api", "in-process", nil},
		{"openai-chat", "in-process", nil},
	}
	if len(tests) != len(Names()) {
		t.Fatalf("the table covers %d presets, there are %d: say how each judges", len(tests), len(Names()))
	}
	for _, tt := range tests {
		t.Run(tt.preset, func(t *testing.T) {
			agent, _ := Lookup(tt.preset)
			judge, readOnly := agent.AsJudge()
			if readOnly != (tt.line != "") {
				t.Errorf("read-only = %v", readOnly)
			}
			if tt.line == "in-process" { // apiagent offers the judge only the tools that read
				return
			}
			want := tt.line
			if want == "" {
				want = agent.CommandLine("{file}")
			}
			if got := judge.CommandLine("{file}"); got != want {
				t.Errorf("judge's command line\n got %s\nwant %s", got, want)
			}
			if wantEnv := append(slices.Clone(agent.Env), tt.env...); !slices.Equal(judge.Env, wantEnv) {
				t.Errorf("judge's environment %q, want %q", judge.Env, wantEnv)
			}
			if again, _ := Lookup(tt.preset); !slices.Equal(again.Args, agent.Args) || !slices.Equal(again.Env, agent.Env) {
				t.Errorf("AsJudge changed the agent's own line: %q %q", again.Args, again.Env)
			}
		})
	}
}

// TestJudgeKeepsTheAgentsReading: a read-only judge line keeps every flag of the agent's
// (the headless and output flags its reader depends on) but those that turn the CLI's
// approvals or sandbox off. copilot keeps --allow-all, which its plan mode overrides
// (realagents: its judge's write is blocked), and without which a headless run may wait
// for an approval.
func TestJudgeKeepsTheAgentsReading(t *testing.T) {
	skipping := []string{"--dangerously-skip-permissions", "--dangerously-bypass-approvals-and-sandbox", "yolo", "--auto"}
	for _, name := range Names() {
		agent, _ := Lookup(name)
		judge, readOnly := agent.AsJudge()
		if !readOnly {
			continue
		}
		for _, a := range agent.Args {
			if !slices.Contains(skipping, a) && !slices.Contains(judge.Args, a) {
				t.Errorf("%s: the judge's line %q lacks the agent's %q", name, judge.Args, a)
			}
		}
		for _, a := range judge.Args {
			if slices.Contains(skipping, a) || strings.HasPrefix(a, "--dangerously") {
				t.Errorf("%s: the judge's line %q skips permissions (%q)", name, judge.Args, a)
			}
		}
	}
}
