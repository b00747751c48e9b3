// Package papertrace finds RLScheduler's Lublin-1 trace (lublin_256.swf,
// the file data/lublin_256.swf of DIR-LAB/deep-batch-scheduler) for the
// tests that compare bucma rlscheduler with the paper's published numbers.
//
// The trace is not shipped with bucma (its repository states no licence):
// BUCMA_LUBLIN1 names a copy, and without it those tests skip, saying so.
package papertrace

import (
	"os"
	"testing"
)

// Env is the variable that names a copy of the trace.
const Env = "BUCMA_LUBLIN1"

// Lublin1 returns the trace's path (BUCMA_LUBLIN1) and whether a file is
// there.
func Lublin1() (string, bool) {
	path := os.Getenv(Env)
	if path == "" {
		return "", false
	}
	fi, err := os.Stat(path)
	return path, err == nil && fi.Mode().IsRegular()
}

// Lublin1OrSkip returns the trace's path, or skips tb saying how to give
// it.
func Lublin1OrSkip(tb testing.TB) string {
	tb.Helper()
	path, ok := Lublin1()
	switch {
	case path == "":
		tb.Skipf("RLScheduler's Lublin-1 trace (lublin_256.swf) is not shipped: %s=PATH names a copy", Env)
	case !ok:
		tb.Skipf("%s=%s: no such file", Env, path)
	}
	return path
}
