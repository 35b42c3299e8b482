package history

import (
	"errors"
	"fmt"
	"io/fs"
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

// The layout of the iteration records: .ralph/history/<N>/{record.toml,diff.patch,output.log}
// and the counter .ralph/history/last. One directory per number makes reading a record one
// path lookup, however long the history grows.
const (
	historyDir     = "history"
	counterFile    = "last"
	recordFile     = "record.toml"
	diffFile       = "diff.patch"
	outputFile     = "output.log"
	validationFile = "validation.log"
	untilFile      = "until.log"
	judgeFile      = "judge.log"
)

// maxSkips bounds how many numbers Next passes over when their directories already exist
// (a counter file that was deleted or restored from an old copy).
const maxSkips = 100_000

// ErrNoRecord is found (errors.Is) in Get's error when iteration N has no record: it was
// never allocated, or its process died before saving it, or the user deleted it.
var ErrNoRecord = errors.New("no record")

// Record is what one iteration did. Numbers (Iteration) are unique in the repository across
// runs; RunIteration counts within the run. TOML and JSON use the same snake_case names, and
// the JSON form is what `git ralph history --json` prints.
type Record struct {
	Iteration    int       `toml:"iteration" json:"iteration"`
	Run          string    `toml:"run" json:"run"`
	RunIteration int       `toml:"run_iteration" json:"run_iteration"`
	Mode         string    `toml:"mode" json:"mode"`
	StartedAt    time.Time `toml:"started_at,omitzero" json:"started_at,omitzero"`
	EndedAt      time.Time `toml:"ended_at,omitzero" json:"ended_at,omitzero"`
	DurationMS   int64     `toml:"duration_ms" json:"duration_ms"`
	ExitCode     int       `toml:"exit_code" json:"exit_code"`
	Outcome      string    `toml:"outcome" json:"outcome"`
	Signal       string    `toml:"signal" json:"signal"`                           // promise: "", "SUCCESS", "FAILURE", "SUCCESS+FAILURE"
	KilledBy     string    `toml:"killed_by,omitempty" json:"killed_by,omitempty"` // e.g. "SIGKILL"
	TimedOut     bool      `toml:"timed_out" json:"timed_out"`
	// Stopped says why a timed-out agent was stopped when it was not the iteration
	// timeout: "no output for 10m0s" (output_timeout).
	Stopped        string  `toml:"stopped,omitempty" json:"stopped,omitempty"`
	RateLimitWaits int     `toml:"rate_limit_waits" json:"rate_limit_waits"`         // attempts that hit a usage or rate limit and were retried
	WaitedMS       int64   `toml:"waited_ms,omitempty" json:"waited_ms,omitempty"`   // time spent waiting for limits and retries
	Retries        int     `toml:"retries,omitempty" json:"retries,omitempty"`       // attempts retried after a transient error
	Validation     string  `toml:"validation,omitempty" json:"validation,omitempty"` // "passed", "failed: exit code 2", "timed out after 10m0s"; empty: none configured
	Until          string  `toml:"until,omitempty" json:"until,omitempty"`           // the promise command (--until), as Validation; "not run: validation failed"
	Push           string  `toml:"push,omitempty" json:"push,omitempty"`             // "pushed to origin/main", "failed: …"; empty: no push
	Agent          string  `toml:"agent,omitempty" json:"agent,omitempty"`           // the preset, if any
	Model          string  `toml:"model,omitempty" json:"model,omitempty"`
	InputTokens    int64   `toml:"input_tokens,omitempty" json:"input_tokens,omitempty"`
	OutputTokens   int64   `toml:"output_tokens,omitempty" json:"output_tokens,omitempty"`
	CacheRead      int64   `toml:"cache_read_tokens,omitempty" json:"cache_read_tokens,omitempty"`
	CacheWrite     int64   `toml:"cache_write_tokens,omitempty" json:"cache_write_tokens,omitempty"`
	CostUSD        float64 `toml:"cost_usd,omitempty" json:"cost_usd,omitempty"` // as the agent reports it: an API-price estimate on a subscription
	// CostReported is true when the agent reported a cost (possibly 0): codex and gemini
	// report none, and their CostUSD 0 is no figure. A record written before it was kept
	// has it false; its CostUSD above 0 says it was reported all the same (CostKnown).
	CostReported bool   `toml:"cost_reported,omitempty" json:"cost_reported,omitempty"`
	CommitBefore string `toml:"commit_before" json:"commit_before"`
	CommitAfter  string `toml:"commit_after" json:"commit_after"`
	FilesChanged int    `toml:"files_changed" json:"files_changed"`
	Insertions   int    `toml:"insertions" json:"insertions"`
	Deletions    int    `toml:"deletions" json:"deletions"`
	OutputPath   string `toml:"output_path,omitempty" json:"output_path,omitempty"` // see Store.OutputPath
	DiffPath     string `toml:"diff_path,omitempty" json:"diff_path,omitempty"`     // see Store.DiffPath
	Pruned       bool   `toml:"pruned,omitempty" json:"pruned,omitempty"`           // its output and diff were removed by the retention settings (see Store.Prune)
	// Error is the agent's own words about why a failed or halted iteration failed.
	Error string `toml:"error,omitempty" json:"error,omitempty"`
	// OutputExcerpt is a failed or halted iteration's agent output in brief: its first and
	// last 500 characters (all of it when shorter), secrets redacted, "[…]" where the
	// middle is left out; the whole is in the output log while it is kept.
	OutputExcerpt string `toml:"output_excerpt,omitempty" json:"output_excerpt,omitempty"`
	// Overage: an attempt was served on paid extra usage past the plan's limit (claude).
	Overage bool `toml:"overage,omitempty" json:"overage,omitempty"`
	// Replayed: the agent was a recording played back (--agent replay:DIR): no model ran
	// and nothing was paid, though the tokens and cost above are the recorded ones.
	Replayed bool `toml:"replayed,omitempty" json:"replayed,omitempty"`
	// NewFailures and OldFailures are, with validate_format, the tests failing after the
	// iteration that did not fail before the run, and those that did (bounded lists:
	// "TestA (pkg), TestB (pkg) and 3 more").
	NewFailures string `toml:"new_failures,omitempty" json:"new_failures,omitempty"`
	OldFailures string `toml:"old_failures,omitempty" json:"old_failures,omitempty"`
	// Attempts are the figures of each run of the agent when the iteration took more
	// than one (a limit or a transient error ran it again); the tokens and cost above
	// are their sums.
	Attempts []Attempt `toml:"attempts,omitempty" json:"attempts,omitempty"`
	// Similarity is the stagnation check's figures: see Similarity.
	Similarity *Similarity `toml:"similarity,omitempty" json:"similarity,omitempty"`
	// Judge is what the judge (setting judge) said about the iteration; nil when none ran.
	Judge *Judgement `toml:"judge,omitempty" json:"judge,omitempty"`
}

// CostKnown reports whether the agent reported the record's cost: a figure, not the
// zero of an agent that reports none.
func (r Record) CostKnown() bool { return r.CostReported || r.CostUSD > 0 }

// Judgement is a judge's verdict on one iteration, with what the judge cost (which is
// not in the iteration's own tokens and cost above, and counts toward the budgets).
type Judgement struct {
	Judge        string  `toml:"judge" json:"judge"`                         // the preset or the command, redacted
	Verdict      string  `toml:"verdict" json:"verdict"`                     // "PASS", "FAIL", or "error": no verdict, Error says why
	Reasons      string  `toml:"reasons,omitempty" json:"reasons,omitempty"` // bounded and redacted
	Error        string  `toml:"error,omitempty" json:"error,omitempty"`
	DurationMS   int64   `toml:"duration_ms" json:"duration_ms"`
	Model        string  `toml:"model,omitempty" json:"model,omitempty"`
	InputTokens  int64   `toml:"input_tokens,omitempty" json:"input_tokens,omitempty"`
	OutputTokens int64   `toml:"output_tokens,omitempty" json:"output_tokens,omitempty"`
	CostUSD      float64 `toml:"cost_usd,omitempty" json:"cost_usd,omitempty"`
}

// Attempt is one run of the agent within an iteration.
type Attempt struct {
	Attempt      int     `toml:"attempt" json:"attempt"`                     // 1-based
	Retried      string  `toml:"retried,omitempty" json:"retried,omitempty"` // "limit" or "transient" when it was run again; "" for the one that counted
	ExitCode     int     `toml:"exit_code" json:"exit_code"`
	DurationMS   int64   `toml:"duration_ms" json:"duration_ms"`
	Model        string  `toml:"model,omitempty" json:"model,omitempty"`
	InputTokens  int64   `toml:"input_tokens,omitempty" json:"input_tokens,omitempty"`
	OutputTokens int64   `toml:"output_tokens,omitempty" json:"output_tokens,omitempty"`
	CacheRead    int64   `toml:"cache_read_tokens,omitempty" json:"cache_read_tokens,omitempty"`
	CacheWrite   int64   `toml:"cache_write_tokens,omitempty" json:"cache_write_tokens,omitempty"`
	CostUSD      float64 `toml:"cost_usd,omitempty" json:"cost_usd,omitempty"`
	Overage      bool    `toml:"overage,omitempty" json:"overage,omitempty"`
	Error        string  `toml:"error,omitempty" json:"error,omitempty"`
}

// Store reads and writes the iteration records of one repository.
type Store struct {
	root string // the repository root
	dir  string // .ralph/history under it
}

// OpenStore gives access to the records of the repository at root. It creates nothing, so
// read-only commands leave no trace; Next creates the directories on first use.
func OpenStore(root string) (*Store, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("opening the history: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("opening the history: %s is not a directory", root)
	}
	if err := CheckOwnDirs(root); err != nil {
		return nil, err
	}
	s := &Store{root: root, dir: filepath.Join(root, Dir, historyDir)}
	if info, err := os.Stat(s.dir); err == nil && !info.IsDir() {
		return nil, fmt.Errorf("opening the history: %s is not a directory", s.dir)
	}
	return s, nil
}

// IterationDir is the directory of iteration n's record, diff and output.
func (s *Store) IterationDir(n int) string { return filepath.Join(s.dir, strconv.Itoa(n)) }

// DiffPath is where the caller saves iteration n's unified diff. It is relative when the
// root given to OpenStore is; a Record should keep it relative to the repository root so
// that the history survives moving the repository.
func (s *Store) DiffPath(n int) string { return filepath.Join(s.IterationDir(n), diffFile) }

// OutputPath is where the caller saves iteration n's agent output (see DiffPath).
func (s *Store) OutputPath(n int) string { return filepath.Join(s.IterationDir(n), outputFile) }

// ValidationPath is where the caller saves the output of iteration n's validate command.
func (s *Store) ValidationPath(n int) string { return filepath.Join(s.IterationDir(n), validationFile) }

// UntilPath is where the caller saves the output of iteration n's promise command (--until).
func (s *Store) UntilPath(n int) string { return filepath.Join(s.IterationDir(n), untilFile) }

// JudgePath is where the caller saves the output of iteration n's judge.
func (s *Store) JudgePath(n int) string { return filepath.Join(s.IterationDir(n), judgeFile) }

func (s *Store) recordPath(n int) string { return filepath.Join(s.IterationDir(n), recordFile) }
func (s *Store) counterPath() string     { return filepath.Join(s.dir, counterFile) }

// MaxCount bounds the iteration numbers and counts git-ralph reads back from its files:
// far beyond any history, far below where adding to them overflows. A repository can
// commit a counter or a state holding the largest int.
const MaxCount = 1_000_000_000

// parseNumber reads an iteration number in its canonical form ("7", not "07" or "+7"), so
// that only the directories Next made count as iterations.
func parseNumber(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil && n > 0 && n <= MaxCount && strconv.Itoa(n) == s
}

// Next allocates the next iteration number and creates its directory. The counter is
// written atomically and durably before the directory is made, so a number is never handed
// out twice, even when the process dies before the iteration's record is saved (that number
// is then simply missing from the history).
func (s *Store) Next() (int, error) {
	if err := EnsureGitignore(s.root); err != nil {
		return 0, err
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return 0, fmt.Errorf("creating the history directory: %w", err)
	}
	last, err := s.Last()
	if err != nil {
		return 0, err
	}
	if last >= MaxCount {
		return 0, fmt.Errorf("allocating an iteration number: %s holds iteration %d, the highest git-ralph numbers", s.dir, last)
	}
	for n := last + 1; n <= min(last+maxSkips, MaxCount); n++ {
		if err := WriteFileAtomic(s.counterPath(), []byte(strconv.Itoa(n)+"\n"), 0o644); err != nil {
			return 0, fmt.Errorf("allocating iteration %d: %w", n, err)
		}
		err := os.Mkdir(s.IterationDir(n), 0o755)
		if err == nil {
			return n, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return 0, fmt.Errorf("allocating iteration %d: %w", n, err)
		}
	}
	return 0, fmt.Errorf("allocating an iteration number: %d numbers after %d are all taken", maxSkips, last)
}

// Last is the last number Next allocated; 0 when there is no history. If the counter file
// is missing or unreadable, the highest numbered directory stands in for it (one directory
// listing; normally the counter is there and this costs one small read).
func (s *Store) Last() (int, error) {
	data, err := repofile.ReadOwn(s.counterPath(), s.counterPath(), 1<<10)
	switch {
	case err == nil:
		if n, ok := parseNumber(strings.TrimSpace(string(data))); ok {
			return n, nil
		}
	case !errors.Is(err, fs.ErrNotExist):
		return 0, fmt.Errorf("reading the iteration counter: %w", err)
	}
	return s.highestDir()
}

// Numbers are the iterations the history holds a directory of, up to Last, newest first:
// what a walk down the history visits, without trying every number below a counter a
// repository may have set to a billion.
func (s *Store) Numbers() ([]int, error) {
	last, err := s.Last()
	if err != nil {
		return nil, err
	}
	return s.numbers(last)
}

// numbers are the numbers among the history directory's names up to last, newest first.
// They are listed rather than counted down from last: a repository can commit a counter
// of a billion, and trying each number took hours.
func (s *Store) numbers(last int) ([]int, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing the history: %w", err)
	}
	var ns []int
	for _, e := range entries {
		if n, ok := parseNumber(e.Name()); ok && n <= last {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	slices.Reverse(ns)
	return ns, nil
}

// highestDir is the largest number among the history's directory names; 0 if none.
func (s *Store) highestDir() (int, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("listing the history: %w", err)
	}
	highest := 0
	for _, e := range entries {
		if n, ok := parseNumber(e.Name()); ok && e.IsDir() && n > highest {
			highest = n
		}
	}
	return highest, nil
}

// Save writes rec as the record of iteration rec.Iteration, atomically: a reader sees the
// old record or the new one. The number must come from Next.
func (s *Store) Save(rec Record) error {
	n := rec.Iteration
	last, err := s.Last()
	if err != nil {
		return err
	}
	if n < 1 || n > last {
		return fmt.Errorf("saving the record of iteration %d: not allocated (last is %d)", n, last)
	}
	data, err := toml.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encoding the record of iteration %d: %w", n, err)
	}
	if err := s.ownDir(n); err != nil {
		return fmt.Errorf("saving the record of iteration %d: %w", n, err)
	}
	if err := os.MkdirAll(s.IterationDir(n), 0o755); err != nil {
		return fmt.Errorf("saving the record of iteration %d: %w", n, err)
	}
	// validation and push quote the validate command and git
	return WriteFileAtomic(s.recordPath(n), redact.Bytes(data), 0o644)
}

