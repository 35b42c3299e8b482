package history

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/prompts/repofile"
	"github.com/pelletier/go-toml/v2"
)

// DailySpend is what the user's loops on this machine spent on one day (local time), in
// every repository: the sums of the usage their agents reported, every attempt counted.
type DailySpend struct {
	Day      string  `toml:"day" json:"day"`           // YYYY-MM-DD, local time
	CostUSD  float64 `toml:"cost_usd" json:"cost_usd"` // as the agents report it
	Tokens   int64   `toml:"tokens" json:"tokens"`     // input + output tokens
	Attempts int     `toml:"attempts" json:"attempts"` // agent runs that added to it
	// Uncosted counts the attempts that reported tokens but no cost (codex, gemini):
	// CostUSD leaves them out. A file written before it was kept reads as 0.
	Uncosted  int       `toml:"uncosted_attempts,omitempty" json:"uncosted_attempts,omitempty"`
	UpdatedAt time.Time `toml:"updated_at,omitzero" json:"updated_at,omitzero"`
}

// Spend is the user's store of daily spend: one file per local day in a directory under
// the user's state dir, rewritten atomically under a lock by every loop after every
// attempt that reported usage, so that concurrent loops never lose each other's spend.
type Spend struct{ Dir string }

// spendKeepDays is how many days of spend files are kept; older ones are removed.
const spendKeepDays = 31

// spendFileLimit bounds a spend file: a real one is a few lines.
const spendFileLimit = 64 << 10

// UserSpend is the store of the user running this process:
// $XDG_STATE_HOME/git-ralph/spend, or ~/.local/state/git-ralph/spend.
func UserSpend() (Spend, error) {
	dir, err := userStateDir("spend")
	if err != nil {
		return Spend{}, fmt.Errorf("finding the user's state directory for the daily spend: %w", err)
	}
	return Spend{Dir: dir}, nil
}

// CorruptSpendError is a spend file that exists but does not hold a day's spend.
type CorruptSpendError struct {
	Path  string
	Line  int // 0 when not a parse error
	Err   error
	Moved string // where Add moved it, so that the day's count could start again; "" when left
}

func (e *CorruptSpendError) Error() string {
	where := e.Path
	if e.Line > 0 {
		where += ", line " + strconv.Itoa(e.Line)
	}
	msg := fmt.Sprintf("the daily spend file %s cannot be read: %v", where, e.Err)
	if e.Moved != "" {
		msg += fmt.Sprintf("; it was moved to %s and the day's count starts again from this attempt, so earlier spend of the day is not counted", e.Moved)
	}
	return msg
}

func (e *CorruptSpendError) Unwrap() error { return e.Err }

// Hint says what to do about it.
func (e *CorruptSpendError) Hint() string {
	if e.Moved != "" {
		return "daily_max_cost may allow more than it should today; look at " + e.Moved + " and remove it"
	}
	return "remove " + e.Path + " to start the day's count again (daily_max_cost then counts from zero)"
}

// dayName is the local day of t, as spend files are named.
func dayName(t time.Time) string { return t.Local().Format(time.DateOnly) }

func (s Spend) file(day string) string { return filepath.Join(s.Dir, day+".toml") }

// Day is the spend of now's local day; zero (with the day set) when nothing was spent.
func (s Spend) Day(now time.Time) (DailySpend, error) {
	day := dayName(now)
	d, err := readSpend(s.file(day), day)
	if errors.Is(err, fs.ErrNotExist) {
		return DailySpend{Day: day}, nil
	}
	return d, err
}

// Add adds one attempt's cost and tokens to now's day and returns the day's new total.
// A corrupt file of the day is moved aside and the count starts again, with a
// *CorruptSpendError saying so beside the total. Files of days older than spendKeepDays
// are removed.
func (s Spend) Add(now time.Time, cost float64, tokens int64) (DailySpend, error) {
	return s.add(now, cost, tokens, false)
}

// AddUncosted is Add for an attempt whose agent reported tokens but no cost.
func (s Spend) AddUncosted(now time.Time, tokens int64) (DailySpend, error) {
	return s.add(now, 0, tokens, true)
}

