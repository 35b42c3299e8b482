package history

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/history/redact"
	"github.com/git-ralph/git-ralph/prompts/repofile"
	"github.com/pelletier/go-toml/v2"
)

// StateSchema is the version of state.toml this git-ralph reads and writes. A file with a
// higher version comes from a newer git-ralph and is refused rather than guessed at.
const StateSchema = 1

const stateFile = "state.toml"

// stateHeader opens every state file so that someone who finds it knows what it is.
const stateHeader = "# git-ralph loop state, rewritten after every iteration. Do not edit while a loop runs.\n"

// StopReason says why a run ended. It is empty while the run goes on.
type StopReason string

// The reasons a run stops; see Finished for which of them end the run for good.
const (
	StopSuccess     StopReason = "success"     // the agent signalled SUCCESS (and validation passed)
	StopMaxIters    StopReason = "max-iters"   // max_iterations reached
	StopAborted     StopReason = "aborted"     // too many consecutive errors
	StopIdle        StopReason = "idle"        // idle_threshold iterations without git changes
	StopInterrupted StopReason = "interrupted" // SIGINT, SIGTERM or `git ralph cancel`
	StopCrashed     StopReason = "crashed"     // found active with no loop holding the lock
	StopLimited     StopReason = "limited"     // a usage limit that waiting (up to max_limit_wait) would not clear
	StopFatal       StopReason = "fatal"       // the agent cannot run: not logged in, a bad flag, …
	StopBudget      StopReason = "budget"      // a budget reached: resumed once it is raised or a new day begins
	StopStagnant    StopReason = "stagnation"  // the same attempt repeated
)

// Finished reports whether a run that stopped for this reason is over, so that the next loop
// starts a new run; an unfinished run (interrupted, crashed, still active, waiting on a rate
// limit) is resumed instead.
func (r StopReason) Finished() bool {
	switch r {
	case StopSuccess, StopMaxIters, StopAborted, StopIdle, StopStagnant:
		return true
	}
	return false
}

