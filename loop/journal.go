package loop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/agent"
)

// journal is the run's durable memory: the state file, one record per iteration with
// its diff and output, and the refs that keep every checkpoint alive for rollback and
// for diffs after a rebase or gc.
type journal struct {
	root  string
	store *history.Store
	state history.State
}

// iterationRecord is what the journal keeps while one iteration runs.
type iterationRecord struct {
	number  int // unique in the repository
	before  gitops.Checkpoint
	started time.Time
	output  *outputLog
}

// outputLog saves an iteration's output as it arrives, up to limit bytes; the end of a
// longer output is added from the ring buffer when the iteration is over. So the log
// holds the beginning and the end, and a runaway agent cannot fill the disk.
type outputLog struct {
	f       *os.File
	limit   int64
	written int64
}

// Write never fails: a full disk must not stop the capture.
func (l *outputLog) Write(p []byte) (int, error) {
	if room := l.limit - l.written; room > 0 {
		n, _ := l.f.Write(p[:min(int64(len(p)), room)])
		l.written += int64(n)
	}
	return len(p), nil
}

// close completes the log with the part of the output's end it did not get: tail is
// the last bytes of an output of total bytes.
func (l *outputLog) close(tail []byte, total int64) error {
	if missing := total - l.written; missing > 0 {
		if int64(len(tail)) > missing {
			tail = tail[int64(len(tail))-missing:]
		} else {
			fmt.Fprintf(l.f, "\n[git-ralph: %d bytes of output omitted]\n", missing-int64(len(tail)))
		}
		l.f.Write(tail)
	}
	return l.f.Close()
}

func openJournal(root string) (*journal, error) {
	store, err := history.OpenStore(root)
	if err != nil {
		return nil, err
	}
	if err := history.EnsureGitignore(root); err != nil {
		return nil, fmt.Errorf("writing .ralph/.gitignore: %w", err)
	}
	return &journal{root: root, store: store}, nil
}

// save writes the state atomically.
func (j *journal) save() error {
	if err := history.SaveState(j.root, j.state); err != nil {
		return fmt.Errorf("saving the loop's state: %w", err)
	}
	return nil
}

// begin allocates the iteration's number and opens its output log.
func (j *journal) begin(before gitops.Checkpoint, now time.Time, logLimit int) (*iterationRecord, error) {
	n, err := j.store.Next()
	if err != nil {
		return nil, fmt.Errorf("numbering the iteration: %w", err)
	}
	out, err := os.Create(j.store.OutputPath(n))
	if err != nil {
		return nil, fmt.Errorf("creating the iteration's output log: %w", err)
	}
	return &iterationRecord{number: n, before: before, started: now, output: &outputLog{f: out, limit: int64(logLimit)}}, nil
}

// checkpointRefs keep both checkpoints of iteration n alive: the commits for rollback,
// the trees (which hold uncommitted work too) for diffs after a rebase or gc. They are
// written together, in one git process, when the iteration is over.
func checkpointRefs(n int, before, after gitops.Checkpoint) []gitops.Ref {
	return []gitops.Ref{
		{Name: CheckpointRef(n, "before"), Hash: before.Head}, {Name: CheckpointRef(n, "before-tree"), Hash: before.Tree},
		{Name: CheckpointRef(n, "after"), Hash: after.Head}, {Name: CheckpointRef(n, "after-tree"), Hash: after.Tree},
	}
}

// CheckpointRef names the ref that keeps one of iteration n's checkpoints alive: which is
// before, before-tree, after or after-tree.
func CheckpointRef(n int, which string) string {
	return "refs/ralph/iterations/" + strconv.Itoa(n) + "/" + which
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
// the checkpoint after it and the changes.
func (j *journal) finish(ctx context.Context, it *iterationRecord, res agent.Result, rec history.Record) (gitops.Checkpoint, history.Record, error) {
	if err := it.output.close(res.Output, res.OutputBytes); err != nil {
		return gitops.Checkpoint{}, rec, fmt.Errorf("saving the output of iteration %d: %w", it.number, err)
	}
	after, err := gitops.TakeCheckpoint(ctx, j.root)
	if err != nil {
		return after, rec, fmt.Errorf("reading the repository after iteration %d: %w", rec.RunIteration, err)
	}
	var changes gitops.Changes
	if after.Tree != it.before.Tree {
		if changes, err = gitops.DiffStat(ctx, j.root, it.before.Tree, after.Tree); err != nil {
			return after, rec, err
		}
	}
	if err := j.saveDiff(ctx, it, after); err != nil {
		return after, rec, err
	}
	if err := gitops.KeepAliveAll(ctx, j.root, checkpointRefs(it.number, it.before, after)); err != nil {
		return after, rec, err
	}
	rec.Iteration = it.number
	rec.CommitBefore, rec.CommitAfter = it.before.Head, after.Head
	rec.FilesChanged, rec.Insertions, rec.Deletions = changes.Files, changes.Insertions, changes.Deletions
	rec.OutputPath = j.relative(j.store.OutputPath(it.number))
	rec.DiffPath = j.relative(j.store.DiffPath(it.number))
	if err := j.store.Save(rec); err != nil {
		return after, rec, fmt.Errorf("saving the record of iteration %d: %w", it.number, err)
	}
	return after, rec, nil
}

// saveDiff writes the iteration's unified diff, produced by git, to its record.
func (j *journal) saveDiff(ctx context.Context, it *iterationRecord, after gitops.Checkpoint) error {
	f, err := os.Create(j.store.DiffPath(it.number))
	if err != nil {
		return fmt.Errorf("saving the diff of iteration %d: %w", it.number, err)
	}
	if it.before.Tree != after.Tree {
		err = gitops.Diff(ctx, j.root, it.before.Tree, after.Tree, f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (j *journal) relative(path string) string {
	if rel, err := filepath.Rel(j.root, path); err == nil {
		return rel
	}
	return path
}

// record builds the history record of an agent's result (without the git parts).
func record(run string, i int, mode string, started, ended time.Time, res agent.Result, outcome Outcome, promise Promise) history.Record {
	rec := history.Record{Run: run, RunIteration: i, Mode: mode, StartedAt: started, EndedAt: ended,
		DurationMS: res.Duration.Milliseconds(), ExitCode: res.ExitCode, Outcome: string(outcome),
		Signal: string(promise), TimedOut: res.TimedOut}
	if res.Signal != 0 {
		rec.KilledBy = SignalName(res.Signal)
	}
	return rec
}
