//go:build !linux

package agent

// hasLiveMember cannot tell zombies from running processes without /proc, so it assumes
// the group is alive; the caller then waits out the grace period and escalates.
func hasLiveMember(pgid int) bool { return true }

// belongsToRun cannot read another process's environment without /proc, so it says no:
// an orphaned group is left alone rather than risk stopping an unrelated one.
func belongsToRun(pgid int, marker string) bool { return false }
