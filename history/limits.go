package history

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// SharedLimit is a usage limit with a stated reset that one loop learned from its agent.
// A limit belongs to the account, not the loop: every loop of the user on this machine
// that runs the same agent on the same account waits for the reset instead of spending
// an attempt to find out.
type SharedLimit struct {
	Agent string `toml:"agent" json:"agent"` // the preset's name: "claude"
	// Account is what the agent's CLI said about the account or credential it ran on
	// (claude: "login", "ANTHROPIC_API_KEY"); "" when it said nothing.
	Account   string    `toml:"account,omitempty" json:"account,omitempty"`
	Until     time.Time `toml:"until" json:"until"`
	Message   string    `toml:"message" json:"message"`       // the agent's own words
	From      string    `toml:"from" json:"from"`             // the work tree of the loop that learned it
	PID       int       `toml:"pid" json:"pid"`               // that loop's process
	LearnedAt time.Time `toml:"learned_at" json:"learned_at"` // when it learned it
}

// Matches reports whether the limit applies to a loop of agent on account: the same
// agent, and the same account, or a limit of an agent that states no account (which
// holds for all its loops). A loop that does not know its account yet ("") is not held
// by a limit of a stated account: it may run on another one (an API key beside a
// subscription), and its first attempt tells; had it waited, it would never learn.
func (l SharedLimit) Matches(agent, account string) bool {
	return l.Agent == agent && (l.Account == "" || l.Account == account)
}

// Limits is the user's store of shared limits: one file per agent and account in a
// directory under the user's state dir, written atomically under a lock.
type Limits struct{ Dir string }

// UserLimits is the store of the user running this process:
// $XDG_STATE_HOME/git-ralph/limits, or ~/.local/state/git-ralph/limits.
func UserLimits() (Limits, error) {
	dir, err := userStateDir("limits")
	if err != nil {
		return Limits{}, fmt.Errorf("finding the user's state directory for shared limits: %w", err)
	}
	return Limits{Dir: dir}, nil
}

// UserStateDir is the directory name in git-ralph's part of the user's state dir, for
// per-user state kept by other packages (the dashboard's certificate).
func UserStateDir(name string) (string, error) { return userStateDir(name) }

// userStateDir is the directory name in git-ralph's part of the user's state dir:
// $XDG_STATE_HOME/git-ralph/name, or ~/.local/state/git-ralph/name.
func userStateDir(name string) (string, error) {
	state := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(state) { // the spec says a relative value is to be ignored
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		state = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(state, "git-ralph", name), nil
}

// Share records l, unless a limit of the same agent and account already lasts longer.
func (s Limits) Share(l SharedLimit) error {
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	path := s.file(l.Agent, l.Account)
	if old, ok := readLimit(path); ok && old.Agent == l.Agent && old.Account == l.Account && !old.Until.Before(l.Until) {
		return nil
	}
	data, err := toml.Marshal(l)
	if err != nil {
		return fmt.Errorf("encoding the shared limit: %w", err)
	}
	return WriteFileAtomic(path, data, 0o600)
}

// Path is the file that keeps l: removing it clears the shared wait for every loop.
func (s Limits) Path(l SharedLimit) string { return s.file(l.Agent, l.Account) }

// For is the limit a loop of agent on account must wait for at now: the one that lasts
// longest of those that match; false when none does.
func (s Limits) For(agent, account string, now time.Time) (SharedLimit, bool, error) {
	all, err := s.Active(now)
	var found SharedLimit
	for _, l := range all {
		if l.Matches(agent, account) && l.Until.After(found.Until) {
			found = l
		}
	}
	return found, !found.Until.IsZero(), err
}

// Active lists the limits that last beyond now, by agent and account, and removes the
// files of those that ended.
func (s Limits) Active(now time.Time) ([]SharedLimit, error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the shared limits: %w", err)
	}
	var list []SharedLimit
	var ended []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".toml") || strings.HasPrefix(e.Name(), ".") || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(s.Dir, e.Name())
		l, ok := readLimit(path)
		if ok && l.Until.After(now) {
			list = append(list, l)
		} else {
			ended = append(ended, path) // ended, or not a limit file: nothing waits for it
		}
	}
	s.clean(ended, now)
	sort.Slice(list, func(i, j int) bool { return list[i].Agent+"@"+list[i].Account < list[j].Agent+"@"+list[j].Account })
	return list, nil
}

// clean removes the files of limits that ended, under the lock, checking each again so
// that a limit shared meanwhile is kept.
func (s Limits) clean(paths []string, now time.Time) {
	if len(paths) == 0 {
		return
	}
	unlock, err := s.lock()
	if err != nil {
		return // cleaning is a courtesy: the next reader tries again
	}
	defer unlock()
	for _, path := range paths {
		if l, ok := readLimit(path); !ok || !l.Until.After(now) {
			os.Remove(path)
		}
	}
}

// readLimit reads one limit file; false when it cannot be read or names no agent.
func readLimit(path string) (SharedLimit, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return SharedLimit{}, false
	}
	var l SharedLimit
	if toml.Unmarshal(data, &l) != nil || l.Agent == "" {
		return SharedLimit{}, false
	}
	return l, true
}

// file is where the limit of agent on account is kept: a name made of both, with every
// byte outside [A-Za-z0-9._-] replaced, so no value can leave the directory.
func (s Limits) file(agent, account string) string {
	name := fileNamePart(agent)
	if account != "" {
		name += "@" + fileNamePart(account)
	}
	return filepath.Join(s.Dir, name+".toml")
}

// fileNamePart is s as a part of a file name: every byte outside [A-Za-z0-9._-] replaced by
// "_" and no leading dot, so that no value can leave the directory or hide its file.
func fileNamePart(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x80 && (r == '.' || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, strings.TrimLeft(s, "."))
}

// limitsLockWait bounds how long a change waits for another process's.
var limitsLockWait = 10 * time.Second

// lock takes the store's lock.
func (s Limits) lock() (unlock func(), err error) { return lockStore(s.Dir) }

// lockStore takes the lock of one of the user's stores under the state dir (flock on
// .lock in dir), creating the directory (private to the user) if needed; the lock dies
// with the process.
func lockStore(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating %s: %w", dir, err)
	}
	path := filepath.Join(dir, ".lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	for deadline := time.Now().Add(limitsLockWait); ; time.Sleep(20 * time.Millisecond) {
		err = flock(f, lockExclusive|lockNonBlocking)
		if err == nil {
			return func() { flock(f, lockUnlock); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
	}
}
