package sched_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit"
)

// A policy without scores leaves the score columns empty; precision is
// still given, and an absent walltime leaves it empty.
func TestTraceNonBUCMA(t *testing.T) {
	var buf bytes.Buffer
	tr := sched.NewTrace(&buf)
	testkit.Run(t, testkit.Scenario{Spec: baseSpec("easy"), Speeds: []float64{1, 1}, Observers: []sched.Observer{tr}, Jobs: []testkit.Job{
		{Name: "a", Submit: 0, Res: 2, Walltime: 40, Run: 10, User: "u"},
		{Name: "b", Submit: 1, Res: 1, Run: 5},
	}})
	rows := testkit.ReadTrace(t, buf.Bytes())
	if len(rows) != 2 {
		t.Fatalf("%d rows", len(rows))
	}
	empty := map[string]string{"su_at_submission": "", "sf_at_submission": "", "queue_length": "", "queue_position": "", "queue_gain": "", "su_after": ""}
	for _, r := range rows {
		testkit.CheckRow(t, r, empty)
	}
	testkit.CheckRow(t, rows[0], map[string]string{"job_id": "w0!a", "allocated_hosts": "0-1", "precision": "25", "waiting_time": "0"})
	testkit.CheckRow(t, rows[1], map[string]string{"job_id": "w0!b", "user": "", "walltime": "", "start_time": "10", "waiting_time": "9", "precision": ""})
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
	tr := sched.NewTrace(&failingWriter{n: 1}) // the header goes through, the first row fails
	testkit.Run(t, testkit.Scenario{Spec: baseSpec("fcfs"), Speeds: []float64{1}, Observers: []sched.Observer{tr}, Jobs: []testkit.Job{
		{Name: "a", Submit: 0, Res: 1, Walltime: 10, Run: 10},
		{Name: "b", Submit: 0, Res: 1, Walltime: 10, Run: 10},
	}})
	if tr.Err() == nil || !strings.Contains(tr.Err().Error(), "disk full") || tr.Rows() != 0 {
		t.Errorf("err %v, rows %d", tr.Err(), tr.Rows())
	}
	if tr := sched.NewTrace(&failingWriter{}); tr.Err() == nil {
		t.Error("header write error not reported")
	}
}
