package doctor

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/gitops"
)

// The git versions of the features git-ralph uses: `git worktree list --porcelain -z`
// (worktree loops, runs, prune, the merge queue) and `git merge-tree --write-tree` (the
// merge queue's merges without a work tree; older gits merge in the scratch worktree).
var (
	worktreeGit  = gitVersion{2, 36}
	mergeTreeGit = gitVersion{2, 38}
)

type gitVersion struct{ major, minor int }

func (v gitVersion) atLeast(w gitVersion) bool {
	return v.major > w.major || v.major == w.major && v.minor >= w.minor
}

func (v gitVersion) String() string { return fmt.Sprintf("%d.%d", v.major, v.minor) }

// gitChecks: git's version against the features used.
func gitChecks(ctx context.Context, root string) []Result {
	const name = "git"
	out, err := gitops.Git(ctx, root, "version")
	if err != nil {
		return []Result{fail(name, "git does not run: "+display.Printable(err.Error()), "install git")}
	}
	return gitVersionChecks(out)
}

// gitVersionChecks judges the line `git version` printed.
func gitVersionChecks(line string) []Result {
	const name = "git"
	v, ok := parseGitVersion(line)
	if !ok {
		return []Result{warn(name, "unknown git version: "+display.Printable(line), "git-ralph needs git "+worktreeGit.String()+" or later")}
	}
	if !v.atLeast(worktreeGit) {
		return []Result{fail(name, fmt.Sprintf("git %s is older than %s, which worktree loops, 'runs' and the merge queue need", v, worktreeGit), "upgrade git")}
	}
	first := Result{Name: name, Status: OK, Detail: fmt.Sprintf("git %s: worktrees", v)}
	if !v.atLeast(mergeTreeGit) {
		return []Result{first, warn("git-merge-tree", fmt.Sprintf("git %s has no 'merge-tree --write-tree' (git %s): the merge queue builds each merge in its scratch worktree, slower", v, mergeTreeGit), "upgrade git")}
	}
	first.Detail += ", merge-tree --write-tree"
	return []Result{first}
}

// parseGitVersion reads "git version 2.39.5" (and "git version 2.39.5.windows.1",
// "git version 2.50.1 (Apple Git-155)").
func parseGitVersion(line string) (gitVersion, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "git version ")
	if !ok {
		return gitVersion{}, false
	}
	parts := strings.SplitN(strings.Fields(rest + " ")[0], ".", 3)
	if len(parts) < 2 {
		return gitVersion{}, false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return gitVersion{}, false
	}
	return gitVersion{major, minor}, true
}
