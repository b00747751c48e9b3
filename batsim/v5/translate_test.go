package v5

import (
	"bytes"
	"errors"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
)

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

func TestProfilesBothWays(t *testing.T) {
	cases := []struct{ v4, v5type, back string }{
		{`{"type":"delay","delay":10}`, "DelayProfile", `{"type":"delay","delay":10.0}`},
		{`{"type":"parallel","cpu":[1e9,0],"com":[0,5,5,0]}`, "ParallelTaskProfile", `{"type":"parallel","cpu":[1000000000.0,0.0],"com":[0.0,5.0,5.0,0.0]}`},
		{`{"type":"parallel_homogeneous","cpu":2e9,"com":0}`, "ParallelTaskHomogeneousProfile", `{"type":"parallel_homogeneous","cpu":2000000000.0,"com":0.0}`},
		{`{"type":"parallel_homogeneous_total","cpu":2e9,"com":1e6}`, "ParallelTaskHomogeneousProfile", `{"type":"parallel_homogeneous_total","cpu":2000000000.0,"com":1000000.0}`},
		{`{"type":"composed","repeat":3,"seq":["a","other!b"]}`, "SequentialCompositionProfile", `{"type":"composed","repeat":3,"seq":["a","other!b"]}`},
		{`{"type":"composed","seq":["a"]}`, "SequentialCompositionProfile", `{"type":"composed","repeat":1,"seq":["a"]}`},
		{`{"type":"delay","delay":4,"ret":0}`, "DelayProfile", `{"type":"delay","delay":4.0}`},
		{`{"type":"data_staging","nb_bytes":8,"from":"a","to":"b"}`, "ParallelTaskDataStagingBetweenStoragesProfile", `{"type":"data_staging","nb_bytes":8.0,"from":"a","to":"b"}`},
		{`{"type":"parallel_homogeneous_pfs","bytes_to_read":1,"bytes_to_write":2,"storage":"nfs"}`, "ParallelTaskOnStorageHomogeneousProfile",
			`{"type":"parallel_homogeneous_pfs","bytes_to_read":1.0,"bytes_to_write":2.0,"storage":"nfs"}`},
	}
	for _, c := range cases {
		p, err := ProfileFromV4(json.RawMessage(c.v4), "w0")
		if err != nil {
			t.Fatalf("%s: %v", c.v4, err)
		}
		if ProfileType(p) != c.v5type {
			t.Errorf("%s: type %s, want %s", c.v4, ProfileType(p), c.v5type)
		}
		if s, ok := p.(*SequentialCompositionProfile); ok && s.ProfileIDs[0] != "w0!a" {
			t.Errorf("%s: profile ids %v, want the workload's", c.v4, s.ProfileIDs)
		}
		back, err := ProfileToV4(p, "w0")
		if err != nil || string(back) != c.back {
			t.Errorf("%s: back %s (%v), want %s", c.v4, back, err, c.back)
		}
	}
	for _, bad := range []string{`{"type":"delay","delay":1,"ret":2}`, `{"type":"smpi","trace":"x"}`, `{"delay":1}`, `[1]`, `{"type":"composed","repeat":0,"seq":["a"]}`} {
		if _, err := ProfileFromV4(json.RawMessage(bad), "w0"); err == nil {
			t.Errorf("%s: converted, want an error", bad)
		}
	}
	if _, err := ProfileFromV4(json.RawMessage(`{"type":"delay","delay":1,"ret":2}`), "w0"); !errors.Is(err, ErrNoEquivalent) {
		t.Errorf("ret: %v, want ErrNoEquivalent", err)
	}
	if _, err := ProfileToV4(&ForkJoinCompositionProfile{ProfileIDs: []string{"w0!a"}}, "w0"); !errors.Is(err, ErrNoEquivalent) {
		t.Errorf("fork-join: %v, want ErrNoEquivalent", err)
	}
}

