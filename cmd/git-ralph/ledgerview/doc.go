// Package ledgerview reads the ledger (the git notes of refs/notes/ralph) for a range of
// commits, after merging the remote's notes, and lays it out for `git ralph ledger`.
package ledgerview
