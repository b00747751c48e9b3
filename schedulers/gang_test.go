package schedulers_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/schedulers"
	"github.com/bucma-sched/bucma/sim"
	"github.com/bucma-sched/bucma/workloads"
)

// runGang runs jobs on plat under gang with opts and returns each job's
// start, by name.
func runGang(t *testing.T, plat *platforms.Platform, jobs []ojob, opts schedulers.Options) map[string]jobRow {
	t.Helper()
	spec, err := schedulers.Builtin().Lookup("gang")
	if err != nil {
		t.Fatal(err)
	}
	sess, err := schedulers.NewSession(schedulers.SessionConfig{Spec: spec, Options: opts, Validate: true})
	if err != nil {
		t.Fatal(err)
	}
	prefix := t.TempDir() + "/out"
	w := ownedWorkload(t, jobs)
	if _, err := sim.Run(context.Background(), sim.Config{Platform: plat, Workloads: []*workloads.Workload{w}, ExportPrefix: prefix}, sim.InProcess(sess)); err != nil {
		t.Fatal(err)
	}
	out := map[string]jobRow{}
	for _, r := range readJobRows(t, prefix+"_jobs.csv") {
		out[r["job_id"]] = jobRow{id: r["job_id"], state: r["final_state"], start: rowNum(r, "starting_time"), finish: rowNum(r, "finish_time"), alloc: r["allocated_resources"]}
	}
	return out
}

// TestGangLocalMigration: A (100 s) runs on h0, B and C (10 s) on h1 and
// h2; D (2 tasks) arrives when every estimate says the hosts are about to
// free up, and its tasks queue on h0 and h1. At 10 s h1 and h2 are idle:
// without migration D waits for A (100 s); with local migration its task
// moves from h0 to h2 and D starts at once.
func TestGangLocalMigration(t *testing.T) {
	plat := propPlatform(t, "cluster", []ownedHost{{1e9, "c"}, {1e9, "c"}, {1e9, "c"}})
	jobs := []ojob{
		{name: "A", submit: 0, delay: 100}, {name: "B", submit: 0, delay: 10}, {name: "C", submit: 0, delay: 10},
		{name: "D", submit: 1, delay: 5, res: 2},
	}
	for _, c := range []struct {
		migration string
		start     float64
		alloc     string
	}{{"none", 100, "0-1"}, {"local", 10, "1-2"}} {
		out := runGang(t, plat, jobs, schedulers.Options{"migration": c.migration})
		if d := out["D"]; math.Abs(d.start-c.start) > 0.01 || d.alloc != c.alloc {
			t.Errorf("migration=%s: D starts at %f on %q, want %g on %q", c.migration, d.start, d.alloc, c.start, c.alloc)
		}
		if a := out["A"]; a.alloc != "0" || a.start > 0.01 {
			t.Errorf("migration=%s: A on %q at %f", c.migration, a.alloc, a.start)
		}
	}
}

// TestGangExternalMigration: clusters c0 = {h0, h1} and c1 = {h2, h3}. A
// (2 tasks, 100 s) goes to c0, B (2 tasks, 10 s) to c1, C (2 tasks) to the
// tied first cluster c0, behind A. When B ends, c1 is idle: only external
// migration moves C there.
func TestGangExternalMigration(t *testing.T) {
	plat := propPlatform(t, "cluster", []ownedHost{{1e9, "c0"}, {1e9, "c0"}, {1e9, "c1"}, {1e9, "c1"}})
	jobs := []ojob{
		{name: "A", submit: 0, delay: 100, res: 2}, {name: "B", submit: 0, delay: 10, res: 2},
		{name: "C", submit: 1, delay: 5, res: 2},
	}
	for _, c := range []struct {
		migration string
		start     float64
		alloc     string
	}{{"none", 100, "0-1"}, {"local", 100, "0-1"}, {"local+external", 10, "2-3"}} {
		out := runGang(t, plat, jobs, schedulers.Options{"migration": c.migration})
		if x := out["C"]; math.Abs(x.start-c.start) > 0.01 || x.alloc != c.alloc {
			t.Errorf("migration=%s: C starts at %f on %q, want %g on %q", c.migration, x.start, x.alloc, c.start, c.alloc)
		}
		if b := out["B"]; b.alloc != "2-3" {
			t.Errorf("migration=%s: B on %q, want c1", c.migration, b.alloc)
		}
	}
}

// TestGangRejectsWiderThanAnyCluster: a gang runs within one cluster; a
// job wider than every cluster is rejected, one that fits the larger runs
// there.
func TestGangRejectsWiderThanAnyCluster(t *testing.T) {
	plat := propPlatform(t, "cluster", []ownedHost{{1e9, "small"}, {1e9, "small"}, {1e9, "big"}, {1e9, "big"}, {1e9, "big"}})
	out := runGang(t, plat, []ojob{{name: "wide", delay: 5, res: 4}, {name: "three", delay: 5, res: 3}}, nil)
	if out["wide"].state != "REJECTED" {
		t.Errorf("a 4-task job on clusters of 2 and 3 hosts: %s", out["wide"].state)
	}
	if x := out["three"]; x.alloc != "2-4" {
		t.Errorf("a 3-task job runs on %q, want the big cluster 2-4", x.alloc)
	}
	spec, ok := schedulers.Builtin().Get("gang")
	if !ok {
		t.Fatal("gang is not registered")
	}
	for _, bad := range []schedulers.Options{{"ref-speed": "0"}, {"seed": "-1"}, {"cluster": ""}, {"queue": "sjf"}} {
		if _, err := spec.Build(bad); err == nil || !strings.Contains(err.Error(), "option") && !strings.Contains(err.Error(), "valid values") {
			t.Errorf("%v: %v", bad, err)
		}
	}
}
