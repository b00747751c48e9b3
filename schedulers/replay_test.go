package schedulers

import (
	"testing"

	"bucma/internal/corpus"
	"bucma/internal/corpus/replies"
	"bucma/protocol"
)

// eventsOf returns the decisions of a scheduler message, canonical.
func eventsOf(t *testing.T, raw []byte) []string {
	t.Helper()
	_, evs := replies.Decisions(t, raw)
	return evs
}

// TestReplayFCFSFirstFit plays the Batsim side of transcripts recorded with a
// strict FCFS first-fit scheduler and checks that fcfs hosts=first-fit gives
// the same decisions at every step.
func TestReplayFCFSFirstFit(t *testing.T) {
	for _, name := range []string{"hetero4_delays", "hetero8_compute", "users_fields"} {
		t.Run(name, func(t *testing.T) {
			reg := Builtin()
			spec, _ := reg.Get("fcfs")
			sess, err := NewSession(SessionConfig{Spec: spec, Options: Options{"hosts": "first-fit"}, Validate: true})
			if err != nil {
				t.Fatal(err)
			}
			lines := corpus.ReadTranscript(t, name, "transcript.jsonl")
			dec := protocol.NewDecoder(nil)
			for i := 0; i+1 < len(lines); i += 2 {
				in, want := lines[i], lines[i+1]
				msg, err := dec.Decode([]byte(in.Raw), protocol.FromBatsim)
				if err != nil {
					t.Fatalf("seq %d: %v", in.Seq, err)
				}
				reply, err := sess.Handle(msg)
				if err != nil {
					t.Fatalf("seq %d: %v", in.Seq, err)
				}
				got := eventsOf(t, reply.Encode())
				exp := eventsOf(t, []byte(want.Raw))
				if len(got) != len(exp) {
					t.Fatalf("seq %d: got %v, want %v", want.Seq, got, exp)
				}
				for k := range got {
					if got[k] != exp[k] {
						t.Fatalf("seq %d event %d: got %s, want %s", want.Seq, k, got[k], exp[k])
					}
				}
			}
			if !sess.Ended() {
				t.Fatal("SIMULATION_ENDS not seen")
			}
		})
	}
}
