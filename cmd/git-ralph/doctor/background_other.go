//go:build !linux

package doctor

// sessionLeader reports false: without /proc/PID/stat (read on Linux), this system cannot
// tell a loop --background detached from one started in a terminal.
func sessionLeader(int) bool { return false }
