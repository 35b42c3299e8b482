// Package gitstore reads and writes a repository's files and objects without a git process, for the gitops packages only: its config and small files, hashes and NUL lists, go-git's tree writes.
package gitstore
