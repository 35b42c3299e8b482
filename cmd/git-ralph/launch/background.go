package launch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// readyEnv names, in a background child's environment, the descriptor of the pipe on
// which it tells its parent that it has started (holds its lock). It is the mark that
// the process is the detached child: it runs in the foreground of its own session and
// does not detach again. The child removes it from its environment at once, so that no
// agent or child loop of its own inherits it.
const readyEnv = "GIT_RALPH_BACKGROUND_READY"

// readyLine is what the child writes on that pipe.
const readyLine = "started\n"

// backgroundChild is this process's end of the pipe, when a background start made it.
var backgroundChild struct {
	once  sync.Once
	ready *os.File // nil: not a background child, or it said so already
	is    bool
}

// TakeBackgroundMark reads and removes the mark of a background child from the
// environment, before anything else runs (its descriptor is closed on exec from then
// on, so that no agent holds the pipe open).
func TakeBackgroundMark() {
	backgroundChild.once.Do(func() {
		v, ok := os.LookupEnv(readyEnv)
		if !ok {
			return
		}
		os.Unsetenv(readyEnv)
		backgroundChild.is = true
		fd, err := strconv.Atoi(v)
		if err != nil || fd < 3 {
			return
		}
		closeOnExec(fd)
		backgroundChild.ready = os.NewFile(uintptr(fd), "background-ready")
	})
}

// InBackground reports whether this process is the detached child of a background
// start: it runs what it was given in the foreground (its parent has returned).
func InBackground() bool {
	TakeBackgroundMark()
	return backgroundChild.is
}

// Started tells the parent of a background start that the loop (the best-of, the
// workflow) holds what it runs under and goes on; once, and nothing in the foreground.
func Started() {
	TakeBackgroundMark()
	if f := backgroundChild.ready; f != nil {
		backgroundChild.ready = nil
		f.WriteString(readyLine)
		f.Close()
	}
}

// Background is a start in the background: the same command run again, detached.
type Background struct {
	Streams
	Here string   // the work tree the command runs in: the log goes under its .ralph/logs
	Name string   // the loop's name (fleet's), or the best-of's or workflow's: names the log
	Args []string // the command's arguments, --background included (the child ignores it)
	// Commands are what to print after the start, to watch, pause and cancel it: each a
	// label and a command line, given the child's pid.
	Commands func(pid int) [][2]string
}

// Run starts it (Start) and registers the repository for `runs --all`.
func (b *Background) Run(ctx context.Context) error {
	if _, err := b.Start(ctx); err != nil {
		return err
	}
	Register(ctx, b.Stderr, b.Here)
	return nil
}

// LogPath is the log of the background loop name, relative to the work tree.
func LogPath(name string) string {
	return filepath.Join(filepath.FromSlash(history.LogsDir), "background-"+name+".log")
}

// Start runs the command again as a detached child (a session of its own, stdin from
// /dev/null, its output appended to its log) and waits until it has started, then says
// so. A child that ended before it started (a refusal, a busy lock) has the end of its
// log printed, and its exit code becomes the command's.
func (b *Background) Start(ctx context.Context) (pid int, err error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, fmt.Errorf("finding git-ralph's own program to run in the background: %w", err)
	}
	rel := LogPath(b.Name)
	// rotated as the cron log is: it gathers every start of the loop, and nobody reads it
	// until something went wrong
	if err := history.RotateIfLarger(filepath.Join(b.Here, rel), history.DefaultLogMax, history.DefaultLogKeep); err != nil {
		fmt.Fprintf(b.Stderr, "warning: %s\n", display.PrintableText(err.Error()))
	}
	log, offset, err := openBackgroundLog(filepath.Join(b.Here, rel), b.Args)
	if err != nil {
		return 0, err
	}
	defer log.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return 0, fmt.Errorf("starting in the background: %w", err)
	}
	defer r.Close()
	cmd := &exec.Cmd{Path: exe, Args: append([]string{"git-ralph"}, b.Args...), Stdout: log, Stderr: log,
		ExtraFiles: []*os.File{w}, Env: append(os.Environ(), readyEnv+"=3")}
	if err := detached(cmd); err != nil {
		w.Close()
		return 0, err
	}
	err = cmd.Start()
	w.Close() // the child's copy is the only writer left
	if err != nil {
		return 0, fmt.Errorf("starting git-ralph in the background: %w", err)
	}
	if started(ctx, r) {
		go cmd.Wait() // reaps it should it end while this process still runs
		b.say(cmd.Process.Pid, rel)
		return cmd.Process.Pid, nil
	}
	if ctx.Err() != nil {
		fmt.Fprintf(b.Stderr, "git-ralph: stopped waiting; the background process (pid %d) goes on, its output in %s\n", cmd.Process.Pid, rel)
		return 0, exitcode.Quiet(exitcode.Interrupted)
	}
	werr := cmd.Wait()
	b.tail(filepath.Join(b.Here, rel), offset)
	code := cmd.ProcessState.ExitCode()
	if code <= 0 { // killed by a signal, or 0 without having started: still no loop
		code = exitcode.Failure
	}
	return 0, &exitcode.Error{Code: code, Err: fmt.Errorf("the background run ended before it started (%v); its output is in %s", werr, rel)}
}

// started waits for the child's word on r: true once it has started, false when the
// pipe closed without it (the child ended) or ctx ended.
func started(ctx context.Context, r *os.File) bool {
	got := make(chan bool, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		got <- line == readyLine
	}()
	select {
	case ok := <-got:
		return ok
	case <-ctx.Done():
		return false
	}
}

// openBackgroundLog opens the log for appending (never through a symlink) and writes
// the header line of this start; offset is where this start's lines begin.
func openBackgroundLog(path string, args []string) (*os.File, int64, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, 0, fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	f, err := repofile.OpenAppend(path, 0o644)
	if err != nil {
		return nil, 0, fmt.Errorf("opening the background log %s: %w", path, err)
	}
	if _, err := fmt.Fprintf(f, "== git ralph %s, started in the background at %s ==\n",
		display.PrintableText(strings.Join(args, " ")), time.Now().Format(time.RFC3339)); err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("writing the background log %s: %w", path, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, info.Size(), nil
}

// tailLines is how many of its last lines a child that ended early has printed.
const tailLines = 20

// tail prints the last lines the child wrote to its log after offset.
func (b *Background) tail(path string, offset int64) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return
	}
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > tailLines {
		lines = lines[len(lines)-tailLines:]
	}
	for _, l := range lines {
		if l != "" {
			fmt.Fprintln(b.Stderr, display.PrintableText(l))
		}
	}
}

// say prints what started and how to reach it.
func (b *Background) say(pid int, log string) {
	fmt.Fprintf(b.Stdout, "git-ralph: %s runs in the background (pid %d); its output goes to %s\n", b.Name, pid, log)
	for _, c := range b.Commands(pid) {
		fmt.Fprintf(b.Stdout, "  %-10s %s\n", c[0]+":", c[1])
	}
}

// errNoBackground is --background where processes cannot be detached.
var errNoBackground = errors.New("--background needs a Unix system: this one cannot detach a process into a session of its own")
