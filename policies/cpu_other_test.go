//go:build !unix

package policies_test

import "time"

// processCPU is the CPU time the process has used so far: not known on
// this system.
func processCPU() (time.Duration, bool) { return 0, false }
