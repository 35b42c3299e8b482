// Package workflowview lays out what `git ralph workflow status` shows of a workflow: its stages in order with their states, runs, exit codes and notes (gates, worktree branches not merged yet, feedback), the failures' problems, and the next step; and its --json form.
package workflowview
