package recording

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/lazyregexp"
)

// FormatVersion is the version of the recording's layout this git-ralph writes and reads.
const FormatVersion = 1

// The layout of a recording:
//
//	DIR/manifest.json                 what made it, where (Manifest)
//	DIR/attempts/0001/attempt.json    one agent run: exit status, usage, checkpoints (Attempt)
//	DIR/attempts/0001/prompt.md       the prompt it was given, secrets redacted
//	DIR/attempts/0001/output.log      what it printed (stdout and stderr), secrets redacted
//	DIR/attempts/0001/timing.txt      when: one "MS BYTES" line per chunk of output.log
//	DIR/attempts/0001/change.bundle   its change to the repository (git bundle)
const (
	ManifestFile = "manifest.json"
	attemptsDir  = "attempts"
	attemptFile  = "attempt.json"
	promptFile   = "prompt.md"
	outputFile   = "output.log"
	timingFile   = "timing.txt"
	bundleFile   = "change.bundle"
)

// Bounds on what a recording's files may hold: it is user input, maybe from elsewhere.
const (
	maxJSON    = 1 << 20  // manifest.json, attempt.json
	maxTiming  = 64 << 20 // timing.txt
	maxOffset  = 7 * 24 * time.Hour
	maxAttempt = 99_999
)

// maxOutput bounds output.log: a recording keeps no more of an agent's output than a
// replay reads (a variable for tests).
var maxOutput int64 = 512 << 20

// Manifest says what made a recording and in which repository.
type Manifest struct {
	Format   int    `json:"format"`
	GitRalph string `json:"git_ralph"` // the version line of the git-ralph that recorded it
	// Agent is the preset whose reader read the output ("" for plain text): a replay reads
	// it with the same reader, so the same tokens, cost and promises come out.
	Agent      string    `json:"agent"`
	AgentCmd   string    `json:"agent_cmd,omitempty"` // the custom command, if one ran (secrets redacted)
	Repository Identity  `json:"repository"`
	CreatedAt  time.Time `json:"created_at"`
}

// Identity names a repository's project in a way every clone of it shares: the root
// commits of its history, and the origin remote's URL (without credentials) as a
// fallback for a history that had no commit yet.
type Identity struct {
	Roots  []string `json:"root_commits"`
	Origin string   `json:"origin,omitempty"`
}

// Matches reports whether a repository of identity here may replay a recording made in
// one of identity recorded: their histories share a root commit, or, when either has no
// commit, their origins are the same (or neither has one).
func (recorded Identity) Matches(here Identity) bool {
	for _, r := range recorded.Roots {
		if slices.Contains(here.Roots, r) {
			return true
		}
	}
	if len(recorded.Roots) > 0 && len(here.Roots) > 0 {
		return false
	}
	return recorded.Origin == here.Origin
}

// String describes an identity for a message.
func (id Identity) String() string {
	var parts []string
	if len(id.Roots) > 0 {
		parts = append(parts, "root commit "+strings.Join(shortAll(id.Roots), ", "))
	} else {
		parts = append(parts, "no commit")
	}
	if id.Origin != "" {
		parts = append(parts, "origin "+id.Origin)
	}
	return strings.Join(parts, ", ")
}

func shortAll(hashes []string) []string {
	out := make([]string, len(hashes))
	for i, h := range hashes {
		out[i] = h[:min(len(h), 12)]
	}
	return out
}

// PublicURL is a remote URL without the user and password it may carry.
func PublicURL(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		u.User = nil
		return u.String()
	}
	return raw
}

