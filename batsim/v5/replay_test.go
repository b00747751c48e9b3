package v5_test

import (
	"bytes"
	"encoding/binary"
	"log/slog"
	"reflect"
	"testing"

	v5 "github.com/bucma-sched/bucma/batsim/v5"
	"github.com/bucma-sched/bucma/internal/corpus"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/run"
)

func transcript(t testing.TB, name string) []corpus.Line { return corpus.ReadBatsim5Session(t, name) }

func transcripts(t testing.TB) []string { return corpus.Batsim5Sessions(t) }

// TestReplayTranscripts replays Batsim 5's side of each recorded session
// (internal/corpus.Batsim5Dir)
// into a decision component started from the same init string: every
// reply, the hello included, must be the recorded one, byte for byte.
func TestReplayTranscripts(t *testing.T) {
	for _, name := range transcripts(t) {
		t.Run(name, func(t *testing.T) {
			ls := transcript(t, name)
			init := []byte(ls[0].Raw)
			if len(init) < 4 || int(binary.NativeEndian.Uint32(init)) != len(init)-4 {
				t.Fatalf("first line is not an init message: %q", ls[0].Raw)
			}
			e, _, err := run.New(init[4:], policies.Builtin(), "test", slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			if !corpus.ReplayBatsim5(t, ls, e.Hello(), e.Take) {
				t.Error("the session did not end with SimulationEndsEvent answered")
			}
		})
	}
}

// TestDecodeTranscripts decodes every recorded message in both directions:
// every event is of a known type, and encoding then decoding gives the
// same message.
func TestDecodeTranscripts(t *testing.T) {
	types := map[string]int{}
	for _, name := range transcripts(t) {
		for i, l := range transcript(t, name)[1:] {
			m, err := v5.Decode([]byte(l.Raw))
			if err != nil {
				t.Fatalf("%s line %d: %v", name, i+2, err)
			}
			for _, e := range m.Events {
				if _, ok := e.Data.(*v5.Unknown); ok {
					t.Errorf("%s line %d: event type %s unknown", name, i+2, e.Type)
				}
				types[e.Type]++
			}
			b, err := m.Encode()
			if err != nil {
				t.Fatalf("%s line %d: encode: %v", name, i+2, err)
			}
			again, err := v5.Decode(b)
			if err != nil {
				t.Fatalf("%s line %d: decode of the encoding: %v\n%s", name, i+2, err, b)
			}
			if !reflect.DeepEqual(m, again) {
				t.Errorf("%s line %d: round trip differs:\n%s\n%s", name, i+2, l.Raw, b)
			}
		}
	}
	for _, typ := range []string{v5.TypeEDCHello, v5.TypeSimulationBegins, v5.TypeJobSubmitted, v5.TypeJobCompleted, v5.TypeJobsKilled,
		v5.TypeAllStaticJobsHaveBeenSubmitted, v5.TypeRequestedCall, v5.TypeSimulationEnds, v5.TypeExecuteJob, v5.TypeKillJobs,
		v5.TypeRegisterProfile, v5.TypeRegisterJob, v5.TypeFinishRegistration, v5.TypeCallMeLater, v5.TypeTurnOnOffHosts,
		v5.TypeHostsTurnedOnOff, v5.TypeRejectJob} {
		if types[typ] == 0 {
			t.Errorf("the transcripts hold no %s", typ)
		}
	}
}

// FuzzDecode: any input either fails to decode with an error, or decodes
// to a message that encodes and decodes back to itself.
func FuzzDecode(f *testing.F) {
	for _, name := range transcripts(f) {
		for _, l := range transcript(f, name)[1:] {
			if len(l.Raw) < 4096 {
				f.Add([]byte(l.Raw))
			}
		}
	}
	f.Add([]byte(`{"now":1,"events":[{"timestamp":1,"event_type":"CallMeLaterEvent","event":{"call_me_later_id":"p","when_type":"Periodic","when":{"period":5,"mode_type":"FinitePeriodNumber","mode":{"nb_periods":3}}}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := v5.Decode(b)
		if err != nil {
			return
		}
		out, err := m.Encode()
		if err != nil {
			t.Fatalf("decoded but does not encode: %v", err)
		}
		again, err := v5.Decode(out)
		if err != nil {
			t.Fatalf("encoding does not decode: %v\n%s", err, out)
		}
		out2, err := again.Encode()
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("encoding is not stable:\n%s\n%s", out, out2)
		}
	})
}
