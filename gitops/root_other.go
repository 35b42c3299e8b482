//go:build !unix

package gitops

// ownedByUs cannot tell here: git decides.
func ownedByUs(paths ...string) bool { return false }

// sameDevice cannot tell here: git decides.
func sameDevice(a, b string) bool { return false }
