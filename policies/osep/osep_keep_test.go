package osep

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sched"
)

// TestOSEPStandingsKept plays, message by message, a preemption whose host
// becomes unavailable before the kill completes: the reserved job waits
// again, ahead of a later job of its user. The session's audit compares
// the standings OSEP keeps with standings computed from the state after
// every message.
func TestOSEPStandingsKept(t *testing.T) {
	spec, _ := reg.Get("osep")
	sess, err := (&run.Policy{Spec: spec, Validate: true}).NewSession()
	if err != nil {
		t.Fatal(err)
	}
	var res []batsim.Resource
	for i, owner := range []string{"a", "b"} {
		res = append(res, batsim.Resource{ID: i, Name: "h" + string(rune('0'+i)), State: "idle",
			Properties: map[string]string{"speed": "1e9", "owner": owner}, ZoneProperties: map[string]string{}})
	}
	submit := func(at float64, name, user string) batsim.Event {
		job, _ := json.Marshal(map[string]any{"id": "w0!" + name, "subtime": at, "res": 1, "profile": "p", "user": user})
		return batsim.Event{Timestamp: at, Type: batsim.TypeJobSubmitted,
			Data: &batsim.JobSubmitted{JobID: "w0!" + name, Job: job, Profile: json.RawMessage(`{"type":"delay","delay":1000}`)}}
	}
	handle := func(msg *batsim.Message) string {
		t.Helper()
		reply, err := sess.Handle(msg)
		if err != nil {
			t.Fatalf("t=%v: %v", msg.Now, err)
		}
		return string(reply.Encode())
	}
	handle(&batsim.Message{Now: 0, Events: []batsim.Event{
		{Type: batsim.TypeSimulationBegins, Data: &batsim.SimulationBegins{NbResources: 2, NbComputeResources: 2,
			Config: batsim.Config{DynamicJobsEnabled: true, DynamicJobsAcknowledged: true}, ComputeResources: res,
			Workloads: map[string]string{"w0": "w0.json"}}},
		submit(0, "a1", "a"), submit(0, "a2", "a"),
	}})
	handle(&batsim.Message{Now: 30, Events: []batsim.Event{submit(30, "b1", "b"), submit(30, "b2", "b")}})
	// The round at 60: a runs two jobs on one host of its own, b none on
	// its own: a2 (on h1, b's host) is killed, h1 reserved for b1.
	if r := handle(&batsim.Message{Now: 60, Events: []batsim.Event{{Timestamp: 60, Type: batsim.TypeRequestedCall, Data: &batsim.RequestedCall{}}}}); !strings.Contains(r, "KILL_JOB") {
		t.Fatalf("no preemption at the round: %s", r)
	}
	o := sess.Policy().(*OSEP)
	if o.reserved[1] == nil || o.reserved[1].ID() != "w0!b1" {
		t.Fatalf("reservations %v", o.reserved)
	}
	// h1 goes down, then the kill completes: b1 waits again, before b2.
	p := 0.06
	handle(&batsim.Message{Now: 61, Events: []batsim.Event{
		{Timestamp: 61, Type: batsim.TypeNotify, Data: &batsim.Notify{Kind: batsim.NotifyMachineUnavailable, Resources: "1"}},
		{Timestamp: 61, Type: batsim.TypeJobCompleted, Data: &batsim.JobCompleted{JobID: "w0!a2", JobState: batsim.StateKilled, Alloc: "1"}},
		{Timestamp: 61, Type: batsim.TypeJobKilled, Data: &batsim.JobKilled{JobIDs: []string{"w0!a2"},
			JobProgress: map[string]*batsim.JobProgress{"w0!a2": {ProfileName: "p", Progress: &p}}}},
	}})
	if len(o.reserved) != 0 {
		t.Fatalf("reservation kept on an unavailable host: %v", o.reserved)
	}
	b := o.byName["b"]
	if len(b.waiting) != 2 || b.waiting[0].j.ID() != "w0!b1" || b.waiting[1].j.ID() != "w0!b2" || b.running != 0 || b.allocated != 0 {
		t.Fatalf("b's standing: %+v", b)
	}
}

// reg holds osep and osep-hetero.
var reg = func() *sched.Registry {
	r := sched.NewRegistry()
	Register(r)
	return r
}()
