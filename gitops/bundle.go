package gitops

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// bundleRef is the ref a bundle names its tip by: a bundle needs a ref name for the
// commit it carries, and the tip is usually a commit no ref points to.
const bundleRef = "refs/ralph/bundle/tip"

// WriteBundle writes to path a git bundle holding tip and everything it reaches that
// base does not: the commits and objects that a repository holding base needs to have
// tip. base "" (an unborn branch) bundles tip's whole history. The ref it names the tip
// by exists only while the bundle is written.
func WriteBundle(ctx context.Context, dir, path, tip, base string) error {
	ref := bundleRef + "-" + strings.TrimPrefix(tip, "-")
	if err := KeepAliveAll(ctx, dir, []Ref{{Name: ref, Hash: tip}}); err != nil {
		return fmt.Errorf("writing a bundle of %s: %w", tip, err)
	}
	defer DeleteRefs(context.WithoutCancel(ctx), dir, []string{ref})
	args := []string{"bundle", "create", "--quiet", path, ref}
	if base != "" {
		args = append(args, "^"+base)
	}
	if _, err := Git(ctx, dir, args...); err != nil {
		return fmt.Errorf("writing a bundle of %s: %w", tip, err)
	}
	return nil
}

// ErrBundleNeeds is found (errors.Is) in ReadBundle's error when the repository lacks a
// commit the bundle was made on top of: it is not the repository (or not the state of it)
// that the bundle came from.
var ErrBundleNeeds = errors.New("the repository lacks a commit the bundle needs")

// ReadBundle adds the objects of the bundle at path to the repository and keeps its tip
// alive with keep (a ref under refs/, not a branch), returning the tip. git checks the
// bundle (its format, its objects, the commits it needs) before anything is added.
func ReadBundle(ctx context.Context, dir, path, keep string) (string, error) {
	if _, err := Git(ctx, dir, "bundle", "verify", path); err != nil {
		var gitErr *Error
		if errors.As(err, &gitErr) && strings.Contains(gitErr.Stderr, "prerequisite") {
			return "", fmt.Errorf("%w: %s", ErrBundleNeeds, strings.TrimSpace(gitErr.Stderr))
		}
		return "", fmt.Errorf("checking the bundle %s: %w", path, err)
	}
	out, err := Git(ctx, dir, "bundle", "unbundle", path)
	if err != nil {
		return "", fmt.Errorf("reading the bundle %s: %w", path, err)
	}
	lines := strings.Split(out, "\n")
	tip, _, ok := strings.Cut(lines[0], " ")
	if !ok || len(lines) > 1 {
		// a hostile bundle may name thousands: the count, and the first
		return "", fmt.Errorf("reading the bundle %s: it should name one commit, it names %d refs (the first: %q)", path, len(lines), lines[0])
	}
	if err := KeepAliveAll(ctx, dir, []Ref{{Name: keep, Hash: tip}}); err != nil {
		return "", err
	}
	return tip, nil
}

// CheckpointNow is the repository's checkpoint now (see TakeCheckpoint), kept alive by no
// ref: for a caller that only compares it or uses it at once.
func CheckpointNow(ctx context.Context, dir string) (Checkpoint, error) {
	return takeCheckpoint(ctx, dir)
}

// RootCommits lists the commits without parents that HEAD reaches, sorted: what identifies
// a project's history in every clone of it. None on an unborn branch.
func RootCommits(ctx context.Context, dir string) ([]string, error) {
	head, err := Head(ctx, dir)
	if err != nil || head == "" {
		return nil, err
	}
	out, err := Git(ctx, dir, "rev-list", "--max-parents=0", head, "--")
	if err != nil {
		return nil, fmt.Errorf("listing the root commits: %w", err)
	}
	roots := strings.Fields(out)
	slices.Sort(roots)
	return roots, nil
}

// RemoteURL is the URL of the named remote, or "" when it has none.
func RemoteURL(ctx context.Context, dir, remote string) string {
	out, err := Git(ctx, dir, "config", "--get", "remote."+remote+".url")
	if err != nil {
		return ""
	}
	return out
}

