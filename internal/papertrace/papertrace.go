// Package papertrace finds RLScheduler's Lublin-1 trace (lublin_256.swf,
// the file data/lublin_256.swf of DIR-LAB/deep-batch-scheduler) for the
// tests that compare bucma rlscheduler with the paper's published numbers.
//
// The trace is not shipped with bucma (its repository states no licence),
// so those tests skip, saying so, without it. BUCMA_LUBLIN1 names a copy;
// without it, the copy kept beside the checkout for the project's own
// machines (../shared/data/rlscheduler/lublin_256.swf) is used when it is
// there.
package papertrace

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Env is the variable that names a copy of the trace.
const Env = "BUCMA_LUBLIN1"

// Lublin1 returns the trace's path and whether it is there.
func Lublin1() (string, bool) {
	path := os.Getenv(Env)
	if path == "" {
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		path = filepath.Join(root, "..", "shared", "data", "rlscheduler", "lublin_256.swf")
	}
	fi, err := os.Stat(path)
	return path, err == nil && fi.Mode().IsRegular()
}

// Lublin1OrSkip returns the trace's path, or skips tb saying how to give
// it.
func Lublin1OrSkip(tb testing.TB) string {
	tb.Helper()
	path, ok := Lublin1()
	if !ok {
		tb.Skipf("RLScheduler's Lublin-1 trace (lublin_256.swf) not found at %s: %s=PATH names a copy", path, Env)
	}
	return path
}
