//go:build unix

package gitops

import (
	"os"
	"syscall"
)

// ownedByUs reports whether every path is owned by the user git-ralph runs as, as git's
// safe.directory check wants; otherwise git decides (a safe.directory setting may allow it).
func ownedByUs(paths ...string) bool {
	uid := os.Geteuid()
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return false
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		if !ok || int(st.Uid) != uid {
			return false
		}
	}
	return true
}

// sameDevice reports whether a and b are on one file system.
func sameDevice(a, b string) bool {
	ia, err1 := os.Stat(a)
	ib, err2 := os.Stat(b)
	if err1 != nil || err2 != nil {
		return false
	}
	sa, ok1 := ia.Sys().(*syscall.Stat_t)
	sb, ok2 := ib.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && sa.Dev == sb.Dev
}
