package gitnotes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/internal/gitstore"
)

// Notes are kept under a full ref in refs/notes/ (git notes refuses others). Every change
// is built on a private scratch ref and lands by compare-and-swap (`git update-ref ref
// new old`): `git notes add` and `git notes merge` themselves move their ref without
// checking what it held, so two writers at once could each build on the same tip and the
// second would drop the first one's note.

// noteAttempts bounds how often a note write or merge is built again after another
// writer moved the ref first.
const noteAttempts = 20

// notesPushAttempts bounds the pushes of a notes ref that the remote rejected because
// its notes moved (each followed by a fetch and a merge).
const notesPushAttempts = 3

// scratchNotes is where the scratch refs go: per process and call, deleted after use.
const scratchNotes = "refs/notes/ralph-scratch/"

// Append adds text to the note of commit in ref (a full ref under refs/notes/), after
// the note already there with a blank line between, the way `git notes append` does.
// Writers at once (two loops of one repository) both land: a writer that lost the race
// builds its note again on the new tip. The note is built in process where it can be
// (appendNoteQuick), else with `git notes` on a scratch ref.
func Append(ctx context.Context, dir, ref, commit, text string) error {
	if err := appendNoteQuick(ctx, dir, ref, commit, text); !errors.Is(err, gitstore.ErrNotQuick) {
		return err
	}
	return appendNoteGit(ctx, dir, ref, commit, text)
}

// appendNoteGit is Append with `git notes append` on a scratch ref.
func appendNoteGit(ctx context.Context, dir, ref, commit, text string) error {
	return swapNotes(ctx, dir, ref, "git-ralph: note "+commit, func(scratch string) error {
		_, err := notesGit(ctx, dir, strings.NewReader(text), "notes", "--ref="+scratch, "append", "-F", "-", commit)
		return err
	})
}

// Merge merges the notes commit from into ref with git's union strategy: a commit
// noted on both sides keeps both notes, one after the other (a note both sides had, and
// one of them added to, comes out with its first part twice: a reader drops repeats).
// Nothing of either side is ever dropped.
func Merge(ctx context.Context, dir, ref, from string) error {
	return swapNotes(ctx, dir, ref, "git-ralph: merge notes", func(scratch string) error {
		_, err := notesGit(ctx, dir, nil, "notes", "--ref="+scratch, "merge", "--quiet", "--strategy=union", from)
		return err
	})
}

// swapNotes runs change on a scratch ref that starts at ref's tip, then moves ref to the
// scratch's new tip if ref did not move meanwhile; else it starts again.
func swapNotes(ctx context.Context, dir, ref, reason string, change func(scratch string) error) error {
	scratch := scratchRef()
	defer deleteScratch(ctx, dir, scratch)
	for attempt := 1; ; attempt++ {
		old, err := gitops.ResolveRef(ctx, dir, ref)
		if err != nil {
			return err
		}
		if err := resetScratch(ctx, dir, scratch, old); err != nil {
			return err
		}
		if err := change(scratch); err != nil {
			return fmt.Errorf("writing %s: %w", ref, err)
		}
		tip, err := gitops.ResolveRef(ctx, dir, scratch)
		if err != nil {
			return err
		}
		err = gitops.SwapRef(ctx, dir, ref, tip, old, reason)
		if err == nil || attempt == noteAttempts || ctx.Err() != nil {
			return err
		}
		// moved by another writer, or locked by one right now: again, a moment later
		time.Sleep(noteRetryPause())
	}
}

// noteRetryPause is how long a notes writer that lost the race waits before it builds
// its change again: a moment, random so that two writers do not meet again.
func noteRetryPause() time.Duration { return time.Duration(5+rand.IntN(45)) * time.Millisecond }

// scratchRef names a fresh scratch ref for this process.
func scratchRef() string {
	return scratchNotes + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(rand.Uint64(), 36)
}

// resetScratch points scratch at tip, or removes it when tip is "" (no notes yet).
func resetScratch(ctx context.Context, dir, scratch, tip string) error {
	if tip == "" {
		return deleteScratch(ctx, dir, scratch)
	}
	_, err := gitops.Git(ctx, dir, "update-ref", "--no-deref", scratch, tip)
	return err
}

func deleteScratch(ctx context.Context, dir, scratch string) error {
	_, err := gitops.Git(context.WithoutCancel(ctx), dir, "update-ref", "--no-deref", "-d", scratch)
	return err
}

// notesGit runs a git notes command, which commits: with the user's identity when git
// has one, else with git-ralph's own (a loop must not stop for want of user.email).
func notesGit(ctx context.Context, dir string, stdin io.Reader, args ...string) (string, error) {
	var env []string
	if _, _, ok := gitops.Ident(ctx, dir, "GIT_COMMITTER_IDENT"); !ok {
		env = gitops.BackupIdentity
	}
	var out strings.Builder
	err := gitops.GitTo(ctx, dir, env, stdin, &out, args...)
	return out.String(), err
}

// RemoveScratch deletes the scratch refs that notes writers killed halfway left
// behind: those whose process is gone. It returns how many it removed.
func RemoveScratch(ctx context.Context, dir string) (int, error) {
	out, err := gitops.Git(ctx, dir, "for-each-ref", "--format=%(refname)", scratchNotes)
	if err != nil || out == "" {
		return 0, err
	}
	removed := 0
	for ref := range strings.SplitSeq(out, "\n") {
		pid, _, _ := strings.Cut(strings.TrimPrefix(ref, scratchNotes), "-")
		if n, err := strconv.Atoi(pid); err == nil && processAlive(n) {
			continue
		}
		if err := deleteScratch(ctx, dir, ref); err != nil {
			return removed, err
		}
		removed++
	}
	return removed, nil
}
