// Package gitnotes writes, merges, reads, fetches and pushes git notes (the ledger's refs/notes/ralph), by compare-and-swap, in process with go-git where it can.
package gitnotes
