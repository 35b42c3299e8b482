package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop"
	"github.com/git-ralph/git-ralph/loop/recording"
)

// ReplayAgentCmd is the hidden `git ralph replay-agent`, the agent process of
// `--agent replay:DIR`: each run plays the recording's next attempt.
type ReplayAgentCmd struct {
	Speed float64 `help:"0: full speed; 1: the recorded pace; 2: twice as fast." default:"0"`
	Dir   string  `arg:"" help:"The recording."`
}

// Run plays one attempt and ends as it ended: its exit code, or killed by its signal. A
// replay that cannot go on says why on stderr and exits ExitCannotReplay, which the loop
// reads as a reason to stop.
func (c ReplayAgentCmd) Run(ctx context.Context, s Streams) error {
	_, _ = io.Copy(io.Discard, s.Stdin) // an agent reads its prompt
	root, err := launch.RepoRoot(ctx)
	if err == nil {
		var code int
		var sig syscall.Signal
		p := recording.Player{Dir: c.Dir, Root: root, Cursor: filepath.Join(root, history.Dir, "replay-cursor.json"),
			Run: os.Getenv("RALPH_RUN"), Speed: c.Speed, Out: s.Stdout, Own: history.Dir}
		if code, sig, err = p.Play(ctx); err == nil {
			return endAs(code, sig)
		}
	}
	recording.WriteFailure(s.Stderr, err)
	return exitcode.Quiet(recording.ExitCannotReplay)
}

// endAs ends the process as the recorded agent ended: killed by sig, or with code. A Go
// program cannot die by every signal (the runtime catches SIGQUIT and SIGSEGV), so the
// process becomes a shell that sends the signal to itself, with the system's default
// action.
func endAs(code int, sig syscall.Signal) error {
	if sig != 0 {
		sh, err := exec.LookPath("sh")
		if err == nil {
			err = syscall.Exec(sh, []string{"sh", "-c", "kill -s " + strings.TrimPrefix(signalName(sig), "SIG") + " $$"}, os.Environ())
		}
		return fmt.Errorf("ending as killed by %s: %w", signalName(sig), err)
	}
	if code != 0 {
		return exitcode.Quiet(code)
	}
	return nil
}

func signalName(sig syscall.Signal) string { return loop.SignalName(sig) }