func TestJobsBothWays(t *testing.T) {
	v4 := json.RawMessage(`{"id":"w0!3","subtime":12.5,"res":4,"profile":"p1","walltime":-1,"user":"u1","tags":{"a":[1,2]}}`)
	j, err := JobFromV4("dyn!3", v4)
	if err != nil {
		t.Fatal(err)
	}
	if j.ResourceRequest != 4 || j.Walltime != nil || j.ProfileID != "dyn!p1" || !j.Rigid || j.ExtraData != `{"user":"u1","tags":{"a":[1,2]}}` {
		t.Errorf("JobFromV4: %+v", *j)
	}
	w := 100.0
	j.Walltime = &w
	got := string(JobToV4("dyn!3", 12.5, j))
	want := `{"id":"dyn!3","subtime":12.5,"res":4,"profile":"p1","walltime":100.0,"user":"u1","tags":{"a":[1,2]}}`
	if got != want {
		t.Errorf("JobToV4:\n got  %s\n want %s", got, want)
	}
	// An extra_data object does not override Batsim 4's fields; one that
	// is not an object stays a string; another workload's profile keeps
	// its workload.
	j = &Job{ResourceRequest: 1, ExtraData: `{"res":9,"user":"x"}`, ProfileID: "other!p"}
	if got := string(JobToV4("w0!1", 0, j)); got != `{"id":"w0!1","subtime":0.0,"res":1,"profile":"other!p","user":"x"}` {
		t.Errorf("reserved keys: %s", got)
	}
	j.ExtraData = "free text"
	if got := string(JobToV4("w0!1", 0, j)); !strings.HasSuffix(got, `"extra_data":"free text"}`) {
		t.Errorf("string extra_data: %s", got)
	}
	for _, bad := range []string{`{"res":-1,"profile":"p"}`, `{"res":1.5,"profile":"p"}`, `{"res":1}`, `[]`, `{"res":1,"profile":3}`} {
		if _, err := JobFromV4("w0!1", json.RawMessage(bad)); err == nil {
			t.Errorf("%s: converted, want an error", bad)
		}
	}
}

// translated is a's translation of r and its JSON.
func translated(t *testing.T, a *Adapter, r *batsim.Reply) (*Message, []byte) {
	t.Helper()
	out, err := a.FromV4(r)
	if err != nil {
		t.Fatal(err)
	}
	b, err := out.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return out, b
}

func TestTimes(t *testing.T) {
	for _, c := range []struct{ at, ms float64 }{{300.000004, 300001}, {60, 60000}, {1.0000000001, 1000}, {0.0015, 2}, {1e-5, 1}} {
		if got := CallMeLaterMillis(c.at); got != c.ms {
			t.Errorf("CallMeLaterMillis(%v) = %v, want %v", c.at, got, c.ms)
		}
	}
	for _, p := range []float64{0, 1.0000050001, 76.7532140002, 8640.000001000801, 1e10 + 0.5, 123456789.123456} {
		n := NotAfter(p)
		if n > p || p-n > 1.2e-12+math.Nextafter(p, math.Inf(1))-p {
			t.Errorf("NotAfter(%v) = %v", p, n)
		}
	}
	if NotAfter(1e10) != 1e10 {
		t.Error("NotAfter must be exact where doubles are coarser than 1e-12")
	}
	// Batsim's clock starts at 0: a now printed as 0 is 0, and nothing is
	// dated before it.
	for _, p := range []float64{0, 1e-12, 4e-13} {
		if n := NotAfter(p); n < 0 || n > p {
			t.Errorf("NotAfter(%v) = %v, want a time in [0, %v]", p, n, p)
		}
	}
	a := NewAdapter(Config{Log: quiet()})
	if _, err := a.ToV4(begins()); err != nil {
		t.Fatal(err)
	}
	r := batsim.NewReply(0)
	if err := r.RejectJob("w0!1"); err != nil {
		t.Fatal(err)
	}
	out, b := translated(t, a, r)
	if out.Now != 0 || out.Events[0].Timestamp != 0 || bytes.Contains(b, []byte("-")) {
		t.Errorf("a rejection at 0 is dated %v in a message at %v: %s", out.Events[0].Timestamp, out.Now, b)
	}
}

// begins is a SimulationBegins of hosts with a sleep pstate (1, switching
// 2 and 3) and one host without.
func begins() *Message {
	props := []HostProperty{{"sleep_pstates", "1:2:3"}, {"wattage_per_state", "1:2, 0.1:0.1, 3:3, 4:4"}}
	hosts := []Host{
		{ID: 0, Name: "a", State: HostIdle, PStateCount: 4, CoreCount: 1, Properties: props},
		{ID: 1, Name: "b", State: HostIdle, PStateCount: 4, CoreCount: 1, Properties: props},
		{ID: 2, Name: "c", State: HostIdle, PStateCount: 2, CoreCount: 1},
	}
	return &Message{Now: 0, Events: []Event{{Type: TypeSimulationBegins, Data: &SimulationBegins{ComputationHostNumber: 3, HostNumber: 3, ComputationHosts: hosts}}}}
}

