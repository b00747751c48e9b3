package sched_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit"
)

// TestEASYMatchesPlainScanOverWholeRuns plays whole random workloads (long
// queues, so the queue index grows, is compacted and rebuilt) with easy and
// with a reference EASY that scans the queue without any index, and checks
// every job starts at the same time on the same hosts.
func TestEASYMatchesPlainScanOverWholeRuns(t *testing.T) {
	ref := &sched.Spec{Name: "easy-ref", New: func(sched.Options) (sched.Policy, error) {
		return &sched.Composite{Order: sched.CopiedFCFS, Rule: sched.RefEASY, Hosts: sched.Fastest{}}, nil
	}}
	for seed := uint64(0); seed < 12; seed++ {
		r := rand.New(rand.NewPCG(seed, 99))
		nh := 2 + r.IntN(30)
		speeds := make([]float64, nh)
		for i := range speeds {
			speeds[i] = float64(1+r.IntN(4)) * 1e9
		}
		var jobs []testkit.Job
		at := 0.0
		for i := 0; i < 300+r.IntN(500); i++ {
			at += float64(r.IntN(4))
			j := testkit.Job{Name: fmt.Sprintf("%04d", i), Submit: at, Res: 1 + r.IntN(nh)}
			if r.IntN(3) == 0 {
				j.Res = 1 + r.IntN(1+nh/4)
			}
			j.Walltime = float64(1 + r.IntN(200))
			if r.IntN(15) == 0 {
				j.Walltime = 0
			}
			base := j.Walltime
			if base == 0 {
				base = float64(1 + r.IntN(100))
			}
			j.Run = base * (0.1 + r.Float64())
			jobs = append(jobs, j)
		}
		got := testkit.Run(t, testkit.Scenario{Spec: baseSpec("easy"), Speeds: speeds, Jobs: jobs})
		want := testkit.Run(t, testkit.Scenario{Spec: ref, Speeds: speeds, Jobs: jobs})
		for id, w := range want {
			g := got[id]
			if g == nil || g.Start != w.Start || g.Alloc.String() != w.Alloc.String() || g.State != w.State {
				t.Fatalf("seed %d job %s: easy %+v, plain scan %+v", seed, id, g, w)
			}
		}
	}
}