func (s Spend) add(now time.Time, cost float64, tokens int64, uncosted bool) (DailySpend, error) {
	if math.IsNaN(cost) || math.IsInf(cost, 0) || cost < 0 || tokens < 0 {
		return DailySpend{}, fmt.Errorf("adding to the daily spend: refusing cost %v and tokens %d", cost, tokens)
	}
	unlock, err := lockStore(s.Dir)
	if err != nil {
		return DailySpend{}, fmt.Errorf("adding to the daily spend: %w", err)
	}
	defer unlock()
	day := dayName(now)
	path := s.file(day)
	d, readErr := readSpend(path, day)
	var corrupt *CorruptSpendError
	switch {
	case errors.Is(readErr, fs.ErrNotExist):
		d, readErr = DailySpend{Day: day}, nil
	case errors.As(readErr, &corrupt):
		corrupt.Moved = fmt.Sprintf("%s.corrupt-%d", path, now.Unix())
		if err := os.Rename(path, corrupt.Moved); err != nil {
			return DailySpend{}, fmt.Errorf("%w (and it cannot be moved aside: %v)", corrupt, err)
		}
		d = DailySpend{Day: day}
	case readErr != nil:
		return DailySpend{}, readErr
	}
	// tokens stop at the largest int64: a sum wrapped negative would make the file unreadable
	d.CostUSD, d.Tokens, d.Attempts, d.UpdatedAt = d.CostUSD+cost, d.Tokens+min(tokens, math.MaxInt64-d.Tokens), d.Attempts+1, now
	if uncosted {
		d.Uncosted++
	}
	data, err := toml.Marshal(d)
	if err != nil {
		return DailySpend{}, fmt.Errorf("encoding the daily spend: %w", err)
	}
	if err := ReplaceFile(path, data, 0o600); err != nil {
		return DailySpend{}, fmt.Errorf("saving the daily spend: %w", err)
	}
	s.prune(now)
	return d, readErr
}

// readSpend reads the spend file of day; a missing file gives fs.ErrNotExist, one that
// does not hold that day's spend a *CorruptSpendError.
func readSpend(path, day string) (DailySpend, error) {
	data, err := repofile.ReadOwn(path, path, spendFileLimit) // never a FIFO or a symlink
	if errors.Is(err, fs.ErrNotExist) {
		return DailySpend{}, err
	}
	if err != nil {
		var refused *repofile.RefusedError
		if errors.As(err, &refused) {
			return DailySpend{}, &CorruptSpendError{Path: path, Err: err}
		}
		return DailySpend{}, fmt.Errorf("reading the daily spend: %w", err)
	}
	var d DailySpend
	if err := toml.Unmarshal(data, &d); err != nil {
		return DailySpend{}, &CorruptSpendError{Path: path, Line: errorLine(err), Err: err}
	}
	switch {
	case d.Day != day:
		err = fmt.Errorf("it holds day %q, not %s", d.Day, day)
	case math.IsNaN(d.CostUSD) || math.IsInf(d.CostUSD, 0) || d.CostUSD < 0:
		err = fmt.Errorf("cost_usd is %v", d.CostUSD)
	case d.Tokens < 0 || d.Attempts < 0 || d.Uncosted < 0:
		err = fmt.Errorf("tokens (%d), attempts (%d) or uncosted_attempts (%d) is negative", d.Tokens, d.Attempts, d.Uncosted)
	}
	if err != nil {
		return DailySpend{}, &CorruptSpendError{Path: path, Err: err}
	}
	return d, nil
}

// prune removes the files of days more than spendKeepDays before now's; a courtesy, so
// errors are ignored.
func (s Spend) prune(now time.Time) {
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		return
	}
	oldest := dayName(now.AddDate(0, 0, -spendKeepDays))
	for _, e := range entries {
		day, ok := strings.CutSuffix(e.Name(), ".toml")
		if _, perr := time.Parse(time.DateOnly, day); ok && perr == nil && day < oldest && e.Type().IsRegular() {
			os.Remove(filepath.Join(s.Dir, e.Name()))
		}
	}
}
