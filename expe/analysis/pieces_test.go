package analysis

import "testing"

func TestOriginalJob(t *testing.T) {
	cases := []struct {
		workload, id string
		wantW, wantN string
		wantPiece    int
	}{
		{"w0", "user1-03", "w0", "user1-03", 0},
		{"w0.r", "user1-03.1", "w0", "user1-03", 1},
		{"w0.r", "user1-03.12", "w0", "user1-03", 12},
		// Names may hold '-' and '.': the piece is the last ".<digits>".
		{"w0.r", "a.b-c.2", "w0", "a.b-c", 2},
		{"w0.r", "a.7.3", "w0", "a.7", 3},
		{"my-trace.v2.r", "job.x.4", "my-trace.v2", "job.x", 4},
		// A workload that is not a resubmission workload holds originals,
		// whatever their names.
		{"w0", "user1-03.1", "w0", "user1-03.1", 0},
		{"w0.rr", "j.1", "w0.rr", "j.1", 0},
		{".r", "j.1", ".r", "j.1", 0},
		// Not a piece suffix: the row is taken as it is.
		{"w0.r", "user1-03", "w0.r", "user1-03", 0},
		{"w0.r", "j.0", "w0.r", "j.0", 0},
		{"w0.r", "j.01", "w0.r", "j.01", 0},
		{"w0.r", "j.-1", "w0.r", "j.-1", 0},
		{"w0.r", "j.+1", "w0.r", "j.+1", 0},
		{"w0.r", "j.", "w0.r", "j.", 0},
		{"w0.r", ".3", "w0.r", ".3", 0},
		{"w0.r", "j.1x", "w0.r", "j.1x", 0},
		{"w0.r", "j.99999999999999999999", "w0.r", "j.99999999999999999999", 0},
		{"w0.r", "7", "w0.r", "7", 0},
	}
	for _, c := range cases {
		w, n, k := OriginalJob(c.workload, c.id)
		if w != c.wantW || n != c.wantN || k != c.wantPiece {
			t.Errorf("OriginalJob(%q, %q) = %q, %q, %d; want %q, %q, %d", c.workload, c.id, w, n, k, c.wantW, c.wantN, c.wantPiece)
		}
	}
}
