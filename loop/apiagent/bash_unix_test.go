//go:build unix

package apiagent

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/loop/agent"
)

// A command that leaves processes behind, even in a session of their own (setsid), has
// none left when its call returns.
func TestBashLeavesNothingRunning(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("finding the processes that left the session needs /proc")
	}
	tb, dir := newToolbox(t)
	run := strings.TrimPrefix(tb.bash.marker, "RALPH_RUN=")
	res := use(t, tb, toolBash, obj{"command": "setsid sleep 100 & echo $! > escaped.pid; sleep 100 & echo $! > child.pid; echo started"})
	if res.IsError || !strings.Contains(res.Output, "exit code 0\nstarted") {
		t.Fatalf("bash: %q", res.Output)
	}
	if left := agent.Leftovers(run); len(left) > 0 {
		t.Errorf("sessions of the call still running: %v", left)
	}
	for _, f := range []string{"escaped.pid", "child.pid"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		must(t, err)
		pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
		if pid > 0 && alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("the process of %s (%d) outlived the call", f, pid)
		}
	}
}

// alive reports whether pid runs (a zombie, waiting to be reaped, does not).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
}

func TestBashTimeoutStopsTheCommand(t *testing.T) {
	tb, _ := newToolbox(t)
	start := time.Now()
	res := use(t, tb, toolBash, obj{"command": "echo begun; sleep 60", "timeout_seconds": 1})
	if res.IsError || !strings.Contains(res.Output, "ran over its 1s and was stopped") || !strings.Contains(res.Output, "begun") {
		t.Errorf("bash over its timeout: %q", res.Output)
	}
	if time.Since(start) > 50*time.Second {
		t.Errorf("the call lasted %s: the timeout did not stop it", time.Since(start))
	}
	tb.bash.timeout = time.Second
	if res := use(t, tb, toolBash, obj{"command": "sleep 60", "timeout_seconds": 3600}); !strings.Contains(res.Output, "ran over its 1s") {
		t.Errorf("a model's timeout over git-ralph's: %q", res.Output)
	}
}

// The key's variables are empty for the commands the model runs; the loop's entries are there.
func TestBashDoesNotSeeTheKey(t *testing.T) {
	t.Setenv("APIAGENT_TEST_KEY", testKey)
	tb, _ := newToolbox(t)
	tb.bash.env = bashEnv(tb.bash.marker, testKey, []string{"RALPH_ITERATION=7"})
	res := use(t, tb, toolBash, obj{"command": `echo "key=[$APIAGENT_TEST_KEY] iteration=$RALPH_ITERATION"`})
	if !strings.Contains(res.Output, "key=[]") {
		t.Errorf("the command saw the key's variable: %q", res.Output)
	}
	if !strings.Contains(res.Output, "iteration=7") {
		t.Errorf("the command lacks the loop's entries (Request.Env): %q", res.Output)
	}
}
