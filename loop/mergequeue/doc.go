// Package mergequeue merges worktree loops' branches into their base branches one at a time, each built and validated in a scratch worktree before the base moves by compare-and-swap.
package mergequeue
