package fuzzguard

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// recorder is a testing.TB that records a Fatal instead of stopping.
type recorder struct {
	testing.TB
	msg string
}

func (r *recorder) Helper()                           {}
func (r *recorder) Fatal(args ...any)                 { r.msg = fmt.Sprint(args...) }
func (r *recorder) Fatalf(format string, args ...any) { r.msg = fmt.Sprintf(format, args...) }

// bodies are the outcomes a body can have, with what the guard reports.
type outcome struct {
	name string
	body func() error
	want string
}

var bodies = []outcome{
	{"ok", func() error { return nil }, ""},
	{"error", func() error { return errors.New("bad input") }, "bad input"},
	{"panic", func() error { panic("boom") }, "panic: boom"},
}

// check runs each body with guard and compares what it reports.
func check(t *testing.T, guard func(testing.TB, func() error), stall bool) {
	cases := bodies
	if stall {
		cases = append(slices.Clip(bodies), outcome{"stall", func() error { select {} }, "took more than 50ms"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &recorder{TB: t}
			guard(r, c.body)
			if c.want == "" && r.msg != "" || !strings.Contains(r.msg, c.want) {
				t.Fatalf("got %q, want %q", r.msg, c.want)
			}
		})
	}
}

// TestRun: with a limit (as while fuzzing), the guard reports errors,
// panics and stalls.
func TestRun(t *testing.T) {
	check(t, func(tb testing.TB, body func() error) { run(tb, body, 50*time.Millisecond) }, true)
}

// TestRunSeedCorpus: outside fuzzing, Run reports errors and panics of the
// body run in place, with no time limit.
func TestRunSeedCorpus(t *testing.T) {
	if fuzzing() {
		t.Skip("fuzzing: Run applies its limit")
	}
	check(t, Run, false)
}
