package sge_test

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/testkit"

	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sim"
	"github.com/bucma-sched/bucma/workloads"
)

// sgeRun is one SGE scenario run through the engine: each task's host,
// start and end.
type sgeRun struct {
	host       []int
	start, end []float64
}

// counts is how many tasks each of the 4 hosts ran.
func (r sgeRun) counts() [4]int {
	var c [4]int
	for _, h := range r.host {
		c[h]++
	}
	return c
}

func (r sgeRun) makespan() float64 {
	m := 0.0
	for _, e := range r.end {
		m = math.Max(m, e)
	}
	return m
}

// runSGE runs n tasks of app on the bundled prototype under policy, with
// Batsim's compute sharing on or off and the session's audit on.
func runSGE(t *testing.T, app string, n int, policy string, opts sched.Options, sharing bool) (sgeRun, error) {
	t.Helper()
	a, err := workloads.SGEAppByName(app)
	if err != nil {
		t.Fatal(err)
	}
	plat, err := platforms.Bundled(a.Platform)
	if err != nil {
		t.Fatal(err)
	}
	w, err := workloads.GenerateSGE(workloads.SGEOptions{App: app, Tasks: n})
	if err != nil {
		t.Fatal(err)
	}
	spec, err := policies.Builtin().Lookup(policy)
	if err != nil {
		t.Fatal(err)
	}
	res, err := testkit.RunEngine(context.Background(), testkit.EngineRun{Platform: plat, Workloads: []*workloads.Workload{w}, Spec: spec, Options: opts,
		Configure: func(c *sim.Config) { c.ComputeSharing = sharing }}, t.TempDir())
	if err != nil {
		return sgeRun{}, err
	}
	var r sgeRun
	for _, row := range res.Jobs {
		h, err := strconv.Atoi(row["allocated_resources"])
		if err != nil {
			t.Fatalf("job %s on %q: one host expected", row["job_id"], row["allocated_resources"])
		}
		r.host, r.start, r.end = append(r.host, h), append(r.start, testkit.Num(row, "starting_time")), append(r.end, testkit.Num(row, "finish_time"))
	}
	if len(r.host) != n {
		t.Fatalf("%d rows for %d tasks", len(r.host), n)
	}
	return r, nil
}

