package recording

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitsnap"
	"github.com/git-ralph/git-ralph/history/redact"
)

// Recorder writes a recording: one attempt directory per run of the agent.
type Recorder struct {
	dir  string // the recording
	root string // the repository the agent works in
	next int    // the number of the next attempt
	now  func() time.Time
}

// ErrNotRecording is found (errors.Is) in Create's error when the directory holds
// something else than a recording.
var ErrNotRecording = errors.New("not empty, and not a recording")

// ErrOtherRepository is found (errors.Is) in the error of a recording made in another
// repository than the one at hand.
var ErrOtherRepository = errors.New("the recording was made in another repository")

// Create opens dir for recording the runs of the agent in the repository at root: a new
// recording when dir is missing or empty, else the recording dir already holds, which the
// new attempts go on (a resumed run), if it was made in the same repository with the
// same agent.
func Create(ctx context.Context, dir, root string, m Manifest) (*Recorder, error) {
	id, err := IdentityOf(ctx, root)
	if err != nil {
		return nil, err
	}
	m.Format, m.Repository, m.AgentCmd = FormatVersion, id, redact.String(m.AgentCmd)
	r := &Recorder{dir: dir, root: root, now: time.Now}
	old, err := ReadManifest(dir)
	switch {
	case err == nil:
		return r, r.goOn(old, m)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s: %w", dir, ErrNotRecording)
	}
	if err := os.MkdirAll(filepath.Join(dir, attemptsDir), 0o755); err != nil {
		return nil, fmt.Errorf("creating the recording: %w", err)
	}
	r.next = 1
	return r, writeJSON(filepath.Join(dir, ManifestFile), m)
}

// goOn checks that a recording may be continued with the runs of m's agent here.
func (r *Recorder) goOn(old, m Manifest) error {
	switch {
	case !old.Repository.Matches(m.Repository):
		return fmt.Errorf("%s: %w (%s; this one: %s)", r.dir, ErrOtherRepository, old.Repository, m.Repository)
	case old.Agent != m.Agent:
		return fmt.Errorf("%s: the recording is of agent %q, this loop runs %q", r.dir, old.Agent, m.Agent)
	}
	r.next = Count(r.dir) + 1
	return nil
}

// IdentityOf is the identity of the repository at root.
func IdentityOf(ctx context.Context, root string) (Identity, error) {
	roots, err := gitops.RootCommits(ctx, root)
	if err != nil {
		return Identity{}, err
	}
	return Identity{Roots: roots, Origin: redact.String(PublicURL(gitops.RemoteURL(ctx, root, "origin")))}, nil
}

// Dir is the recording's directory.
func (r *Recorder) Dir() string { return r.dir }

// Take is one attempt being recorded.
type Take struct {
	r       *Recorder
	tmp     string // the attempt's directory while it is written
	attempt Attempt
	started time.Time
	out     *os.File
	timing  *os.File
	redact  *redact.Writer
	written int64 // bytes in output.log, at most maxOutput
	lost    error // the first write to output.log or timing.txt that failed: End refuses the take
	mu      sync.Mutex
}

// Begin starts recording a run of the agent: the repository as it is before it, and the
// prompt (redacted). Its Output takes what the agent prints while it runs.
func (r *Recorder) Begin(ctx context.Context, run string, iteration, attempt int, prompt string) (*Take, error) {
	before, err := gitsnap.CheckpointNow(ctx, r.root)
	if err != nil {
		return nil, fmt.Errorf("recording the repository before the agent: %w", err)
	}
	final := AttemptDir(r.dir, r.next)
	tmp := filepath.Join(filepath.Dir(final), "."+filepath.Base(final)+".part")
	os.RemoveAll(tmp) // a take a crash left unfinished
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("recording attempt %d: %w", r.next, err)
	}
	t := &Take{r: r, tmp: tmp, started: r.now(), attempt: Attempt{Number: r.next, Run: run,
		Iteration: iteration, Attempt: attempt, Before: Checkpoint(before)}}
	if err := t.open(prompt); err != nil {
		t.Discard()
		return nil, fmt.Errorf("recording attempt %d: %w", r.next, err)
	}
	return t, nil
}

func (t *Take) open(prompt string) error {
	if err := os.WriteFile(filepath.Join(t.tmp, promptFile), redact.Bytes([]byte(prompt)), 0o644); err != nil {
		return err
	}
	var err error
	if t.out, err = os.Create(filepath.Join(t.tmp, outputFile)); err != nil {
		return err
	}
	if t.timing, err = os.Create(filepath.Join(t.tmp, timingFile)); err != nil {
		return err
	}
	t.redact = redact.NewWriter(timed{t})
	return nil
}

