// Package replies compares scheduler replies with those recorded in the
// corpus: a reply is reduced to its decisions in canonical form, so that the
// spacing, key order and number spelling of the recorded text do not matter.
// (It is apart from package corpus because it needs protocol, whose own
// tests use corpus.)
package replies

import (
	"io"
	"log/slog"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
)

// Decisions decodes a scheduler message and returns its now and its
// decisions (EXECUTE_JOB, REJECT_JOB), each re-encoded alone, at its own
// timestamp, by the protocol's Reply builder. Any other event fails the
// test.
func Decisions(t testing.TB, raw []byte) (now float64, events []string) {
	t.Helper()
	m, err := batsim.NewDecoder(slog.New(slog.NewTextHandler(io.Discard, nil))).Decode(raw, batsim.FromScheduler)
	if err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	events = make([]string, len(m.Events))
	for i, e := range m.Events {
		r := batsim.NewReply(e.Timestamp)
		switch d := e.Data.(type) {
		case *batsim.ExecuteJob:
			err = r.ExecuteJob(*d)
		case *batsim.RejectJob:
			err = r.RejectJob(d.JobID)
		default:
			t.Fatalf("unexpected event %s in %s", e.Type, raw)
		}
		if err != nil {
			t.Fatal(err)
		}
		events[i] = string(r.Encode())
	}
	return m.Now, events
}

// Events is the decisions of a scheduler message, canonical (Decisions
// without the date).
func Events(t testing.TB, raw []byte) []string {
	t.Helper()
	_, evs := Decisions(t, raw)
	return evs
}
