//go:build unix

package planning_test

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the user and system time of this process, or of its children
// that ended.
func cpuTime(t testing.TB, children bool) time.Duration {
	t.Helper()
	who := syscall.RUSAGE_SELF
	if children {
		who = syscall.RUSAGE_CHILDREN
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
