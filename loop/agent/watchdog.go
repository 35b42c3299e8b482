package agent

import (
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// watchdog is a running watchdog process: git-ralph holds the write end of its stdin,
// which the kernel closes when git-ralph dies however it dies.
type watchdog struct {
	cmd  *exec.Cmd
	pipe *os.File
	gone chan struct{} // closed when the process has ended
}

// startWatchdog starts the watchdog of the agent s describes: the run's shared one
// (s.Watchdogs), which the agent must not release, or else one of its own (s.Watchdog),
// which the agent releases when it is gone (own reports which).
func startWatchdog(s Spec) (dog *watchdog, own bool) {
	if s.Marker == "" {
		return nil, false
	}
	if s.Watchdogs != nil {
		return s.Watchdogs.get(s.Marker, s.grace()), false
	}
	return spawnWatchdog(s.Watchdog, s.Marker, s.grace()), true
}

func (s Spec) grace() time.Duration {
	if s.Grace <= 0 {
		return DefaultGrace
	}
	return s.Grace
}

// spawnWatchdog starts build's watchdog for marker, in a process group of its own so
// that the terminal's Ctrl+C and a kill of git-ralph's group do not reach it. It returns
// nil when there is none or it cannot start: the agent's parent-death signal and `git
// ralph status` / `cancel` remain.
func spawnWatchdog(build func(string, time.Duration) *exec.Cmd, marker string, grace time.Duration) *watchdog {
	if build == nil {
		return nil
	}
	cmd := build(marker, grace)
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
	gone := make(chan struct{})
	go func() { // reap it whenever it ends
		cmd.Wait()
		close(gone)
	}()
	return &watchdog{cmd: cmd, pipe: w, gone: gone}
}

// alive reports whether the watchdog process still runs.
func (w *watchdog) alive() bool {
	select {
	case <-w.gone:
		return false
	default:
		return true
	}
}

// Watchdogs keeps one watchdog per marker for every agent of a run, instead of one
// process started beside each agent. One is enough because the watchdog finds what to
// stop by the marker, the run's, which every agent of the run carries, and because
// between agents no process carries it (Run returns only when the agent's processes,
// and those that left its session, are gone): a watchdog woken then finds nothing to
// stop. The zero value and nil have none; Close releases them when the run is over.
type Watchdogs struct {
	build func(marker string, grace time.Duration) *exec.Cmd
	mu    sync.Mutex
	dogs  map[watchdogKey]*watchdog
}

type watchdogKey struct {
	marker string
	grace  time.Duration
}

// NewWatchdogs keeps the watchdogs build makes (see Spec.Watchdog); with a nil build,
// none.
func NewWatchdogs(build func(marker string, grace time.Duration) *exec.Cmd) *Watchdogs {
	return &Watchdogs{build: build}
}

// get returns the running watchdog of marker, starting one if there is none yet or the
// last one ended (killed by someone): each agent has one from the moment it starts.
func (d *Watchdogs) get(marker string, grace time.Duration) *watchdog {
	d.mu.Lock()
	defer d.mu.Unlock()
	key := watchdogKey{marker, grace}
	if dog := d.dogs[key]; dog != nil {
		if dog.alive() {
			return dog
		}
		dog.pipe.Close() // its reader is gone; the run would hold the descriptor to its end
	}
	dog := spawnWatchdog(d.build, marker, grace)
	if dog == nil {
		return nil
	}
	if d.dogs == nil {
		d.dogs = map[watchdogKey]*watchdog{}
	}
	d.dogs[key] = dog
	return dog
}

// Close tells every watchdog the run is over, so they exit without stopping anything.
// Call it only once no agent of the run is left running.
func (d *Watchdogs) Close() {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for key, dog := range d.dogs {
		dog.release()
		delete(d.dogs, key)
	}
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
