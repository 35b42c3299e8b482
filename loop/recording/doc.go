// Package recording keeps what an agent did in each attempt of a loop (prompt, timed output, exit status, usage, and its change to the repository as a git bundle) and plays it back as the agent.
package recording
