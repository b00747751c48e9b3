// Package fuzzguard bounds the time a fuzz target spends on one input. The
// Go fuzzer has no such limit: an input that makes a decoder loop forever
// (or run for minutes) stalls it at 0 execs/s until -fuzztime ends, and it
// reports PASS. With the guard, such an input fails the target and is saved
// in the corpus like any other failure.
//
// The limit applies only while fuzzing (go test -fuzz). A plain go test run
// of the seed corpus, possibly under the race detector on a loaded machine,
// runs each input to its end: go test's own -timeout catches a real hang
// there, and a slow machine does not fail a correct decoder.
package fuzzguard

import (
	"flag"
	"fmt"
	"runtime/debug"
	"testing"
	"time"
)

// Limit is how long one input may take. Decoding any input of the fuzzers'
// sizes takes microseconds to milliseconds; seconds mean a stall.
const Limit = 2 * time.Second

// Run runs body on its own goroutine and fails t when it returns an error,
// panics, or takes more than Limit. body must not call t.Fatal (report with
// the returned error); a body still running after Limit is left running,
// the failure ends the fuzzing process.
func Run(t testing.TB, body func() error) {
	t.Helper()
	if !fuzzing() {
		runBody(t, body)
		return
	}
	run(t, body, Limit)
}

// fuzzing tells whether the test binary runs the fuzzer (as coordinator or
// worker) rather than the seed corpus.
func fuzzing() bool {
	if f := flag.Lookup("test.fuzzworker"); f != nil && f.Value.String() == "true" {
		return true
	}
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// runBody runs body on the calling goroutine, with the guard's reports.
func runBody(t testing.TB, body func() error) {
	t.Helper()
	err := func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
			}
		}()
		return body()
	}()
	if err != nil {
		t.Fatal(err)
	}
}

// run is Run with the given limit.
func run(t testing.TB, body func() error, limit time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("panic: %v\n%s", p, debug.Stack())
			}
		}()
		done <- body()
	}()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-timer.C:
		t.Fatalf("one input took more than %v: the code stalls on it", limit)
	}
}
