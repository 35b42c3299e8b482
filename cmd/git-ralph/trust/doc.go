// Package trust remembers which commands from a repository's own configuration the user
// approved, so that a cloned repository cannot make git-ralph run anything unapproved,
// and asks for those approvals on a terminal (ask.go).
package trust
