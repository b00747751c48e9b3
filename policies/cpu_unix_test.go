//go:build unix

package policies_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) the process has used so
// far; ok is false where the system does not say.
func processCPU() (cpu time.Duration, ok bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
