//go:build !linux

package agent

// liveMembers cannot list a session's processes without /proc; the caller falls back to
// signalling the process group alone.
func liveMembers(sid int) ([]member, bool) { return nil, false }

// sessionsOfRun cannot read another process's environment without /proc, so it finds
// none: an orphaned agent is left alone rather than risk stopping an unrelated one.
func sessionsOfRun(marker string) []int { return nil }
