package loop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitsnap"
	"github.com/git-ralph/git-ralph/gitops/gitwt"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/history/redact"
	"github.com/git-ralph/git-ralph/loop/agent"
	"github.com/git-ralph/git-ralph/prompts"
)

// logbook is the run's durable memory of its iterations: one record per iteration with
// its prompt, output and diff, and the refs that keep every checkpoint alive for rollback
// and for diffs after a rebase or gc. (The run's state file is stateFile's.)
type logbook struct {
	root   string
	refs   string // where this work tree's refs go: refPrefix
	store  *history.Store
	pruner *history.Pruner // the retention, applied after each iteration; nil: keep all
	warn   func(string)
}

// iterationRecord is what the logbook keeps while one iteration runs.
type iterationRecord struct {
	number  int // unique in the repository
	before  gitops.Checkpoint
	started time.Time
	output  *outputLog
}

// outputLog saves an iteration's output as it arrives, up to limit bytes; the end of a
// longer output is added from the ring buffer when the iteration is over. So the log
// holds the beginning and the end, and a runaway agent cannot fill the disk. Secrets are
// redacted on the way to the file (the loop itself reads the output unredacted); limit
// and written count the agent's bytes, before redaction.
type outputLog struct {
	f       *os.File
	redact  *redact.Writer
	limit   int64
	written int64
}

func newOutputLog(f *os.File, limit int64) *outputLog {
	return &outputLog{f: f, redact: redact.NewWriter(f), limit: limit}
}

// Write never fails: a full disk must not stop the capture.
func (l *outputLog) Write(p []byte) (int, error) {
	if room := l.limit - l.written; room > 0 {
		n := min(int64(len(p)), room)
		_, _ = l.redact.Write(p[:n])
		l.written += n
	}
	return len(p), nil
}

// close completes the log with the part of the output's end it did not get: tail is
// the last bytes of an output of total bytes. When a gap is left between the two, the
// word the ring buffer cut at the tail's start is left out with it: a key cut in two
// would no longer be recognised.
func (l *outputLog) close(tail []byte, total int64) error {
	l.redact.Flush()
	if missing := total - l.written; missing > 0 {
		if int64(len(tail)) > missing {
			tail = tail[int64(len(tail))-missing:]
		} else {
			tail = afterCutWord(tail)
			fmt.Fprintf(l.f, "\n[git-ralph: %d bytes of output omitted]\n", missing-int64(len(tail)))
		}
		l.f.Write(redact.Bytes(tail))
	}
	return l.f.Close()
}

// afterCutWord is b without the run of key characters it starts with, when something
// else follows (a tail that is one word is kept: there is nothing else to show).
func afterCutWord(b []byte) []byte {
	i := bytes.IndexFunc(b, func(r rune) bool { return !redact.IsKeyByte(r) })
	if i < 0 {
		return b
	}
	return b[i:]
}

// openLogbook opens the history of the work tree at root, with the retention to apply
// (zero: keep all).
func openLogbook(ctx context.Context, root string, retention history.Retention, warn func(string)) (*logbook, error) {
	store, err := history.OpenStore(root)
	if err != nil {
		return nil, err
	}
	if err := history.EnsureGitignore(root); err != nil {
		return nil, fmt.Errorf("writing .ralph/.gitignore: %w", err)
	}
	history.RemoveLeftovers(root) // Run is called with the repository's lock held
	refs, err := refPrefix(ctx, root)
	if err != nil {
		return nil, err
	}
	b := &logbook{root: root, refs: refs, store: store, warn: warn}
	if retention != (history.Retention{}) {
		b.pruner = &history.Pruner{Store: store, Retention: retention}
	}
	return b, nil
}

// checkpoint takes the checkpoint the loop starts from, kept alive by the work tree's
// latest refs from the moment it is written.
func (b *logbook) checkpoint(ctx context.Context) (gitops.Checkpoint, error) {
	return gitsnap.TakeCheckpoint(ctx, b.root, b.latestRefs)
}

