package gitmerge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/internal/gitstore"
)

// CheckoutRefused is git's refusal to bring a work tree from one commit to another
// (`git read-tree -m -u`): a change of the user's, staged or not, or an untracked file,
// is in a path the move would write. Nothing was changed.
type CheckoutRefused struct {
	Dir   string
	Paths []string // the paths git named, when it named them
	Git   string   // git's own words
}

func (e *CheckoutRefused) Error() string {
	if len(e.Paths) > 0 {
		return fmt.Sprintf("changes in %s, or files git does not track, are in paths the move writes: %s", e.Dir, strings.Join(e.Paths, ", "))
	}
	return fmt.Sprintf("git refuses to update the files of %s: %s", e.Dir, e.Git)
}

// CheckMoveCheckout tells, changing nothing, whether MoveCheckout from from to to would
// go through in the work tree dir (`git read-tree -m -u -n`): nil, or a *CheckoutRefused
// naming the paths where a change of the user's is in the way.
func CheckMoveCheckout(ctx context.Context, dir, from, to string) error {
	return readTreeMove(ctx, dir, "checking whether the files of "+dir+" can follow", "-m", "-u", "-n", from, to)
}

// readTreeMove runs read-tree with args in dir; a refusal becomes a *CheckoutRefused.
// git compares a file with the index by its stat data: one touched but unchanged since
// the index was written looks changed, so a refusal is asked again once the index's stat
// data is refreshed (a clean tree, the usual case, costs one git process).
func readTreeMove(ctx context.Context, dir, doing string, args ...string) error {
	err := readTree(ctx, dir, doing, args...)
	var refused *CheckoutRefused
	if errors.As(err, &refused) {
		gitops.Git(ctx, dir, "update-index", "-q", "--refresh") // stat data only; a busy index just refuses again
		err = readTree(ctx, dir, doing, args...)
	}
	return err
}

// readTree runs read-tree with args in dir; a refusal becomes a *CheckoutRefused.
func readTree(ctx context.Context, dir, doing string, args ...string) error {
	_, err := gitops.Git(ctx, dir, append([]string{"read-tree"}, args...)...)
	var gitErr *gitops.Error
	if errors.As(err, &gitErr) {
		if paths := refusedPaths(gitErr.Stderr); len(paths) > 0 {
			return &CheckoutRefused{Dir: dir, Paths: paths, Git: strings.TrimSpace(gitErr.Stderr)}
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", doing, err)
	}
	return nil
}

// refusedPaths reads the paths of read-tree's refusals: "Entry 'F' not uptodate",
// "Entry 'F' would be overwritten by merge", "Untracked working tree file 'F' would be
// overwritten by merge" (one line each, the quotes git's own), or the tab-indented
// list under a "the following files" line, as git's porcelain commands word it.
func refusedPaths(stderr string) []string {
	var paths []string
	listing := false
	for _, line := range strings.Split(stderr, "\n") {
		if listing && strings.HasPrefix(line, "\t") {
			paths = append(paths, strings.TrimPrefix(line, "\t"))
			continue
		}
		listing = strings.Contains(line, "the following")
		if !strings.Contains(line, "not uptodate") && !strings.Contains(line, "would be overwritten") && !strings.Contains(line, "would be removed") {
			continue
		}
		if i := strings.IndexByte(line, '\''); i >= 0 {
			if j := strings.LastIndexByte(line, '\''); j > i {
				paths = append(paths, line[i+1:j])
			}
		}
	}
	return dedupe(paths)
}

// IndexDiffers lists the paths where dir's index differs from the tree of commit
// (`git diff-index --cached`: the index's entries only, neither the files nor their stat
// data).
func IndexDiffers(ctx context.Context, dir, commit string) ([]string, error) {
	out, err := gitops.Git(ctx, dir, "diff-index", "--cached", "--no-renames", "--name-only", "-z", commit, "--")
	if err != nil {
		return nil, fmt.Errorf("comparing the index of %s with %s: %w", dir, commit, err)
	}
	return gitstore.SplitNul(out), nil
}

// ChangedBetween lists the paths whose content differs between the trees of two commits.
func ChangedBetween(ctx context.Context, dir, a, b string) ([]string, error) {
	out, err := gitops.Git(ctx, dir, "diff-tree", "-r", "--no-renames", "--name-only", "-z", a, b, "--")
	if err != nil {
		return nil, fmt.Errorf("listing the files changed from %s to %s: %w", a, b, err)
	}
	return gitstore.SplitNul(out), nil
}

// AdoptWritten takes into dir's index, at commit's version, each of paths whose file
// already holds exactly that version (as `git add` would hash it, with the same
// executable bit): what a move to commit leaves when it is killed after writing some
// files and before writing the index, for git writes the files first. Such a file is no
// change of the user's, and MoveCheckout then goes through where it refused. A file that
// differs, a path commit lacks or holds as anything but a regular file, is left alone. It
// reports how many paths it took.
func AdoptWritten(ctx context.Context, dir, commit string, paths []string) (int, error) {
	if len(paths) == 0 {
		return 0, nil
	}
	want, err := regularEntries(ctx, dir, commit, paths)
	if err != nil || len(want) == 0 {
		return 0, err
	}
	var names []string
	for _, p := range paths {
		if e, ok := want[p]; ok && sameKindOfFile(filepath.Join(dir, p), e.mode) {
			names = append(names, p)
		}
	}
	if len(names) == 0 {
		return 0, nil
	}
	var out strings.Builder
	if err := gitops.GitTo(ctx, dir, nil, strings.NewReader(strings.Join(names, "\n")+"\n"), &out, "hash-object", "--stdin-paths"); err != nil {
		return 0, fmt.Errorf("hashing the files of %s: %w", dir, err)
	}
	hashes := strings.Fields(out.String())
	if len(hashes) != len(names) {
		return 0, fmt.Errorf("hashing the files of %s: %d hashes for %d files", dir, len(hashes), len(names))
	}
	var info strings.Builder
	n := 0
	for i, p := range names {
		if e := want[p]; hashes[i] == e.hash {
			fmt.Fprintf(&info, "%s %s\t%s\x00", e.mode, e.hash, p)
			n++
		}
	}
	if n == 0 {
		return 0, nil
	}
	if err := gitops.GitTo(ctx, dir, nil, strings.NewReader(info.String()), &strings.Builder{}, "update-index", "-z", "--index-info"); err != nil {
		return 0, fmt.Errorf("updating the index of %s: %w", dir, err)
	}
	return n, nil
}

type treeEntry struct{ mode, hash string }

// regularEntries reads commit's entries of paths that are regular files (`git ls-tree`).
func regularEntries(ctx context.Context, dir, commit string, paths []string) (map[string]treeEntry, error) {
	out, err := gitops.Git(ctx, dir, append([]string{"ls-tree", "-z", "--full-tree", commit, "--"}, paths...)...)
	if err != nil {
		return nil, fmt.Errorf("reading %s's files: %w", commit, err)
	}
	entries := map[string]treeEntry{}
	for _, rec := range gitstore.SplitNul(out) {
		meta, path, ok := strings.Cut(rec, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 3 || fields[1] != "blob" || (fields[0] != "100644" && fields[0] != "100755") {
			continue
		}
		entries[path] = treeEntry{mode: fields[0], hash: fields[2]}
	}
	return entries, nil
}

// sameKindOfFile reports whether path is a regular file whose executable bit is mode's
// (where the file system keeps one).
func sameKindOfFile(path, mode string) bool {
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() {
		return false
	}
	return runtime.GOOS == "windows" || (info.Mode()&0o111 != 0) == (mode == "100755")
}
