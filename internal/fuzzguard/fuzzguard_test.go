package fuzzguard

import (
	"errors"
	"fmt"
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

func TestRun(t *testing.T) {
	cases := []struct {
		name string
		body func() error
		want string
	}{
		{"ok", func() error { return nil }, ""},
		{"error", func() error { return errors.New("bad input") }, "bad input"},
		{"panic", func() error { panic("boom") }, "panic: boom"},
		{"stall", func() error { select {} }, "took more than 50ms"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &recorder{TB: t}
			run(r, c.body, 50*time.Millisecond)
			if c.want == "" && r.msg != "" || !strings.Contains(r.msg, c.want) {
				t.Fatalf("got %q, want %q", r.msg, c.want)
			}
		})
	}
}

// TestRunSeedCorpus: outside fuzzing, Run reports errors and panics of the
// body run in place, with no time limit.
func TestRunSeedCorpus(t *testing.T) {
	if fuzzing() {
		t.Skip("fuzzing: Run applies its limit")
	}
	cases := []struct {
		name string
		body func() error
		want string
	}{
		{"ok", func() error { return nil }, ""},
		{"error", func() error { return errors.New("bad input") }, "bad input"},
		{"panic", func() error { panic("boom") }, "panic: boom"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &recorder{TB: t}
			Run(r, c.body)
			if c.want == "" && r.msg != "" || !strings.Contains(r.msg, c.want) {
				t.Fatalf("got %q, want %q", r.msg, c.want)
			}
		})
	}
}