// latestRefs keep the work tree's last checkpoint alive: the one the next iteration starts
// from, before that iteration's own refs exist, so that a gc meanwhile prunes none of it.
func (b *logbook) latestRefs(c gitops.Checkpoint) []gitops.Ref {
	return []gitops.Ref{{Name: b.refs + "latest", Hash: c.Head}, {Name: b.refs + "latest-tree", Hash: c.Tree}}
}

// begin allocates the iteration's number and opens its output log.
func (b *logbook) begin(before gitops.Checkpoint, now time.Time, logLimit int) (*iterationRecord, error) {
	n, err := b.store.Next()
	if err != nil {
		return nil, fmt.Errorf("numbering the iteration: %w", err)
	}
	out, err := os.Create(b.store.OutputPath(n))
	if err != nil {
		return nil, fmt.Errorf("creating the iteration's output log: %w", err)
	}
	return &iterationRecord{number: n, before: before, started: now, output: newOutputLog(out, int64(logLimit))}, nil
}

// checkpointRefs keep both checkpoints of iteration n alive: the commits for rollback,
// the trees (which hold uncommitted work too) for diffs after a rebase or gc. They are
// written together, in the git process that keeps the checkpoint after it.
func checkpointRefs(prefix string, n int, before, after gitops.Checkpoint) []gitops.Ref {
	return []gitops.Ref{
		{Name: checkpointRef(prefix, n, "before"), Hash: before.Head}, {Name: checkpointRef(prefix, n, "before-tree"), Hash: before.Tree},
		{Name: checkpointRef(prefix, n, "after"), Hash: after.Head}, {Name: checkpointRef(prefix, n, "after-tree"), Hash: after.Tree},
	}
}

// checkpointKinds are the refs kept for each iteration (see checkpointRefs).
var checkpointKinds = []string{"before", "before-tree", "after", "after-tree"}

// prune applies the retention settings after iteration n (its history number): the
// oldest iterations lose their saved output and diff, and the refs that kept their
// checkpoints, so that git can collect what only they held. A failure is for a warning:
// the iteration itself is saved.
func (b *logbook) prune(ctx context.Context, n int) error {
	if b.pruner == nil {
		return nil
	}
	pruned, err := b.pruner.Pruned(n)
	var refs []string
	for _, n := range pruned {
		for _, which := range checkpointKinds {
			refs = append(refs, checkpointRef(b.refs, n, which))
		}
	}
	if refErr := gitops.DeleteRefs(ctx, b.root, refs); refErr != nil {
		err = errors.Join(err, refErr)
	}
	return err
}

// keepPrompt keeps iteration n's prompt in its history directory (redacted, bounded),
// and says what it was made of. A prompt that cannot be kept is a warning: the agent
// need not wait for the record of what it was told.
func (b *logbook) keepPrompt(n int, prompt prompts.Prompt, text string) PromptInfo {
	info := PromptInfo{Bytes: len(text)}
	for _, s := range prompt.Sections {
		info.Sections = append(info.Sections, PromptPart{Title: s.Title, Source: s.Source, Bytes: len(s.Body)})
	}
	cut, err := b.store.SavePrompt(n, text)
	if err != nil {
		b.warn(err.Error())
		return info
	}
	info.Kept, info.Cut = b.relative(b.store.PromptPath(n)), cut
	return info
}

// CheckpointRef names the ref that keeps one of iteration n's checkpoints alive in the work
// tree at root: which is before, before-tree, after or after-tree. Each work tree has its
// own (iteration numbers are per work tree, like .ralph/): refs/ralph/iterations/N/ in the
// main work tree, refs/ralph/worktrees/<id>/iterations/N/ in a linked one.
func CheckpointRef(ctx context.Context, root string, n int, which string) (string, error) {
	prefix, err := refPrefix(ctx, root)
	if err != nil {
		return "", err
	}
	return checkpointRef(prefix, n, which), nil
}

