package gang

import (
	"cmp"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit"
	"github.com/bucma-sched/bucma/workloads"
)

// TestGangQueuesMatchResort checks the host queues kept in order as jobs
// arrive (and a decision that tries only the heads of idle hosts' queues)
// against the reference: every queue sorted again at each decision and
// every waiting job tried in order (resort). Both run gang's workload on
// the multicluster with every discipline, local dispatcher and migration,
// over seeds; the _jobs.csv rows must be the same.
//
// GANGSEEDS=N runs N seeds (default 1).
func TestGangQueuesMatchResort(t *testing.T) {
	seeds := 1
	if v, err := strconv.Atoi(os.Getenv("GANGSEEDS")); err == nil && v > 0 {
		seeds = v
	}
	plat, err := platforms.Bundled("mcmca")
	if err != nil {
		t.Fatal(err)
	}
	reg := sched.NewRegistry()
	Register(reg)
	spec, err := reg.Lookup("gang")
	if err != nil {
		t.Fatal(err)
	}
	ref := *spec
	ref.New = func(o sched.Options) (sched.Policy, error) {
		p, err := newGang(o)
		if err == nil {
			p.(*Gang).resort = true
		}
		return p, err
	}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		w, err := workloads.GenerateGang(workloads.GangOptions{Jobs: 150, Load: []float64{0.5, 0.9, 1.3}[seed%3], Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		for _, queue := range gangDisciplines {
			for _, ld := range []string{"olb", "jseq", "jsq"} {
				for _, mig := range []string{"none", "local", "local+external"} {
					opts := sched.Options{"queue": queue, "ld": ld, "migration": mig, "seed": strconv.FormatUint(seed, 10)}
					what := fmt.Sprintf("seed %d %v", seed, opts)
					run := func(s *sched.Spec) []map[string]string {
						return testkit.Simulate(t, testkit.EngineRun{Platform: plat, Workloads: []*workloads.Workload{w}, Spec: s, Options: opts, NoAudit: true}).Jobs
					}
					got, want := run(spec), run(&ref)
					if len(got) != len(want) || len(got) == 0 {
						t.Fatalf("%s: %d rows, reference %d", what, len(got), len(want))
					}
					byID := map[string]map[string]string{}
					for _, r := range want {
						byID[r["job_id"]] = r
					}
					var bad []map[string]string // the differing rows, earliest start first
					for _, r := range got {
						if w := byID[r["job_id"]]; !reflect.DeepEqual(r, w) {
							bad = append(bad, r)
						}
					}
					if len(bad) > 0 {
						first := slices.MinFunc(bad, func(a, b map[string]string) int {
							return cmp.Compare(startOf(t, a), startOf(t, b))
						})
						t.Fatalf("%s: %d jobs differ; the earliest start:\n got %v\nwant %v", what, len(bad), first, byID[first["job_id"]])
					}
				}
			}
		}
	}
}

// startOf is a _jobs.csv row's starting time, the earlier of the reference's
// and the row's own when both are there.
func startOf(t *testing.T, r map[string]string) float64 {
	v, err := strconv.ParseFloat(r["starting_time"], 64)
	if err != nil {
		t.Fatalf("job %s: starting_time %q: %v", r["job_id"], r["starting_time"], err)
	}
	return v
}
