package prio_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/policies/prio"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit"
)

var reg = func() *sched.Registry {
	r := sched.NewRegistry()
	prio.Register(r)
	return r
}()

// TestOptions: every priority function is a policy with the backfill and
// hosts options; a value it does not know is refused, naming it.
func TestOptions(t *testing.T) {
	for _, f := range prio.Functions {
		spec, ok := reg.Get(f.Name)
		if !ok {
			t.Fatalf("%s is not registered", f.Name)
		}
		var names []string
		for _, o := range spec.Options {
			names = append(names, o.Name)
		}
		if strings.Join(names, ",") != "backfill,hosts" {
			t.Errorf("%s: options %v", f.Name, names)
		}
		for _, b := range prio.BackfillOption.Values {
			if _, err := spec.Build(sched.Options{"backfill": b, "hosts": "first-fit"}); err != nil {
				t.Errorf("%s backfill=%s: %v", f.Name, b, err)
			}
		}
		if _, err := spec.Build(sched.Options{"backfill": "greedy"}); err == nil || !strings.Contains(err.Error(), "greedy") {
			t.Errorf("%s backfill=greedy: %v", f.Name, err)
		}
	}
	if _, err := prio.Rule("sometimes"); err == nil || !strings.Contains(err.Error(), `"sometimes"`) {
		t.Errorf("Rule(sometimes): %v", err)
	}
}

// TestF1ToF4 pins the learned functions' values and their guard: a
// submission time below 0.1 s counts as 0.1 s; a job without walltime has
// r = +Inf (last).
func TestF1ToF4(t *testing.T) {
	h, err := testkit.NewState(testkit.StateSpec{Now: 5000, Hosts: testkit.Hosts(1, 1, 1, 1), Waiting: []testkit.Job{
		{Name: "a", Submit: 1000, Res: 4, Walltime: 100},
		{Name: "zero", Submit: 0, Res: 4, Walltime: 100},
		{Name: "early", Submit: 0.01, Res: 4, Walltime: 100},
		{Name: "nowall", Submit: 1000, Res: 4},
	}})
	if err != nil {
		t.Fatal(err)
	}
	s := h.State()
	job := func(name string) *sched.Job {
		j, _ := s.Job("w0!" + name)
		return j
	}
	for _, c := range []struct {
		f    func(*sched.Job) float64
		name string
		want float64
	}{
		{prio.F1, "a", 2*4 + 870*3},
		{prio.F2, "a", 10*4 + 25600*3},
		{prio.F3, "a", 100*4 + 6.86e6*3},
		{prio.F4, "a", 100*2 + 530000*3},
		{prio.F1, "zero", 2*4 - 870},
		{prio.F2, "zero", 10*4 - 25600},
		{prio.F3, "early", 100*4 - 6.86e6},
		{prio.F4, "early", 100*2 - 530000},
	} {
		if got := c.f(job(c.name)); math.Abs(got-c.want) > 1e-9*math.Abs(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	for _, f := range []func(*sched.Job) float64{prio.F1, prio.F2, prio.F3, prio.F4} {
		if got := f(job("nowall")); !math.IsInf(got, 1) {
			t.Errorf("no walltime: %v, want +Inf", got)
		}
	}
}

// TestDecisions: on one free host, each function starts the job it ranks
// first, with no or EASY backfilling; conservative backfilling places the
// jobs it has not seen in arrival order (the order decides its
// compressions), so that it starts the first submitted.
func TestDecisions(t *testing.T) {
	// Now 1000; r is the walltime, n the hosts, s the submission time.
	jobs := []testkit.Job{
		{Name: "old-long", Submit: 100, Res: 1, Walltime: 9000}, // waits 900
		{Name: "new-short", Submit: 990, Res: 1, Walltime: 20},  // waits 10
		{Name: "mid", Submit: 500, Res: 1, Walltime: 1000},      // waits 500
		{Name: "nowall", Submit: 400, Res: 1},                   // waits 600, r = +Inf
	}
	for _, c := range []struct{ policy, want string }{
		{"prio-fcfs", "old-long"},
		{"prio-sjf", "new-short"},
		{"prio-ljf", "nowall"},
		{"prio-area", "new-short"},
		{"prio-xf", "new-short"},   // (10+20)/20 = 1.5 > 1.5 (mid), ties by submission: old-long 1.1
		{"prio-wfp3", "new-short"}, // (10/20)³ = 0.125 > (500/1000)³ = 0.125: tie, by submission: mid
		{"prio-unicep", "mid"},     // 900/9000 = 0.1, 10/20 = 0.5, 500/1000 = 0.5: tie, mid first
		{"prio-f3", "old-long"},    // r·n + 6.86e6·log10(s): s dominates
	} {
		_ = c
	}
	for _, c := range []struct{ policy, want string }{
		{"prio-fcfs", "old-long"},
		{"prio-sjf", "new-short"},
		{"prio-ljf", "nowall"},
		{"prio-area", "new-short"},
		{"prio-smallest", "old-long"}, // all one host: by submission
		{"prio-largest", "old-long"},
		// (10+20)/20 = 1.5, (500+1000)/1000 = 1.5: equal, mid submitted first
		{"prio-xf", "mid"},
		// (10/20)³ = 0.125 = (500/1000)³: equal, mid first
		{"prio-wfp3", "mid"},
		// one-host jobs count as two: 10/20 = 0.5 = 500/1000, mid first
		{"prio-unicep", "mid"},
		// log10(s) weighs most: the oldest first
		{"prio-f1", "old-long"}, {"prio-f2", "old-long"}, {"prio-f3", "old-long"}, {"prio-f4", "old-long"},
	} {
		for _, b := range prio.BackfillOption.Values {
			spec, _ := reg.Get(c.policy)
			p, err := spec.Build(sched.Options{"backfill": b})
			if err != nil {
				t.Fatal(err)
			}
			h, err := testkit.NewState(testkit.StateSpec{Now: 1000, Hosts: testkit.Hosts(1), Waiting: jobs})
			if err != nil {
				t.Fatal(err)
			}
			got, err := h.Decide(p) // the decision starts the job: a new state for each
			if err != nil {
				t.Fatal(err)
			}
			want := "[X " + c.want + " 0]"
			if b == "conservative" {
				want = "[X old-long 0]"
			}
			if fmt.Sprint(got) != want {
				t.Errorf("%s backfill=%s: %v, want %s", c.policy, b, got, want)
			}
		}
	}
}
