package history

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func lockPath(t *testing.T) string { return filepath.Join(t.TempDir(), LockFile) }

// free reports whether nobody holds the lock, with one non-blocking attempt (Acquire would
// retry, hiding a lock that lingers for a few milliseconds).
func free(t *testing.T, path string) bool {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
	if err != nil && !errors.Is(err, syscall.EWOULDBLOCK) {
		t.Fatal(err)
	}
	return err == nil
}

func TestSecondAcquireInTheSameProcessFails(t *testing.T) {
	path := lockPath(t)
	first := Holder{PID: 123, Host: "box", Since: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}
	l, err := Acquire(path, first)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(path, Holder{PID: 456, Host: "other", Since: time.Now()})
	var le *LockedError
	if !errors.As(err, &le) || !errors.Is(err, ErrLocked) {
		t.Fatalf("second Acquire: %v, want a *LockedError matching ErrLocked", err)
	}
	if le.Holder.PID != first.PID || le.Holder.Host != first.Host || !le.Holder.Since.Equal(first.Since) {
		t.Errorf("LockedError holder %+v, want %+v", le.Holder, first)
	}
	want := "another loop is running (pid 123 on host box since " + first.Since.Local().Format(time.DateTime) + ")"
	if err.Error() != want {
		t.Errorf("Error() = %q, want %q", err, want)
	}
	if h, held, err := ReadHolder(path); err != nil || !held || h.PID != 123 {
		t.Errorf("ReadHolder while held = %+v, %v, %v", h, held, err)
	}

	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
	if h, held, err := ReadHolder(path); err != nil || held || h != (Holder{}) {
		t.Errorf("ReadHolder after Release = %+v, %v, %v; want not held", h, held, err)
	}
	l2, err := Acquire(path, Holder{PID: 456, Host: "other", Since: time.Now()})
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	defer l2.Release()
	if data, _ := os.ReadFile(path); !strings.HasPrefix(string(data), "pid=456 host=other since=") {
		t.Errorf("lock file holds %q, want the new holder's line", data)
	}
}

func TestReadHolderWithoutLockFile(t *testing.T) {
	h, held, err := ReadHolder(lockPath(t))
	if err != nil || held || h != (Holder{}) {
		t.Errorf("ReadHolder = %+v, %v, %v; want not held", h, held, err)
	}
}

// A loop that starts while `git ralph status` peeks at the lock must not see a second loop.
func TestAcquireIsNotFooledByAStatusCheck(t *testing.T) {
	path := lockPath(t)
	peek, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer peek.Close()
	if err := flock(peek, syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(3 * time.Millisecond)
		flock(peek, syscall.LOCK_UN)
	}()
	l, err := Acquire(path, ThisProcess(time.Now()))
	if err != nil {
		t.Fatalf("Acquire during a brief shared lock: %v", err)
	}
	l.Release()
}

func TestLockedErrorMessage(t *testing.T) {
	since := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		holder Holder
		want   string
	}{
		{"known holder", Holder{PID: 9, Host: "h", Since: since}, "another loop is running (pid 9 on host h since " + since.Local().Format(time.DateTime) + ")"},
		{"unreadable holder", Holder{}, "another loop is running"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (&LockedError{Holder: tt.holder}).Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHolderLineRoundTrip(t *testing.T) {
	h := Holder{PID: 123, Host: "h.example", Since: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}
	if line := h.String(); line != "pid=123 host=h.example since=2026-11-21T10:00:00Z" {
		t.Errorf("String() = %q", line)
	}
	if got := parseHolder(h.String()); got.PID != h.PID || got.Host != h.Host || !got.Since.Equal(h.Since) {
		t.Errorf("parseHolder(String()) = %+v, want %+v", got, h)
	}
	if got := parseHolder("garbage"); got != (Holder{}) {
		t.Errorf("parseHolder(garbage) = %+v, want zero", got)
	}
}

// TestLockDiesWithItsProcess: a loop killed with SIGKILL leaves no stale lock, and the
// agent it started (which outlives it) does not keep the lock either.
func TestLockDiesWithItsProcess(t *testing.T) {
	path := lockPath(t)
	cmd, line := startHelper(t, "hold-lock", "HISTORY_TEST_LOCK="+path)
	childPID, err := strconv.Atoi(line)
	if err != nil {
		t.Fatalf("helper said %q", line)
	}
	defer syscall.Kill(childPID, syscall.SIGKILL)

	_, err = Acquire(path, ThisProcess(time.Now()))
	var le *LockedError
	if !errors.As(err, &le) || le.Holder.PID != cmd.Process.Pid {
		t.Fatalf("Acquire while the helper holds the lock: %v, want a LockedError naming pid %d", err, cmd.Process.Pid)
	}
	if h, held, err := ReadHolder(path); err != nil || !held || h.PID != cmd.Process.Pid {
		t.Errorf("ReadHolder = %+v, %v, %v", h, held, err)
	}

	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if syscall.Kill(childPID, 0) != nil {
		t.Fatal("the helper's child died with it; the test proves nothing about inheritance")
	}
	if !free(t, path) {
		t.Fatal("the lock outlived the SIGKILLed process that held it")
	}
	if _, held, err := ReadHolder(path); err != nil || held {
		t.Errorf("ReadHolder after the kill: held=%v, %v", held, err)
	}
}

// An agent's `rm -f .git/*.lock` deletes the lock file under a running loop: a second
// Acquire is still refused, status still sees the loop, and the file comes back.
func TestDeletedLockFileKeepsTheSecondLoopOut(t *testing.T) {
	path := lockPath(t)
	first := Holder{PID: 123, Host: "box", Since: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}
	l, err := Acquire(path, first)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, held, err := ReadHolder(path); err != nil || !held {
		t.Errorf("ReadHolder with the file deleted = held %v, %v; want held", held, err)
	}
	if second, err := Acquire(path, Holder{PID: 456, Host: "box", Since: time.Now()}); !errors.Is(err, ErrLocked) {
		second.Release()
		t.Fatalf("Acquire after the lock file was deleted: %v, want ErrLocked", err)
	}
	// it comes back at the next check (keepEvery); a busy machine may hold a check back,
	// and a file that never comes back is told from that by thirty checks
	deadline := time.Now().Add(30 * keepEvery)
	for {
		h, held, err := ReadHolder(path)
		if err == nil && held && h.PID == first.PID {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the lock file did not come back with its holder: %+v, %v, %v", h, held, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	again, err := Acquire(path, Holder{PID: 789})
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	again.Release()
}
