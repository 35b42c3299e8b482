package gitops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
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
		return "", AsNotRepo(dir, fmt.Errorf("resolving %s: %w", ref, err))
	}
	return out, nil
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
	if err := GitTo(ctx, dir, nil, strings.NewReader(script.String()), &out, "update-ref", "--stdin"); err != nil {
		return fmt.Errorf("creating backup refs: %w", err)
	}
	return nil
}

// BackupIdentity signs the commits git-ralph writes for itself, so that they need no
// user.name or user.email (cron has neither, often) and say who made them.
var BackupIdentity = []string{"GIT_AUTHOR_NAME=git-ralph", "GIT_AUTHOR_EMAIL=git-ralph@localhost",
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
	if err := GitTo(ctx, dir, BackupIdentity, strings.NewReader(message), &out, args...); err != nil {
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
		return "", AsNotRepo(dir, fmt.Errorf("reading the branch HEAD is on: %w", err))
	}
	return out, nil
}

// CheckComplete fails unless every object of commit's tree is in the object store: a gc
// that pruned what was written moments ago, before a ref kept it, shows here.
func CheckComplete(ctx context.Context, dir, commit string) error {
	if err := GitTo(ctx, dir, nil, nil, io.Discard, "rev-list", "--objects", "--no-walk", commit, "--"); err != nil {
		return fmt.Errorf("checking that %s is whole: %w", commit, err)
	}
	return nil
}

// ResolveCommit names the commit rev stands for, and the branch when rev names a local
// branch (HEAD on a branch included): the full ref, else "". It reports false when rev
// names no commit. rev is taken as a revision even when it starts with a dash.
func ResolveCommit(ctx context.Context, dir, rev string) (commit, branch string, ok bool, err error) {
	out, err := Git(ctx, dir, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	var gitErr *Error
	if errors.As(err, &gitErr) && gitErr.ExitCode == 1 {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, AsNotRepo(dir, fmt.Errorf("resolving %s: %w", rev, err))
	}
	if strings.HasPrefix(rev, "-") {
		return out, "", true, nil // no branch name starts with a dash, and rev-parse would take it for an option
	}
	full, err := Git(ctx, dir, "rev-parse", "--symbolic-full-name", rev)
	if err == nil && strings.HasPrefix(full, "refs/heads/") && !strings.Contains(full, "\n") {
		branch = full
	}
	return out, branch, true, nil
}

// CountAhead is how many commits tip has that base has not (`git rev-list --count
// base..tip`); with no base (an unborn branch), all of tip's.
func CountAhead(ctx context.Context, dir, base, tip string) (int, error) {
	revs := base + ".." + tip
	if base == "" {
		revs = tip
	}
	out, err := Git(ctx, dir, "rev-list", "--count", "--end-of-options", revs, "--")
	if err != nil {
		return 0, fmt.Errorf("counting the commits of %s not in %s: %w", tip, base, err)
	}
	n, err := strconv.Atoi(out)
	if err != nil {
		return 0, fmt.Errorf("counting the commits of %s not in %s: unexpected answer %q", tip, base, out)
	}
	return n, nil
}

// CommitOf resolves rev (a hash, a ref, an annotated tag) to the commit it names. It
// reports false when rev names no commit, e.g. a tag of a tree or a blob.
func CommitOf(ctx context.Context, dir, rev string) (string, bool, error) {
	out, err := Git(ctx, dir, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	var gitErr *Error
	if errors.As(err, &gitErr) && gitErr.ExitCode == 1 {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("resolving %s: %w", rev, err)
	}
	return out, true, nil
}
