package history

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// LockFile is the name of the lock a loop holds while it runs, in its work tree's git
// directory (where an agent's `git add -A` cannot commit it and a cloned repository cannot
// bring one): Acquire writes its holder there, and `status`, `runs`, `cancel`, the views
// and `discard` read it to find the loop.
const LockFile = "ralph.lock"

// ErrLocked is found (errors.Is) in Acquire's error when another loop holds the lock.
var ErrLocked = errors.New("another loop is running")

// Holder says who holds the lock, for the message the second loop prints.
type Holder struct {
	PID   int
	Host  string
	Since time.Time
}

// ThisProcess describes the calling process as a lock holder.
func ThisProcess(since time.Time) Holder {
	host, _ := os.Hostname()
	return Holder{PID: os.Getpid(), Host: host, Since: since}
}

// String is the line kept in the lock file, e.g. "pid=123 host=h since=2026-11-21T10:00:00Z".
func (h Holder) String() string {
	return fmt.Sprintf("pid=%d host=%s since=%s", h.PID, h.Host, h.Since.UTC().Format(time.RFC3339))
}

// parseHolder reads a line written by Holder.String; fields it cannot read stay zero.
func parseHolder(line string) Holder {
	var h Holder
	for _, field := range strings.Fields(line) {
		key, value, _ := strings.Cut(field, "=")
		switch key {
		case "pid":
			h.PID, _ = strconv.Atoi(value)
		case "host":
			h.Host = value
		case "since":
			h.Since, _ = time.Parse(time.RFC3339, value)
		}
	}
	return h
}

// LockedError is Acquire's error when another loop holds the lock. Holder is zero when the
// lock file could not be read (e.g. the holder was just writing it).
type LockedError struct {
	Holder Holder
}

func (e *LockedError) Error() string {
	h := e.Holder
	if h.PID == 0 {
		return ErrLocked.Error()
	}
	return fmt.Sprintf("%s (pid %d on host %s since %s)", ErrLocked, h.PID, h.Host, h.Since.Local().Format(time.DateTime))
}

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// Hint says what the user can do about it.
func (e *LockedError) Hint() string {
	return "wait for it to finish, or stop it with `git ralph cancel`"
}

// Lock is a held single-instance lock: the lock file and the directory that holds it.
type Lock struct {
	mu     sync.Mutex
	f      *os.File
	dir    *os.File // nil where directories cannot be locked
	path   string
	holder Holder
	stop   chan struct{}
}

// keepEvery is how often a held lock checks that its file is still there.
const keepEvery = time.Second

// lockRetryDelays space out the attempts on a taken lock. ReadHolder (`git ralph status`)
// takes a shared lock for a few microseconds to see whether a loop runs; a loop starting at
// that very moment must not mistake it for another loop.
var lockRetryDelays = []time.Duration{5 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond}

// Acquire takes the lock at path for holder, or returns a *LockedError naming the current
// holder. The caller puts path where the agent cannot commit it (the git dir).
//
// The lock is flock(2) on an open descriptor, so it dies with the process: a crash or
// SIGKILL cannot leave a stale lock, only a file, which the next Acquire reuses. flock locks
// belong to the open file description, so a second Acquire conflicts even in the same
// process. Go opens files with O_CLOEXEC, so the agent and the other children of the loop do
// not inherit the descriptor and cannot keep the lock alive after the loop has gone.
func Acquire(path string, holder Holder) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening the lock file: %w", err)
	}
	if err := flockRetry(f, lockExclusive); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &LockedError{Holder: readHolderFrom(f)}
		}
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	dir, err := lockDir(path)
	if err != nil {
		// the file was deleted under a running loop, which still holds the directory;
		// closing the file lets go of its lock
		f.Close()
		return nil, &LockedError{}
	}
	if err := writeHolder(f, holder); err != nil {
		flock(f, lockUnlock)
		f.Close()
		if dir != nil {
			dir.Close()
		}
		return nil, fmt.Errorf("writing the lock holder to %s: %w", path, err)
	}
	l := &Lock{f: f, dir: dir, path: path, holder: holder, stop: make(chan struct{})}
	go l.keep()
	return l, nil
}

// keep puts the lock file back, with the holder line, whenever it was deleted or replaced
// while the loop runs, so that `git ralph status` and `cancel` keep finding the loop. The
// directory lock is what keeps a second loop out meanwhile.
func (l *Lock) keep() {
	tick := time.NewTicker(keepEvery)
	defer tick.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-tick.C:
		}
		l.mu.Lock()
		if l.f != nil {
			if f, ok := l.relock(); ok {
				l.f.Close()
				l.f = f
			}
		}
		l.mu.Unlock()
	}
}

// Release empties the holder line, unlocks and closes. It does not delete the file:
// deleting a file others may have opened and be waiting to flock would let two loops hold
// locks on two different files of the same name. Releasing twice is harmless.
func (l *Lock) Release() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	close(l.stop)
	f := l.f
	l.f = nil
	err := f.Truncate(0) // still locked: no one else writes the file now
	if uerr := flock(f, lockUnlock); err == nil {
		err = uerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if l.dir != nil {
		l.dir.Close() // after the file: a loop that gets the directory finds the file free
	}
	if err != nil {
		return fmt.Errorf("releasing the lock: %w", err)
	}
	return nil
}

// ReadHolder reports whether a live process holds the lock at path, and which (for
// `git ralph status`). It never takes the lock for good: it tries a shared lock and, if that
// succeeds, nobody holds it and it lets go at once. The Holder is zero when held is false.
func ReadHolder(path string) (h Holder, held bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Holder{}, dirHeld(path), nil // a loop whose lock file was just deleted
	}
	if err != nil {
		return Holder{}, false, fmt.Errorf("opening the lock file: %w", err)
	}
	defer f.Close()
	err = flock(f, lockShared|lockNonBlocking)
	switch {
	case errors.Is(err, syscall.EWOULDBLOCK):
		return readHolderFrom(f), true, nil
	case err != nil:
		return Holder{}, false, fmt.Errorf("testing the lock %s: %w", path, err)
	}
	return Holder{}, dirHeld(path), flock(f, lockUnlock)
}

// writeHolder replaces the lock file's content with the holder line. Truncating first means
// a concurrent reader sees either nothing or the whole new line, never the old line's tail.
func writeHolder(f *os.File, h Holder) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(h.String()+"\n"), 0)
	return err
}

// readHolderFrom reads the holder line from an open lock file; zero when unreadable.
func readHolderFrom(f *os.File) Holder {
	buf := make([]byte, 512)
	n, err := f.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return Holder{}
	}
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	return parseHolder(line)
}

// flockRetry tries a non-blocking flock and, while another descriptor holds it, tries again
// after each of lockRetryDelays before giving up with EWOULDBLOCK.
func flockRetry(f *os.File, how int) error {
	for i := 0; ; i++ {
		err := flock(f, how|lockNonBlocking)
		if !errors.Is(err, syscall.EWOULDBLOCK) || i == len(lockRetryDelays) {
			return err
		}
		time.Sleep(lockRetryDelays[i])
	}
}
