package gitsnap

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/git-ralph/git-ralph/gitops"
)

// stageSubmoduleWork records the uncommitted work of each submodule in paths (from the top of
// dir's work tree) in the index named by env. A submodule is a commit in its superproject's
// tree, and `git add` stages the commit its HEAD is on, which leaves uncommitted work out: a
// loop would see no change where an agent edited files in a submodule. So the work tree of
// each such submodule is snapshotted in its own repository, as a commit on its HEAD (see
// submoduleSnapshot), and that commit goes into the index in place of HEAD's.
func stageSubmoduleWork(ctx context.Context, dir string, env, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	top, err := gitops.Root(ctx, dir)
	if err != nil {
		return err
	}
	var info strings.Builder
	for _, path := range paths {
		commit, err := submoduleSnapshot(ctx, filepath.Join(top, path))
		if err != nil {
			return fmt.Errorf("snapshotting submodule %s: %w", path, err)
		}
		if commit != "" {
			fmt.Fprintf(&info, "160000 %s\t%s\x00", commit, path)
		}
	}
	if info.Len() == 0 {
		return nil
	}
	return gitops.GitTo(ctx, top, env, strings.NewReader(info.String()), &strings.Builder{}, "update-index", "-z", "--index-info")
}

// snapshotIdentity makes submodule snapshots commits that depend only on what they hold:
// the same work gives the same commit, so an unchanged submodule is no change to the loop,
// whoever runs it and whenever.
var snapshotIdentity = []string{
	"GIT_AUTHOR_NAME=git-ralph", "GIT_AUTHOR_EMAIL=git-ralph@localhost", "GIT_AUTHOR_DATE=1970-01-01T00:00:00Z",
	"GIT_COMMITTER_NAME=git-ralph", "GIT_COMMITTER_EMAIL=git-ralph@localhost", "GIT_COMMITTER_DATE=1970-01-01T00:00:00Z",
}

// submoduleSnapshot writes the work tree of the submodule at dir as a commit whose parent
// is its HEAD, in the submodule's own repository, kept there from gc by the ref
// refs/ralph/snapshots/<commit> (refs of the superproject cannot keep a submodule's
// objects). It returns "" for a submodule whose branch has no commit yet.
func submoduleSnapshot(ctx context.Context, dir string) (string, error) {
	head, err := gitops.Head(ctx, dir)
	if err != nil || head == "" {
		return "", err
	}
	tree, err := snapshotAt(ctx, dir, head)
	if err != nil {
		return "", err
	}
	commit, err := gitops.GitEnv(ctx, dir, snapshotIdentity, "commit-tree", "--no-gpg-sign", tree, "-p", head,
		"-m", "git-ralph: uncommitted work, snapshotted for the superproject's loop")
	if err != nil {
		return "", err
	}
	return commit, gitops.KeepAlive(ctx, dir, "refs/ralph/snapshots/"+commit, commit)
}