// State is the loop's state, persisted as .ralph/state.toml after every iteration so that a
// restarted loop can resume and `git ralph status` can report without asking the loop. The
// field names are kept as the first version wrote them, so that an older file still reads. Zero times are left out of the file.
type State struct {
	SchemaVersion     int        `toml:"schema_version" json:"schema_version"`
	Run               string     `toml:"run" json:"run"`
	Active            bool       `toml:"active" json:"active"`
	Iteration         int        `toml:"iteration" json:"iteration"` // last iteration of the run that started, 1-based; 0 = none yet
	Mode              string     `toml:"mode" json:"mode"`
	StartedAt         time.Time  `toml:"started_at,omitzero" json:"started_at,omitzero"`
	LastIterationAt   time.Time  `toml:"last_iteration_at,omitzero" json:"last_iteration_at,omitzero"`
	MaxIterations     int        `toml:"max_iterations" json:"max_iterations"` // 0 = unlimited
	ErrorCount        int        `toml:"error_count" json:"error_count"`
	ConsecutiveErrors int        `toml:"consecutive_errors" json:"consecutive_errors"`
	LastError         string     `toml:"last_error" json:"last_error"`
	LastCommit        string     `toml:"last_commit" json:"last_commit"`
	IdleIterations    int        `toml:"idle_iterations" json:"idle_iterations"`
	StopReason        StopReason `toml:"stop_reason" json:"stop_reason"`
	ExitCode          int        `toml:"exit_code" json:"exit_code"`
	AgentPGID         int        `toml:"agent_pgid" json:"agent_pgid"` // 0 when no agent runs
	// InIteration is set, and saved, before an iteration's agent starts, and cleared when
	// the iteration is over: the pre-push hook refuses to publish the branch meanwhile.
	// AgentPGID alone left a gap: it is saved only once the agent runs, and a quick agent
	// (or a person) could push before that.
	InIteration    bool      `toml:"in_iteration,omitempty" json:"in_iteration,omitempty"`
	AgentStartedAt time.Time `toml:"agent_started_at,omitzero" json:"agent_started_at,omitzero"`
	WaitUntil      time.Time `toml:"wait_until,omitzero" json:"wait_until,omitzero"`         // end of a rate-limit wait
	LimitMessage   string    `toml:"limit_message,omitempty" json:"limit_message,omitempty"` // what the agent said about the limit
	// LimitFrom is the work tree of the loop that learned the limit waited for, when
	// another loop of the same agent and account shared it; "" for the loop's own.
	LimitFrom string `toml:"limit_from,omitempty" json:"limit_from,omitempty"`
	// PausedAt is set while the loop waits on `git ralph pause` (see PauseFile) without
	// starting the agent; zero while it runs.
	PausedAt time.Time `toml:"paused_at,omitzero" json:"paused_at,omitzero"`
	// AgentAccount is the account the agent last said it ran on (claude's apiKeySource),
	// kept so that a loop started later knows which shared limits are its own before its
	// agent runs again.
	AgentAccount string `toml:"agent_account,omitempty" json:"agent_account,omitempty"`
	// Agent is the preset the run's agent is read as ("" for a command of the user's):
	// a view renders the first iteration's live output by it before any record names it.
	Agent string `toml:"agent,omitempty" json:"agent,omitempty"`
	// Task is the run's inline task (`git ralph loop "TASK"`), Template the name of its loop
	// template (--template); a resumed run goes on with them.
	Task     string `toml:"task,omitempty" json:"task,omitempty"`
	Template string `toml:"template,omitempty" json:"template,omitempty"`
	// Feedback is the last iteration's validation failure, for the next iteration's prompt.
	Feedback string `toml:"feedback,omitempty" json:"feedback,omitempty"`
	PID      int    `toml:"pid" json:"pid"` // the loop process
	Host     string `toml:"host" json:"host"`

	// EarlierFeedback is, with feedback = "all", the feedback of the run's iterations
	// before the last, newest first, each under its "### Iteration N" heading, the entries
	// separated by FeedbackSeparator, and bounded by the loop (the oldest dropped first);
	// FeedbackLeftOut counts the entries dropped. A string, not a list: State stays
	// comparable.
	EarlierFeedback string `toml:"earlier_feedback,omitempty" json:"earlier_feedback,omitempty"`
	FeedbackLeftOut int    `toml:"feedback_left_out,omitempty" json:"feedback_left_out,omitempty"`

	// The run's spend so far, summed over every attempt of its iterations, and the budgets
	// it ran with (0: none), so that a resumed run goes on counting and `status` can show
	// spend against budget. SpentIterations counts the iterations in the sums, for the
	// expected cost of the next one. BudgetWarned lists the warnings given once per run
	// (80 % of a budget), so that a resumed run does not give them again.
	SpentUSD        float64 `toml:"spent_usd,omitempty" json:"spent_usd,omitempty"`
	SpentTokens     int64   `toml:"spent_tokens,omitempty" json:"spent_tokens,omitempty"`
	SpentIterations int     `toml:"spent_iterations,omitempty" json:"spent_iterations,omitempty"`
	// SpentUncosted counts the attempts whose agent reported tokens but no cost (codex,
	// gemini): SpentUSD leaves them out, so it is a lower bound, or no figure at all when
	// no attempt reported a cost. A state written before it was kept reads as 0.
	SpentUncosted int     `toml:"spent_uncosted,omitempty" json:"spent_uncosted,omitempty"`
	MaxCost       float64 `toml:"max_cost,omitempty" json:"max_cost,omitempty"`
	MaxTokens     int64   `toml:"max_tokens,omitempty" json:"max_tokens,omitempty"`
	DailyMaxCost  float64 `toml:"daily_max_cost,omitempty" json:"daily_max_cost,omitempty"`
	BudgetWarned  string  `toml:"budget_warned,omitempty" json:"budget_warned,omitempty"` // comma-separated: State stays comparable

	// The validation baseline (validate_format): the validate command's result before
	// the run's first iteration, kept so that a resumed run does not take it again.
	// BaselineCommand and BaselineFormat say what it was taken with (another command or
	// format takes a new one); BaselineFailing lists the tests failing then, one
	// "SUITE<TAB>NAME" a line, bounded like the feedback (BaselineCut: some left out).
	BaselineCommand string `toml:"baseline_command,omitempty" json:"baseline_command,omitempty"`
	BaselineFormat  string `toml:"baseline_format,omitempty" json:"baseline_format,omitempty"`
	BaselineCommit  string `toml:"baseline_commit,omitempty" json:"baseline_commit,omitempty"`
	BaselineExit    int    `toml:"baseline_exit,omitempty" json:"baseline_exit,omitempty"`
	BaselineTests   int    `toml:"baseline_tests,omitempty" json:"baseline_tests,omitempty"`
	BaselineFailing string `toml:"baseline_failing,omitempty" json:"baseline_failing,omitempty"`
	BaselineCut     bool   `toml:"baseline_cut,omitempty" json:"baseline_cut,omitempty"`
	// BaselineBase is, for a worktree loop, where its branch met its base branch when the
	// baseline was taken (git merge-base): when it moves, the baseline is taken again.
	BaselineBase string `toml:"baseline_base,omitempty" json:"baseline_base,omitempty"`
}

