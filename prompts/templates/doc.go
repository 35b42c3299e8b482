// Package templates finds loop templates — a prompt for a fresh-context agent with a place
// for the task, and its suggested settings — built in, in the user's config directory, and
// in the repository's .ralph/templates (read as untrusted files).
package templates
