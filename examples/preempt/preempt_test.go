package preempt_test

import (
	"strconv"
	"testing"

	"github.com/bucma-sched/bucma/examples/preempt"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit"
	"github.com/bucma-sched/bucma/testkit/batsimrun"
	"github.com/bucma-sched/bucma/workloads"
)

// Two hosts: L (both hosts, walltime 10000, runs 5000) starts at 0; S
// (one host, walltime 100, runs 50) arrives at 10 and L is killed for it.
// L's remaining work comes back as w0.r!L.1 (from zero: no checkpoint),
// which starts when S has ended.
func TestShortJobPreempts(t *testing.T) {
	spec := preempt.Spec()
	jobs := []testkit.Job{
		{Name: "L", Submit: 0, Res: 2, Walltime: 10000, Run: 5000},
		{Name: "S", Submit: 10, Res: 1, Walltime: 100, Run: 50},
	}
	res := testkit.Simulate(t, testkit.EngineRun{Platform: testkit.Platform(t, testkit.Hosts(1e9, 1e9)),
		Workloads: []*workloads.Workload{testkit.Workload(t, jobs)}, Spec: &spec})
	l, s, piece := testkit.Row(res.ByID["w0!L"]), testkit.Row(res.ByID["w0!S"]), testkit.Row(res.ByID["w0.r!L.1"])
	if l.State != "COMPLETED_KILLED" || s.State != "COMPLETED_SUCCESSFULLY" || piece.State != "COMPLETED_SUCCESSFULLY" {
		t.Fatalf("states: L %s, S %s, piece %s (rows %v)", l.State, s.State, piece.State, res.ByID)
	}
	if s.Start < 10 || s.Start > 11 || piece.Start < s.Finish || piece.Finish-piece.Start < 5000 {
		t.Fatalf("S %+v, piece %+v", s, piece)
	}
}

// With checkpoints of 100 s, the piece keeps what L executed in whole
// blocks: L ran about 10 s, less than a block, so nothing is kept; with a
// later short job (at 450 s) four blocks are kept.
func TestCheckpoint(t *testing.T) {
	spec := preempt.Spec()
	jobs := []testkit.Job{
		{Name: "L", Submit: 0, Res: 2, Walltime: 10000, Run: 5000},
		{Name: "S", Submit: 450, Res: 1, Walltime: 100, Run: 50},
	}
	res := testkit.Simulate(t, testkit.EngineRun{Platform: testkit.Platform(t, testkit.Hosts(1e9, 1e9)),
		Workloads: []*workloads.Workload{testkit.Workload(t, jobs)}, Spec: &spec, Options: sched.Options{"checkpoint": "100"}})
	piece := testkit.Row(res.ByID["w0.r!L.1"])
	if d := piece.Finish - piece.Start; d < 4599 || d > 4601 {
		t.Fatalf("piece ran %v s, want the 4600 s left after 4 blocks", d)
	}
}

// Options are checked when the policy is built.
func TestBadOptions(t *testing.T) {
	spec := preempt.Spec()
	for _, o := range []sched.Options{{"short": "0"}, {"short": "x"}, {"checkpoint": "-1"}} {
		if _, err := spec.Build(o); err == nil {
			t.Errorf("%v accepted", o)
		}
	}
}

// A workload of long and short jobs with kills and resubmissions, through
// the embedded engine and the real Batsim (where installed): the same
// _jobs.csv.
func TestSameAsBatsim(t *testing.T) {
	var jobs []testkit.Job
	for i := range 30 {
		j := testkit.Job{Name: strconv.Itoa(i), Submit: float64(37 * i), Res: 1 + i%4, Walltime: 3000, Run: float64(900 + 53*i)}
		if i%3 == 0 {
			j.Res, j.Walltime, j.Run = 1, 200, float64(50+i)
		}
		jobs = append(jobs, j)
	}
	plat, wl := batsimrun.WriteFiles(t, t.TempDir(), testkit.Hosts(1e9, 2e9, 1e9, 2e9, 1e9), jobs)
	spec := preempt.Spec()
	rows := batsimrun.SameAsEngine(t, &spec, sched.Options{"checkpoint": "60"}, plat, wl)
	killed := 0
	for _, r := range rows {
		if r["final_state"] == "COMPLETED_KILLED" {
			killed++
		}
	}
	if killed == 0 {
		t.Fatal("no job was preempted: the case shows nothing")
	}
	t.Logf("%d rows, %d kills", len(rows), killed)
}