// MaxStateText bounds the texts of a state file (task, feedback, earlier_feedback): a
// task is at most 1 MiB (--task-file's bound; an argument is less), and the loop keeps
// its feedback far below (the last iteration's a few KiB, the earlier ones 32 KiB). A
// larger one was not written by a loop: the file is corrupt or hostile.
const MaxStateText = repofile.TextLimit

// maxTemplateName bounds the template key, a template's name (letters, digits, - and _).
const maxTemplateName = 64

// FeedbackSeparator separates the entries of State.EarlierFeedback (ASCII's record
// separator: the loop takes it out of the entries' text).
const FeedbackSeparator = "\x1e"

// Warned reports whether the run gave the once-per-run warning key (see BudgetWarned).
func (s State) Warned(key string) bool {
	return slices.Contains(strings.Split(s.BudgetWarned, ","), key)
}

// AddWarned records that the run gave the warning key.
func (s *State) AddWarned(key string) {
	if s.BudgetWarned != "" {
		s.BudgetWarned += ","
	}
	s.BudgetWarned += key
}

// Exists reports whether the state was read from a file. LoadState returns the zero State
// when there is no state file; every saved state has a schema version.
func (s State) Exists() bool { return s.SchemaVersion > 0 }

// StatePath is where the state of the repository at root is kept.
func StatePath(root string) string { return filepath.Join(root, Dir, stateFile) }

// LoadState reads the state of the repository at root.
//
// No state file is not an error: the zero State comes back (Exists reports false). A file
// that does not parse, or lacks schema_version, is renamed aside (never overwritten, never
// deleted) and reported as a *CorruptStateError, after which the caller starts a new run.
// Keys this version does not know are ignored, so that a newer git-ralph may add fields
// without a schema change; a schema_version above StateSchema is refused with a
// *NewerStateError and the file is left in place.
func LoadState(root string) (State, error) {
	path := StatePath(root)
	removeStaleTemps(path, time.Now())
	data, err := repofile.ReadIn(root, filepath.Join(Dir, stateFile), Dir+"/"+stateFile, repofile.StateLimit) // it may be committed: a FIFO, /dev/zero
	if errors.Is(err, fs.ErrNotExist) {
		return State{}, nil
	}
	if err != nil {
		return State{}, fmt.Errorf("reading %s: %w", path, err)
	}
	s, line, err := parseState(data)
	var newer *NewerStateError
	switch {
	case err == nil:
		return s, nil
	case errors.As(err, &newer):
		newer.Path = path
		return State{}, newer
	default:
		return State{}, keepCorrupt(path, line, err, time.Now())
	}
}

