package v5

import (
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
)

// TestBatsim4Reading: a reply Batsim 4 reads one way and Batsim 5 aborts
// on is translated as Batsim 4 reads it: a decision dated before the one
// before it is dated as that one (Batsim 4 applies it then), and a kill
// already asked, in the same KILL_JOB or before, is left out (Batsim 4
// leaves it out; Batsim 5.0.0-rc2 aborts on "Invalid (empty) job_ids").
// A reply that fails to translate asks no kill.
func TestBatsim4Reading(t *testing.T) {
	a := NewAdapter(Config{Log: quiet()})
	a.now = 10
	start := batsim.NewReply(10)
	for _, id := range []string{"w0!1", "w0!2"} {
		if err := start.ExecuteJob(batsim.ExecuteJob{JobID: id, Alloc: batsim.IntervalSet{len(id)}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.FromV4(start); err != nil {
		t.Fatal(err)
	}
	m := &batsim.Message{Now: 10, Events: []batsim.Event{
		{Timestamp: 10, Type: batsim.TypeKillJob, Data: &batsim.KillJob{JobIDs: []string{"w0!1", "w0!1"}}},
		{Timestamp: 9, Type: batsim.TypeKillJob, Data: &batsim.KillJob{JobIDs: []string{"w0!1"}}},
		{Timestamp: 9.5, Type: batsim.TypeCallMeLater, Data: &batsim.CallMeLater{At: 20}},
	}}
	out, err := a.FromV4(batsim.ReplyOf(m))
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Events) != 2 {
		t.Fatalf("events %+v, want the first kill and the call", out.Events)
	}
	if k := out.Events[0].Data.(*KillJobs); strings.Join(k.JobIDs, ",") != "w0!1" {
		t.Errorf("kill %v, want w0!1 once", k.JobIDs)
	}
	if out.Events[1].Timestamp != out.Events[0].Timestamp {
		t.Errorf("the call is dated %v, before the kill's %v", out.Events[1].Timestamp, out.Events[0].Timestamp)
	}
	// A failed reply asks no kill: w0!2's kill counts once sent.
	bad := &batsim.Message{Now: 10, Events: []batsim.Event{
		{Timestamp: 10, Type: batsim.TypeKillJob, Data: &batsim.KillJob{JobIDs: []string{"w0!2"}}},
		{Timestamp: 10, Type: batsim.TypeQuery, Data: &batsim.SchedulerQuery{ConsumedEnergy: true}},
	}}
	if _, err := a.FromV4(batsim.ReplyOf(bad)); err == nil {
		t.Fatal("QUERY translated")
	}
	again := &batsim.Message{Now: 10, Events: []batsim.Event{{Timestamp: 10, Type: batsim.TypeKillJob, Data: &batsim.KillJob{JobIDs: []string{"w0!2"}}}}}
	if out, err := a.FromV4(batsim.ReplyOf(again)); err != nil || len(out.Events) != 1 {
		t.Errorf("the kill of w0!2 after a failed reply: %+v, %v", out, err)
	}
}
