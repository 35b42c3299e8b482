// Package agent runs one agent process in its own session and process group, captures the
// tail of its output in bounded memory, and guarantees that nothing it started outlives it.
package agent
