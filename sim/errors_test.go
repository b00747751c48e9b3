package sim

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/workloads"
)

// scripted answers with f; it sees the engine's messages.
type scripted func(m *batsim.Message) (*batsim.Message, error)

func (f scripted) Exchange(m *batsim.Message) (*batsim.Message, error) { return f(m) }

// tinyCase: 2 hosts, job 1 (res 1, delay 5) at 0, job 2 (res 2, delay 3) at 1.
func tinyCase(t *testing.T) Config {
	t.Helper()
	w, err := workloads.Parse([]byte(`{"nb_res":2,"jobs":[
		{"id":1,"subtime":0,"res":1,"profile":"d5","walltime":10},
		{"id":2,"subtime":1,"res":2,"profile":"d3","walltime":10}],
		"profiles":{"d5":{"type":"delay","delay":5},"d3":{"type":"delay","delay":3}}}`), "tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	return Config{Platform: genPlatform(2, []float64{1e9, 2e9}), Workloads: []*workloads.Workload{w}}
}

// firstSubmission answers the first JOB_SUBMITTED message with events
// (stamped with the message's now) and every other message with nothing.
func firstSubmission(events ...batsim.Event) scripted {
	done := false
	return func(m *batsim.Message) (*batsim.Message, error) {
		r := &batsim.Message{Now: m.Now}
		if !done && len(m.Events) > 0 && m.Events[0].Type == batsim.TypeJobSubmitted {
			done = true
			for _, e := range events {
				e.Timestamp = m.Now
				r.Events = append(r.Events, e)
			}
		}
		return r, nil
	}
}

func exec(id string, hosts ...int) batsim.Event {
	return batsim.Event{Type: batsim.TypeExecuteJob, Data: &batsim.ExecuteJob{JobID: id, Alloc: batsim.NewIntervalSet(hosts...)}}
}

func TestBadDecisions(t *testing.T) {
	cases := []struct {
		name   string
		events []batsim.Event
		want   []string
	}{
		{"unknown job", []batsim.Event{exec("w0!9", 0)}, []string{"EXECUTE_JOB w0!9", "not registered"}},
		{"wrong size", []batsim.Event{exec("w0!1", 0, 1)}, []string{"EXECUTE_JOB w0!1", "requires 1 machines but 2"}},
		{"host out of range", []batsim.Event{exec("w0!1", 7)}, []string{"machine 7", "does not exist"}},
		{"negative host", []batsim.Event{{Type: batsim.TypeExecuteJob, Data: &batsim.ExecuteJob{JobID: "w0!1", Alloc: batsim.IntervalSet{-1}}}}, []string{"machine -1", "does not exist"}},
		{"empty allocation", []batsim.Event{{Type: batsim.TypeExecuteJob, Data: &batsim.ExecuteJob{JobID: "w0!1"}}}, []string{"EXECUTE_JOB w0!1", "empty allocation"}},
		{"executed twice", []batsim.Event{exec("w0!1", 0), exec("w0!1", 1)}, []string{"EXECUTE_JOB w0!1", "RUNNING", "not SUBMITTED"}},
		{"reject running", []batsim.Event{exec("w0!1", 0), {Type: batsim.TypeRejectJob, Data: &batsim.RejectJob{JobID: "w0!1"}}}, []string{"REJECT_JOB w0!1", "RUNNING"}},
		{"kill waiting", []batsim.Event{{Type: batsim.TypeKillJob, Data: &batsim.KillJob{JobIDs: []string{"w0!1"}}}}, []string{"KILL_JOB w0!1", "SUBMITTED"}},
		{"call now", []batsim.Event{{Type: batsim.TypeCallMeLater, Data: &batsim.CallMeLater{At: 0.000015}}}, []string{"CALL_ME_LATER", "past"}},
		{"register without dynamic jobs", []batsim.Event{{Type: batsim.TypeRegisterProfile, Data: &batsim.RegisterProfile{WorkloadName: "dyn", ProfileName: "p", Profile: []byte(`{"type":"delay","delay":1}`)}}}, []string{"REGISTER_PROFILE", "not enabled"}},
		{"registration_finished without dynamic jobs", []batsim.Event{{Type: batsim.TypeNotify, Data: &batsim.Notify{Kind: batsim.NotifyRegistrationFinished}}}, []string{"NOTIFY registration_finished", "not enabled"}},
		{"energy", []batsim.Event{{Type: batsim.TypeSetResourceState, Data: &batsim.SetResourceState{Resources: batsim.NewIntervalSet(0), PState: 1}}}, []string{"SET_RESOURCE_STATE", "energy"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Run(context.Background(), tinyCase(t), firstSubmission(c.events...))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("want a rule violation, got %v", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestBusyHostRefused(t *testing.T) {
	// Job 2 (res 2) started at its submission on a host job 1 still uses.
	calls := 0
	s := scripted(func(m *batsim.Message) (*batsim.Message, error) {
		r := &batsim.Message{Now: m.Now}
		for _, ev := range m.Events {
			if js, ok := ev.Data.(*batsim.JobSubmitted); ok {
				calls++
				hosts := []int{0}
				if js.JobID == "w0!2" {
					hosts = []int{0, 1}
				}
				r.Events = append(r.Events, batsim.Event{Timestamp: m.Now, Type: batsim.TypeExecuteJob,
					Data: &batsim.ExecuteJob{JobID: js.JobID, Alloc: batsim.NewIntervalSet(hosts...)}})
			}
		}
		return r, nil
	})
	_, err := Run(context.Background(), tinyCase(t), s)
	if err == nil || !strings.Contains(err.Error(), "machine 0") || !strings.Contains(err.Error(), "computing job w0!1") {
		t.Fatalf("want a busy-host error, got %v", err)
	}
}

func TestDeadlockNamesStuckJobs(t *testing.T) {
	_, err := Run(context.Background(), tinyCase(t), firstSubmission())
	var d *DeadlockError
	if !errors.As(err, &d) {
		t.Fatalf("want a deadlock, got %v", err)
	}
	if strings.Join(d.Waiting, ",") != "w0!1,w0!2" || !strings.Contains(err.Error(), "w0!1, w0!2") {
		t.Errorf("deadlock error does not name the stuck jobs: %v", err)
	}
}

func TestBadWorkload(t *testing.T) {
	w, err := workloads.Parse([]byte(`{"nb_res":2,"jobs":[{"id":1,"subtime":0,"res":1,"profile":"nope"}],
		"profiles":{"d5":{"type":"delay","delay":5}}}`), "bad.json")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), Config{Platform: genPlatform(2, []float64{1e9}), Workloads: []*workloads.Workload{w}}, firstSubmission())
	if err == nil || !strings.Contains(err.Error(), "bad.json") || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("want an error naming the file and the unknown profile, got %v", err)
	}
	w2, _ := workloads.Parse([]byte(`{"nb_res":2,"jobs":[{"id":1,"subtime":0,"res":1,"profile":"d5"},{"id":1,"subtime":1,"res":1,"profile":"d5"}],
		"profiles":{"d5":{"type":"delay","delay":5}}}`), "dup.json")
	_, err = Run(context.Background(), Config{Platform: genPlatform(2, []float64{1e9}), Workloads: []*workloads.Workload{w2}}, firstSubmission())
	if err == nil || !strings.Contains(err.Error(), "dup.json") {
		t.Fatalf("want an error naming the file with duplicate ids, got %v", err)
	}
}

func TestBadPlatform(t *testing.T) {
	w := tinyCase(t).Workloads
	_, err := Run(context.Background(), Config{Platform: &platforms.Platform{Path: "empty.xml"}, Workloads: w}, firstSubmission())
	if err == nil || !strings.Contains(err.Error(), "empty.xml") || !strings.Contains(err.Error(), "no compute host") {
		t.Fatalf("want a no-host error, got %v", err)
	}
	p := genPlatform(2, []float64{1e9})
	p.Hosts[1].Speed = 0
	_, err = Run(context.Background(), Config{Platform: p, Workloads: w}, firstSubmission())
	if err == nil || !strings.Contains(err.Error(), "h00001") || !strings.Contains(err.Error(), "speed") {
		t.Fatalf("want a speed error naming the host, got %v", err)
	}
	if _, err := platforms.Load("testdata/does-not-exist.xml"); err == nil {
		t.Fatal("loading a missing platform succeeded")
	}
}

func TestReplyTimestampAfterNow(t *testing.T) {
	s := scripted(func(m *batsim.Message) (*batsim.Message, error) {
		return &batsim.Message{Now: m.Now, Events: []batsim.Event{{Timestamp: m.Now + 1, Type: batsim.TypeRejectJob, Data: &batsim.RejectJob{JobID: "w0!1"}}}}, nil
	})
	_, err := Run(context.Background(), tinyCase(t), s)
	if err == nil || !strings.Contains(err.Error(), "later than the reply's now") {
		t.Fatalf("want a timestamp error, got %v", err)
	}
}

// A composed job killed during one of its parallel parts: JOB_COMPLETED
// (COMPLETED_KILLED, -2: the cancelled parallel part ends the sequence) then JOB_KILLED with the sequence's progress tree.
func TestKillComposedDuringParallelPart(t *testing.T) {
	w, err := workloads.Parse([]byte(`{"nb_res":1,"jobs":[{"id":"a","subtime":0,"res":1,"profile":"seq"}],
		"profiles":{"d1":{"type":"delay","delay":1},"ph":{"type":"parallel_homogeneous","cpu":4e9,"com":0},
		"seq":{"type":"composed","repeat":3,"seq":["d1","ph"]}}}`), "kill.json")
	if err != nil {
		t.Fatal(err)
	}
	var killed *batsim.JobKilled
	var completed *batsim.JobCompleted
	step := 0
	s := scripted(func(m *batsim.Message) (*batsim.Message, error) {
		r := &batsim.Message{Now: m.Now}
		for _, ev := range m.Events {
			switch d := ev.Data.(type) {
			case *batsim.JobSubmitted:
				r.Events = append(r.Events, batsim.Event{Timestamp: m.Now, Type: batsim.TypeExecuteJob, Data: &batsim.ExecuteJob{JobID: d.JobID, Alloc: batsim.NewIntervalSet(0)}},
					batsim.Event{Timestamp: m.Now, Type: batsim.TypeCallMeLater, Data: &batsim.CallMeLater{At: 8}})
			case *batsim.RequestedCall:
				r.Events = append(r.Events, batsim.Event{Timestamp: m.Now, Type: batsim.TypeKillJob, Data: &batsim.KillJob{JobIDs: []string{"w0!a"}}})
			case *batsim.JobCompleted:
				completed = d
				step = 1
			case *batsim.JobKilled:
				if step != 1 {
					t.Error("JOB_KILLED before JOB_COMPLETED")
				}
				killed = d
			}
		}
		return r, nil
	})
	// 2e9 flop/s: each round is 1 s of delay then 2 s of computation; at
	// t = 8 (+ latencies) the job is 1 s into the 3rd round's parallel part.
	res, err := Run(context.Background(), Config{Platform: genPlatform(1, []float64{2e9}), Workloads: []*workloads.Workload{w}}, s)
	if err != nil {
		t.Fatal(err)
	}
	if completed == nil || completed.JobState != batsim.StateKilled || completed.ReturnCode != -2 {
		t.Fatalf("JOB_COMPLETED %+v", completed)
	}
	if killed == nil || len(killed.JobIDs) != 1 {
		t.Fatalf("JOB_KILLED %+v", killed)
	}
	p := killed.JobProgress["w0!a"]
	if p == nil || p.ProfileName != "seq" || p.CurrentTaskIndex == nil || *p.CurrentTaskIndex != 5 || p.CurrentTask == nil ||
		p.CurrentTask.ProfileName != "ph" || p.CurrentTask.Progress == nil {
		t.Fatalf("progress tree %+v", p)
	}
	if got := *p.CurrentTask.Progress; got < 0.49 || got > 0.51 {
		t.Errorf("progress of the parallel part %f, want about 0.5", got)
	}
	if res.ByState[batsim.StateKilled] != 1 {
		t.Errorf("result %+v", res.ByState)
	}
}

// Two workloads: ids w0!… and w1!…, one NOTIFY once both submitters are
// done, rows with their workload name.
func TestTwoWorkloads(t *testing.T) {
	a, b := tinyCase(t), tinyCase(t)
	cfg := a
	cfg.Workloads = append(cfg.Workloads, b.Workloads...)
	cfg.Platform = genPlatform(4, []float64{1e9})
	cfg.ExportPrefix = t.TempDir() + "/out"
	var submitted []string
	notifies := 0
	sess := newSession(t, "fcfs", nil, true)
	in := InProcess(sess)
	s := scripted(func(m *batsim.Message) (*batsim.Message, error) {
		for _, ev := range m.Events {
			switch d := ev.Data.(type) {
			case *batsim.JobSubmitted:
				if notifies > 0 {
					t.Errorf("%s submitted after no_more_static_job_to_submit", d.JobID)
				}
				submitted = append(submitted, d.JobID)
			case *batsim.Notify:
				notifies++
			}
		}
		return in.Exchange(m)
	})
	res, err := Run(context.Background(), cfg, s)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(submitted, ",") != "w0!1,w1!1,w0!2,w1!2" || notifies != 1 || res.Jobs != 4 {
		t.Errorf("submissions %v, %d NOTIFY, %d jobs", submitted, notifies, res.Jobs)
	}
	rows := readRows(t, cfg.ExportPrefix+"_jobs.csv")
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r.id] = true
	}
	if !seen["w1!1"] || !seen["w1!2"] || !seen["w0!2"] {
		t.Errorf("rows %v", rows)
	}
}
