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

// runMessages are the messages Batsim sends in a run of n delay jobs one
// at a time (make bench-batsim's case, in shape): each job's JOB_SUBMITTED,
// then its JOB_COMPLETED.
func runMessages(n int) [][]byte {
	var out [][]byte
	for i := 0; i < n; i++ {
		t := float64(i)*7.25 + 0.000013*float64(i%11)
		id := fmt.Sprintf("w0!%d", i)
		job := fmt.Sprintf(`{"id":"%s","subtime":%.6f,"res":%d,"profile":"d%d","walltime":%.6f}`, id, t, 1+i%32, i, 100+float64(i%900))
		out = append(out, EncodeBatsim(&Message{Now: t, Events: []Event{{Timestamp: t, Type: TypeJobSubmitted,
			Data: &JobSubmitted{JobID: id, Job: []byte(job)}}}}))
		out = append(out, EncodeBatsim(&Message{Now: t + 3, Events: []Event{{Timestamp: t + 3, Type: TypeJobCompleted,
			Data: &JobCompleted{JobID: id, JobState: StateSuccess, Alloc: fmt.Sprintf("%d-%d", i%96, i%96+i%32)}}}}))
	}
	return out
}

// BenchmarkDecode decodes the corpus' messages in each direction (one
// iteration decodes them all), a 1000-event Batsim message, and the
// messages of a run of 20 000 jobs.
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
	run := runMessages(20000)
	b.Run("run-20k", func(b *testing.B) {
		dec := quietDecoder()
		for b.Loop() {
			for _, raw := range run {
				if _, err := dec.Decode(raw, FromBatsim); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
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
