package basic_test

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/internal/corpus"
	"github.com/bucma-sched/bucma/internal/corpus/replies"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sched"
)

// TestReplayFCFSFirstFit plays the Batsim side of transcripts recorded with a
// strict FCFS first-fit scheduler and checks that fcfs hosts=first-fit gives
// the same decisions at every step.
func TestReplayFCFSFirstFit(t *testing.T) {
	for _, name := range []string{"hetero4_delays", "hetero8_compute", "users_fields"} {
		t.Run(name, func(t *testing.T) {
			spec, _ := reg.Get("fcfs")
			// users_fields' sched-config holds BUCMA's options, which the
			// reference scheduler ignored: so does the replay.
			sess, err := (&run.Policy{Spec: spec, Options: sched.Options{"hosts": "first-fit"}, Validate: true, IgnoreSchedConfig: true}).NewSession()
			if err != nil {
				t.Fatal(err)
			}
			lines := corpus.ReadTranscript(t, name, "transcript.jsonl")
			dec := batsim.NewDecoder(nil)
			for i := 0; i+1 < len(lines); i += 2 {
				in, want := lines[i], lines[i+1]
				msg, err := dec.Decode([]byte(in.Raw), batsim.FromBatsim)
				if err != nil {
					t.Fatalf("seq %d: %v", in.Seq, err)
				}
				reply, err := sess.Handle(msg)
				if err != nil {
					t.Fatalf("seq %d: %v", in.Seq, err)
				}
				got := replies.Events(t, reply.Encode())
				exp := replies.Events(t, []byte(want.Raw))
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

// TestReplayBatsched plays the Batsim side of transcripts recorded with
// batsched and checks that the bucma policy with the options that make it
// decide as batsched gives the same reply, decision for decision and in the
// same order, at every step: fcfs (first-fit hosts) as fcfs_fast, easy
// (first-fit hosts, backfill=batsched, no-walltime=reject) as easy_bf.
func TestReplayBatsched(t *testing.T) {
	for _, c := range []struct {
		variant, policy string
		opts            sched.Options
	}{
		{"fcfs_fast", "fcfs", sched.Options{"hosts": "first-fit"}},
		{"easy_bf", "easy", batschedEASY},
	} {
		for _, name := range []string{"hetero4_delays", "hetero8_compute"} {
			t.Run(c.variant+"/"+name, func(t *testing.T) {
				spec, _ := reg.Get(c.policy)
				sess, err := (&run.Policy{Spec: spec, Options: c.opts, Validate: true, Log: quietLog()}).NewSession()
				if err != nil {
					t.Fatal(err)
				}
				lines := corpus.ReadTranscript(t, name, "transcript.batsched_"+c.variant+".jsonl")
				dec := batsim.NewDecoder(quietLog())
				decisions := 0
				for i := 0; i+1 < len(lines); i += 2 {
					msg, err := dec.Decode([]byte(lines[i].Raw), batsim.FromBatsim)
					if err != nil {
						t.Fatalf("seq %d: %v", lines[i].Seq, err)
					}
					reply, err := sess.Handle(msg)
					if err != nil {
						t.Fatalf("seq %d: %v", lines[i].Seq, err)
					}
					got, want := replies.Events(t, reply.Encode()), replies.Events(t, []byte(lines[i+1].Raw))
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Fatalf("seq %d: got\n%s\nbatsched\n%s", lines[i+1].Seq, strings.Join(got, "\n"), strings.Join(want, "\n"))
					}
					decisions += len(got)
				}
				if !sess.Ended() {
					t.Fatal("SIMULATION_ENDS not seen")
				}
				if decisions == 0 {
					t.Fatal("the transcript has no decision")
				}
			})
		}
	}
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
