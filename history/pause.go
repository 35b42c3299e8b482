package history

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// PauseFile is the name of the pause request `git ralph pause` leaves for the loop of a
// work tree, in that work tree's git directory beside the lock: an agent's `git add -A`
// cannot commit it, a cloned repository cannot bring one, and a `git clean -fdx` of the
// agent's cannot drop it. `git ralph resume` removes it.
const PauseFile = "ralph.pause"

// PauseRequest is a pause asked for and not yet taken back.
type PauseRequest struct {
	At time.Time // when it was asked; zero when the file's content could not be read
}

// RequestPause leaves a pause request at path, written whole or not at all. A request
// already there is kept as it is (its time is when the pause was first asked), and
// reported by already.
func RequestPause(path string, now time.Time) (req PauseRequest, already bool, err error) {
	if req, ok, err := ReadPause(path); err != nil || ok {
		return req, ok, err
	}
	req = PauseRequest{At: now}
	data := "paused_at = " + now.UTC().Format(time.RFC3339Nano) + "\n"
	if err := WriteFileAtomic(path, []byte(data), 0o644); err != nil {
		return PauseRequest{}, false, fmt.Errorf("writing the pause request %s: %w", path, err)
	}
	return req, false, nil
}

// ReadPause reports whether a pause is requested at path. The loop calls it between
// iterations and, while paused, about twice a second: one stat when there is none.
func ReadPause(path string) (PauseRequest, bool, error) {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return PauseRequest{}, false, nil
	case err != nil:
		return PauseRequest{}, false, fmt.Errorf("checking the pause request %s: %w", path, err)
	case !info.Mode().IsRegular():
		// anything there asks for a pause; a FIFO must not block the loop on reading it
		return PauseRequest{}, true, nil
	}
	return PauseRequest{At: readPausedAt(path)}, true, nil
}

// readPausedAt is the time a request file names; zero when it names none. It opens the
// file as git-ralph's own (repofile.OpenOwn): whatever took its place since ReadPause's
// Lstat, a FIFO or a symlink, is refused rather than blocking the loop.
func readPausedAt(path string) time.Time {
	f, err := repofile.OpenOwn(path, path)
	if err != nil {
		return time.Time{}
	}
	defer f.Close()
	data, _ := io.ReadAll(io.LimitReader(f, 256))
	value, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "paused_at = ")
	if !ok {
		return time.Time{}
	}
	at, _ := time.Parse(time.RFC3339Nano, value)
	return at
}

// ClearPause takes back the pause request at path; had reports whether there was one.
func ClearPause(path string) (had bool, err error) {
	err = os.Remove(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("removing the pause request %s: %w", path, err)
	}
	return true, nil
}
