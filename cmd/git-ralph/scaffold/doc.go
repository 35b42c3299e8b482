// Package scaffold writes what `git ralph init` sets up: the default prompts, the commented config, the example specification, a loop template's prompt and settings, a built-in workflow's files; all of them or none, never through a symlink.
package scaffold
