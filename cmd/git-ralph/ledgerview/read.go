package ledgerview

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitnotes"
	"github.com/git-ralph/git-ralph/gitops/gitpush"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/history/ledger"
	"github.com/git-ralph/git-ralph/loop"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// MaxCommits bounds the commits one ledger lists.
const MaxCommits = 10_000

// maxNotesRead bounds the bytes of all the notes one ledger reads.
const maxNotesRead = 64 << 20

// iterationCommits bounds the commits one iteration is said to have made.
const iterationCommits = 1000

// fetchTimeout bounds the fetch of the remote's notes: an unreachable remote must not
// keep the ledger from showing the local notes.
var fetchTimeout = time.Minute

// Ledger is what `git ralph ledger` prints: the commits of a range with the iterations
// that made them, and their totals.
type Ledger struct {
	Range       string   `json:"range"` // the revisions listed, as git reads them
	Base        string   `json:"base"`  // how the range was chosen, in words
	Commits     []Commit `json:"commits"`
	WithoutNote int      `json:"commits_without_note"`
	Truncated   bool     `json:"truncated"` // more than MaxCommits: the oldest are not listed (always written: documented)
	Totals      Totals   `json:"totals"`
}

// Totals are the range's totals, with their duration in milliseconds for JSON.
type Totals struct {
	ledger.Totals
	DurationMS int64 `json:"duration_ms"`
}

// Commit is one commit of the range.
type Commit struct {
	Hash       string              `json:"commit"`
	Subject    string              `json:"subject"`
	Entries    []Entry             `json:"entries,omitempty"`
	Unreadable []ledger.Unreadable `json:"unreadable,omitempty"`
	// MadeBy is the noted commit whose iteration made this one too (an iteration that
	// made several commits notes its last); "" for a noted commit or one without a note.
	MadeBy string `json:"made_by,omitempty"`
}

// Entry is a ledger entry with its duration in milliseconds for JSON.
type Entry struct {
	ledger.Entry
	DurationMS int64 `json:"duration_ms"`
}

// Request says what to read.
type Request struct {
	Root   string
	Revs   []string // a revision range; none: the current branch since its base
	Remote string   // the remote whose notes to merge first; "": the branch's, if any
	Warn   func(string)
}

// Read merges the remote's notes into the local ledger, then reads the ledger of the range.
func Read(ctx context.Context, req Request) (*Ledger, error) {
	if err := fetch(ctx, req); err != nil {
		return nil, err
	}
	revs, base, err := rangeOf(ctx, req)
	if err != nil {
		return nil, err
	}
	if len(req.Revs) == 0 {
		if head, err := gitops.ResolveRef(ctx, req.Root, "HEAD"); err != nil || head == "" {
			return &Ledger{Range: "HEAD", Base: "HEAD has no commit yet", Commits: []Commit{}}, err
		}
	}
	commits, truncated, err := gitnotes.RangeCommits(ctx, req.Root, revs, MaxCommits)
	if err != nil {
		return nil, err
	}
	hashes := make([]string, len(commits))
	for i, c := range commits {
		hashes[i] = c.Hash
	}
	notes, err := gitnotes.Read(ctx, req.Root, loop.NotesRef, hashes, gitnotes.Bounds{Each: ledger.MaxNote, Total: maxNotesRead})
	if err != nil {
		return nil, err
	}
	l := &Ledger{Range: strings.Join(revs, " "), Base: base, Truncated: truncated, Commits: []Commit{}} // [] for an empty range, not null
	l.fill(commits, notes)
	l.attribute(ctx, req.Root)
	l.Totals.DurationMS = l.Totals.Duration.Milliseconds()
	return l, nil
}

// fetch merges the remote's notes into the local ones. A remote named with --remote must
// exist; an unreachable one is a warning: the local notes are shown.
func fetch(ctx context.Context, req Request) error {
	remote := req.Remote
	if remote == "" {
		remote = gitops.BranchRemote(ctx, req.Root)
	} else if !gitops.RemoteExists(ctx, req.Root, remote) {
		return fmt.Errorf("%w: %q", gitpush.ErrNoRemote, remote)
	}
	if remote == "" {
		return nil
	}
	fctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	if _, err := gitnotes.Fetch(fctx, req.Root, remote, loop.NotesRef); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		req.Warn(fmt.Sprintf("cannot bring in the ledger of %s, showing the notes this repository has: %v", remote, err))
	}
	return nil
}

// fill lays out the commits with their notes and counts the totals.
func (l *Ledger) fill(commits []gitnotes.LoggedCommit, notes map[string]gitnotes.Note) {
	for _, c := range commits {
		row := Commit{Hash: c.Hash, Subject: c.Subject}
		note, ok := notes[c.Hash]
		switch {
		case !ok: // a commit without a note
		case note.NotBlob:
			row.Unreadable = []ledger.Unreadable{{Reason: "the note is not a text"}}
		case note.Skipped:
			row.Unreadable = []ledger.Unreadable{{Reason: fmt.Sprintf("not read: the notes of this range pass %d MB in all; give a shorter range", maxNotesRead>>20)}}
		case note.TooLarge > 0:
			row.Unreadable = []ledger.Unreadable{{Reason: fmt.Sprintf("the note is %d bytes, more than the %d a ledger note may have", note.TooLarge, ledger.MaxNote)}}
		default:
			var entries []ledger.Entry
			entries, row.Unreadable = ledger.Parse(note.Text)
			for _, e := range entries {
				row.Entries = append(row.Entries, Entry{e, e.Duration.Milliseconds()})
				l.Totals.Add(e)
			}
		}
		l.Commits = append(l.Commits, row)
	}
}

