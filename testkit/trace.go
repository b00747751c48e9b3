package testkit

import (
	"bytes"
	"encoding/csv"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/sched"
)

// ReadTrace reads a decision trace (sched.Trace's CSV), one map of
// column to value per row; the test fails on a bad header.
func ReadTrace(t testing.TB, b []byte) []map[string]string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) == 0 || strings.Join(recs[0], ",") != strings.Join(sched.TraceColumns, ",") {
		t.Fatalf("header %v, want %v", recs, sched.TraceColumns)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, c := range sched.TraceColumns {
			m[c] = r[i]
		}
		out = append(out, m)
	}
	return out
}

// CheckRow fails the test for each column of want whose value in row
// differs (numbers compared as numbers, within 1e-9).
func CheckRow(t testing.TB, row map[string]string, want map[string]string) {
	t.Helper()
	for k, w := range want {
		g, ok := row[k]
		if !ok {
			t.Fatalf("no column %s", k)
		}
		// Numbers are compared as numbers (Sf is a sum of floats).
		gf, gerr := strconv.ParseFloat(g, 64)
		wf, werr := strconv.ParseFloat(w, 64)
		if gerr == nil && werr == nil {
			if math.Abs(gf-wf) > 1e-9 {
				t.Errorf("job %s: %s = %s, want %s", row["job_id"], k, g, w)
			}
			continue
		}
		if g != w {
			t.Errorf("job %s: %s = %q, want %q", row["job_id"], k, g, w)
		}
	}
}
