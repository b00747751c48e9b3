package sched_test

import (
	"testing"

	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit"
)

// conservativeSpec is a policy of Conservative (made by rule) under order.
func conservativeSpec(name string, order func() sched.Order, rule func() sched.StartRule) *sched.Spec {
	return &sched.Spec{Name: name, New: func(sched.Options) (sched.Policy, error) {
		return &sched.Composite{Order: order(), Rule: rule(), Hosts: sched.FirstFit{}}, nil
	}}
}

// TestConservativePruning: in a compression, the jobs the rule passes
// for being unable to move (nothing freed since it last checked them
// could let them start earlier) are exactly those that would not move:
// every start and host is the same as when every job is placed again, on
// random workloads (short and crowded queues, jobs without walltime, jobs
// past their walltime) under three orders.
func TestConservativePruning(t *testing.T) {
	orders := map[string]func() sched.Order{
		"fcfs":     func() sched.Order { return sched.FCFSOrder{} },
		"walltime": func() sched.Order { return sched.WalltimeOrder{Descending: true} },
		"size": func() sched.Order {
			return sched.NewKeyOrder("size", func(j *sched.Job) float64 { return float64(j.Res()) })
		},
	}
	for name, order := range orders {
		for seed := uint64(1); seed <= 10; seed++ {
			speeds, jobs := testkit.Random(seed)
			if seed%2 == 0 {
				speeds, jobs = testkit.Crowded(seed, 200)
			}
			run := func(rule func() sched.StartRule) map[string]*testkit.Outcome {
				return testkit.Run(t, testkit.Scenario{Spec: conservativeSpec("c", order, rule), Speeds: speeds, Jobs: jobs, NoAudit: true})
			}
			got := run(func() sched.StartRule { return sched.NewConservative() })
			want := run(func() sched.StartRule { return sched.NewConservativeReference() })
			for id, w := range want {
				if g := got[id]; g.String() != w.String() {
					t.Fatalf("%s, seed %d: job %s: %v, placing every job again gives %v", name, seed, id, g, w)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%s, seed %d: %d outcomes, want %d", name, seed, len(got), len(want))
			}
		}
	}
}
