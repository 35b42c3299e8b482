package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/history"
	"github.com/rogpeppe/go-internal/testscript"
)

// scriptCommands are the testscript commands the stories use beyond the built-ins.
func scriptCommands() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	bg := &background{procs: map[*testscript.TestScript]map[string]*bgProc{}}
	return map[string]func(*testscript.TestScript, bool, []string){
		"exits":    cmdExits,
		"running":  cmdRunning,
		"waitfile": cmdWaitfile,
		"waitgrep": cmdWaitgrep,
		"waitgone": cmdWaitgone,
		"start":    bg.start,
		"signal":   bg.signal,
		"waitexit": bg.waitexit,
		"chaos":    cmdChaos,
		"jsonl":    cmdJSONL,
		"genfile":  cmdGenfile,
		"webhook":  cmdWebhook,
		"pidfrom":  cmdPidFrom,
		"apimock":  cmdAPIMock,
	}
}

// exits CODE PROG ARGS...: run a program and require exactly this exit code; its
// output is then checked with stdout and stderr as for exec.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	if got := exitCodeOf(ts.Exec(args[1], args[2:]...)); got != want {
		ts.Fatalf("%s exited %d, want %d", strings.Join(args[1:], " "), got, want)
	}
}

// running PIDFILE: the process whose pid is in PIDFILE is alive (not a zombie).
func cmdRunning(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: running PIDFILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	ts.Check(err)
	alive := processRunning(pid)
	// a process killed just now may not have been scheduled to die yet on a busy machine:
	// "not running" gives it ten seconds, which no leftover meets (they sleep 30 s or more,
	// from before the check)
	for deadline := time.Now().Add(10 * time.Second); alive && neg && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		alive = processRunning(pid)
	}
	if alive && neg {
		syscall.Kill(pid, syscall.SIGKILL) // do not leak it past the test
		ts.Fatalf("process %d (%s) is still running", pid, args[0])
	}
	if !alive && !neg {
		ts.Fatalf("process %d (%s) is not running", pid, args[0])
	}
}

func processRunning(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil // no /proc: zombies count as alive
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i > 0 && i+2 < len(stat) && stat[i+2] != 'Z' && stat[i+2] != 'X'
}

// waitBound is how long waitfile, waitgrep, and waitexit without WITHIN, wait. It only
// bounds a story that fails: one that passes waits no longer than its processes take. No
// fixed time is long enough on a loaded machine: 10 s was not (a best-of of two candidates
// took more than that to reach its score command with a load average near 100), nor 60 s
// (two loops of two iterations each, worktrees and ledger_loops, with eight test runs on
// two cores). So TestScripts sets it to what the test binary's -timeout leaves of its
// time, less a minute for the story to say what it waited for before the binary panics.
var waitBound = 60 * time.Second

// setWaitBound sets waitBound from t's deadline; without one (-timeout 0) a story waits
// for as long as its processes take.
func setWaitBound(t *testing.T) {
	deadline, ok := t.Deadline()
	if !ok {
		waitBound = 1<<63 - 1
		return
	}
	waitBound = max(waitBound, time.Until(deadline)-time.Minute)
}

// waitfile FILE: wait up to waitBound until FILE exists and is not empty.
func cmdWaitfile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile FILE")
	}
	for deadline := time.Now().Add(waitBound); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if info, err := os.Stat(ts.MkAbs(args[0])); err == nil && info.Size() > 0 {
			return
		}
	}
	ts.Fatalf("%s did not appear (or stayed empty) within %s", args[0], waitBound)
}

// waitgone PIDFILE WITHIN: wait until the process whose pid is in PIDFILE has ended,
// failing (and killing it) if it still runs after WITHIN.
func cmdWaitgone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitgone PIDFILE WITHIN")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	ts.Check(err)
	within, err := time.ParseDuration(args[1])
	ts.Check(err)
	for deadline := time.Now().Add(within); processRunning(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			ts.Fatalf("process %d (%s) still runs after %s", pid, args[0], within)
		}
	}
}

