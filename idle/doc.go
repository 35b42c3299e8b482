// Package idle decides whether an iteration made progress in git.
package idle
