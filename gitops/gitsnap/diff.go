package gitsnap

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/git-ralph/git-ralph/gitops"
)

// Changes counts what a diff touched. A binary file counts as one file with no lines.
type Changes struct {
	Files      int
	Insertions int
	Deletions  int
}

// diffArgs pin every setting that changes what a diff says or how it is spelled, whatever the
// user's config: no external or textconv drivers, a/ and b/ prefixes, whole-repository paths,
// submodules never hidden, and shown as the diff of their content (a submodule's uncommitted
// work is a snapshot commit in the checkpoints, see stageSubmoduleWork). The counts of
// --numstat take a changed submodule as one file with one line removed and one added.
// Renames are not detected (diff.renames is on by default since git 2.9): a moved file is a
// deletion and an addition, which is what its lines did, costs no rename search, and keeps the
// counts independent of config and of diff.renameLimit.
var diffArgs = []string{"--no-ext-diff", "--no-textconv", "--no-color", "--no-renames",
	"--no-relative", "--src-prefix=a/", "--dst-prefix=b/", "--submodule=diff", "--ignore-submodules=none"}

// DiffStat counts the files and lines that differ between two trees, normally the Tree of the
// checkpoints before and after an iteration: its commits and its uncommitted work together.
func DiffStat(ctx context.Context, dir, from, to string) (Changes, error) {
	args := append(append([]string{"diff", "--numstat", "-z"}, diffArgs...), from, to, "--")
	out, err := gitops.Git(ctx, dir, args...)
	if err != nil {
		return Changes{}, fmt.Errorf("counting changes from %s to %s: %w", from, to, err)
	}
	return parseNumstat(out)
}

// parseNumstat reads `git diff --numstat -z`: "added\tdeleted\tpath\0" per file, with "-" for
// the counts of a binary file. A rename or copy, should one appear, is "added\tdeleted\t\0"
// followed by the old and the new path.
func parseNumstat(out string) (Changes, error) {
	files, err := parseNumstatFiles(out)
	return sum(files), err
}

func lineCount(s string) (int, error) {
	if s == "-" {
		return 0, nil
	}
	return strconv.Atoi(s)
}

// Diff streams the unified diff between two trees to w, with the settings of DiffStat.
// Binary files show as "Binary files a/x and b/x differ", without their contents.
func Diff(ctx context.Context, dir, from, to string, w io.Writer) error {
	args := append(append([]string{"diff"}, diffArgs...), from, to, "--")
	if err := gitops.GitTo(ctx, dir, nil, nil, w, args...); err != nil {
		return fmt.Errorf("diffing %s to %s: %w", from, to, err)
	}
	return nil
}

// DiffStatText writes `git diff --stat` from one tree-ish to another to w, with the same
// pinned options as Diff.
func DiffStatText(ctx context.Context, dir, from, to string, w io.Writer) error {
	args := append(append([]string{"diff", "--stat"}, diffArgs...), from, to, "--")
	if err := gitops.GitTo(ctx, dir, nil, nil, w, args...); err != nil {
		return fmt.Errorf("summing up the changes from %s to %s: %w", from, to, err)
	}
	return nil
}

// PatchStat writes the diffstat of the unified diff read from patch (`git apply --stat`).
// It needs no objects, so it works on a saved diff after a rebase or gc. An empty patch
// is an error to git; the caller skips it.
func PatchStat(ctx context.Context, dir string, patch io.Reader, w io.Writer) error {
	if err := gitops.GitTo(ctx, dir, nil, patch, w, "apply", "--stat"); err != nil {
		return fmt.Errorf("summing up a saved diff: %w", err)
	}
	return nil
}