// chaos RUNS PROG ARGS...: start the program RUNS times, SIGKILL it each time at a
// random moment within 300 ms, and require after every kill that the state file and
// every iteration record still parse.
func cmdChaos(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: chaos RUNS PROG [ARGS...]")
	}
	runs, err := strconv.Atoi(args[0])
	ts.Check(err)
	path, err := exec.LookPath(args[1])
	ts.Check(err)
	dir := ts.MkAbs(".")
	for i := 0; i < runs; i++ {
		cmd := exec.Command(path, args[2:]...)
		cmd.Dir, cmd.Env = dir, scriptEnv(ts)
		ts.Check(cmd.Start())
		time.Sleep(time.Duration(rand.Int64N(int64(300 * time.Millisecond))))
		cmd.Process.Kill()
		cmd.Wait()
		if _, err := history.LoadState(dir); err != nil {
			ts.Fatalf("after kill %d: %v", i+1, err)
		}
		store, err := history.OpenStore(dir)
		ts.Check(err)
		if _, err := store.List(0); err != nil {
			ts.Fatalf("after kill %d: %v", i+1, err)
		}
	}
}

// background runs programs that a story signals while they work. Stories run in
// parallel, so each has its own table of names.
type background struct {
	mu    sync.Mutex
	procs map[*testscript.TestScript]map[string]*bgProc
}

func (b *background) add(ts *testscript.TestScript, name string, p *bgProc) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.procs[ts] == nil {
		b.procs[ts] = map[string]*bgProc{}
	}
	b.procs[ts][name] = p
}

func (b *background) find(ts *testscript.TestScript, name string) *bgProc {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.procs[ts][name]
	if p == nil {
		ts.Fatalf("no started program %q", name)
	}
	return p
}

type bgProc struct {
	cmd  *exec.Cmd
	done chan error
}

// start NAME PROG ARGS...: start a program in the background, its stdout and stderr
// going to NAME.stdout and NAME.stderr.
func (b *background) start(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: start NAME PROG [ARGS...]")
	}
	name := args[0]
	path, err := exec.LookPath(args[1])
	if err != nil {
		path = args[1]
	}
	cmd := exec.Command(path, args[2:]...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = scriptEnv(ts)
	out, err := os.Create(ts.MkAbs(name + ".stdout"))
	ts.Check(err)
	errOut, err := os.Create(ts.MkAbs(name + ".stderr"))
	ts.Check(err)
	cmd.Stdout, cmd.Stderr = out, errOut
	ts.Check(cmd.Start())
	p := &bgProc{cmd: cmd, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait(); out.Close(); errOut.Close() }()
	b.add(ts, name, p)
	dir := ts.MkAbs(".")
	ts.Defer(func() {
		cmd.Process.Kill()
		killRecorded(dir) // a failed story must not leave its agents behind
	})
}

// killRecorded SIGKILLs the processes whose pids the story's agents wrote to *.pid.
func killRecorded(dir string) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.pid"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && pid > 1 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// signal NAME SIG: send SIGINT, SIGTERM, … to a started program.
func (b *background) signal(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: signal NAME INT|TERM|KILL")
	}
	p := b.find(ts, args[0])
	sig := map[string]syscall.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM, "KILL": syscall.SIGKILL}[args[1]]
	if sig == 0 {
		ts.Fatalf("unknown signal %q", args[1])
	}
	ts.Check(p.cmd.Process.Signal(sig))
}

// waitexit NAME CODE [WITHIN]: wait for a started program to exit with CODE, failing
// if that takes longer than WITHIN (default waitBound). A story's WITHIN tells a stop
// from a wait for what must not be waited for, so it is a fraction of that (60s for an
// agent's sleep 300), never the seconds a stop takes, which a busy machine stretches.
func (b *background) waitexit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: waitexit NAME CODE [WITHIN]")
	}
	p := b.find(ts, args[0])
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	within := waitBound
	if len(args) == 3 {
		within, err = time.ParseDuration(args[2])
		ts.Check(err)
	}
	select {
	case err := <-p.done:
		if got := exitCodeOf(err); got != want {
			stderr, _ := os.ReadFile(ts.MkAbs(args[0] + ".stderr"))
			ts.Fatalf("%s exited %d, want %d; stderr:\n%s", args[0], got, want, stderr)
		}
	case <-time.After(within):
		ts.Fatalf("%s did not exit within %s", args[0], within)
	}
}

// scriptEnv is the story's environment for programs started outside exec: the test's
// own, with the story's variables on top.
func scriptEnv(ts *testscript.TestScript) []string {
	env := os.Environ()
	keys := []string{"PATH", "HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM",
		"GIT_CEILING_DIRECTORIES", "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE", "WORK", "TMPDIR", "AGENT_FIXTURES", launch.TestGraceEnv}
	for _, name := range fakeCLIs {
		keys = append(keys, "FAKE_"+strings.ToUpper(strings.ReplaceAll(name, "-", "_")))
	}
	for _, key := range config.Keys() {
		keys = append(keys, "RALPH_"+strings.ToUpper(key))
	}
	for _, k := range keys {
		if v := ts.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}