// Output is where the agent's output goes while it runs: redacted, and timed as it
// reaches the file. It never fails, so the recording cannot stop the agent's capture.
func (t *Take) Output() io.Writer { return output{t} }

type output struct{ t *Take }

func (o output) Write(p []byte) (int, error) {
	o.t.mu.Lock()
	defer o.t.mu.Unlock()
	_, _ = o.t.redact.Write(p)
	return len(p), nil
}

// timed writes the redacted output to output.log, and when each piece came to timing.txt.
type timed struct{ t *Take }

func (w timed) Write(p []byte) (int, error) {
	n := len(p)
	if room := maxOutput - w.t.written; int64(len(p)) > room {
		p = p[:max(room, 0)] // a runaway agent: the recording keeps what a replay can read
	}
	if len(p) == 0 {
		return n, nil
	}
	at := w.t.r.now().Sub(w.t.started).Milliseconds()
	if _, err := w.t.out.Write(p); err != nil {
		return 0, w.t.lose(err)
	}
	w.t.written += int64(len(p))
	if _, err := fmt.Fprintf(w.t.timing, "%d %d\n", at, len(p)); err != nil {
		return 0, w.t.lose(err)
	}
	return n, nil
}

// lose remembers the first failed write (the agent's capture goes on: Output never fails).
func (t *Take) lose(err error) error {
	if t.lost == nil {
		t.lost = fmt.Errorf("writing the output: %w", err)
	}
	return err
}

// Result is how the recorded run ended, and what the preset's reader made of it.
type Result struct {
	ExitCode int
	Signal   string
	TimedOut bool
	Duration time.Duration
	Usage    Usage
}

// End completes the attempt: the rest of the output, how the run ended, and what it
// changed in the repository (its commits and its work tree, as a git bundle on top of
// the commit it started from). Only a complete attempt gets its number.
func (t *Take) End(ctx context.Context, res Result) error {
	err := t.close()
	if err == nil {
		err = t.change(ctx)
	}
	if err == nil {
		a := &t.attempt
		a.RecordedAt, a.ExitCode, a.Signal, a.TimedOut = t.r.now().UTC(), res.ExitCode, res.Signal, res.TimedOut
		a.DurationMS, a.Usage = res.Duration.Milliseconds(), res.Usage
		err = writeJSON(filepath.Join(t.tmp, attemptFile), a)
	}
	if err == nil {
		err = os.Rename(t.tmp, AttemptDir(t.r.dir, t.attempt.Number))
	}
	if err != nil {
		t.Discard()
		return fmt.Errorf("recording attempt %d: %w", t.attempt.Number, err)
	}
	t.r.next++
	return nil
}

// change records the repository after the run: Change wraps its work tree in a commit on
// top of its HEAD (and, as a second parent, the work tree before it on the HEAD before
// it, which a replay on another state merges from), and change.bundle holds that commit
// and what it reaches beyond the HEAD the run started from.
func (t *Take) change(ctx context.Context) error {
	after, err := gitsnap.CheckpointNow(ctx, t.r.root)
	if err != nil {
		return fmt.Errorf("reading the repository after the agent: %w", err)
	}
	t.attempt.After = Checkpoint(after)
	b := t.attempt.Before
	before, err := gitops.CommitTree(ctx, t.r.root, b.Tree, b.Head, fmt.Sprintf("git-ralph recording: the work tree before attempt %d", t.attempt.Number))
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("git-ralph recording: the work tree after attempt %d", t.attempt.Number)
	if t.attempt.Change, err = gitops.CommitTree(ctx, t.r.root, after.Tree, after.Head, msg, before); err != nil {
		return err
	}
	return gitsnap.WriteBundle(ctx, t.r.root, filepath.Join(t.tmp, bundleFile), t.attempt.Change, t.attempt.Before.Head)
}

func (t *Take) close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	err := t.redact.Flush()
	for _, f := range []*os.File{t.out, t.timing} {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		err = t.lost
	}
	return err
}

// Discard drops an attempt that is not to be kept (interrupted, or failed to record).
func (t *Take) Discard() {
	if t == nil {
		return
	}
	for _, f := range []*os.File{t.out, t.timing} {
		if f != nil {
			f.Close()
		}
	}
	os.RemoveAll(t.tmp)
}

// writeJSON writes v to path, indented, through a temp file and a rename.
func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