// PeekState reads the state of the repository at root as LoadState does, but leaves a
// file that does not parse where it is (for the loop to report and keep aside) and
// returns the zero State for it: for a look before the loop starts.
func PeekState(root string) State {
	data, err := repofile.ReadIn(root, filepath.Join(Dir, stateFile), Dir+"/"+stateFile, repofile.StateLimit)
	if err != nil {
		return State{}
	}
	s, _, err := parseState(data)
	if err != nil {
		return State{}
	}
	return s
}

// parseState decodes a state file, returning the line of the error where there is one. The
// schema version is read on its own first, so that a newer file whose other fields changed
// type is reported as newer rather than as corrupt (and is not moved aside).
func parseState(data []byte) (State, int, error) {
	var version struct {
		SchemaVersion int `toml:"schema_version"`
	}
	if err := toml.Unmarshal(data, &version); err != nil {
		return State{}, errorLine(err), err
	}
	switch v := version.SchemaVersion; {
	case v > StateSchema:
		return State{}, 0, &NewerStateError{Version: v}
	case v < 1:
		return State{}, lineOfKey(data, "schema_version"), fmt.Errorf("schema_version is %d, want %d", v, StateSchema)
	}
	var s State
	if err := toml.Unmarshal(data, &s); err != nil {
		return State{}, errorLine(err), err
	}
	// A state file can be committed: counts a loop could never reach would overflow
	// (iteration -9223372036854775808 after the largest int).
	for _, c := range []struct {
		key string
		n   int
	}{{"iteration", s.Iteration}, {"error_count", s.ErrorCount},
		{"consecutive_errors", s.ConsecutiveErrors}, {"idle_iterations", s.IdleIterations},
		{"spent_iterations", s.SpentIterations}, // the budgets' divisor: past the largest int, a negative mean
		{"feedback_left_out", s.FeedbackLeftOut}, {"baseline_tests", s.BaselineTests}} {
		if c.n < 0 || c.n > MaxCount {
			return State{}, lineOfKey(data, c.key), fmt.Errorf("%s is %d, want 0 to %d", c.key, c.n, MaxCount)
		}
	}
	for _, t := range []struct {
		key   string
		value string
		bound int
	}{{"task", s.Task, MaxStateText}, {"feedback", s.Feedback, MaxStateText},
		{"earlier_feedback", s.EarlierFeedback, MaxStateText}, {"template", s.Template, maxTemplateName},
		{"baseline_failing", s.BaselineFailing, MaxStateText}, {"baseline_command", s.BaselineCommand, MaxStateText}} {
		if len(t.value) > t.bound {
			return State{}, lineOfKey(data, t.key), fmt.Errorf("%s is %d bytes, more than a loop writes (%d at most)", t.key, len(t.value), t.bound)
		}
	}
	if p := badSpend(s); p != "" { // a committed state must not hand a run a credit
		return State{}, lineOfKey(data, p), fmt.Errorf("%s is negative or not a number", p)
	}
	if s.MaxIterations < 0 { // only compared with, never counted up: any positive limit is fine
		return State{}, lineOfKey(data, "max_iterations"), fmt.Errorf("max_iterations is %d, want 0 (none) or more", s.MaxIterations)
	}
	return s, 0, nil
}

// badSpend names the first spend figure of s that no run could have written.
func badSpend(s State) string {
	for _, f := range []struct {
		key string
		v   float64
	}{{"spent_usd", s.SpentUSD}, {"spent_tokens", float64(s.SpentTokens)}, {"spent_iterations", float64(s.SpentIterations)}, {"spent_uncosted", float64(s.SpentUncosted)},
		{"max_cost", s.MaxCost}, {"max_tokens", float64(s.MaxTokens)}, {"daily_max_cost", s.DailyMaxCost}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
			return f.key
		}
	}
	return ""
}

// errorLine is the 1-based line a TOML decoding error points at, or 0.
func errorLine(err error) int {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ := de.Position()
		return line
	}
	return 0
}