// NamedCheckpoints is the prefix of the refs that keep the named checkpoints ('git ralph
// checkpoint LABEL') of the work tree at root: checkpoints/ beside its iterations/.
func NamedCheckpoints(ctx context.Context, root string) (string, error) {
	prefix, err := refPrefix(ctx, root)
	return prefix + "checkpoints/", err
}

func checkpointRef(prefix string, n int, which string) string {
	return prefix + "iterations/" + strconv.Itoa(n) + "/" + which
}

// refPrefix is where the refs of the work tree at root go: refs/ralph/ in the main work
// tree, where they always were, and refs/ralph/worktrees/<id>/ in a linked one.
//
// They are ordinary shared refs, not git's per-worktree refs/worktree/: git 2.39's gc,
// run in one work tree, ignores the refs/worktree/ refs of the others and prunes what only
// they keep.
func refPrefix(ctx context.Context, root string) (string, error) {
	id, err := gitwt.ID(ctx, root)
	if err != nil {
		return "", err
	}
	if id == "" {
		return "refs/ralph/", nil
	}
	return "refs/ralph/worktrees/" + id + "/", nil
}

// bookkeeping is the context of the end-of-iteration bookkeeping: not cancelled with ctx,
// so that an interrupted iteration still gets its record, but bounded once ctx is: it ends
// grace after the interrupt (or after the bookkeeping began, if the interrupt came first,
// while the agent was being stopped), or at once on hurry. So whatever git does, it cannot
// keep Ctrl+C from ending the loop.
func bookkeeping(ctx context.Context, grace time.Duration, hurry <-chan struct{}) (context.Context, context.CancelFunc) {
	bctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	go func() {
		select {
		case <-bctx.Done():
			return
		case <-ctx.Done():
		}
		select {
		case <-bctx.Done():
		case <-hurry:
			cancel(context.Cause(ctx))
		case <-time.After(grace):
			cancel(context.Cause(ctx))
		}
	}()
	return bctx, func() { cancel(nil) }
}

// finish measures what the iteration changed, saves its diff and record, and returns
// the checkpoint after it and the record. observe sees the checkpoint after and completes
// the record before it is saved (the idle watch's figures go into it).
func (b *logbook) finish(ctx context.Context, it *iterationRecord, res agent.Result, rec history.Record, observe func(gitops.Checkpoint, *history.Record)) (gitops.Checkpoint, history.Record, error) {
	if err := it.output.close(res.Output, res.OutputBytes); err != nil {
		return gitops.Checkpoint{}, rec, fmt.Errorf("saving the output of iteration %d: %w", it.number, err)
	}
	after, changes, err := b.measure(ctx, it)
	if err != nil {
		return after, rec, fmt.Errorf("reading the repository after iteration %d: %w", rec.RunIteration, err)
	}
	rec.Iteration = it.number
	rec.CommitBefore, rec.CommitAfter = it.before.Head, after.Head
	if changes != nil {
		rec.FilesChanged, rec.Insertions, rec.Deletions = changes.Files, changes.Insertions, changes.Deletions
	}
	rec.OutputPath = b.relative(b.store.OutputPath(it.number))
	rec.DiffPath = b.relative(b.store.DiffPath(it.number))
	observe(after, &rec)
	if err := b.store.Save(rec); err != nil {
		return after, rec, fmt.Errorf("saving the record of iteration %d: %w", it.number, err)
	}
	return after, rec, nil
}

