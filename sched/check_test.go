package sched

import (
	"errors"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
)

// exchange is one of Batsim's messages and the process's reply to it.
type exchange struct {
	msg   *batsim.Message
	reply []batsim.Event // dated at the message's now unless dated
}

// Helpers for the Checker's cases: events of Batsim's messages and of
// replies.
func evSubmit(at float64, id string, res int, profile string) batsim.Event {
	return batsim.Event{Timestamp: at, Type: batsim.TypeJobSubmitted,
		Data: &batsim.JobSubmitted{JobID: id, Job: []byte(`{"id":"` + id + `","res":` + itoa(res) + `,"subtime":0,"profile":"` + profile + `"}`)}}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func evExec(id string, alloc ...int) batsim.Event {
	return batsim.Event{Type: batsim.TypeExecuteJob, Data: &batsim.ExecuteJob{JobID: id, Alloc: batsim.NewIntervalSet(alloc...)}}
}

func evData(typ string, data any) batsim.Event { return batsim.Event{Type: typ, Data: data} }

// platform is SIMULATION_BEGINS for n hosts (host 0 with pstates 0
// (compute), 1 (sleep), 2 and 3 (switching)), with dynamic jobs (ack),
// compute sharing, and the profiles of workload w0 as given.
func platform(n int, dyn, ack, sharing bool, profiles map[string]json.RawMessage) *batsim.Message {
	res := make([]batsim.Resource, n)
	for i := range res {
		res[i] = batsim.Resource{ID: i, Name: "h" + itoa(i), State: "idle", Properties: map[string]string{}}
	}
	res[0].Properties = map[string]string{"wattage_per_state": "100:200,10:10,50:50,50:50,5:5,50:50,50:50", "sleep_pstates": "1:2:3,4:5:6"}
	sb := &batsim.SimulationBegins{NbResources: n, NbComputeResources: n, ComputeResources: res, AllowComputeSharing: sharing,
		Config: batsim.Config{DynamicJobsEnabled: dyn, DynamicJobsAcknowledged: ack}}
	if profiles != nil {
		sb.Profiles = map[string]map[string]json.RawMessage{"w0": profiles}
	}
	return &batsim.Message{Now: 0, Events: []batsim.Event{{Type: batsim.TypeSimulationBegins, Data: sb}}}
}

func at(now float64, evs ...batsim.Event) *batsim.Message {
	for i := range evs {
		if evs[i].Timestamp == 0 {
			evs[i].Timestamp = now
		}
	}
	return &batsim.Message{Now: now, Events: evs}
}

// TestCheckerRules: each case plays a conversation; the Checker finds the
// decisions that break a rule, by the rule's name, and only those; a
// decision Batsim accepts although the Decider would refuse it (a kill
// asked again, registration_finished again) is no finding.
func TestCheckerRules(t *testing.T) {
	two := func(evs ...batsim.Event) exchange {
		return exchange{at(1, evSubmit(1, "w0!1", 1, "p"), evSubmit(1, "w0!2", 1, "p")), evs}
	}
	plain := platform(2, false, false, false, nil)
	cases := []struct {
		name  string
		begin *batsim.Message
		ex    []exchange
		want  []string
	}{
		{"a clean start", plain, []exchange{two(evExec("w0!1", 0), evExec("w0!2", 1))}, nil},
		{"an unknown job", plain, []exchange{two(evExec("w0!9", 0))}, []string{"unknown-job"}},
		{"a double start", plain, []exchange{two(evExec("w0!1", 0)), {at(2), []batsim.Event{evExec("w0!1", 1)}}}, []string{"job-not-waiting"}},
		{"a start after a rejection", plain, []exchange{two(evData(batsim.TypeRejectJob, &batsim.RejectJob{JobID: "w0!1"}), evExec("w0!1", 0))}, []string{"job-not-waiting"}},
		{"a rejection of a running job", plain, []exchange{two(evExec("w0!1", 0)), {at(2), []batsim.Event{evData(batsim.TypeRejectJob, &batsim.RejectJob{JobID: "w0!1"})}}}, []string{"job-not-waiting"}},
		{"too many hosts", plain, []exchange{two(evExec("w0!1", 0, 1))}, []string{"alloc-size"}},
		{"a host beyond the platform", plain, []exchange{two(evExec("w0!1", 5))}, []string{"unknown-host"}},
		{"a busy host", plain, []exchange{two(evExec("w0!1", 0), evExec("w0!2", 0))}, []string{"host-busy"}},
		{"a busy host, compute sharing", platform(2, false, false, true, nil), []exchange{two(evExec("w0!1", 0), evExec("w0!2", 0))}, nil},
		{"a parallel_homogeneous_total job on fewer hosts", platform(2, false, false, false, map[string]json.RawMessage{"t": []byte(`{"type":"parallel_homogeneous_total","cpu":1,"com":0}`)}),
			[]exchange{{at(1, evSubmit(1, "w0!1", 2, "t")), []batsim.Event{evExec("w0!1", 0)}}}, nil},
		{"an executor mapping", plain, []exchange{{at(1, evSubmit(1, "w0!1", 2, "p")), []batsim.Event{{Type: batsim.TypeExecuteJob, Data: &batsim.ExecuteJob{JobID: "w0!1", Alloc: batsim.IntervalSet{0}, Mapping: map[int]int{0: 0, 1: 0}}}}}}, nil},
		{"an unavailable host", plain, []exchange{{at(1, evData(batsim.TypeNotify, &batsim.Notify{Kind: batsim.NotifyMachineUnavailable, Resources: "0"}), evSubmit(1, "w0!1", 1, "p")), []batsim.Event{evExec("w0!1", 0)}}}, []string{"host-unavailable"}},
		{"a sleeping host", plain, []exchange{two(evData(batsim.TypeSetResourceState, &batsim.SetResourceState{Resources: batsim.IntervalSet{0}, PState: 1}), evExec("w0!1", 0))}, []string{"host-off"}},
		{"a busy host switched off", plain, []exchange{two(evExec("w0!1", 0), evData(batsim.TypeSetResourceState, &batsim.SetResourceState{Resources: batsim.IntervalSet{0}, PState: 1}))}, []string{"pstate-busy-host"}},
		{"an unknown pstate", plain, []exchange{two(evData(batsim.TypeSetResourceState, &batsim.SetResourceState{Resources: batsim.IntervalSet{0}, PState: 7}))}, []string{"pstate-unknown"}},
		{"a switching pstate", plain, []exchange{two(evData(batsim.TypeSetResourceState, &batsim.SetResourceState{Resources: batsim.IntervalSet{0}, PState: 2}))}, []string{"pstate-virtual"}},
		{"a switching host", plain, []exchange{two(evData(batsim.TypeSetResourceState, &batsim.SetResourceState{Resources: batsim.IntervalSet{0}, PState: 1}),
			evData(batsim.TypeSetResourceState, &batsim.SetResourceState{Resources: batsim.IntervalSet{0}, PState: 0}))}, []string{"pstate-switching-host"}},
		{"a sleeping host to another sleep pstate", plain, []exchange{two(evData(batsim.TypeSetResourceState, &batsim.SetResourceState{Resources: batsim.IntervalSet{0}, PState: 1})),
			{at(7, batsim.Event{Type: batsim.TypeResourceStateChanged, Data: &batsim.ResourceStateChanged{Resources: "0", State: "1"}}),
				[]batsim.Event{evData(batsim.TypeSetResourceState, &batsim.SetResourceState{Resources: batsim.IntervalSet{0}, PState: 4})}}}, []string{"pstate-sleep-to-sleep"}},
		{"a sleeping host woken up, then a job on it once on", plain, []exchange{two(evData(batsim.TypeSetResourceState, &batsim.SetResourceState{Resources: batsim.IntervalSet{0}, PState: 1})),
			{at(7, batsim.Event{Type: batsim.TypeResourceStateChanged, Data: &batsim.ResourceStateChanged{Resources: "0", State: "1"}}),
				[]batsim.Event{evData(batsim.TypeSetResourceState, &batsim.SetResourceState{Resources: batsim.IntervalSet{0}, PState: 0})}},
			{at(9, batsim.Event{Type: batsim.TypeResourceStateChanged, Data: &batsim.ResourceStateChanged{Resources: "0", State: "0"}}), []batsim.Event{evExec("w0!1", 0)}}}, nil},
		{"a kill of a waiting job", plain, []exchange{two(evData(batsim.TypeKillJob, &batsim.KillJob{JobIDs: []string{"w0!2"}}))}, []string{"kill-not-running"}},
		{"a kill asked twice", plain, []exchange{two(evExec("w0!1", 0), evData(batsim.TypeKillJob, &batsim.KillJob{JobIDs: []string{"w0!1", "w0!1"}})),
			{at(2), []batsim.Event{evData(batsim.TypeKillJob, &batsim.KillJob{JobIDs: []string{"w0!1"}})}}}, nil},
		{"a start on a host being killed, dated after the kill", plain, []exchange{two(evExec("w0!1", 0)),
			{at(2), []batsim.Event{{Timestamp: 2, Type: batsim.TypeKillJob, Data: &batsim.KillJob{JobIDs: []string{"w0!1"}}}, {Timestamp: 2.5, Type: batsim.TypeExecuteJob, Data: &batsim.ExecuteJob{JobID: "w0!2", Alloc: batsim.IntervalSet{0}}}}}}, nil},
		{"a start on a host being killed, at the kill's date", plain, []exchange{two(evExec("w0!1", 0)),
			{at(2), []batsim.Event{evData(batsim.TypeKillJob, &batsim.KillJob{JobIDs: []string{"w0!1"}}), evExec("w0!2", 0)}}}, []string{"host-busy"}},
		{"decisions out of order", plain, []exchange{{at(2, evSubmit(2, "w0!1", 1, "p"), evSubmit(2, "w0!2", 1, "p")),
			[]batsim.Event{{Timestamp: 2, Type: batsim.TypeExecuteJob, Data: &batsim.ExecuteJob{JobID: "w0!1", Alloc: batsim.IntervalSet{0}}}, {Timestamp: 1, Type: batsim.TypeExecuteJob, Data: &batsim.ExecuteJob{JobID: "w0!2", Alloc: batsim.IntervalSet{1}}}}}}, []string{"timestamp-order"}},
		{"a registration without dynamic jobs", plain, []exchange{two(evData(batsim.TypeRegisterJob, &batsim.RegisterJob{JobID: "dyn!1", Job: []byte(`{"id":"dyn!1","subtime":1,"res":1,"profile":"p"}`)}))}, []string{"dynamic-jobs-disabled"}},
		{"a registration after registration_finished", platform(2, true, false, false, nil), []exchange{two(evData(batsim.TypeNotify, &batsim.Notify{Kind: batsim.NotifyRegistrationFinished}),
			evData(batsim.TypeNotify, &batsim.Notify{Kind: batsim.NotifyRegistrationFinished}),
			evData(batsim.TypeRegisterProfile, &batsim.RegisterProfile{WorkloadName: "dyn", ProfileName: "p", Profile: []byte(`{"type":"delay","delay":1}`)}))}, []string{"registration-closed"}},
		{"a profile registered twice", platform(2, true, false, false, nil), []exchange{two(evData(batsim.TypeRegisterProfile, &batsim.RegisterProfile{WorkloadName: "dyn", ProfileName: "p", Profile: []byte(`{"type":"delay","delay":1}`)}),
			evData(batsim.TypeRegisterProfile, &batsim.RegisterProfile{WorkloadName: "dyn", ProfileName: "p", Profile: []byte(`{"type":"delay","delay":1}`)}))}, []string{"profile-exists"}},
		{"a registration of a known job", platform(2, true, false, false, nil), []exchange{two(evData(batsim.TypeRegisterJob, &batsim.RegisterJob{JobID: "w0!1", Job: []byte(`{"id":"w0!1","subtime":1,"res":1,"profile":"p"}`)}))}, []string{"job-exists"}},
		{"a registered job started before its acknowledgment", platform(2, true, true, false, nil), []exchange{two(evData(batsim.TypeRegisterJob, &batsim.RegisterJob{JobID: "dyn!1", Job: []byte(`{"id":"dyn!1","subtime":1,"res":1,"profile":"p"}`)}), evExec("dyn!1", 0)),
			{at(2, evSubmit(2, "dyn!1", 1, "p")), []batsim.Event{evExec("w0!1", 1)}}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ck, err := NewChecker(quietLog())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i, x := range append([]exchange{{c.begin, nil}}, c.ex...) {
				if err := ck.Message(x.msg); err != nil {
					t.Fatalf("message %d: %v", i, err)
				}
				r := at(x.msg.Now, x.reply...)
				for _, f := range ck.Reply(r) {
					got = append(got, f.Rule.Name)
					if f.Msg == "" || f.Time != x.msg.Now {
						t.Errorf("finding %+v", f)
					}
				}
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("findings %v, want %v", got, c.want)
			}
		})
	}
}

// TestDeciderNamesTheRule: an invalid decision of a policy is a
// *DecisionError naming the rule it breaks, the Checker's rule.
func TestDeciderNamesTheRule(t *testing.T) {
	s := newState([]Host{{id: 0, speed: 1}, {id: 1, speed: 1}})
	j := &Job{id: "w0!1", res: 1, state: batsim.StateSubmitted}
	s.enqueue(j)
	s.jobs[j.id] = j
	d := &Decider{s: s, reply: batsim.NewReply(0)}
	if d.Start(j, []int{0, 1}) {
		t.Fatal("a start on two hosts for res=1")
	}
	var de *DecisionError
	if !errors.As(d.Err(), &de) || de.Rule != RuleAllocSize || !strings.Contains(de.Error(), "2 hosts given for res=1") {
		t.Errorf("error %v", d.Err())
	}
}