// attribute marks the commits that a noted iteration made before its last one, from the
// commit each entry says the iteration started from and the number of commits it made
// (when git finds another number between the two, the note was copied onto a rewritten
// commit and nothing is marked); then counts what is left unnoted.
func (l *Ledger) attribute(ctx context.Context, root string) {
	at := map[string]int{}
	for i, c := range l.Commits {
		at[c.Hash] = i
	}
	for _, c := range l.Commits {
		for _, e := range c.Entries {
			if e.Commits < 2 || e.Commits > iterationCommits {
				continue
			}
			made, err := gitnotes.IterationCommits(ctx, root, e.Before, c.Hash, iterationCommits)
			if err != nil || len(made) != e.Commits {
				// its start is not in this clone (shallow), or the commit was rewritten
				// (a rebase that copied the note): what lies between is not all its own
				continue
			}
			for _, h := range made {
				if i, ok := at[h]; ok && h != c.Hash && len(l.Commits[i].Entries) == 0 && len(l.Commits[i].Unreadable) == 0 && l.Commits[i].MadeBy == "" {
					l.Commits[i].MadeBy = c.Hash
				}
			}
		}
	}
	for _, c := range l.Commits {
		if len(c.Entries) == 0 && len(c.Unreadable) == 0 && c.MadeBy == "" {
			l.WithoutNote++
		}
	}
}

// rangeOf is the range to list and how it was chosen: the revisions given, else the
// current branch since its base (see base).
func rangeOf(ctx context.Context, req Request) ([]string, string, error) {
	if len(req.Revs) > 0 {
		for _, r := range req.Revs {
			if strings.HasPrefix(r, "-") {
				return nil, "", hints.Wrap(fmt.Errorf("%q is not a revision range", r),
					"give a range as git log reads it, not an option: main..HEAD, HEAD~10.., a branch or a commit")
			}
		}
		return req.Revs, "the range given", nil
	}
	commit, why, err := base(ctx, req.Root)
	if err != nil || commit == "" {
		return []string{"HEAD"}, why, err
	}
	return []string{commit + "..HEAD"}, why, nil
}

// base is where the current branch starts, in this order: a worktree loop's branch
// (ralph/NAME) starts at the commit its loop recorded; the remote's default branch (or a
// branch that tracks it) has no base: its whole history; any other branch starts at its
// merge base with the remote's default branch. "" (the whole history) when the remote's
// default branch is not known either, or HEAD is detached.
func base(ctx context.Context, root string) (string, string, error) {
	branch, err := gitops.CurrentBranch(ctx, root)
	if errors.Is(err, gitops.ErrDetached) {
		return "", "the whole history of HEAD (detached: no branch to start from)", nil
	}
	if err != nil {
		return "", "", err
	}
	if name, ok := strings.CutPrefix(branch, "ralph/"); ok {
		if c, found := worktreeLoopBase(ctx, root, name); found {
			return c, fmt.Sprintf("since %.7s, where the worktree loop %s started", c, name), nil
		}
	}
	remote := gitops.BranchRemote(ctx, root)
	def := defaultBranch(ctx, root, remote)
	switch {
	case def == "":
		return "", "the whole history of HEAD (no remote default branch to start from)", nil
	case branch != "" && (branch == strings.TrimPrefix(def, "refs/remotes/"+remote+"/") || gitops.Upstream(ctx, root) == def):
		return "", "the whole history of " + branch + ", the remote's default branch", nil
	}
	mb, err := gitops.MergeBase(ctx, root, "HEAD", def)
	if err != nil || mb == "" {
		return "", "the whole history of HEAD (no common history with " + short(def) + ")", err
	}
	return mb, fmt.Sprintf("since %.7s, the merge base with %s", mb, short(def)), nil
}

// defaultBranch is the remote's default branch as the clone recorded it, else its main or
// master branch; "" when none is known.
func defaultBranch(ctx context.Context, root, remote string) string {
	if remote == "" {
		return ""
	}
	if def := gitops.RemoteDefault(ctx, root, remote); def != "" {
		return def
	}
	for _, name := range []string{"main", "master"} {
		ref := "refs/remotes/" + remote + "/" + name
		if c, err := gitops.ResolveRef(ctx, root, ref); err == nil && c != "" {
			return ref
		}
	}
	return ""
}

// worktreeLoopBase is the commit the worktree loop name's branch was created at.
func worktreeLoopBase(ctx context.Context, root, name string) (string, bool) {
	if fleet.CheckName(name) != nil {
		return "", false
	}
	common, err := gitops.CommonDir(ctx, root)
	if err != nil {
		return "", false
	}
	l, found, err := history.LoadWorktreeLoop(common, name)
	if err != nil || !found || !ledger.IsHash(l.BaseCommit) {
		return "", false
	}
	return l.BaseCommit, true
}

func short(ref string) string { return strings.TrimPrefix(ref, "refs/remotes/") }
