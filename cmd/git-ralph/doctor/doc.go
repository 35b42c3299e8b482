// Package doctor holds the checks of `git ralph doctor`, the preflight of an unattended run: each a small function that says ok, a warning or a failure, with a hint.
package doctor
