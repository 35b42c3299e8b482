// Package testio: for tests only, a buffer goroutines may share and a pseudo-terminal.
package testio
