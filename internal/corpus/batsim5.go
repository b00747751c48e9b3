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
