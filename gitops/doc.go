// Package gitops is git-ralph's only door to git: go-git for fast reads, the git CLI for the rest.
package gitops
