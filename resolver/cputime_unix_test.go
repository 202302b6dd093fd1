//go:build unix

package resolver

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time: on a machine shared with
// other jobs, wall time measures the queue for a core, CPU time the work.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
