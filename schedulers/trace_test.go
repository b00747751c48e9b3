package schedulers

import (
	"bytes"
	"encoding/csv"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

func readTrace(t *testing.T, b []byte) []map[string]string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) == 0 || strings.Join(recs[0], ",") != strings.Join(TraceColumns, ",") {
		t.Fatalf("header %v, want %v", recs, TraceColumns)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, c := range TraceColumns {
			m[c] = r[i]
		}
		out = append(out, m)
	}
	return out
}

func checkRow(t *testing.T, row map[string]string, exp map[string]string) {
	t.Helper()
	for k, w := range exp {
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

// The overtaking scenario of bucma_test.go (z by carol 0-99; B by bob Su 0
// at 1; A by alice Su 100 at 2; A overtakes B), plus a job too big for the
// platform (rejected at 3) and one that hits its walltime. Rows come in end
// order.
//   - big: rejected at 3 (2 hosts on a 1-host platform): Su at submission
//     100 (alice), nothing else; its row comes at the decision point of 3.
//   - z: submitted alone into an empty queue: Su 50 (carol's initial score),
//     Sf = .5·.5 + .3·1 + .2·0 = .55, n = 1, p = 1, no gain; P = 100·99/100
//     = 99: +10, Su after 60.
//   - w: carol again, submitted at 4 while z still runs (carol's Su is
//     still 50): the queue is B, A and w; FCFS ranks B 0, A 1, w 2; MaxW 50
//     (w asks 30 s: W term .2·(1 − 30/50) = .08). Sf(B) = .3, Sf(A) = .5 +
//     .3·2/3 = .7, Sf(w) = .5·.5 + .3·1/3 + .08 = .43: order A, w, B:
//     position 2 of 3, gain 50.
//   - A: Sf .65, n 2, p 1, gain 100; starts at 99 (waited 97), ends at 139,
//     P = 100·40/50 = 80, but alice is pinned: Su after 100.
//   - At 139, carol has 60 since z's end: Sf(w) = .3 + .3·1/2 + .08 = .53 >
//     Sf(B) = .3: w overtakes B, runs 139-169 and hits its walltime (it
//     needs 40 s): P = 100, Su unchanged at 60.
//   - B: Sf .3, n 1, p 1; starts at 169, ends at 209, P 80, Su after 0
//     (pinned).
func TestTraceBUCMA(t *testing.T) {
	var buf bytes.Buffer
	tr := NewTrace(&buf)
	sc := scenario{policy: "bucma", options: Options{"pinned-scores": "alice:100,bob:0"}, speeds: []float64{1},
		jobs: append(append([]tjob{}, overtakeJobs...),
			tjob{name: "big", submit: 3, res: 2, walltime: 10, run: 10, user: "alice"},
			tjob{name: "w", submit: 4, res: 1, walltime: 30, run: 40, user: "carol"}),
		observers: []Observer{tr}}
	d := newDriver(t, sc)
	// Rows are flushed as jobs end: after the message at 99 (z ends), z's
	// and big's rows are already there.
	d.after = func(now float64) {
		if now == 99 {
			if rows := readTrace(t, buf.Bytes()); len(rows) != 2 {
				t.Errorf("after t=99: %d rows, want 2", len(rows))
			}
		}
	}
	d.run("")
	if tr.Err() != nil || tr.Rows() != 5 {
		t.Fatalf("err %v, %d rows", tr.Err(), tr.Rows())
	}
	rows := readTrace(t, buf.Bytes())
	order := []string{}
	for _, r := range rows {
		order = append(order, r["job_id"])
	}
	if strings.Join(order, " ") != "w0!big w0!z w0!A w0!w w0!B" {
		t.Fatalf("row order %v", order)
	}
	checkRow(t, rows[0], map[string]string{"user": "alice", "res": "2", "walltime": "10", "submission_time": "3",
		"su_at_submission": "100", "sf_at_submission": "", "queue_length": "", "queue_position": "", "queue_gain": "",
		"start_time": "", "waiting_time": "", "allocated_hosts": "", "end_time": "3", "final_state": "REJECTED",
		"return_code": "", "precision": "", "su_after": "100"})
	checkRow(t, rows[1], map[string]string{"user": "carol", "res": "1", "walltime": "100", "submission_time": "0",
		"su_at_submission": "50", "sf_at_submission": "0.55", "queue_length": "1", "queue_position": "1", "queue_gain": "",
		"start_time": "0", "waiting_time": "0", "allocated_hosts": "0", "end_time": "99", "final_state": "COMPLETED_SUCCESSFULLY",
		"return_code": "0", "precision": "99", "su_after": "60"})
	checkRow(t, rows[2], map[string]string{"user": "alice", "submission_time": "2",
		"su_at_submission": "100", "sf_at_submission": "0.65", "queue_length": "2", "queue_position": "1", "queue_gain": "100",
		"start_time": "99", "waiting_time": "97", "end_time": "139", "precision": "80", "su_after": "100"})
	checkRow(t, rows[3], map[string]string{"user": "carol", "walltime": "30", "submission_time": "4",
		"su_at_submission": "50", "sf_at_submission": "0.43", "queue_length": "3", "queue_position": "2", "queue_gain": "50",
		"start_time": "139", "end_time": "169", "final_state": "COMPLETED_WALLTIME_REACHED", "return_code": "-1",
		"precision": "100", "su_after": "60"})
	checkRow(t, rows[4], map[string]string{"user": "bob", "submission_time": "1",
		"su_at_submission": "0", "sf_at_submission": "0.3", "queue_length": "1", "queue_position": "1", "queue_gain": "",
		"start_time": "169", "waiting_time": "168", "end_time": "209", "precision": "80", "su_after": "0"})
}

// A policy without scores leaves the score columns empty; precision is
// still given, and an absent walltime leaves it empty.
func TestTraceNonBUCMA(t *testing.T) {
	var buf bytes.Buffer
	tr := NewTrace(&buf)
	runScenario(t, scenario{policy: "easy", speeds: []float64{1, 1}, observers: []Observer{tr}, jobs: []tjob{
		{name: "a", submit: 0, res: 2, walltime: 40, run: 10, user: "u"},
		{name: "b", submit: 1, res: 1, run: 5},
	}})
	rows := readTrace(t, buf.Bytes())
	if len(rows) != 2 {
		t.Fatalf("%d rows", len(rows))
	}
	empty := map[string]string{"su_at_submission": "", "sf_at_submission": "", "queue_length": "", "queue_position": "", "queue_gain": "", "su_after": ""}
	for _, r := range rows {
		checkRow(t, r, empty)
	}
	checkRow(t, rows[0], map[string]string{"job_id": "w0!a", "allocated_hosts": "0-1", "precision": "25", "waiting_time": "0"})
	checkRow(t, rows[1], map[string]string{"job_id": "w0!b", "user": "", "walltime": "", "start_time": "10", "waiting_time": "9", "precision": ""})
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, errors.New("disk full")
	}
	w.n--
	return len(p), nil
}

// A write error is kept (the first one) and stops the trace without
// disturbing the run.
func TestTraceWriteError(t *testing.T) {
	tr := NewTrace(&failingWriter{n: 1}) // the header goes through, the first row fails
	runScenario(t, scenario{policy: "fcfs", speeds: []float64{1}, observers: []Observer{tr}, jobs: []tjob{
		{name: "a", submit: 0, res: 1, walltime: 10, run: 10},
		{name: "b", submit: 0, res: 1, walltime: 10, run: 10},
	}})
	if tr.Err() == nil || !strings.Contains(tr.Err().Error(), "disk full") || tr.Rows() != 0 {
		t.Errorf("err %v, rows %d", tr.Err(), tr.Rows())
	}
	if tr := NewTrace(&failingWriter{}); tr.Err() == nil {
		t.Error("header write error not reported")
	}
}
