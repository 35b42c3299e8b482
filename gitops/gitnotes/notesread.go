package gitnotes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/git-ralph/git-ralph/gitops"
)

// Note is the note of one commit, read from a notes ref.
type Note struct {
	Text     string // "" when TooLarge or Skipped
	TooLarge int64  // the note's size when it is larger than the reader's bound; 0 otherwise
	NotBlob  bool   // the notes tree holds something else than a text for this commit
	Skipped  bool   // not read: the notes read before it reached the bound of them all
}

// Bounds bound what Read reads: notes may come from a hostile remote.
type Bounds struct {
	Each  int64 // bytes of one note
	Total int64 // bytes of all the notes read
}

// Read reads the notes of ref (a full ref under refs/notes/) on the commits given:
// commit → note; a commit without a note is not in the map. A note larger than
// bounds.Each is not read (its size is given instead), nor are the notes after those that
// reached bounds.Total. No ref: no notes.
func Read(ctx context.Context, dir, ref string, commits []string, bounds Bounds) (map[string]Note, error) {
	out, err := gitops.Git(ctx, dir, "notes", "--ref="+ref, "list")
	if err != nil {
		return nil, fmt.Errorf("listing the notes of %s: %w", ref, err)
	}
	wanted := make(map[string]bool, len(commits))
	for _, c := range commits {
		wanted[c] = true
	}
	byBlob := map[string][]string{} // note object → the commits it notes
	var blobs []string
	for line := range strings.SplitSeq(out, "\n") {
		note, commit, ok := strings.Cut(line, " ")
		if !ok || !wanted[commit] {
			continue
		}
		if byBlob[note] == nil {
			blobs = append(blobs, note)
		}
		byBlob[note] = append(byBlob[note], commit)
	}
	texts, err := readBlobs(ctx, dir, blobs, bounds)
	if err != nil {
		return nil, fmt.Errorf("reading the notes of %s: %w", ref, err)
	}
	notes := map[string]Note{}
	for blob, commits := range byBlob {
		for _, c := range commits {
			notes[c] = texts[blob]
		}
	}
	return notes, nil
}

// readBlobs reads the blobs named within bounds, in two `git cat-file` calls: their
// sizes first, then the ones small enough.
func readBlobs(ctx context.Context, dir string, names []string, bounds Bounds) (map[string]Note, error) {
	notes := map[string]Note{}
	if len(names) == 0 {
		return notes, nil
	}
	var out bytes.Buffer
	if err := gitops.GitTo(ctx, dir, nil, strings.NewReader(strings.Join(names, "\n")+"\n"), &out, "cat-file", "--batch-check"); err != nil {
		return nil, err
	}
	var small []string
	var total int64
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		f := strings.Fields(line)
		size, err := strconv.ParseInt(f[len(f)-1], 10, 64)
		switch {
		case len(f) != 3 || f[1] != "blob" || err != nil:
			notes[f[0]] = Note{NotBlob: true}
		case size > bounds.Each:
			notes[f[0]] = Note{TooLarge: size}
		case total+size > bounds.Total:
			notes[f[0]] = Note{Skipped: true}
		default:
			total += size
			small = append(small, f[0])
		}
	}
	return notes, readSmallBlobs(ctx, dir, small, notes)
}

// readSmallBlobs reads the blobs named, whose sizes are known to be small, into notes.
func readSmallBlobs(ctx context.Context, dir string, names []string, notes map[string]Note) error {
	if len(names) == 0 {
		return nil
	}
	var out bytes.Buffer
	if err := gitops.GitTo(ctx, dir, nil, strings.NewReader(strings.Join(names, "\n")+"\n"), &out, "cat-file", "--batch"); err != nil {
		return err
	}
	rest := out.Bytes()
	for _, name := range names {
		header, body, ok := bytes.Cut(rest, []byte{'\n'})
		f := strings.Fields(string(header))
		if !ok || len(f) != 3 {
			return fmt.Errorf("git cat-file --batch answered %q for %s", header, name)
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || size+1 > len(body) {
			return fmt.Errorf("git cat-file --batch answered %q for %s", header, name)
		}
		notes[name], rest = Note{Text: string(body[:size])}, body[size+1:]
	}
	return nil
}

// ErrBadRevision means git knows no such revision or range.
var ErrBadRevision = errors.New("not a revision or range git knows")

// LoggedCommit is one commit of a range, as a list of them shows it.
type LoggedCommit struct {
	Hash    string
	Subject string
}

// RangeCommits lists the commits of a revision range (`main..HEAD`, `HEAD~5..`, a single
// commit: its history), newest first, at most limit. truncated says there were more.
func RangeCommits(ctx context.Context, dir string, revs []string, limit int) (commits []LoggedCommit, truncated bool, err error) {
	args := append([]string{"log", "--no-decorate", "--no-show-signature", "--format=%H%x00%s", "--max-count=" + strconv.Itoa(limit+1), "--end-of-options"}, revs...)
	out, err := gitops.Git(ctx, dir, append(args, "--")...)
	var gitErr *gitops.Error
	if errors.As(err, &gitErr) && (strings.Contains(gitErr.Stderr, "bad revision") || strings.Contains(gitErr.Stderr, "unknown revision")) {
		return nil, false, fmt.Errorf("%w: %q", ErrBadRevision, strings.Join(revs, " "))
	}
	if err != nil {
		return nil, false, fmt.Errorf("listing the commits of %s: %w", strings.Join(revs, " "), err)
	}
	for line := range strings.SplitSeq(out, "\n") {
		hash, subject, ok := strings.Cut(line, "\x00")
		if ok {
			commits = append(commits, LoggedCommit{Hash: hash, Subject: subject})
		}
	}
	if len(commits) > limit {
		return commits[:limit], true, nil
	}
	return commits, false, nil
}

// IterationCommits are the commits reachable from tip and not from before (all of tip's
// history when before is ""), at most limit: what one iteration committed.
func IterationCommits(ctx context.Context, dir, before, tip string, limit int) ([]string, error) {
	revs := []string{tip}
	if before != "" {
		revs = append(revs, "^"+before)
	}
	out, err := gitops.Git(ctx, dir, append([]string{"rev-list", "--max-count=" + strconv.Itoa(limit), "--end-of-options"}, append(revs, "--")...)...)
	if err != nil || out == "" {
		return nil, err
	}
	return strings.Split(out, "\n"), nil
}
