//go:build !unix

package workflow

import "time"

var cpuClockStart = time.Now()

// cpuTime is the time on the clock where the processor time of the process cannot be read.
func cpuTime() time.Duration { return time.Since(cpuClockStart) }
