package gitops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ResolveRef returns the object ref names (`git rev-parse --verify --quiet`), or "" when
// ref does not exist.
func ResolveRef(ctx context.Context, dir, ref string) (string, error) {
	out, err := Git(ctx, dir, "rev-parse", "--verify", "--quiet", "--end-of-options", ref)
	var gitErr *Error
	if errors.As(err, &gitErr) && gitErr.ExitCode == 1 {
		return "", nil
	}
	if err != nil {
		return "", asNotRepo(dir, fmt.Errorf("resolving %s: %w", ref, err))
	}
	return out, nil
}

// DiffStatText writes `git diff --stat` from one tree-ish to another to w, with the same
// pinned options as Diff.
func DiffStatText(ctx context.Context, dir, from, to string, w io.Writer) error {
	args := append(append([]string{"diff", "--stat"}, diffArgs...), from, to, "--")
	if err := gitTo(ctx, dir, nil, nil, w, args...); err != nil {
		return fmt.Errorf("summing up the changes from %s to %s: %w", from, to, err)
	}
	return nil
}

// PatchStat writes the diffstat of the unified diff read from patch (`git apply --stat`).
// It needs no objects, so it works on a saved diff after a rebase or gc. An empty patch
// is an error to git; the caller skips it.
func PatchStat(ctx context.Context, dir string, patch io.Reader, w io.Writer) error {
	if err := gitTo(ctx, dir, nil, patch, w, "apply", "--stat"); err != nil {
		return fmt.Errorf("summing up a saved diff: %w", err)
	}
	return nil
}

// CreateRefs creates every ref in one transaction: all of them or none, and none that
// exists already is overwritten.
func CreateRefs(ctx context.Context, dir string, refs []Ref) error {
	var script strings.Builder
	for _, r := range refs {
		if !strings.HasPrefix(r.Name, "refs/ralph/") || r.Hash == "" {
			return fmt.Errorf("creating ref %q to %q: want a ref under refs/ralph/ and an object", r.Name, r.Hash)
		}
		fmt.Fprintf(&script, "create %s %s\n", r.Name, r.Hash)
	}
	var out strings.Builder
	if err := gitTo(ctx, dir, nil, strings.NewReader(script.String()), &out, "update-ref", "--stdin"); err != nil {
		return fmt.Errorf("creating backup refs: %w", err)
	}
	return nil
}

// backupIdentity signs the commits git-ralph writes for itself, so that they need no
// user.name or user.email (cron has neither, often) and say who made them.
var backupIdentity = []string{"GIT_AUTHOR_NAME=git-ralph", "GIT_AUTHOR_EMAIL=git-ralph@localhost",
	"GIT_COMMITTER_NAME=git-ralph", "GIT_COMMITTER_EMAIL=git-ralph@localhost"}

// CommitTree writes a commit of tree with parent (none when ""), the further parents
// more, and message, without touching HEAD, the index or any ref, and returns its hash.
func CommitTree(ctx context.Context, dir, tree, parent, message string, more ...string) (string, error) {
	args := []string{"commit-tree", tree, "-F", "-"}
	for _, p := range append([]string{parent}, more...) {
		if p != "" {
			args = append(args, "-p", p)
		}
	}
	var out strings.Builder
	if err := gitTo(ctx, dir, backupIdentity, strings.NewReader(message), &out, args...); err != nil {
		return "", fmt.Errorf("writing a commit of %s: %w", tree, err)
	}
	return strings.TrimSpace(out.String()), nil
}

// Commit is what a commit object says: its tree, first parent ("" for none) and message.
type Commit struct {
	Tree, Parent, Message string
}

// ReadCommit reads the commit rev names.
func ReadCommit(ctx context.Context, dir, rev string) (Commit, error) {
	out, err := Git(ctx, dir, "show", "--no-patch", "--format=%T%x00%P%x00%B", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return Commit{}, fmt.Errorf("reading commit %s: %w", rev, err)
	}
	fields := strings.SplitN(out, "\x00", 3)
	if len(fields) != 3 {
		return Commit{}, fmt.Errorf("reading commit %s: unexpected output %q", rev, out)
	}
	parent, _, _ := strings.Cut(fields[1], " ")
	return Commit{Tree: fields[0], Parent: parent, Message: fields[2]}, nil
}

// HeadBranch is the full name of the branch HEAD is on, or "" when HEAD is detached.
func HeadBranch(ctx context.Context, dir string) (string, error) {
	out, err := Git(ctx, dir, "symbolic-ref", "--quiet", "HEAD")
	var gitErr *Error
	if errors.As(err, &gitErr) && gitErr.ExitCode == 1 {
		return "", nil
	}
	if err != nil {
		return "", asNotRepo(dir, fmt.Errorf("reading the branch HEAD is on: %w", err))
	}
	return out, nil
}

// CheckComplete fails unless every object of commit's tree is in the object store: a gc
// that pruned what was written moments ago, before a ref kept it, shows here.
func CheckComplete(ctx context.Context, dir, commit string) error {
	if err := gitTo(ctx, dir, nil, nil, io.Discard, "rev-list", "--objects", "--no-walk", commit, "--"); err != nil {
		return fmt.Errorf("checking that %s is whole: %w", commit, err)
	}
	return nil
}

// IndexTree writes what the index stages as a tree and returns it. It is "" when the
// index has unmerged entries, which no tree can hold. write-tree runs on a copy of the
// index: on the index itself it would rewrite the file (its cache of trees), and fail
// while another git process holds index.lock.
func IndexTree(ctx context.Context, dir string) (string, error) {
	unmerged, err := Git(ctx, dir, "ls-files", "-z", "--unmerged")
	if err != nil || unmerged != "" {
		return "", err
	}
	var tree string
	err = withScratchIndex(ctx, dir, func(env []string) error {
		var err error
		tree, err = gitEnv(ctx, dir, env, "write-tree")
		return err
	})
	if err != nil {
		return "", fmt.Errorf("reading what the index stages: %w", err)
	}
	return tree, nil
}

// StageTree makes the index stage tree, leaving the work tree as it is, and refreshes the
// index's file data so that only real differences show as changes.
func StageTree(ctx context.Context, dir, tree string) error {
	if _, err := Git(ctx, dir, "read-tree", tree); err != nil {
		return fmt.Errorf("staging %s: %w", tree, err)
	}
	_, err := Git(ctx, dir, "update-index", "-q", "--refresh")
	var gitErr *Error
	if err != nil && !(errors.As(err, &gitErr) && gitErr.ExitCode == 1) { // 1: files differ, as they may
		return err
	}
	return nil
}

// StagedTree is IndexTree when the index stages something else than head's tree (the
// empty tree when head is ""), and "" when it stages nothing new.
func StagedTree(ctx context.Context, dir, head string) (string, error) {
	index, err := IndexTree(ctx, dir)
	if err != nil || index == "" {
		return "", err
	}
	headTree := emptyTree
	if head != "" {
		if headTree, err = ResolveRef(ctx, dir, head+"^{tree}"); err != nil {
			return "", err
		}
	}
	if index == headTree {
		return "", nil
	}
	return index, nil
}
