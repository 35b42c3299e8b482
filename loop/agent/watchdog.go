package agent

import (
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

// watchdog is the running watchdog of one agent: git-ralph holds the write end of its
// stdin, which the kernel closes when git-ralph dies however it dies.
type watchdog struct {
	cmd  *exec.Cmd
	pipe *os.File
}

// startWatchdog starts the watchdog of s.Watchdog, in a process group of its own so that
// the terminal's Ctrl+C and a kill of git-ralph's group do not reach it. It returns nil
// when there is none or it cannot start: the agent's parent-death signal and `git ralph
// status` / `cancel` remain.
func startWatchdog(s Spec) *watchdog {
	if s.Watchdog == nil || s.Marker == "" {
		return nil
	}
	grace := s.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	cmd := s.Watchdog(s.Marker, grace)
	r, w, err := os.Pipe()
	if err != nil {
		return nil
	}
	cmd.Stdin = r
	cmd.SysProcAttr = ownGroupAttr()
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return nil
	}
	go cmd.Wait() // reap it whenever it ends
	return &watchdog{cmd: cmd, pipe: w}
}

// release tells the watchdog the agent is gone, so it exits without stopping anything.
func (w *watchdog) release() {
	if w == nil {
		return
	}
	w.pipe.Write([]byte{'.'})
	w.pipe.Close()
}

// Watch is the watchdog process: it waits on in (whose writer is the loop) and, when the
// loop went away without saying the agent is gone, stops every process carrying marker:
// SIGTERM, grace, SIGKILL. The signals that stop a terminal job or a loop are ignored:
// the watchdog ends when its work is done.
func Watch(in io.Reader, marker string, grace time.Duration) {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE, syscall.SIGQUIT)
	var b [1]byte
	if n, _ := in.Read(b[:]); n == 1 {
		return // the loop saw its agent off
	}
	if sessions := sessionsOfRun(marker); len(sessions) > 0 {
		stopSessions(sessions, grace, nil)
	}
}
