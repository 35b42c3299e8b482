//go:build !linux

package agent

// liveMembers cannot list a session's processes without /proc; the caller falls back to
// signalling the process group alone.
func liveMembers(sid int) ([]member, bool) { return nil, false }

// belongsToRun cannot read another process's environment without /proc, so it says no:
// an orphaned group is left alone rather than risk stopping an unrelated one.
func belongsToRun(sid int, marker string) bool { return false }
