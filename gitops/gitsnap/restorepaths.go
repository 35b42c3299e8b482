package gitsnap

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/internal/gitstore"
)

func gitStdin(ctx context.Context, dir string, env []string, stdin string, args ...string) error {
	var out strings.Builder
	return gitops.GitTo(ctx, dir, env, strings.NewReader(stdin), &out, args...)
}

func nulJoin(paths []string) string {
	return strings.Join(paths, "\x00") + "\x00"
}

// treeFiles lists the paths of every file, symlink and submodule in tree (under prefix
// when it is not ""), sorted as git sorts them.
func treeFiles(ctx context.Context, dir, tree, prefix string) ([]string, error) {
	if tree == "" {
		return nil, nil
	}
	args := []string{"ls-tree", "-r", "-z", "--name-only", "--full-tree", tree}
	if prefix != "" {
		args = append(args, "--", prefix)
	}
	out, err := gitops.GitEnv(ctx, dir, []string{"GIT_LITERAL_PATHSPECS=1"}, args...)
	if err != nil {
		return nil, fmt.Errorf("listing the files of %s: %w", tree, err)
	}
	return gitstore.SplitNul(out), nil
}

// ChangedPaths lists the paths whose content or mode differs between two tree-ishes, such
// as the Trees of two checkpoints, sorted.
func ChangedPaths(ctx context.Context, dir, from, to string) ([]string, error) {
	return diffPaths(ctx, dir, from, to)
}

// diffPaths lists the paths whose content or mode differs between two tree-ishes.
func diffPaths(ctx context.Context, dir, from, to string) ([]string, error) {
	out, err := gitops.Git(ctx, dir, "diff-tree", "-r", "-z", "--name-only", "--no-renames", from, to, "--")
	if err != nil {
		return nil, fmt.Errorf("comparing %s with %s: %w", from, to, err)
	}
	return sortedSet(gitstore.SplitNul(out)), nil
}

// ownUntracked lists the paths under own that a snapshot or the target tree holds but
// neither commit tracks: git-ralph's own files, which a restore leaves as they are.
func ownUntracked(ctx context.Context, dir, own string, trees, commits []string) ([]string, error) {
	if own == "" {
		return nil, nil
	}
	prefix := strings.TrimSuffix(own, "/") + "/"
	var held, tracked []string
	for _, tree := range trees {
		files, err := treeFiles(ctx, dir, tree, prefix)
		if err != nil {
			return nil, err
		}
		held = append(held, files...)
	}
	for _, commit := range commits {
		if commit == "" {
			continue
		}
		files, err := treeFiles(ctx, dir, commit+"^{tree}", prefix)
		if err != nil {
			return nil, err
		}
		tracked = append(tracked, files...)
	}
	return minus(sortedSet(held), tracked), nil
}

func sortedSet(paths []string) []string {
	sort.Strings(paths)
	out := paths[:0]
	for i, p := range paths {
		if i == 0 || p != paths[i-1] {
			out = append(out, p)
		}
	}
	return out
}

func intersect(a, b []string) []string {
	in := make(map[string]bool, len(b))
	for _, p := range b {
		in[p] = true
	}
	var out []string
	for _, p := range a {
		if in[p] {
			out = append(out, p)
		}
	}
	return out
}

func minus(a, b []string) []string {
	in := make(map[string]bool, len(b))
	for _, p := range b {
		in[p] = true
	}
	var out []string
	for _, p := range a {
		if !in[p] {
			out = append(out, p)
		}
	}
	return out
}
