//go:build unix

package idle

import (
	"syscall"
	"time"
)

// cpuTime is the processor time the test process has used so far: unlike the time on
// the clock, other processes of a busy machine do not add to it.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
