// Package display writes values for people: terminal-safe quoting of what a repository supplies, durations, sizes and counts.
package display
