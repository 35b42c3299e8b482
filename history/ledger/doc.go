// Package ledger is the text of git-ralph's notes in refs/notes/ralph: one entry per
// iteration that made commits, written as `key: value` lines and read back strictly.
package ledger