// ownDir refuses iteration n's directory when it is there but not a directory of its own:
// a repository can commit .ralph/history/3 as a symlink to a directory elsewhere, which a
// record would be written into (a missing one is fine: it is made where it belongs).
func (s *Store) ownDir(n int) error {
	info, err := os.Lstat(s.IterationDir(n))
	if err == nil && !info.IsDir() {
		return &repofile.RefusedError{Path: s.IterationDir(n), Reason: "it is not a directory of its own (a symlink?), which git-ralph does not follow to its history"}
	}
	return nil
}

// Get reads the record of iteration n by its path alone, so that its cost does not grow
// with the history. A missing record is an error wrapping ErrNoRecord.
func (s *Store) Get(n int) (Record, error) {
	if n < 1 {
		return Record{}, fmt.Errorf("%w of iteration %d", ErrNoRecord, n)
	}
	if err := s.ownDir(n); err != nil {
		return Record{}, fmt.Errorf("reading the record of iteration %d: %w", n, err)
	}
	path := s.recordPath(n)
	data, err := repofile.ReadOwn(path, path, repofile.StateLimit) // never a FIFO, /dev/zero or a symlink a repository committed
	if errors.Is(err, fs.ErrNotExist) {
		return Record{}, fmt.Errorf("%w of iteration %d", ErrNoRecord, n)
	}
	if err != nil {
		return Record{}, fmt.Errorf("reading the record of iteration %d: %w", n, err)
	}
	var rec Record
	if err := toml.Unmarshal(data, &rec); err != nil {
		return Record{}, fmt.Errorf("reading %s, line %d: %w", path, errorLine(err), err)
	}
	return rec, nil
}

