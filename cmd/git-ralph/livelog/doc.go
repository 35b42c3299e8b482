// Package livelog follows a running iteration's output log as it grows, as the lines a
// person reads (loop/agentcli's rendering): what `git ralph watch` and `git ralph serve`
// show live. It only reads the file, within a bound per read.
package livelog
