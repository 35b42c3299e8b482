// Package launch turns a loop command's resolved settings into a running loop: its loop.Config, reporters, hooks and notifications, in this work tree, a worktree of its own or a replay; the best-of candidates, workflow stages and demo loops it starts, and their child command lines.
package launch
