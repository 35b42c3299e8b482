// Package gitwt adds, lists, points and removes worktrees: the loops' own, the temporary ones and the merge queue's scratch worktrees (without a git process where the layout is plain).
package gitwt
