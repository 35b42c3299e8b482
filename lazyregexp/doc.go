// Package lazyregexp holds the regular expressions of package-level variables, compiled
// when first used rather than as git-ralph starts (and at once under go test, so that a
// pattern that does not compile fails its package's tests): a leaf every package may use.
package lazyregexp