func TestPowerStates(t *testing.T) {
	a := NewAdapter(Config{Log: quiet()})
	m4, err := a.ToV4(begins())
	if err != nil {
		t.Fatal(err)
	}
	sb := m4.Events[0].Data.(*batsim.SimulationBegins)
	if sb.ComputeResources[0].Properties["sleep_pstates"] != "1:2:3" || sb.ComputeResources[2].State != "idle" {
		t.Fatalf("resources: %+v", sb.ComputeResources)
	}
	r := batsim.NewReply(1)
	// Hosts 0-1 to their sleep pstate, host 2 to pstate 1 (a computation
	// pstate for it).
	if err := r.SetResourceState(batsim.IntervalSet{0, 1, 2}, 1); err != nil {
		t.Fatal(err)
	}
	out, err := a.FromV4(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Events) != 2 {
		t.Fatalf("events: %+v", out.Events)
	}
	if c, ok := out.Events[0].Data.(*ChangeHostsPState); !ok || c.HostIDs != "2" || c.PState != 1 {
		t.Errorf("first: %#v", out.Events[0].Data)
	}
	if o, ok := out.Events[1].Data.(*TurnOnOffHosts); !ok || o.HostIDs != "0-1" || o.State != 1 {
		t.Errorf("second: %#v", out.Events[1].Data)
	}
	back, err := a.ToV4(&Message{Now: 7, Events: []Event{
		{Timestamp: 7, Type: TypeHostsTurnedOnOff, Data: &HostsTurnedOnOff{HostIDs: "0-1", State: 1}},
		{Timestamp: 7, Type: TypeHostsPStateChanged, Data: &HostsPStateChanged{HostIDs: "2", PState: 1}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []batsim.ResourceStateChanged{{Resources: "0-1", State: "1"}, {Resources: "2", State: "1"}} {
		if got := back.Events[i].Data.(*batsim.ResourceStateChanged); *got != want {
			t.Errorf("acknowledgment %d: %+v, want %+v", i, *got, want)
		}
	}
	// Waking: back to pstate 0.
	r = batsim.NewReply(8)
	_ = r.SetResourceState(batsim.IntervalSet{0, 1}, 0)
	out, err = a.FromV4(r)
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := out.Events[0].Data.(*TurnOnOffHosts); !ok || o.HostIDs != "0-1" || o.State != 0 {
		t.Errorf("wake: %#v", out.Events[0].Data)
	}
	back, err = a.ToV4(&Message{Now: 9, Events: []Event{{Timestamp: 9, Type: TypeHostsTurnedOnOff, Data: &HostsTurnedOnOff{HostIDs: "0-1", State: 0}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Events[0].Data.(*batsim.ResourceStateChanged); *got != (batsim.ResourceStateChanged{Resources: "0-1", State: "0"}) {
		t.Errorf("woken: %+v", *got)
	}
}

// TestPowerStatesAnyLayout follows hosts through a switch-off, a switch-on
// and a pstate change on platforms whose sleep pstate is not 1: Batsim 5's
// TurnOnOffHosts takes the pstate to reach (the sleep pstate to switch off,
// the computation pstate to switch on) and its HostsTurnedOnOff gives it
// back.
func TestPowerStatesAnyLayout(t *testing.T) {
	for _, c := range []struct {
		name             string
		pstates          uint32
		sleep            string // sleep_pstates
		initial, sleepTo int
		wakeTo, changeTo int
	}{
		// Batsim's energy_platform_homogeneous_no_net_128.xml: 13
		// computation pstates, sleep 13, switching 14 and 15.
		{name: "sleep13", pstates: 16, sleep: "13:14:15", initial: 0, sleepTo: 13, wakeTo: 2, changeTo: 5},
		// sleep first, then the computation pstates, then the switching.
		{name: "sleep0", pstates: 5, sleep: "0:3:4", initial: 1, sleepTo: 0, wakeTo: 2, changeTo: 1},
		// two sleep pstates, each with its switching pstates.
		{name: "two-sleeps", pstates: 8, sleep: "2:4:5, 3:6:7", initial: 0, sleepTo: 3, wakeTo: 1, changeTo: 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			props := []HostProperty{{"sleep_pstates", c.sleep}}
			hosts := []Host{
				{ID: 0, Name: "a", State: HostIdle, PState: uint32(c.initial), PStateCount: c.pstates, CoreCount: 1, Properties: props},
				{ID: 1, Name: "b", State: HostIdle, PState: uint32(c.initial), PStateCount: c.pstates, CoreCount: 1, Properties: props},
			}
			a := NewAdapter(Config{Log: quiet()})
			if _, err := a.ToV4(&Message{Events: []Event{{Type: TypeSimulationBegins, Data: &SimulationBegins{ComputationHostNumber: 2, HostNumber: 2, ComputationHosts: hosts}}}}); err != nil {
				t.Fatal(err)
			}
			step := func(now float64, hosts batsim.IntervalSet, ps int) Event {
				t.Helper()
				r := batsim.NewReply(now)
				if err := r.SetResourceState(hosts, ps); err != nil {
					t.Fatal(err)
				}
				out, err := a.FromV4(r)
				if err != nil {
					t.Fatal(err)
				}
				if len(out.Events) != 1 {
					t.Fatalf("SET_RESOURCE_STATE %v to %d: %d decisions, want one", hosts, ps, len(out.Events))
				}
				return out.Events[0]
			}
			ack := func(now float64, ids string, ps int) {
				t.Helper()
				m, err := a.ToV4(&Message{Now: now, Events: []Event{{Timestamp: now, Type: TypeHostsTurnedOnOff, Data: &HostsTurnedOnOff{HostIDs: ids, State: uint32(ps)}}}})
				if err != nil {
					t.Fatal(err)
				}
				want := batsim.ResourceStateChanged{Resources: ids, State: strconv.Itoa(ps)}
				if len(m.Events) != 1 || *m.Events[0].Data.(*batsim.ResourceStateChanged) != want {
					t.Errorf("HostsTurnedOnOff %s to %d: %+v, want %+v", ids, ps, m.Events, want)
				}
			}
			if o, ok := step(1, batsim.IntervalSet{0, 1}, c.sleepTo).Data.(*TurnOnOffHosts); !ok || o.HostIDs != "0-1" || o.State != uint32(c.sleepTo) {
				t.Errorf("switch-off to %d: %+v, want TurnOnOffHosts 0-1 to %d", c.sleepTo, o, c.sleepTo)
			}
			ack(2, "0-1", c.sleepTo)
			if o, ok := step(3, batsim.IntervalSet{1}, c.wakeTo).Data.(*TurnOnOffHosts); !ok || o.HostIDs != "1" || o.State != uint32(c.wakeTo) {
				t.Errorf("switch-on to %d: %+v, want TurnOnOffHosts 1 to %d", c.wakeTo, o, c.wakeTo)
			}
			ack(4, "1", c.wakeTo)
			if o, ok := step(5, batsim.IntervalSet{1}, c.changeTo).Data.(*ChangeHostsPState); !ok || o.HostIDs != "1" || o.PState != uint32(c.changeTo) {
				t.Errorf("pstate change of a host that is on: %+v, want ChangeHostsPState 1 to %d", o, c.changeTo)
			}
			if o, ok := step(6, batsim.IntervalSet{0}, c.initial).Data.(*TurnOnOffHosts); !ok || o.HostIDs != "0" || o.State != uint32(c.initial) {
				t.Errorf("switch-on to %d: %+v, want TurnOnOffHosts 0 to %d", c.initial, o, c.initial)
			}
		})
	}
}

func TestDecisions(t *testing.T) {
	var logs bytes.Buffer
	a := NewAdapter(Config{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if _, err := a.ToV4(begins()); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ToV4(&Message{Now: 2.0000010008}); err != nil {
		t.Fatal(err)
	}
	r := batsim.NewReply(2.0000010008)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(r.ExecuteJob(batsim.ExecuteJob{JobID: "w0!1", Alloc: batsim.IntervalSet{0, 1}}))
	must(r.ExecuteJob(batsim.ExecuteJob{JobID: "w0!2", Alloc: batsim.IntervalSet{2}, Mapping: map[int]int{0: 0, 1: 0}}))
	must(r.RejectJob("w0!3"))
	must(r.KillJobs("w0!1"))
	must(r.CallMeLater(62.5))
	must(r.RegisterProfile("dyn", "p", json.RawMessage(`{"type":"delay","delay":3}`)))
	must(r.RegisterJob("dyn!j", json.RawMessage(`{"id":"dyn!j","subtime":2,"res":1,"profile":"p","user":"u"}`)))
	r.RegistrationFinished()
	must(r.SetJobMetadata("w0!2", "vm=1"))
	_, b := translated(t, a, r)
	want := `{"now":2.0000010008,"events":[` +
		`{"timestamp":2.0000010008,"event_type":"ExecuteJobEvent","event":{"job_id":"w0!1","allocation":{"host_allocation":"0-1","executor_placement_type":"PredefinedExecutorPlacementStrategyWrapper","executor_placement":{"strategy":"SpreadOverHostsFirst"}}}},` +
		`{"timestamp":2.0000010008,"event_type":"ExecuteJobEvent","event":{"job_id":"w0!2","allocation":{"host_allocation":"2","executor_placement_type":"CustomExecutorToHostMapping","executor_placement":{"mapping":[0,0]}}}},` +
		`{"timestamp":2.0000010008,"event_type":"RejectJobEvent","event":{"job_id":"w0!3"}},` +
		`{"timestamp":2.0000010008,"event_type":"KillJobsEvent","event":{"job_ids":["w0!1"]}},` +
		`{"timestamp":2.0000010008,"event_type":"CallMeLaterEvent","event":{"call_me_later_id":"bucma-1","when_type":"OneShot","when":{"time":62500,"time_unit":"Millisecond"}}},` +
		`{"timestamp":2.0000010008,"event_type":"RegisterProfileEvent","event":{"profile":{"id":"dyn!p","profile_type":"DelayProfile","profile":{"delay":3}}}},` +
		`{"timestamp":2.0000010008,"event_type":"RegisterJobEvent","event":{"job_id":"dyn!j","job":{"resource_request":1,"walltime":null,"extra_data":"{\"user\":\"u\"}","rigid":true,"profile_id":"dyn!p"}}},` +
		`{"timestamp":2.0000010008,"event_type":"FinishRegistrationEvent","event":{}}]}`
	// The times are not later than Batsim's own now can be.
	want = strings.ReplaceAll(want, "2.0000010008", formatFloat(NotAfter(2.0000010008)))
	if string(b) != want {
		t.Errorf("decisions:\n got  %s\n want %s", b, want)
	}
	if !strings.Contains(logs.String(), "SET_JOB_METADATA") {
		t.Error("the metadata left out is not reported")
	}
	// Completion: the allocation sent comes back; a rejection tells
	// nothing; a killed job's return code is signed.
	m4, err := a.ToV4(&Message{Now: 5, Events: []Event{
		{Timestamp: 5, Type: TypeJobCompleted, Data: &JobCompleted{JobID: "w0!1", State: StateKilled, ReturnCode: 4294967294}},
		{Timestamp: 5, Type: TypeJobCompleted, Data: &JobCompleted{JobID: "w0!3", State: StateRejected}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(m4.Events) != 1 {
		t.Fatalf("events: %+v", m4.Events)
	}
	if jc := m4.Events[0].Data.(*batsim.JobCompleted); jc.Alloc != "0-1" || jc.ReturnCode != -2 {
		t.Errorf("completion: %+v", *jc)
	}
	if _, err := a.ToV4(&Message{Now: 6, Events: []Event{{Timestamp: 6, Type: TypeJobCompleted, Data: &JobCompleted{JobID: "w0!9", State: StateSuccess}}}}); err == nil {
		t.Error("a job that never started completed without an error")
	}
	// Decisions Batsim 5 cannot express.
	for _, add := range []func(*batsim.Reply) error{
		func(r *batsim.Reply) error { return r.ChangeJobState("w0!1", batsim.StateKilled, "") },
		func(r *batsim.Reply) error { r.ContinueRegistration(); return nil },
		func(r *batsim.Reply) error { r.QueryConsumedEnergy(); return nil },
		func(r *batsim.Reply) error { return r.ToJobMsg("w0!1", "x") },
		func(r *batsim.Reply) error { return r.AnswerWaitingTime("w0!1", 3) },
		func(r *batsim.Reply) error {
			return r.ExecuteJob(batsim.ExecuteJob{JobID: "w0!4", Alloc: batsim.IntervalSet{0}, AdditionalIOJob: json.RawMessage(`{}`)})
		},
	} {
		r := batsim.NewReply(7)
		must(add(r))
		if _, err := a.FromV4(r); !errors.Is(err, ErrNoEquivalent) {
			t.Errorf("%s: %v, want ErrNoEquivalent", r.Events()[0].Type, err)
		}
	}
}

func formatFloat(f float64) string { return string(appendFloat(nil, f)) }

func TestKillProgress(t *testing.T) {
	a := NewAdapter(Config{Features: RequestedFeatures{ForwardProfilesOnSimulationBegins: true}, Log: quiet()})
	m := begins()
	m.Events[0].Data.(*SimulationBegins).Profiles = []ProfileAndID{
		{ID: "w0!seq", Profile: &SequentialCompositionProfile{RepetitionCount: 2, ProfileIDs: []string{"w0!d", "w0!c"}}},
		{ID: "w0!d", Profile: &DelayProfile{Delay: 4}},
	}
	m4, err := a.ToV4(m)
	if err != nil {
		t.Fatal(err)
	}
	ps := m4.Events[0].Data.(*batsim.SimulationBegins).Profiles["w0"]
	if string(ps["seq"]) != `{"type":"composed","repeat":2,"seq":["d","c"]}` || string(ps["d"]) != `{"type":"delay","delay":4.0}` {
		t.Errorf("profiles: %s %s", ps["seq"], ps["d"])
	}
	k, err := a.ToV4(&Message{Now: 3, Events: []Event{{Timestamp: 3, Type: TypeJobsKilled, Data: &JobsKilled{
		JobIDs: []string{"w0!1"},
		Progresses: []JobAndProgress{{JobID: "w0!1", Progress: &KillProgressSequential{ProfileID: "w0!seq", CurrentRepetition: 1, CurrentTaskIndex: 0,
			CurrentTaskProgress: &KillProgressAtomic{ProfileID: "w0!d", Progress: 0.5}}}},
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	p := k.Events[0].Data.(*batsim.JobKilled).JobProgress["w0!1"]
	if p.ProfileName != "seq" || *p.CurrentTaskIndex != 2 || p.CurrentTask.ProfileName != "d" || *p.CurrentTask.Progress != 0.5 {
		t.Errorf("progress: %+v / %+v", *p, *p.CurrentTask)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, bad := range []string{
		``, `[]`, `{"events":[]}`, `{"now":"x","events":[]}`,
		`{"now":1,"events":[{"timestamp":1,"event":{}}]}`,
		`{"now":1,"events":[{"event_type":"SimulationEndsEvent","event":{}}]}`,
		`{"now":1,"events":[{"timestamp":1,"event_type":"JobSubmittedEvent","event":{"job_id":3}}]}`,
		`{"now":1,"events":[{"timestamp":1,"event_type":"ExecuteJobEvent","event":{"job_id":"w0!1"}}]}`,
		`{"now":1,"events":[{"timestamp":1,"event_type":"CallMeLaterEvent","event":{"call_me_later_id":"x","when_type":"Never","when":{}}}]}`,
		`{"now":1,"events":[{"timestamp":1,"event_type":"RegisterProfileEvent","event":{"profile":{"id":"w!p","profile_type":"MagicProfile","profile":{}}}}]}`,
	} {
		if _, err := Decode([]byte(bad)); err == nil {
			t.Errorf("%q decoded, want an error", bad)
		}
	}
	m, err := Decode([]byte("{\"now\":1,\"events\":[{\"timestamp\":1,\"event_type\":\"FutureEvent\",\"event\":{\"x\":1}}]}\x00"))
	if err != nil {
		t.Fatal(err)
	}
	if u, ok := m.Events[0].Data.(*Unknown); !ok || string(u.Raw) != `{"x":1}` {
		t.Errorf("unknown event: %#v", m.Events[0].Data)
	}
	if _, err := (&Message{Now: math.NaN()}).Encode(); err == nil {
		t.Error("NaN now encoded")
	}
	if _, err := (&Message{Events: []Event{{Type: TypeRejectJob, Data: &KillJobs{}}}}).Encode(); err == nil {
		t.Error("a payload of another type encoded")
	}
}
