package recording

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitmerge"
	"github.com/git-ralph/git-ralph/gitops/gitsnap"
)

// ExitCannotReplay is the exit code of a replay that cannot play the next attempt (the
// recording ran out, a file of it is damaged, the repository is not where the recording
// was): the loop stops the run rather than count it as the agent's failure.
const ExitCannotReplay = 87

// ErrRanOut is found (errors.Is) in Play's error when the recording holds no attempt
// for the run's next agent.
var ErrRanOut = errors.New("the recording ran out")

// replayRef keeps the change of the attempt being replayed alive while it is applied
// (deleted after).
const replayRef = "refs/ralph/replay/change"

// Player plays a recording back as the agent: each Play is one run of the agent.
type Player struct {
	Dir    string // the recording
	Root   string // the repository the agent works in
	Cursor string // the file that keeps which attempt comes next (in git-ralph's own directory)
	Run    string // the loop's run (RALPH_RUN): a new run plays the recording from its start
	// Speed is the pace: 0 plays at full speed, 1 at the recorded pace, 2 twice as fast.
	Speed float64
	Out   io.Writer // the agent's stdout
	Own   string    // git-ralph's own directory in the work tree (".ralph"), which a replay leaves alone
}

// Play plays the next attempt: it brings the repository to the state the recorded agent
// left it in, writes its output at the chosen pace, and returns its exit code and the
// signal it was killed by (0 for none), for the caller to end with.
func (p Player) Play(ctx context.Context) (int, syscall.Signal, error) {
	if _, err := ReadManifest(p.Dir); err != nil {
		return 0, 0, err
	}
	n := p.position()
	if total := Count(p.Dir); n > total {
		return 0, 0, Hinted(fmt.Errorf("%w: %s holds %d attempts, and this run asks for attempt %d", ErrRanOut, p.Dir, total, n),
			"a replay plays the attempts in the order they were recorded, from the first for each new run; record a longer run, or lower --max")
	}
	a, err := ReadAttempt(p.Dir, n)
	if err != nil {
		return 0, 0, err
	}
	chunks, err := ReadOutput(p.Dir, n)
	if err != nil {
		return 0, 0, err
	}
	if err := p.apply(ctx, a); err != nil {
		return 0, 0, err
	}
	if err := p.write(ctx, chunks); err != nil {
		return 0, 0, err
	}
	if err := p.advance(n + 1); err != nil {
		return 0, 0, err
	}
	return a.ExitCode, signalOf(a.Signal), nil
}

// cursor is what the cursor file keeps.
type cursor struct {
	Recording string `json:"recording"`
	Run       string `json:"run"`
	Next      int    `json:"next"`
}

// position is the attempt to play: the cursor's for the same recording and run, else the
// first. An unreadable cursor starts over too: it is only a bookmark.
func (p Player) position() int {
	var c cursor
	data, err := readCapped(p.Cursor, maxJSON)
	if err != nil || json.Unmarshal(data, &c) != nil {
		return 1
	}
	if c.Recording != p.recording() || c.Run != p.Run || c.Next < 1 {
		return 1
	}
	return c.Next
}

func (p Player) recording() string {
	if abs, err := filepath.Abs(p.Dir); err == nil {
		return abs
	}
	return p.Dir
}

func (p Player) advance(next int) error {
	if err := os.MkdirAll(filepath.Dir(p.Cursor), 0o755); err != nil {
		return err
	}
	return writeJSON(p.Cursor, cursor{Recording: p.recording(), Run: p.Run, Next: next})
}

