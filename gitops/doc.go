// Package gitops is git-ralph's only door to git: go-git for fast reads, the git CLI for the
// rest. This package is the core every part below it uses: the runner (Git, GitTo, GitEnv:
// bounded, hooks off, one process group), the repository's root and common dir, the
// identity git would commit with, refs and commits (HEAD, resolving, compare-and-swap,
// the refs that keep objects alive) and the Checkpoint value. The parts are sub-packages:
// gitsnap (checkpoints, snapshots, diffs, restore, rollback), gitwt (worktrees), gitmerge
// (merges), gitnotes (notes) and gitpush (pushes).
package gitops
