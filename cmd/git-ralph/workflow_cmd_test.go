package main

import (
	"reflect"
	"slices"
	"testing"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/loop/workflow"
)

// A stage's settings reach its loop as the flags the loop parses into the same values; its
// limits as the repository's settings, each with its line.
func TestStageArgsParseAsTheStageSays(t *testing.T) {
	wf, err := workflow.Parse("ship", []byte(`[stages.plan]
task = "--write the plan"
prompt = "prompts/plan.md"
mode = "plan"
agent_cmd = "sh agent.sh"
validate = "make test"
max_iterations = 7
timeout = "90s"
idle_threshold = 0
max_cost = 2.5
`))
	if err != nil {
		t.Fatal(err)
	}
	st := wf.Stage("plan")
	// settings that other parts of git-ralph bring to loop: checked once loop has their flag
	later := map[string]string{"Until": "test -f plan.md", "Judge": "claude", "Feedback": "all"}
	for field, v := range later {
		if hasLoopField(field) {
			reflect.ValueOf(st).Elem().FieldByName(field).SetString(v)
		} else {
			t.Logf("loop has no %s flag on this branch: not checked", field)
		}
	}
	run := workflow.StageRun{Stage: st, Fresh: true, Context: "-feedback: more", Loop: "wf-ship-plan"}
	args := launch.StageLoop(wf, run, "", "").Args()
	if args[0] != "loop" {
		t.Fatalf("args %q", args)
	}
	c := parseLoop(t, args[1:]...)
	if c.Task != st.Task || c.Prompt != st.Prompt || c.Mode != "plan" || c.AgentCmd != st.AgentCmd || c.Validate != st.Validate ||
		c.Max != nil || c.Timeout != nil || c.IdleThreshold != nil || c.MaxCost != "" ||
		c.Context != run.Context || c.Worktree != "wf-ship-plan" || !c.Fresh {
		t.Errorf("parsed %+v from %q", c, args)
	}
	limits, err := launch.StageSettings(c.StageSettings)
	want := []config.WorkflowSetting{
		{Key: "max_iterations", Raw: "7", File: ".ralph/workflows/ship.toml", Line: 7, Field: "stages.plan.max_iterations"},
		{Key: "iteration_timeout", Raw: "1m30s", File: ".ralph/workflows/ship.toml", Line: 8, Field: "stages.plan.timeout"},
		{Key: "idle_threshold", Raw: "0", File: ".ralph/workflows/ship.toml", Line: 9, Field: "stages.plan.idle_threshold"},
		{Key: "max_cost", Raw: "2.5", File: ".ralph/workflows/ship.toml", Line: 10, Field: "stages.plan.max_cost"},
	}
	if err != nil || !reflect.DeepEqual(limits, want) {
		t.Errorf("limits %+v, %v\nwant %+v", limits, err, want)
	}
	for field, v := range later {
		if hasLoopField(field) {
			if got := reflect.ValueOf(c).FieldByName(field).String(); got != v {
				t.Errorf("%s = %q, want %q", field, got, v)
			}
		}
	}
}

func hasLoopField(name string) bool {
	_, ok := reflect.TypeOf(LoopCmd{}).FieldByName(name)
	return ok
}

// --agent or --agent-cmd of workflow run replace both agent settings of every stage.
func TestWorkflowAgentFlagsReplaceTheStages(t *testing.T) {
	st := &workflow.Stage{Name: "a", Agent: "codex", AgentCmd: "their-agent"}
	args := launch.StageLoop(&workflow.Workflow{}, workflow.StageRun{Stage: st}, "", "my-agent").Args()
	if !slices.Contains(args, "--agent-cmd=my-agent") || slices.Contains(args, "--agent=codex") || slices.Contains(args, "--agent-cmd=their-agent") {
		t.Errorf("args %q", args)
	}
	args = launch.StageLoop(&workflow.Workflow{}, workflow.StageRun{Stage: st}, "", "").Args()
	if !slices.Contains(args, "--agent=codex") || !slices.Contains(args, "--agent-cmd=their-agent") || slices.Contains(args, "--fresh") {
		t.Errorf("args %q", args)
	}
}

// The commands a workflow file sets are what its trust covers; an agent flag leaves out
// the file's agents.
func TestWorkflowCommandsToTrust(t *testing.T) {
	wf, err := workflow.Parse("w", []byte(`
[stages.a]
agent = "claude"
validate = "make test"
until = "test -f x"
judge = "claude"
on_complete = "b"
on_failure = "notify-send a failed"
[stages.b]
agent_cmd = "my agent"
on_complete = "stop"
`))
	if err != nil {
		t.Fatal(err)
	}
	got := workflowCommands(wf, false)
	want := map[string]string{"stages.a.agent": "claude", "stages.a.validate": "make test", "stages.a.until": "test -f x",
		"stages.a.judge": "claude", "stages.a.on_failure": "notify-send a failed", "stages.b.agent_cmd": "my agent"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("commands %v, want %v", got, want)
	}
	if got := workflowCommands(wf, true); got["stages.a.agent"] != "" || got["stages.b.agent_cmd"] != "" || len(got) != 4 {
		t.Errorf("with an agent flag: %v", got)
	}
}