// CommitParts reads the first parent and the tree of commit: what a commit that wraps a
// checkpoint's tree says of it.
func CommitParts(ctx context.Context, dir, commit string) (parent, tree string, err error) {
	out, err := Git(ctx, dir, "rev-parse", "--verify", "--quiet", "--end-of-options", commit+"^{tree}")
	if err != nil {
		return "", "", fmt.Errorf("reading commit %s: %w", commit, err)
	}
	tree = out
	if out, err = Git(ctx, dir, "rev-list", "--parents", "--max-count=1", commit, "--"); err != nil {
		return "", "", fmt.Errorf("reading commit %s: %w", commit, err)
	}
	if fields := strings.Fields(out); len(fields) > 1 {
		parent = fields[1]
	}
	return parent, tree, nil
}

// MergeTrees merges the change from base to theirs into ours, three trees, without
// touching any work tree: the merged tree, or the conflicting files. git 2.39's
// merge-tree takes commits and finds their merge base itself, so the trees are wrapped in
// commits whose one common ancestor is base's.
func MergeTrees(ctx context.Context, dir, base, ours, theirs string) (Merged, error) {
	if ours == base {
		return Merged{Tree: theirs}, nil
	}
	if theirs == base || theirs == ours {
		return Merged{Tree: ours}, nil
	}
	b, err := CommitTree(ctx, dir, base, "", "base")
	if err != nil {
		return Merged{}, err
	}
	o, err := CommitTree(ctx, dir, ours, b, "ours")
	if err != nil {
		return Merged{}, err
	}
	t, err := CommitTree(ctx, dir, theirs, b, "theirs")
	if err != nil {
		return Merged{}, err
	}
	return MergeTree(ctx, dir, o, t)
}

// FirstParentChain lists the commits from (excluded) to to, oldest first, along first
// parents, when from is an ancestor of to ("" for an unborn branch: all of to's); ok is
// false when it is not (the history was rewritten, not added to).
func FirstParentChain(ctx context.Context, dir, from, to string) (commits []string, ok bool, err error) {
	if to == "" || from == to {
		return nil, from == to, nil
	}
	args := []string{"rev-list", "--reverse", "--first-parent", to}
	if from != "" {
		if _, err := Git(ctx, dir, "merge-base", "--is-ancestor", from, to); err != nil {
			var gitErr *Error
			if errors.As(err, &gitErr) && gitErr.ExitCode == 1 {
				return nil, false, nil
			}
			return nil, false, fmt.Errorf("comparing %s with %s: %w", from, to, err)
		}
		args = append(args, "^"+from)
	}
	out, err := Git(ctx, dir, append(args, "--")...)
	if err != nil {
		return nil, false, fmt.Errorf("listing the commits from %s to %s: %w", from, to, err)
	}
	return strings.Fields(out), true, nil
}

// CopyCommit writes a commit of tree on parent ("" for none) with original's message,
// author and committer (names, emails and dates): original again, if its tree and parent
// are the same.
func CopyCommit(ctx context.Context, dir, original, tree, parent string) (string, error) {
	out, err := Git(ctx, dir, "log", "-1", "--no-show-signature", "--format=%an%x00%ae%x00%ad%x00%cn%x00%ce%x00%cd%x00%B", "--date=raw", original, "--")
	if err != nil {
		return "", fmt.Errorf("reading commit %s: %w", original, err)
	}
	f := strings.SplitN(out, "\x00", 7)
	if len(f) != 7 {
		return "", fmt.Errorf("reading commit %s: unexpected %q", original, out)
	}
	env := []string{"GIT_AUTHOR_NAME=" + f[0], "GIT_AUTHOR_EMAIL=" + f[1], "GIT_AUTHOR_DATE=" + f[2],
		"GIT_COMMITTER_NAME=" + f[3], "GIT_COMMITTER_EMAIL=" + f[4], "GIT_COMMITTER_DATE=" + f[5]}
	args := []string{"commit-tree", tree, "-F", "-"}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	var commit strings.Builder
	if err := gitTo(ctx, dir, env, strings.NewReader(f[6]), &commit, args...); err != nil {
		return "", fmt.Errorf("copying commit %s: %w", original, err)
	}
	return strings.TrimSpace(commit.String()), nil
}
