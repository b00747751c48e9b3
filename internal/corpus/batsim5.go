package corpus

import (
	"path/filepath"
	"sort"
	"testing"
)

// Batsim5Dir is where the sessions recorded against Batsim 5.0.0-rc2 are
// kept (batsim/v5/testdata, written by internal/realbatsim5's
// TestRecordTranscripts): NAME.jsonl, one line per message, {"dir", "raw"},
// the first Batsim's initialization (u32 size + init string), the second
// bucma's hello, then Batsim's messages and bucma's replies (raw without
// the final NUL); NAME.jobs.csv, Batsim 5's jobs.csv of the session.
func Batsim5Dir() string {
	// Dir is <module>/internal/corpus/testdata.
	return filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(Dir()))), "batsim", "v5", "testdata")
}

// Batsim5Sessions lists the recorded Batsim 5 sessions (file names).
func Batsim5Sessions(t testing.TB) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(Batsim5Dir(), "*.jsonl"))
	if err != nil || len(m) == 0 {
		t.Fatalf("no Batsim 5 sessions in %s: %v", Batsim5Dir(), err)
	}
	for i := range m {
		m[i] = filepath.Base(m[i])
	}
	sort.Strings(m)
	return m
}

// ReadBatsim5Session reads a recorded Batsim 5 session (Seq and Msg are
// not set).
func ReadBatsim5Session(t testing.TB, name string) []Line {
	t.Helper()
	out := readLines(t, filepath.Join(Batsim5Dir(), name))
	if len(out) < 4 {
		t.Fatalf("%s: %d lines", name, len(out))
	}
	return out
}

// ReplayBatsim5 replays a recorded Batsim 5 session to a decision
// component: its hello must be the recorded one, and take's reply to each
// of Batsim's messages the recorded reply, byte for byte. It returns
// whether the last reply ended the simulation.
func ReplayBatsim5(t testing.TB, ls []Line, hello []byte, take func(msg []byte) (reply []byte, done bool, err error)) bool {
	t.Helper()
	if string(hello) != ls[1].Raw {
		t.Fatalf("hello:\n got  %s\n want %s", hello, ls[1].Raw)
	}
	ended := false
	for i := 2; i+1 < len(ls); i += 2 {
		if ls[i].Dir != FromBatsim || ls[i+1].Dir != FromScheduler {
			t.Fatalf("line %d: directions %s, %s", i+1, ls[i].Dir, ls[i+1].Dir)
		}
		got, done, err := take([]byte(ls[i].Raw))
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if string(got) != ls[i+1].Raw {
			t.Fatalf("line %d: reply\n got  %s\n want %s", i+2, got, ls[i+1].Raw)
		}
		ended = done
	}
	return ended
}
