// Package idle answers whether a loop is making progress: the idle counter and what counts as progress.
package idle
