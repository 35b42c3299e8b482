// Package fleet keeps the loops of a repository that run in linked worktrees of their own: creating or reusing a loop's worktree and branch, and finding every loop by name.
package fleet