func mustSGE(t *testing.T, app string, n int, policy string, opts sched.Options) sgeRun {
	t.Helper()
	r, err := runSGE(t, app, n, policy, opts, true)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSGELoadBalanced: slots (5,5,5,4), n tasks at once: the free fraction
// spreads them as §2.2 derives ([2,1,1,1] ... [5,4,4,4]: h4, with the
// fewest slots, never gets more than a faster host), and the makespan is
// the most loaded host's tasks times one task's time (Smith-Waterman:
// 39.6 s on h1-h3, 48.4 s on h4).
func TestSGELoadBalanced(t *testing.T) {
	for _, c := range []struct {
		n        int
		counts   [4]int
		makespan float64
	}{
		{5, [4]int{2, 1, 1, 1}, 79.2},
		{9, [4]int{3, 2, 2, 2}, 118.8},
		{13, [4]int{4, 3, 3, 3}, 158.4},
		{17, [4]int{5, 4, 4, 4}, 198.0},
	} {
		r := mustSGE(t, "sw", c.n, "sge-loadbalanced", nil)
		if r.counts() != c.counts {
			t.Errorf("n=%d: tasks per host %v, want %v", c.n, r.counts(), c.counts)
		}
		if m := r.makespan(); math.Abs(m-c.makespan) > 1e-3 {
			t.Errorf("n=%d: makespan %f, want %f", c.n, m, c.makespan)
		}
	}
	// tie=lowest-id gives the same spread here (equal fractions are
	// broken by id, and h1-h3 come first either way); with slots 4,5,5,5
	// the default prefers the hosts with more slots for the first tasks.
	if r := mustSGE(t, "sw", 2, "sge-loadbalanced", sched.Options{"slots": "4,5,5,5"}); r.counts() != [4]int{0, 1, 1, 0} {
		t.Errorf("more-slots tie: %v, want [0 1 1 0]", r.counts())
	}
	if r := mustSGE(t, "sw", 2, "sge-loadbalanced", sched.Options{"slots": "4,5,5,5", "tie": "lowest-id"}); r.counts() != [4]int{1, 1, 0, 0} {
		t.Errorf("lowest-id tie: %v, want [1 1 0 0]", r.counts())
	}
}

// TestSGEDefault: the round robin from each start offset (start 3: h4
// takes the extra task, the paper's worst case, 4 × 48.4 s for 13 tasks),
// seqno fills the hosts in order, least-load evens the counts; with equal
// slots (5,5,5,5) and 17 tasks from h4, h4 runs 5 (242 s, scenario 10).
func TestSGEDefault(t *testing.T) {
	for _, c := range []struct {
		opts     sched.Options
		n        int
		counts   [4]int
		makespan float64
	}{
		{sched.Options{"start": "0"}, 13, [4]int{4, 3, 3, 3}, 158.4},
		{sched.Options{"start": "1"}, 13, [4]int{3, 4, 3, 3}, 158.4},
		{sched.Options{"start": "3"}, 13, [4]int{3, 3, 3, 4}, 193.6},
		{sched.Options{"start": "3"}, 5, [4]int{1, 1, 1, 2}, 96.8},
		{sched.Options{"start": "3"}, 17, [4]int{5, 4, 4, 4}, 198.0},
		{sched.Options{"start": "3", "slots": "5,5,5,5"}, 17, [4]int{4, 4, 4, 5}, 242.0},
		{sched.Options{"choice": "seqno"}, 13, [4]int{5, 5, 3, 0}, 198.0},
		{sched.Options{"choice": "least-load"}, 13, [4]int{4, 3, 3, 3}, 158.4},
	} {
		r := mustSGE(t, "sw", c.n, "sge-default-rr", c.opts)
		if r.counts() != c.counts {
			t.Errorf("%v n=%d: tasks per host %v, want %v", c.opts, c.n, r.counts(), c.counts)
		}
		if m := r.makespan(); math.Abs(m-c.makespan) > 1e-3 {
			t.Errorf("%v n=%d: makespan %f, want %f", c.opts, c.n, m, c.makespan)
		}
	}
	// A drawn start depends on the seed only, and the seeds reach every
	// host.
	seen := map[[4]int]bool{}
	for seed := 1; seed <= 40; seed++ {
		opts := sched.Options{"start": "random", "seed": strconv.Itoa(seed)}
		a, b := mustSGE(t, "sw", 5, "sge-default-rr", opts), mustSGE(t, "sw", 5, "sge-default-rr", opts)
		if a.counts() != b.counts() {
			t.Fatalf("seed %d: %v then %v", seed, a.counts(), b.counts())
		}
		seen[a.counts()] = true
	}
	if len(seen) != 4 {
		t.Errorf("40 seeds drew %d distinct starts, want 4: %v", len(seen), seen)
	}
}

// TestSGEWaitsForSlots: 25 tasks on 19 slots: 19 start at once (within
// Batsim's message latencies), the 6 others only once slots free up.
func TestSGEWaitsForSlots(t *testing.T) {
	for _, policy := range []string{"sge-loadbalanced", "sge-default-rr"} {
		r := mustSGE(t, "sw", 25, policy, nil)
		atZero := 0
		for i, s := range r.start {
			if s < 1e-3 {
				atZero++
			} else if s < 150 {
				t.Errorf("%s: task %d starts at %f, before any slot is free", policy, i, s)
			}
		}
		if atZero != 19 {
			t.Errorf("%s: %d tasks start at 0, want the 19 slots' worth", policy, atZero)
		}
	}
}

// TestSGESharingRequired: hosts with several slots need Batsim's compute
// sharing; one slot per host runs without it; bad slots are refused.
func TestSGESharingRequired(t *testing.T) {
	_, err := runSGE(t, "sw", 5, "sge-loadbalanced", nil, false)
	if err == nil || !strings.Contains(err.Error(), "--enable-compute-sharing") || !strings.Contains(err.Error(), "h1") {
		t.Errorf("without compute sharing: %v", err)
	}
	r, err := runSGE(t, "sw", 5, "sge-default-rr", sched.Options{"slots": "1,1,1,1"}, false)
	if err != nil {
		t.Fatalf("one slot per host without compute sharing: %v", err)
	}
	if r.counts() != [4]int{2, 1, 1, 1} || math.Abs(r.makespan()-79.2) > 1e-3 {
		t.Errorf("one slot per host: %v, makespan %f", r.counts(), r.makespan())
	}
	for _, c := range []struct {
		opts sched.Options
		want string
	}{
		{sched.Options{"slots": "5,x,5,4"}, `item 2 ("x")`},
		{sched.Options{"slots": "5,0,5,4"}, `item 2 ("0")`},
		{sched.Options{"slots": "5,5,4"}, "3 counts given for the platform's 4 hosts"},
		{sched.Options{"start": "4"}, "start=4: the platform has hosts 0..3"},
		{sched.Options{"start": "-1"}, `start="-1"`},
		{sched.Options{"seed": "x"}, `seed="x"`},
	} {
		_, err := runSGE(t, "sw", 5, "sge-default-rr", c.opts, true)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want it to say %q", c.opts, err, c.want)
		}
	}
}

// TestSGESlotsProperty: a host's slots property must be a positive whole
// number; the error names the host.
func TestSGESlotsProperty(t *testing.T) {
	for _, v := range []string{"0", "-2", "five", "2.5"} {
		if _, err := sched.HostSlots(map[string]string{"slots": v}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", v)) {
			t.Errorf("slots=%q: %v", v, err)
		}
	}
	if n, err := sched.HostSlots(map[string]string{}); n != 1 || err != nil {
		t.Errorf("no property: %d, %v", n, err)
	}
	if n, err := sched.HostSlots(map[string]string{"slots": " 7 "}); n != 7 || err != nil {
		t.Errorf("slots=7: %d, %v", n, err)
	}
}
