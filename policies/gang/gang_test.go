package gang_test

import (
	"math"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/testkit"

	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/workloads"
)

// runGang runs jobs on plat under gang with opts and returns each job's
// start, by name.
func runGang(t *testing.T, plat *platforms.Platform, jobs []testkit.Job, opts sched.Options) map[string]testkit.JobRow {
	t.Helper()
	spec, err := policies.Builtin().Lookup("gang")
	if err != nil {
		t.Fatal(err)
	}
	res := testkit.Simulate(t, testkit.EngineRun{Platform: plat, Workloads: []*workloads.Workload{testkit.Workload(t, jobs)}, Spec: spec, Options: opts})
	out := map[string]testkit.JobRow{}
	for _, r := range res.Jobs {
		out[r["job_id"]] = testkit.Row(r)
	}
	return out
}

// TestGangLocalMigration: A (100 s) runs on h0, B and C (10 s) on h1 and
// h2; D (2 tasks) arrives when every estimate says the hosts are about to
// free up, and its tasks queue on h0 and h1. At 10 s h1 and h2 are idle:
// without migration D waits for A (100 s); with local migration its task
// moves from h0 to h2 and D starts at once.
func TestGangLocalMigration(t *testing.T) {
	plat := testkit.Platform(t, testkit.PropHosts("cluster", []testkit.PropHost{{Speed: 1e9, Value: "c"}, {Speed: 1e9, Value: "c"}, {Speed: 1e9, Value: "c"}}...))
	jobs := []testkit.Job{
		{Name: "A", Submit: 0, Run: 100, Res: 1}, {Name: "B", Submit: 0, Run: 10, Res: 1}, {Name: "C", Submit: 0, Run: 10, Res: 1},
		{Name: "D", Submit: 1, Run: 5, Res: 2},
	}
	for _, c := range []struct {
		migration string
		start     float64
		alloc     string
	}{{"none", 100, "0-1"}, {"local", 10, "1-2"}} {
		out := runGang(t, plat, jobs, sched.Options{"migration": c.migration})
		if d := out["D"]; math.Abs(d.Start-c.start) > 0.01 || d.Alloc != c.alloc {
			t.Errorf("migration=%s: D starts at %f on %q, want %g on %q", c.migration, d.Start, d.Alloc, c.start, c.alloc)
		}
		if a := out["A"]; a.Alloc != "0" || a.Start > 0.01 {
			t.Errorf("migration=%s: A on %q at %f", c.migration, a.Alloc, a.Start)
		}
	}
}

// TestGangExternalMigration: clusters c0 = {h0, h1} and c1 = {h2, h3}. A
// (2 tasks, 100 s) goes to c0, B (2 tasks, 10 s) to c1, C (2 tasks) to the
// tied first cluster c0, behind A. When B ends, c1 is idle: only external
// migration moves C there.
func TestGangExternalMigration(t *testing.T) {
	plat := testkit.Platform(t, testkit.PropHosts("cluster", []testkit.PropHost{{Speed: 1e9, Value: "c0"}, {Speed: 1e9, Value: "c0"}, {Speed: 1e9, Value: "c1"}, {Speed: 1e9, Value: "c1"}}...))
	jobs := []testkit.Job{
		{Name: "A", Submit: 0, Run: 100, Res: 2}, {Name: "B", Submit: 0, Run: 10, Res: 2},
		{Name: "C", Submit: 1, Run: 5, Res: 2},
	}
	for _, c := range []struct {
		migration string
		start     float64
		alloc     string
	}{{"none", 100, "0-1"}, {"local", 100, "0-1"}, {"local+external", 10, "2-3"}} {
		out := runGang(t, plat, jobs, sched.Options{"migration": c.migration})
		if x := out["C"]; math.Abs(x.Start-c.start) > 0.01 || x.Alloc != c.alloc {
			t.Errorf("migration=%s: C starts at %f on %q, want %g on %q", c.migration, x.Start, x.Alloc, c.start, c.alloc)
		}
		if b := out["B"]; b.Alloc != "2-3" {
			t.Errorf("migration=%s: B on %q, want c1", c.migration, b.Alloc)
		}
	}
}

// TestGangRejectsWiderThanAnyCluster: a gang runs within one cluster; a
// job wider than every cluster is rejected, one that fits the larger runs
// there.
func TestGangRejectsWiderThanAnyCluster(t *testing.T) {
	plat := testkit.Platform(t, testkit.PropHosts("cluster", []testkit.PropHost{{Speed: 1e9, Value: "small"}, {Speed: 1e9, Value: "small"}, {Speed: 1e9, Value: "big"}, {Speed: 1e9, Value: "big"}, {Speed: 1e9, Value: "big"}}...))
	out := runGang(t, plat, []testkit.Job{{Name: "wide", Run: 5, Res: 4}, {Name: "three", Run: 5, Res: 3}}, nil)
	if out["wide"].State != "REJECTED" {
		t.Errorf("a 4-task job on clusters of 2 and 3 hosts: %s", out["wide"].State)
	}
	if x := out["three"]; x.Alloc != "2-4" {
		t.Errorf("a 3-task job runs on %q, want the big cluster 2-4", x.Alloc)
	}
	spec, ok := policies.Builtin().Get("gang")
	if !ok {
		t.Fatal("gang is not registered")
	}
	for _, bad := range []sched.Options{{"ref-speed": "0"}, {"seed": "-1"}, {"cluster": ""}, {"queue": "sjf"}} {
		if _, err := spec.Build(bad); err == nil || !strings.Contains(err.Error(), "option") && !strings.Contains(err.Error(), "valid values") {
			t.Errorf("%v: %v", bad, err)
		}
	}
}
