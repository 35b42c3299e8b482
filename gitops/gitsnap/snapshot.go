package gitsnap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/internal/gitstore"
)

// Snapshot returns the hash of a tree object holding the working tree of the repository
// containing dir, leaving the index and refs alone.
//
// A clean working tree (`git status` lists nothing) is HEAD's tree, read without writing
// anything: that is the common case between iterations, since agents commit their work,
// and it costs one `git status`. Otherwise the tree is built from HEAD's and the changed
// files as quickSnapshot describes, or, for changes it does not take, as snapshotDirty does.
//
// Nothing keeps the new objects from gc: TakeCheckpoint, which keeps them, is what the loop uses.
func Snapshot(ctx context.Context, dir string) (string, error) {
	head, err := gitops.Head(ctx, dir)
	if err != nil {
		return "", err
	}
	return snapshotAt(ctx, dir, head)
}

// snapshotAt is Snapshot when HEAD is already known to be head.
func snapshotAt(ctx context.Context, dir, head string) (string, error) {
	status, err := porcelainStatus(ctx, dir)
	if err != nil {
		return "", err
	}
	if head != "" && status == "" {
		return gitops.TreeOf(ctx, dir, head)
	}
	if head != "" {
		tree, err := quickSnapshot(ctx, dir, head, status)
		if !errors.Is(err, gitstore.ErrNotQuick) {
			return tree, err
		}
	}
	return snapshotDirty(ctx, dir, parseStatus(status))
}

// cleanWorkTree reports whether `git status` finds nothing to say: no staged, unstaged or
// untracked (not ignored) change.
func cleanWorkTree(ctx context.Context, dir string) (bool, error) {
	out, err := porcelainStatus(ctx, dir)
	return out == "", err
}

// porcelainStatus is `git status --porcelain=v2 -z`, submodules included. It reads the
// user's index without writing it.
func porcelainStatus(ctx context.Context, dir string) (string, error) {
	out, err := gitops.Git(ctx, dir, "status", "--porcelain=v2", "-z", "--untracked-files=normal", "--ignore-submodules=none")
	if err != nil {
		return "", gitops.AsNotRepo(dir, fmt.Errorf("reading the working tree's status: %w", err))
	}
	return out, nil
}

// workChanges is what a snapshot must add to a copy of the index, from `git status`.
type workChanges struct {
	paths      []string // where the work tree differs from the index, from the top
	submodules []string // submodules with uncommitted work (among paths)
}

// parseStatus reads `git status --porcelain=v2 -z`. It lists the paths where the work tree
// differs from the index: modified, deleted and untracked (not ignored) files, whole
// untracked directories as "dir/", and unmerged paths. Changes only staged are left out:
// the index has them already. Entries are, with fields split by spaces:
//
//	1 XY sub mH mI mW hH hI path
//	2 XY sub mH mI mW hH hI Xscore path\0origPath
//	u XY sub m1 m2 m3 mW h1 h2 h3 path
//	? path
//
// Y is the work tree against the index ('.' for the same); sub is "N..." for a file and
// "S<c><m><u>" for a submodule, with m 'M' for modified and u 'U' for untracked content.
func parseStatus(out string) workChanges {
	var w workChanges
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		entry := fields[i]
		if len(entry) < 3 {
			continue
		}
		switch entry[0] {
		case '?':
			w.paths = append(w.paths, entry[2:])
		case '1', '2', 'u':
			n := map[byte]int{'1': 9, '2': 10, 'u': 11}[entry[0]]
			parts := strings.SplitN(entry, " ", n)
			if entry[0] == '2' {
				i++ // the original path: the index holds its side of the rename
			}
			if len(parts) < n || (parts[1][1] == '.' && entry[0] != 'u') {
				continue
			}
			path := parts[n-1]
			w.paths = append(w.paths, path)
			if sub := parts[2]; len(sub) == 4 && sub[0] == 'S' && (sub[2] == 'M' || sub[3] == 'U') {
				w.submodules = append(w.submodules, path)
			}
		}
	}
	return w
}

// scratchPrefix starts the name of the directory each dirty snapshot makes for its copy of
// the index, next to the index, and removes when done.
const scratchPrefix = "ralph-index-"

