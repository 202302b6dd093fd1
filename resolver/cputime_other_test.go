//go:build !unix

package resolver

import "time"

// cpuTime is not measured here: the cpu-ms metrics then read 0.
func cpuTime() time.Duration { return 0 }