// BadRecord is a record file that exists but cannot be read: listings skip it and name
// it, so that one damaged file does not hide the rest of the history.
type BadRecord struct {
	Iteration int
	Err       error // names the file and, for a parse error, the line
}

// List returns the newest limit records (all when limit is 0), oldest first. It takes the
// iterations' numbers from the history directory's names, newest first, and reads only
// the records it returns (plus the ones that cannot be read). Records that do not parse
// are skipped; Scan says which.
func (s *Store) List(limit int) ([]Record, error) {
	recs, _, err := s.Scan(limit)
	return recs, err
}

// Scan is List that also returns the records it skipped because they could not be read,
// newest first. The error is for the history as a whole (the counter cannot be read).
func (s *Store) Scan(limit int) ([]Record, []BadRecord, error) {
	last, err := s.Last()
	if err != nil {
		return nil, nil, err
	}
	numbers, err := s.numbers(last)
	if err != nil {
		return nil, nil, err
	}
	var recs []Record
	var bad []BadRecord
	for _, n := range numbers {
		if limit > 0 && len(recs) >= limit {
			break
		}
		rec, err := s.Get(n)
		if errors.Is(err, ErrNoRecord) {
			continue
		}
		if err != nil {
			bad = append(bad, BadRecord{Iteration: n, Err: err})
			continue
		}
		recs = append(recs, rec)
	}
	slices.Reverse(recs)
	return recs, bad, nil
}