// lineOfKey is the 1-based line where key is assigned at the top of a TOML document, or 0.
func lineOfKey(data []byte, key string) int {
	for i, line := range bytes.Split(data, []byte("\n")) {
		name, _, ok := bytes.Cut(line, []byte("="))
		if ok && string(bytes.TrimSpace(name)) == key {
			return i + 1
		}
	}
	return 0
}

// SaveState writes s as the state of the repository at root, atomically (see
// WriteFileAtomic): a crash at any instant leaves the old state or the new one. It creates
// .ralph/ and its .gitignore when needed, and always writes schema_version = StateSchema.
func SaveState(root string, s State) error {
	if err := EnsureGitignore(root); err != nil {
		return err
	}
	s.SchemaVersion = StateSchema
	body, err := toml.Marshal(s)
	if err != nil {
		return fmt.Errorf("encoding the state: %w", err)
	}
	// last_error, limit_message and feedback quote the agent and the validate command
	return WriteFileAtomic(StatePath(root), append([]byte(stateHeader), redact.Bytes(body)...), 0o644)
}

// CorruptStateError reports a state file that could not be read. The file has been moved
// to KeptAs, so nothing is lost and the next SaveState does not overwrite the evidence.
type CorruptStateError struct {
	Path   string // the state file
	KeptAs string // where the unreadable copy is now
	Line   int    // 1-based line of the problem; 0 when unknown
	Err    error
}

func (e *CorruptStateError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("corrupt state file %s, line %d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("corrupt state file %s: %v", e.Path, e.Err)
}

func (e *CorruptStateError) Unwrap() error { return e.Err }

// Hint tells the user what happens next and where the bad copy went.
func (e *CorruptStateError) Hint() string {
	return fmt.Sprintf("git-ralph will start a new run; the unreadable file was kept as %s", e.KeptAs)
}

// NewerStateError reports a state file written by a newer git-ralph.
type NewerStateError struct {
	Path    string
	Version int // the file's schema_version
}

func (e *NewerStateError) Error() string {
	return fmt.Sprintf("%s has schema_version %d, but this git-ralph reads only up to %d", e.Path, e.Version, StateSchema)
}

// Hint says how to get going again without destroying the newer state.
func (e *NewerStateError) Hint() string {
	return fmt.Sprintf("it was written by a newer git-ralph: upgrade git-ralph, or move %s aside to start a new run", e.Path)
}

// keepCorrupt moves an unreadable state file aside and describes it. If it cannot be moved,
// the error is deliberately not a *CorruptStateError: a caller that starts a new run on that
// error would overwrite the only copy.
func keepCorrupt(path string, line int, cause error, now time.Time) error {
	kept, err := moveAside(path, now)
	if err != nil {
		return fmt.Errorf("corrupt state file %s (%v) could not be moved aside: %w", path, cause, err)
	}
	return &CorruptStateError{Path: path, KeptAs: kept, Line: line, Err: cause}
}

// moveAside renames path to path.corrupt-<UTC time>, adding .1, .2, … when that name is
// taken. It links then unlinks, which fails instead of replacing an existing file; where hard
// links are not supported it falls back to a rename after checking the name is free.
func moveAside(path string, now time.Time) (string, error) {
	base := path + ".corrupt-" + now.UTC().Format("20060102T150405Z")
	for i := 0; i < 1000; i++ {
		name := base
		if i > 0 {
			name += "." + strconv.Itoa(i)
		}
		err := os.Link(path, name)
		if err == nil {
			return name, removeIfPresent(path)
		}
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if _, statErr := os.Lstat(name); errors.Is(statErr, fs.ErrNotExist) {
			return name, os.Rename(path, name)
		}
	}
	return "", fmt.Errorf("no free name for a copy of %s", path)
}

// removeIfPresent deletes path; it being gone already (another reader of the same corrupt
// file moved it first) is fine.
func removeIfPresent(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
