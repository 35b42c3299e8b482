package launch

import (
	"os"
	"os/exec"
	"time"

	"github.com/git-ralph/git-ralph/loop/agent"
)

// watchdogArg is the hidden first argument that makes git-ralph the watchdog of one
// agent (agent.Watch) instead of a command: `git-ralph __watchdog MARKER GRACE`.
const watchdogArg = "__watchdog"

// WatchdogCommand starts this same program as the watchdog of the agent that carries
// marker. argv[0] stays git-ralph whatever the program file is called (the tests run it
// as a copy of the test binary that dispatches on that name).
func WatchdogCommand(marker string, grace time.Duration) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return &exec.Cmd{Path: exe, Args: []string{"git-ralph", watchdogArg, marker, grace.String()}}
}

// RunWatchdog runs the watchdog when args ask for it, and reports whether they did.
func RunWatchdog(args []string) bool {
	if len(args) != 3 || args[0] != watchdogArg {
		return false
	}
	grace, err := time.ParseDuration(args[2])
	if err != nil {
		grace = agent.DefaultGrace
	}
	agent.Watch(os.Stdin, args[1], grace)
	return true
}