// measure takes the checkpoint after iteration it, kept alive with the iteration's refs,
// saves the iteration's diff and counts what changed. A checkpoint whose objects a
// concurrent gc pruned shows as a diff that fails on a missing object: the checkpoint after
// is taken again (the work tree still holds it). When the missing object is the checkpoint
// before's, nothing brings it back: the iteration is recorded without its changes (nil) and
// with an empty diff, with a warning, rather than lost.
func (b *logbook) measure(ctx context.Context, it *iterationRecord) (gitops.Checkpoint, *gitsnap.Changes, error) {
	for attempt := 1; ; attempt++ {
		after, err := b.keepAfter(ctx, it)
		if err != nil {
			return after, nil, err
		}
		if it.before.Tree == "" || after.Tree == it.before.Tree { // lost (and said so), or no change
			return after, changesIf(it.before.Tree != ""), b.saveDiff(it, nil)
		}
		changes, err := b.diff(ctx, it, after)
		switch {
		case err == nil:
			return after, &changes, nil
		case !gitops.IsPruned(err):
			return after, nil, err
		case attempt == measureAttempts:
			b.lostBefore(it, err)
			return after, nil, b.saveDiff(it, nil)
		}
	}
}

// changesIf is no change when known, else nil: unknown.
func changesIf(known bool) *gitsnap.Changes {
	if known {
		return &gitsnap.Changes{}
	}
	return nil
}

// diff saves the iteration's unified diff, produced by git, to its record and counts it.
func (b *logbook) diff(ctx context.Context, it *iterationRecord, after gitops.Checkpoint) (gitsnap.Changes, error) {
	var changes gitsnap.Changes
	err := b.saveDiff(it, func(f io.Writer) (err error) {
		changes, err = gitsnap.DiffCounted(ctx, b.root, it.before.Tree, after.Tree, f)
		return err
	})
	return changes, err
}

// saveDiff writes the iteration's diff file with write, or empty when write is nil.
func (b *logbook) saveDiff(it *iterationRecord, write func(io.Writer) error) error {
	f, err := os.Create(b.store.DiffPath(it.number))
	if err != nil {
		return fmt.Errorf("saving the diff of iteration %d: %w", it.number, err)
	}
	if write != nil {
		err = write(f)
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("saving the diff of iteration %d: %w", it.number, cerr)
	}
	return err
}

// keepAfter takes the checkpoint after iteration it and keeps both of its checkpoints with
// its refs. When that fails on a missing object, the one before is what a gc pruned if git
// no longer has its commit or tree; otherwise the new checkpoint was pruned while being
// taken, and is taken again.
func (b *logbook) keepAfter(ctx context.Context, it *iterationRecord) (gitops.Checkpoint, error) {
	for attempt := 1; ; attempt++ {
		after, err := gitsnap.TakeCheckpoint(ctx, b.root, func(after gitops.Checkpoint) []gitops.Ref {
			return append(b.latestRefs(after), checkpointRefs(b.refs, it.number, it.before, after)...)
		})
		if !gitops.IsPruned(err) {
			return after, err
		}
		missing, merr := gitops.MissingObjects(ctx, b.root, it.before.Head, it.before.Tree)
		if merr != nil {
			return after, merr
		}
		if len(missing) > 0 {
			return b.keepAfterAlone(ctx, it, err)
		}
		if attempt == measureAttempts {
			return after, err
		}
	}
}

// keepAfterAlone keeps the checkpoint after iteration it when the one before is lost.
func (b *logbook) keepAfterAlone(ctx context.Context, it *iterationRecord, lost error) (gitops.Checkpoint, error) {
	after, err := gitsnap.TakeCheckpoint(ctx, b.root, func(after gitops.Checkpoint) []gitops.Ref {
		return append(b.latestRefs(after), checkpointRefs(b.refs, it.number, gitops.Checkpoint{}, after)...)
	})
	if err != nil {
		return after, err
	}
	b.lostBefore(it, lost)
	it.before.Tree = "" // unknown: measure records no changes
	return after, nil
}

func (b *logbook) lostBefore(it *iterationRecord, err error) {
	b.warn(fmt.Sprintf("iteration %d is recorded without its changes: a git object of the checkpoint it started from is missing (pruned by a concurrent git gc?): %v", it.number, err))
}

// measureAttempts bounds how often measure takes the checkpoint after an iteration again.
const measureAttempts = 3

func (b *logbook) relative(path string) string {
	if rel, err := filepath.Rel(b.root, path); err == nil {
		return rel
	}
	return path
}
