// Package testreport reads which tests passed, failed or were skipped from a test
// command's output (go test -json, JUnit XML, TAP), bounded, for validation's baseline.
package testreport