// apply brings the repository to where attempt a left it. On the state a started from,
// exactly: the recorded commits become HEAD's and the work tree the recorded one. Already
// there (the same attempt played again after an interrupt), nothing. Elsewhere (a prompt
// edited or committed since), a's change is carried over (see carry).
func (p Player) apply(ctx context.Context, a Attempt) error {
	now, err := gitsnap.CheckpointNow(ctx, p.Root)
	if err != nil {
		return err
	}
	if Checkpoint(now) == a.After {
		return nil
	}
	// the change commit wraps the recorded work tree: kept alive while it is applied
	// only, not left for `git log --all` to show
	defer gitops.DeleteRefs(context.WithoutCancel(ctx), p.Root, []string{replayRef})
	if err := p.readChange(ctx, a); err != nil {
		return err
	}
	target := gitops.Checkpoint(a.After)
	if Checkpoint(now) != a.Before {
		if target, err = p.carry(ctx, a, now); err != nil {
			return err
		}
	}
	return p.restore(ctx, a, target)
}

// readChange adds the attempt's bundle to the repository and checks that it holds what
// attempt.json says.
func (p Player) readChange(ctx context.Context, a Attempt) error {
	bundle := filepath.Join(AttemptDir(p.Dir, a.Number), bundleFile)
	tip, err := gitsnap.ReadBundle(ctx, p.Root, bundle, replayRef)
	if errors.Is(err, gitsnap.ErrBundleNeeds) {
		return Hinted(fmt.Errorf("%s: %w", bundle, err), "replay in a clone of the repository the recording was made in, on the history it started from")
	}
	if err != nil {
		return err
	}
	parent, tree, err := gitops.CommitParts(ctx, p.Root, tip)
	if err != nil {
		return err
	}
	if tip != a.Change || parent != a.After.Head || tree != a.After.Tree {
		return fileError(bundle, "holds commit %s (on %s), but attempt.json says %s (on %s)", short(tip), short(parent), short(a.Change), short(a.After.Head))
	}
	return nil
}

// carry works out where attempt a's change takes a repository that is not where a
// started (now): each of a's commits made again on HEAD with its message and authors
// (the same commit, when nothing it touches differs), and the work tree now with a's
// whole change (committed and not) merged in. A conflict refuses: the outcome would be
// made up, not replayed.
func (p Player) carry(ctx context.Context, a Attempt, now gitops.Checkpoint) (gitops.Checkpoint, error) {
	chain, ok, err := gitops.FirstParentChain(ctx, p.Root, a.Before.Head, a.After.Head)
	if err != nil {
		return now, err
	}
	if !ok || a.Before.Head == "" {
		return now, Hinted(fmt.Errorf("attempt %d of %s moved HEAD from %s to %s, not by adding commits, and this repository is not where it started (commit %s)",
			a.Number, p.Dir, short(a.Before.Head), short(a.After.Head), short(now.Head)), replayFromStart)
	}
	head := now.Head
	for _, c := range chain {
		if head, err = p.carryCommit(ctx, a, c, head); err != nil {
			return now, err
		}
	}
	merged, err := gitmerge.MergeTrees(ctx, p.Root, a.Before.Tree, now.Tree, a.After.Tree)
	if err != nil {
		return now, err
	}
	if len(merged.Conflicts) > 0 {
		return now, p.conflict(a, now, merged.Conflicts)
	}
	return gitops.Checkpoint{Head: head, Tree: merged.Tree}, nil
}

// carryCommit makes the recorded commit c again on head.
func (p Player) carryCommit(ctx context.Context, a Attempt, c, head string) (string, error) {
	parent, theirs, err := gitops.CommitParts(ctx, p.Root, c)
	if err != nil {
		return "", err
	}
	_, base, err := gitops.CommitParts(ctx, p.Root, parent)
	if err != nil {
		return "", err
	}
	_, ours, err := gitops.CommitParts(ctx, p.Root, head)
	if err != nil {
		return "", err
	}
	merged, err := gitmerge.MergeTrees(ctx, p.Root, base, ours, theirs)
	if err != nil {
		return "", err
	}
	if len(merged.Conflicts) > 0 {
		return "", p.conflict(a, gitops.Checkpoint{Head: head}, merged.Conflicts)
	}
	return gitops.CopyCommit(ctx, p.Root, c, merged.Tree, head)
}