// Attempt is one recorded run of the agent.
type Attempt struct {
	Number     int       `json:"number"` // its place in the recording, from 1
	Run        string    `json:"run"`
	Iteration  int       `json:"iteration"` // the run's iteration it belonged to
	Attempt    int       `json:"attempt"`   // 1, or more when a limit or an error ran the iteration again
	RecordedAt time.Time `json:"recorded_at"`
	ExitCode   int       `json:"exit_code"`        // -1: killed by Signal
	Signal     string    `json:"signal,omitempty"` // "SIGTERM", "SIGKILL", …
	TimedOut   bool      `json:"timed_out,omitempty"`
	DurationMS int64     `json:"duration_ms"`
	Usage      Usage     `json:"usage"` // as the preset's reader read the output
	// Before and After are the repository's checkpoints around the run; Change is the
	// commit (in change.bundle) whose tree is After's work tree and whose parents are
	// After's HEAD and a commit of Before's work tree on Before's HEAD.
	Before Checkpoint `json:"before"`
	After  Checkpoint `json:"after"`
	Change string     `json:"change"`
}

// Checkpoint is a commit HEAD pointed to ("" on an unborn branch) and the tree of the
// whole work tree.
type Checkpoint struct {
	Head string `json:"head"`
	Tree string `json:"tree"`
}

// Usage is the tokens and cost of one run, as the preset's reader read them.
type Usage struct {
	Model        string  `json:"model,omitempty"`
	InputTokens  int64   `json:"input_tokens,omitempty"`
	OutputTokens int64   `json:"output_tokens,omitempty"`
	CacheRead    int64   `json:"cache_read_tokens,omitempty"`
	CacheWrite   int64   `json:"cache_write_tokens,omitempty"`
	CostUSD      float64 `json:"cost_usd,omitempty"`
	HasCost      bool    `json:"has_cost,omitempty"`
}

// Chunk is a piece of the output and when it came, from the start of the run.
type Chunk struct {
	At   time.Duration
	Data []byte
}

// FileError is a recording's file that cannot be read as one.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

func fileError(path string, format string, args ...any) error {
	return &FileError{Path: path, Err: fmt.Errorf(format, args...)}
}

// ReadManifest reads and checks dir's manifest.
func ReadManifest(dir string) (Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	var m Manifest
	if err := readJSON(path, &m); err != nil {
		return m, err
	}
	if m.Format != FormatVersion {
		return m, fileError(path, "format %d, but this git-ralph reads format %d", m.Format, FormatVersion)
	}
	for _, r := range m.Repository.Roots {
		if !isHash(r) {
			return m, fileError(path, "root commit %q is not a commit hash", r)
		}
	}
	if !validName.MatchString(m.Agent) {
		return m, fileError(path, "agent %q is not a preset name", m.Agent)
	}
	return m, nil
}

var validName = lazyregexp.New(`^[a-z0-9-]{0,40}$`)

var hashPattern = lazyregexp.New(`^([0-9a-f]{40}|[0-9a-f]{64})$`)

func isHash(s string) bool { return hashPattern.MatchString(s) }

// readJSON decodes the JSON file at path into v, strictly: unknown fields, trailing data
// and files over maxJSON are errors naming the file.
func readJSON(path string, v any) error {
	data, err := readCapped(path, maxJSON)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fileError(path, "not a valid recording file: %v", err)
	}
	if dec.More() {
		return fileError(path, "not a valid recording file: data after the JSON object")
	}
	return nil
}

// readCapped reads a regular file of at most limit bytes. It looks before it opens: a
// named pipe would hold the open until something writes to it.
func readCapped(path string, limit int64) ([]byte, error) {
	if err := checkFile(path, os.Stat, limit); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := checkFile(path, func(string) (os.FileInfo, error) { return f.Stat() }, limit); err != nil {
		return nil, err // replaced since it was looked at
	}
	return io.ReadAll(io.LimitReader(f, limit+1))
}

// checkFile checks that what stat says of path is a regular file of at most limit bytes.
func checkFile(path string, stat func(string) (os.FileInfo, error), limit int64) error {
	info, err := stat(path)
	switch {
	case err != nil:
		return err
	case !info.Mode().IsRegular():
		return fileError(path, "not a regular file")
	case info.Size() > limit:
		return fileError(path, "%d bytes, more than a recording's file may hold (%d)", info.Size(), limit)
	}
	return nil
}