// snapshotDirty writes the working tree as a tree object. It stages the changed paths
// (`git add --all -- <paths>`, the paths `git status` reported) and the uncommitted work of
// submodules (see stageSubmoduleWork) into a scratch copy of the index and runs
// `git write-tree` on that copy. The copy keeps the index's stat data, and
// only the changed paths are looked at again, so the cost follows what changed rather than
// the size of the tree.
//
// New blobs and trees are written to the object store, unreachable until a ref keeps them
// (see TakeCheckpoint). Files that git add cannot take (such as a nested repository with no
// commit yet) are left out rather than failing.
func snapshotDirty(ctx context.Context, dir string, changed workChanges) (string, error) {
	index, err := gitops.GitPath(ctx, dir, "index")
	if err != nil {
		return "", err
	}
	// The scratch index lives in the git directory: never in the work tree (TMPDIR may be
	// inside it), and on the same filesystem as the real index.
	scratchDir, err := os.MkdirTemp(filepath.Dir(index), scratchPrefix)
	if err != nil {
		return "", fmt.Errorf("snapshotting the working tree: %w", err)
	}
	defer os.RemoveAll(scratchDir)
	scratch := filepath.Join(scratchDir, "index")
	if err := copyIndex(index, scratch); err != nil {
		return "", fmt.Errorf("snapshotting the working tree: %w", err)
	}
	env := []string{"GIT_INDEX_FILE=" + scratch}
	if err := stagePaths(ctx, dir, env, changed.paths); err != nil {
		return "", fmt.Errorf("snapshotting the working tree: %w", err)
	}
	if err := stageSubmoduleWork(ctx, dir, env, changed.submodules); err != nil {
		return "", fmt.Errorf("snapshotting the working tree: %w", err)
	}
	tree, err := gitops.GitEnv(ctx, dir, env, "write-tree")
	if err != nil {
		return "", fmt.Errorf("snapshotting the working tree: %w", err)
	}
	return tree, nil
}

// stagePaths adds paths (relative to the top of the work tree) to the index named by env,
// given on stdin so that no command line grows with them, and taken literally (a file named
// "*" is not a glob). Exit status 1 is
// git add skipping what it cannot add, with --ignore-errors.
func stagePaths(ctx context.Context, dir string, env, paths []string) error {
	if len(paths) == 0 {
		return nil // git add with no paths from the file would add nothing; skip the process
	}
	var list strings.Builder
	for _, p := range paths {
		list.WriteString(":(top,literal)" + p + "\x00") // from the top like status's paths, not globs
	}
	stdin := strings.NewReader(list.String())
	err := gitops.GitTo(ctx, dir, env, stdin, io.Discard, "-c", "advice.addEmbeddedRepo=false",
		"add", "--all", "--ignore-errors", "--pathspec-from-file=-", "--pathspec-file-nul")
	var gitErr *gitops.Error
	if err != nil && !(errors.As(err, &gitErr) && gitErr.ExitCode == 1) {
		return err
	}
	return nil
}

// copyIndex copies the index at src to dst with src's modification time. git compares each
// entry's mtime with the index file's own to find "racily clean" entries, files changed in the
// same tick the index was written, whose stat data cannot be trusted; a copy stamped "now"
// would make git trust them and miss such a change. A missing src leaves dst absent, which
// git reads as an empty index (a repository where nothing was ever added).
func copyIndex(src, dst string) error {
	in, err := os.Open(src)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chtimes(dst, info.ModTime(), info.ModTime())
}

// RemoveScratch removes the scratch index copies that snapshots of dir's work tree left
// behind when their process was killed, and returns how many it removed. The caller must
// hold the lock that every snapshotting command of this work tree takes (the loop's), so
// that none is in use; the scratch copies of other work trees live in their own git
// directories and are not touched.
func RemoveScratch(ctx context.Context, dir string) (int, error) {
	index, err := gitops.GitPath(ctx, dir, "index")
	if err != nil {
		return 0, err
	}
	leftovers, err := filepath.Glob(filepath.Join(filepath.Dir(index), scratchPrefix+"*"))
	if err != nil {
		return 0, err
	}
	removed := 0
	for _, path := range leftovers {
		info, err := os.Lstat(path)
		if err != nil || !info.IsDir() {
			continue
		}
		if err := os.RemoveAll(path); err != nil {
			return removed, fmt.Errorf("removing a snapshot's leftover scratch index: %w", err)
		}
		removed++
	}
	return removed, nil
}

// WorkTreeClean reports whether dir's work tree has no staged, unstaged or untracked (not
// ignored) change, reading the index without writing it.
func WorkTreeClean(ctx context.Context, dir string) (bool, error) {
	return cleanWorkTree(ctx, dir)
}
