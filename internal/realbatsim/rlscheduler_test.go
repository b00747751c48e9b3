package realbatsim

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bucma-sched/bucma/internal/papertrace"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/studies/rlscheduler"
	"github.com/bucma-sched/bucma/testkit/batsimrun"
	"github.com/bucma-sched/bucma/workloads"
)

// TestRLSchedulerWindowMatchesBatsim: a window of RLScheduler's evaluation
// under Batsim's rules (bucma rlscheduler --batsim: 1024 consecutive jobs
// of a Lublin trace on 256 hosts) gives the same _jobs.csv and
// _schedule.csv through the real Batsim as through the embedded engine,
// for a heuristic of each backfill rule; and, when RLScheduler's own
// Lublin-1 trace is found (package papertrace), its first window of
// the paper's evaluation.
func TestRLSchedulerWindowMatchesBatsim(t *testing.T) {
	bin := batsimrun.Batsim(t)
	windows := map[string][]rlscheduler.Job{"generated": lublinWindow(t)}
	if path, ok := papertrace.Lublin1(); ok {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		jobs, err := rlscheduler.ReadSWF(f, "lublin_256.swf")
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		s := rlscheduler.PaperStarts[0]
		windows["lublin-1"] = jobs[s : s+rlscheduler.PaperWindowJobs]
	}
	var c tally
	for _, name := range slices.Sorted(maps.Keys(windows)) {
		w, err := rlscheduler.WindowWorkload(windows[name], rlscheduler.DefaultNodes)
		if err != nil {
			t.Fatal(err)
		}
		data, err := w.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct{ heuristic, backfill string }{{"WFP3", "none"}, {"F1", "easy"}, {"UNI", "conservative"}} {
			policy := rlscheduler.BatsimPolicy[tc.heuristic]
			t.Run(fmt.Sprintf("%s/%s/%s", name, policy, tc.backfill), func(t *testing.T) {
				dir := t.TempDir()
				plat, wl := filepath.Join(dir, "platform.xml"), filepath.Join(dir, "workload.json")
				if err := os.WriteFile(plat, []byte(rlscheduler.PlatformXML(rlscheduler.DefaultNodes)), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(wl, data, 0o644); err != nil {
					t.Fatal(err)
				}
				matchEngine(t, bin, &c, dir, plat, wl, policy, sched.Options{"backfill": tc.backfill})
			})
		}
	}
	t.Cleanup(func() { t.Logf("RLScheduler windows, engine vs Batsim: %d of %d cases identical", c.matching, c.cases) })
}

// lublinWindow is a window of 1024 jobs of bucma's Lublin generator on
// 256 hosts, read as RLScheduler's simulator reads SWF.
func lublinWindow(t *testing.T) []rlscheduler.Job {
	t.Helper()
	tr, err := workloads.GenerateLublin(workloads.LublinOptions{Jobs: 3000, Seed: 1, Hosts: 256, Load: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	var swf bytes.Buffer
	if err := tr.WriteSWF(&swf); err != nil {
		t.Fatal(err)
	}
	jobs, err := rlscheduler.ReadSWF(&swf, "lublin.swf")
	if err != nil {
		t.Fatal(err)
	}
	return jobs[1000 : 1000+rlscheduler.PaperWindowJobs]
}