// AttemptDir is the directory of attempt n of the recording in dir.
func AttemptDir(dir string, n int) string {
	return filepath.Join(dir, attemptsDir, fmt.Sprintf("%04d", n))
}

// Count is how many attempts the recording in dir holds: they are numbered from 1 without
// gaps.
func Count(dir string) int {
	n := 0
	for n < maxAttempt {
		if _, err := os.Stat(filepath.Join(AttemptDir(dir, n+1), attemptFile)); err != nil {
			break
		}
		n++
	}
	return n
}

// ReadAttempt reads and checks attempt n of the recording in dir.
func ReadAttempt(dir string, n int) (Attempt, error) {
	path := filepath.Join(AttemptDir(dir, n), attemptFile)
	var a Attempt
	if err := readJSON(path, &a); err != nil {
		return a, err
	}
	if err := a.check(n); err != nil {
		return a, &FileError{Path: path, Err: err}
	}
	return a, nil
}

func (a Attempt) check(n int) error {
	switch {
	case a.Number != n:
		return fmt.Errorf("number %d, but it is attempt %d", a.Number, n)
	case a.ExitCode < -1 || a.ExitCode > 255:
		return fmt.Errorf("exit code %d is not one a process can have", a.ExitCode)
	case a.Signal != "" && signalOf(a.Signal) == 0:
		return fmt.Errorf("signal %q is not one a replay can end with", a.Signal)
	case a.DurationMS < 0 || a.Usage.InputTokens < 0 || a.Usage.OutputTokens < 0 || a.Usage.CostUSD < 0:
		return errors.New("negative duration, tokens or cost")
	case !isHash(a.Change) || !isHash(a.After.Tree) || !isHash(a.Before.Tree):
		return errors.New("its change, before.tree and after.tree must be object hashes")
	case a.Before.Head != "" && !isHash(a.Before.Head), a.After.Head != "" && !isHash(a.After.Head):
		return errors.New("before.head and after.head must be commit hashes (or empty)")
	}
	return nil
}

// ReadOutput reads attempt n's output as the chunks it came in, checking that timing.txt
// describes output.log exactly.
func ReadOutput(dir string, n int) ([]Chunk, error) {
	outPath := filepath.Join(AttemptDir(dir, n), outputFile)
	out, err := readCapped(outPath, maxOutput)
	if err != nil {
		return nil, err
	}
	timePath := filepath.Join(AttemptDir(dir, n), timingFile)
	timing, err := readCapped(timePath, maxTiming)
	if err != nil {
		return nil, err
	}
	return parseTiming(timePath, timing, out)
}

// parseTiming splits out into the chunks the "MS BYTES" lines of timing describe.
func parseTiming(path string, timing, out []byte) ([]Chunk, error) {
	var chunks []Chunk
	pos, last := 0, time.Duration(0)
	for i, line := range strings.Split(strings.TrimSuffix(string(timing), "\n"), "\n") {
		if line == "" && len(timing) == 0 {
			break
		}
		msText, sizeText, ok := strings.Cut(line, " ")
		ms, err1 := strconv.ParseInt(msText, 10, 64)
		size, err2 := strconv.Atoi(sizeText)
		at := time.Duration(ms) * time.Millisecond
		switch {
		case !ok || err1 != nil || err2 != nil:
			return nil, fileError(path, "line %d: %q is not \"MILLISECONDS BYTES\"", i+1, line)
		case ms < 0 || at > maxOffset || at < last:
			return nil, fileError(path, "line %d: time %d ms is out of order or out of range", i+1, ms)
		case size < 0 || size > len(out)-pos:
			return nil, fileError(path, "line %d: %d bytes, but %s has only %d left", i+1, size, outputFile, len(out)-pos)
		}
		chunks = append(chunks, Chunk{At: at, Data: out[pos : pos+size]})
		pos, last = pos+size, at
	}
	if pos != len(out) {
		return nil, fileError(path, "describes %d bytes, but %s holds %d", pos, outputFile, len(out))
	}
	return chunks, nil
}
