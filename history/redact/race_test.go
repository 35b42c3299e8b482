//go:build race

package redact

// raceSlowdown scales the time bounds of tests: the race detector slows code down.
const raceSlowdown = 10
