package testkit_test

import (
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/policies/basic"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit"
	"github.com/bucma-sched/bucma/workloads"
)

func bases() *sched.Registry {
	r := sched.NewRegistry()
	basic.Register(r)
	return r
}

// A state that cannot be is refused with what is wrong.
func TestNewStateRefusals(t *testing.T) {
	job := testkit.Job{Name: "j", Res: 1, Walltime: 10}
	for _, c := range []struct {
		sp   testkit.StateSpec
		want string
	}{
		{testkit.StateSpec{Now: 5, Hosts: testkit.Hosts(1), Running: []testkit.Running{{Job: job, Start: 6, Hosts: []int{0}}}}, "started at 6, now 5"},
		{testkit.StateSpec{Now: 5, Hosts: testkit.Hosts(1, 1), Running: []testkit.Running{{Job: job, Hosts: []int{0, 1}}}}, "2 hosts for res=1"},
		{testkit.StateSpec{Now: 5, Hosts: testkit.Hosts(1), Waiting: []testkit.Job{{Name: "late", Submit: 9, Res: 1}}}, "after now"},
		{testkit.StateSpec{Now: 5, Hosts: testkit.Hosts(1), Running: []testkit.Running{{Job: job, Hosts: []int{3}}}}, "host 3 does not exist"},
		{testkit.StateSpec{Now: 5, Hosts: testkit.Hosts(1), Running: []testkit.Running{{Job: job, Hosts: []int{0}}, {Job: testkit.Job{Name: "k", Res: 1}, Hosts: []int{0}}}}, "host 0 is not free"},
	} {
		if _, err := testkit.NewState(c.sp); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one saying %q", c.sp, err, c.want)
		}
	}
}

// The state is the one a run builds: running jobs on their hosts since
// their start, the queue in Batsim's order (submission time, then id).
func TestNewStateContents(t *testing.T) {
	h, err := testkit.NewState(testkit.StateSpec{Now: 30, Hosts: []testkit.Host{{Speed: 2e9, Properties: map[string]string{"owner": "ann"}}, {}},
		Running: []testkit.Running{{Job: testkit.Job{Name: "r", Submit: 3, Res: 1, Walltime: 100, User: "ann"}, Start: 7, Hosts: []int{1}}},
		Waiting: []testkit.Job{{Name: "b", Submit: 10, Res: 1}, {Name: "a", Submit: 10, Res: 2}, {Name: "c", Submit: 4, Res: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	s := h.State()
	var q []string
	for _, j := range s.WaitingCopy() {
		q = append(q, j.Name())
	}
	if strings.Join(q, " ") != "c a b" || s.Now() != 30 || s.NbFree() != 1 {
		t.Fatalf("queue %v, now %v, %d free", q, s.Now(), s.NbFree())
	}
	r, ok := s.Job("w0!r")
	if !ok || !r.Running() || r.Start() != 7 || r.Submit() != 3 || r.User() != "ann" || len(s.Host(1).Jobs()) != 1 {
		t.Fatalf("running job %+v", r)
	}
	if s.Host(0).Speed() != 2e9 || s.Host(1).Speed() != 1 {
		t.Fatalf("speeds %v %v", s.Host(0).Speed(), s.Host(1).Speed())
	}
	if v, _ := s.Host(0).Property("owner"); v != "ann" {
		t.Fatalf("owner %q", v)
	}
}

// A Stepper shows decisions compactly and fills JOB_COMPLETED's
// allocation.
func TestStepper(t *testing.T) {
	spec, _ := bases().Lookup("fcfs")
	b := testkit.NewStepper(t, spec, 2, sched.Options{"hosts": "first-fit"})
	b.Expect(0, []string{"X a 0-1", "R z"}, testkit.Submit("a", 2, 10), testkit.Submit("b", 1, 10), testkit.Submit("z", 3, 10))
	b.Expect(10, []string{"X b 0"}, testkit.Done("a"))
}

// Run plays a whole scenario and CheckStarts compares the starts.
func TestRunScenario(t *testing.T) {
	got := testkit.Run(t, testkit.Scenario{Registry: bases(), Policy: "fcfs", Speeds: []float64{1, 1}, Jobs: []testkit.Job{
		{Name: "a", Submit: 0, Res: 2, Walltime: 10, Run: 10},
		{Name: "b", Submit: 1, Res: 1, Walltime: 5, Run: 9},
		{Name: "c", Submit: 1, Res: 1, Run: 3, Ret: 2},
	}})
	testkit.CheckStarts(t, got, map[string]testkit.Start{"a": {At: 0, Alloc: "0-1"}, "b": {At: 10, Alloc: "0"}, "c": {At: 10, Alloc: "1"}})
	if got["b"].State != batsim.StateWalltimeReached || got["b"].End != 15 || got["c"].State != batsim.StateFailed {
		t.Fatalf("b %v, c %v", got["b"], got["c"])
	}
	if _, err := testkit.SpecOf(testkit.Scenario{Policy: "fcfs"}); err == nil {
		t.Fatal("a scenario without Spec nor Registry was accepted")
	}
}

// The engine run reads back Batsim's files.
func TestSimulate(t *testing.T) {
	spec, _ := bases().Lookup("easy")
	jobs := []testkit.Job{{Name: "a", Res: 2, Walltime: 10, Run: 5}, {Name: "b", Submit: 1, Res: 1, Walltime: 10, Run: 5, User: "u"}}
	res := testkit.Simulate(t, testkit.EngineRun{Platform: testkit.Platform(t, testkit.Hosts(1e9, 1e9)),
		Workloads: []*workloads.Workload{testkit.Workload(t, jobs)}, Spec: spec})
	if len(res.Jobs) != 2 || testkit.Row(res.ByID["w0!b"]).Start < 5 {
		t.Fatalf("rows %v", res.ByID)
	}
}
