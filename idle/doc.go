// Package idle answers whether a loop is making progress: the idle counter, what counts as progress, and stagnation (iterations alike).
package idle
