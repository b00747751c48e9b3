package batsim

import (
	"math"
	"testing"
)

func TestReplyAdvanceTo(t *testing.T) {
	r := NewReply(2)
	if err := r.ExecuteJob(ExecuteJob{JobID: "w0!1", Alloc: IntervalSet{0}}); err != nil {
		t.Fatal(err)
	}
	if err := r.AdvanceTo(9.5); err != nil {
		t.Fatal(err)
	}
	if err := r.KillJobs("w0!1"); err != nil {
		t.Fatal(err)
	}
	want := `{"now":9.5,"events":[{"timestamp":2.0,"type":"EXECUTE_JOB","data":{"job_id":"w0!1","alloc":"0"}},{"timestamp":9.5,"type":"KILL_JOB","data":{"job_ids":["w0!1"]}}]}`
	if got := string(r.Encode()); got != want {
		t.Errorf("reply\n got  %s\n want %s", got, want)
	}
	for _, bad := range []float64{9, math.NaN(), math.Inf(1)} {
		if err := r.AdvanceTo(bad); err == nil {
			t.Errorf("AdvanceTo(%v) accepted", bad)
		}
	}
	if r.Now() != 9.5 {
		t.Errorf("now %v after refused moves", r.Now())
	}
}
