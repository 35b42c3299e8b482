package launch

import (
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// A child loop's command line: loop, its worktree, its flags as given, and the task last
// after "--", so that a task that starts with a dash stays the task.
func TestChildLoopArgs(t *testing.T) {
	got := ChildLoop{Worktree: "try-2", Flags: []string{"--mode=plan"}, Task: "-fix it"}.Args()
	want := []string{"loop", "--worktree=try-2", "--mode=plan", "--", "-fix it"}
	if !slices.Equal(got, want) {
		t.Errorf("args %q, want %q", got, want)
	}
	if got := (ChildLoop{}).Args(); !slices.Equal(got, []string{"loop"}) {
		t.Errorf("no flags: %q", got)
	}
}

// Embedded are flags of an embedded struct (kong's embed): a repeatable one is given once
// each; a skipped one not at all.
type Embedded struct {
	Protect []string
	Score   string
}

// FlagArgs spells the flags given, in the order of the fields, and leaves out those not
// given, those skipped and the arguments.
func TestFlagArgs(t *testing.T) {
	t.Chdir(t.TempDir())
	max := 0
	cmd := struct {
		Task     string `arg:""`
		Mode     string
		Max      *int
		Timeout  time.Duration
		TaskFile string `name:"task-file"`
		Jobs     int
		Fresh    bool
		Quiet    bool
		Embedded
	}{Task: "x", Mode: "plan", Max: &max, Timeout: 90 * time.Second, TaskFile: "task.md", Jobs: 3, Fresh: true,
		Embedded: Embedded{Protect: []string{"a/**", "b/**"}, Score: "x"}}
	got, err := FlagArgs(&cmd, map[string]bool{"jobs": true, "score": true})
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("task.md")
	want := []string{"--mode=plan", "--max=0", "--timeout=1m30s", "--task-file=" + abs, "--fresh=true", "--protect=a/**", "--protect=b/**"}
	if !slices.Equal(got, want) {
		t.Errorf("args %q, want %q", got, want)
	}
}