func (p Player) conflict(a Attempt, now gitops.Checkpoint, files []string) error {
	return Hinted(fmt.Errorf("attempt %d of %s started from commit %s, and its change does not apply to this repository (commit %s): it conflicts in %s",
		a.Number, p.Dir, short(a.Before.Head), short(now.Head), strings.Join(files, ", ")), replayFromStart)
}

// replayFromStart is the hint of a replay on a repository too far from the recording's.
const replayFromStart = "replay from the state the recording started in: a fresh clone of its first commit, or 'git ralph rollback' to before the replay's first iteration; edit the prompt files there (uncommitted or committed) and replay again"

// restore brings the repository to target, leaving git-ralph's own directory alone.
func (p Player) restore(ctx context.Context, a Attempt, target gitops.Checkpoint) error {
	plan, err := gitsnap.PlanRestore(ctx, p.Root, target, p.Own)
	if err != nil {
		return err
	}
	if len(plan.NestedInTheWay) > 0 {
		return fmt.Errorf("replaying attempt %d would overwrite the nested repositories %v", a.Number, plan.NestedInTheWay)
	}
	return plan.Apply(ctx, p.Root, "git-ralph replay")
}

// write plays the output's chunks at the pace Speed says.
func (p Player) write(ctx context.Context, chunks []Chunk) error {
	start := time.Now()
	for _, c := range chunks {
		if p.Speed > 0 {
			wait := time.Until(start.Add(time.Duration(float64(c.At) / p.Speed)))
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(wait):
			}
		}
		if _, err := p.Out.Write(c.Data); err != nil {
			return err
		}
	}
	return nil
}

func short(hash string) string {
	if hash == "" {
		return "(none: unborn branch)"
	}
	return hash[:min(len(hash), 12)]
}

// signals are the signals a recorded run may have been killed by, and the replay ends
// with: the loop's own (SIGTERM, SIGKILL) and the common crashes.
var signals = map[string]syscall.Signal{"SIGTERM": syscall.SIGTERM, "SIGKILL": syscall.SIGKILL,
	"SIGINT": syscall.SIGINT, "SIGHUP": syscall.SIGHUP, "SIGQUIT": syscall.SIGQUIT,
	"SIGABRT": syscall.SIGABRT, "SIGSEGV": syscall.SIGSEGV, "SIGPIPE": syscall.SIGPIPE}

func signalOf(name string) syscall.Signal { return signals[name] }

// HintedError is an error with what the user can do about it.
type HintedError struct {
	Err  error
	hint string
}

// Hinted wraps err with a hint.
func Hinted(err error, hint string) error { return &HintedError{Err: err, hint: hint} }

func (e *HintedError) Error() string { return e.Err.Error() }
func (e *HintedError) Unwrap() error { return e.Err }
func (e *HintedError) Hint() string  { return e.hint }

// The lines a replay that cannot go on prints, for the loop to read back (Failure).
const (
	errorPrefix = "git-ralph replay: error: "
	hintPrefix  = "git-ralph replay: hint: "
)

// WriteFailure prints err (and its hint, if any) as the lines Failure reads.
func WriteFailure(w io.Writer, err error) {
	fmt.Fprintf(w, "%s%s\n", errorPrefix, oneLine(err.Error()))
	hint := "the recording is damaged or not one this git-ralph reads: record the run again with --record DIR"
	var h interface{ Hint() string }
	if errors.As(err, &h) && h.Hint() != "" {
		hint = h.Hint()
	}
	fmt.Fprintf(w, "%s%s\n", hintPrefix, oneLine(hint))
}

// Failure reads what WriteFailure printed from the end of an output: why the replay
// could not go on, and what to do about it.
func Failure(output []byte) (msg, hint string) {
	for _, line := range strings.Split(string(output), "\n") {
		if m, ok := strings.CutPrefix(line, errorPrefix); ok {
			msg, hint = m, ""
		} else if h, ok := strings.CutPrefix(line, hintPrefix); ok {
			hint = h
		}
	}
	if msg == "" {
		msg = "the replay ended with exit code " + strconv.Itoa(ExitCannotReplay)
	}
	return msg, hint
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
