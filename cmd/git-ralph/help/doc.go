// Package help writes git-ralph's shell completion scripts and its man page from the command-line model.
package help
