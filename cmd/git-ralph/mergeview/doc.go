// Package mergeview says what became of a worktree loop's merge (`git ralph merge`, `loop --merge`): merged and how, the work trees that followed or not, or why it was left for review, and the notification of that; and what the merge-mode agent of `merge --resolve` is told.
package mergeview
