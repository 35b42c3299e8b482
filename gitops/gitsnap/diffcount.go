package gitsnap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/git-ralph/git-ralph/gitops"
)

// What DiffCounted writes of a change is bounded, so that an iteration that commits a huge
// file (an 84 MB log of 5 million lines) costs about what `git diff --stat` of it costs,
// not the minutes of writing and saving its whole diff:
//   - a file with more than SavedDiffFileLines changed lines is left out of the patch and
//     named, with its counts, in a line at the top;
//   - the patch stops at the end of the last file that fits in SavedDiffBytes, with a line
//     at the end saying how many files are left out and the `git diff` that shows them.
//
// Those lines start with "git-ralph:" and stand outside any file's patch, where
// `git apply` (and `git ralph history --diff N --stat`) skips them. Binary files show as
// "Binary files a/x and b/x differ", as ever. The counts are the whole change's.
const (
	SavedDiffBytes     = 4 << 20
	SavedDiffFileLines = 20_000
)

// errCapped stops `git diff` when the patch has reached its bound.
var errCapped = errors.New("the diff reached its bound")

// DiffCounted writes the unified diff between two trees to w, as Diff does but bounded (see
// SavedDiffBytes), and returns the whole change's counts, as DiffStat does. It takes two
// git processes: `git diff --numstat -z`, then `git diff -p` without the files too big to
// diff in full. (One `git diff --numstat -p` reads and diffs every file twice, once for
// the counts and once for the patch, and shows its counts only once it has started on
// the patch: too late to leave a huge file out.)
func DiffCounted(ctx context.Context, dir, from, to string, w io.Writer) (Changes, error) {
	var numstat strings.Builder
	args := append(append([]string{"diff", "--numstat", "-z"}, diffArgs...), from, to, "--")
	if err := gitops.GitTo(ctx, dir, nil, nil, &numstat, args...); err != nil {
		return Changes{}, fmt.Errorf("counting the changes from %s to %s: %w", from, to, err)
	}
	files, err := parseNumstatFiles(numstat.String())
	if err != nil || len(files) == 0 {
		return sum(files), err
	}
	patch := &cappedPatch{w: w, room: SavedDiffBytes}
	args = append(append([]string{"diff", "-p"}, diffArgs...), from, to, "--")
	args, err = leaveOut(files, from, to, patch, args)
	if err != nil {
		return sum(files), err
	}
	if err := gitops.GitTo(ctx, dir, nil, nil, patch, args...); err != nil && !errors.Is(err, errCapped) {
		return sum(files), fmt.Errorf("diffing %s to %s: %w", from, to, err)
	}
	return sum(files), patch.finish(from, to, files)
}

// leaveOut writes, to patch, a line for each file too big to diff in full, and returns the
// diff's arguments with pathspecs that leave those files out.
func leaveOut(files []fileCount, from, to string, patch *cappedPatch, args []string) ([]string, error) {
	var out []string
	for _, f := range files {
		if !f.big() {
			continue
		}
		patch.left++
		line := fmt.Sprintf("git-ralph: %q: %d lines added, %d deleted: too many (over %d) to show here; `git diff %s %s -- %q` shows them\n",
			f.path, f.added, f.deleted, SavedDiffFileLines, from, to, f.path)
		if _, err := io.WriteString(patch.w, line); err != nil {
			return nil, err
		}
		out = append(out, ":(top,exclude,literal)"+f.path)
	}
	if len(out) == 0 {
		return args, nil
	}
	return append(append(args, ":(top)"), out...), nil
}

// cappedPatch passes a patch on to w file by file, holding each file's part until the next
// begins, and stops (errCapped) at the first that would take it past room bytes.
type cappedPatch struct {
	w       io.Writer
	room    int64
	pending []byte // the current file's part, from its "diff --git" line
	shown   int    // files written
	left    int    // files left out as too big
	capped  bool
}

var fileHeader = []byte("\ndiff --git ")

func (c *cappedPatch) Write(p []byte) (int, error) {
	if c.capped {
		return 0, errCapped
	}
	if len(p) == 0 {
		return 0, nil
	}
	from := max(1, len(c.pending)-len(fileHeader)+1) // the earlier writes were searched
	c.pending = append(c.pending, p...)
	start := 0
	for {
		i := bytes.Index(c.pending[from:], fileHeader)
		if i < 0 {
			break
		}
		end := from + i + 1 // just after the newline that ends the file's part
		if err := c.flush(c.pending[start:end]); err != nil {
			return 0, err
		}
		start, from = end, end+1
	}
	c.pending = append(c.pending[:0], c.pending[start:]...)
	// its end may hold the start of the next file's header, not yet seen whole
	if int64(len(c.pending)-len(fileHeader)+1) > c.room {
		c.capped = true
		return 0, errCapped
	}
	return len(p), nil
}

func (c *cappedPatch) flush(part []byte) error {
	if int64(len(part)) > c.room {
		c.capped = true
		return errCapped
	}
	if _, err := c.w.Write(part); err != nil {
		return err
	}
	c.room -= int64(len(part))
	c.shown++
	return nil
}

// finish writes the last file's part when it fits, else the line that says where the
// diff stops and what is left out.
func (c *cappedPatch) finish(from, to string, files []fileCount) error {
	if !c.capped && len(c.pending) > 0 {
		if err := c.flush(c.pending); err != nil && !errors.Is(err, errCapped) {
			return err
		}
	}
	if !c.capped {
		return nil
	}
	more := len(files) - c.shown - c.left
	_, err := fmt.Fprintf(c.w, "git-ralph: the diff stops here, at %d MiB: %d more changed files are not shown; `git diff %s %s` shows the whole change\n",
		SavedDiffBytes>>20, more, from, to)
	return err
}

// fileCount is one file's record in `git diff --numstat`.
type fileCount struct {
	path           string
	added, deleted int
}

func (f fileCount) big() bool { return f.added+f.deleted > SavedDiffFileLines }

func sum(files []fileCount) Changes {
	c := Changes{Files: len(files)}
	for _, f := range files {
		c.Insertions += f.added
		c.Deletions += f.deleted
	}
	return c
}

// parseNumstatFiles reads `git diff --numstat -z` (renames off: one path per record).
func parseNumstatFiles(out string) ([]fileCount, error) {
	var files []fileCount
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		if fields[i] == "" {
			continue
		}
		added, rest, ok1 := strings.Cut(fields[i], "\t")
		deleted, path, ok2 := strings.Cut(rest, "\t")
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("reading git diff --numstat: unexpected record %q", fields[i])
		}
		if path == "" && i+2 < len(fields) { // a rename: the old path, then the new
			path = fields[i+2]
			i += 2
		}
		a, err1 := lineCount(added)
		d, err2 := lineCount(deleted)
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("reading git diff --numstat: %w", err)
		}
		files = append(files, fileCount{path: path, added: a, deleted: d})
	}
	return files, nil
}
