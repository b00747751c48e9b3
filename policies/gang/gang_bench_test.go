package gang_test

import (
	"context"
	"testing"

	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/run"

	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/workloads"
)

// BenchmarkGangAFCFS: the gang policy (AFCFS, no migration) on the
// multicluster with 3000 jobs at load 0.7, through the engine.
func BenchmarkGangAFCFS(b *testing.B) {
	plat, err := platforms.Bundled("mcmca")
	if err != nil {
		b.Fatal(err)
	}
	w, err := workloads.GenerateGang(workloads.GangOptions{Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	spec, _ := policies.Builtin().Get("gang")
	for i := 0; i < b.N; i++ {
		_, err := run.Simulate(context.Background(), run.Simulation{
			Inputs: run.Inputs{PlatformData: plat, WorkloadData: []*workloads.Workload{w}},
			Policy: &run.Policy{Spec: spec, Options: sched.Options{"queue": "afcfs"}},
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
