package batsim

import (
	"fmt"
	"testing"

	"github.com/bucma-sched/bucma/internal/corpus"
)

// benchMessages returns the corpus' messages sent in direction dir.
func benchMessages(b *testing.B, dir Direction) [][]byte {
	b.Helper()
	var out [][]byte
	for _, tr := range corpus.Transcripts(b) {
		for _, l := range tr.Lines(b) {
			if direction(l) == dir {
				out = append(out, []byte(l.Raw))
			}
		}
	}
	if len(out) == 0 {
		b.Fatal("no message in the corpus")
	}
	return out
}

// largeBatsimMessage is a Batsim message of n JOB_COMPLETED events at
// times around 1e10 s, number-heavy like the busy steps of a long
// simulation.
func largeBatsimMessage(n int) []byte {
	m := &Message{Now: 1e10 + float64(n)*0.125 + 0.000047}
	for i := 0; i < n; i++ {
		m.Events = append(m.Events, Event{
			Timestamp: 1e10 + float64(i)*0.125 + 0.000001*float64(i%7),
			Type:      TypeJobCompleted,
			Data:      &JobCompleted{JobID: fmt.Sprintf("w0!%d", i), JobState: StateSuccess, Alloc: fmt.Sprintf("%d-%d", i, i+3)},
		})
	}
	return EncodeBatsim(m)
}

// BenchmarkDecode decodes the corpus' messages in each direction (one
// iteration decodes them all), and a 1000-event Batsim message.
func BenchmarkDecode(b *testing.B) {
	for dir, name := range map[Direction]string{FromBatsim: "corpus-from-batsim", FromScheduler: "corpus-from-scheduler"} {
		msgs := benchMessages(b, dir)
		b.Run(name, func(b *testing.B) {
			dec := quietDecoder()
			for b.Loop() {
				for _, raw := range msgs {
					_, _ = dec.Decode(raw, dir)
				}
			}
		})
	}
	big := largeBatsimMessage(1000)
	b.Run("completed-1000", func(b *testing.B) {
		dec := quietDecoder()
		b.SetBytes(int64(len(big)))
		for b.Loop() {
			if _, err := dec.Decode(big, FromBatsim); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkEncodeReply encodes a reply of 100 EXECUTE_JOB and a
// CALL_ME_LATER at a time around 1e10 s.
func BenchmarkEncodeReply(b *testing.B) {
	r := NewReply(1e10 + 0.000047)
	for i := 0; i < 100; i++ {
		if err := r.ExecuteJob(ExecuteJob{JobID: fmt.Sprintf("w0!%d", i), Alloc: IntervalSet{i}}); err != nil {
			b.Fatal(err)
		}
	}
	if err := r.CallMeLater(1e10 + 60.5); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		_ = r.Encode()
	}
}
