// Package wfp3 is WFP3: the waiting jobs in decreasing order of
// (wait/walltime)³·hosts, with EASY backfilling.
package wfp3

import (
	"math"

	"github.com/bucma-sched/bucma/sched"
)

// Spec is the policy's declaration.
func Spec() sched.Spec {
	return sched.Spec{
		Name:        "wfp3",
		Description: "WFP3: largest (wait/walltime)³·hosts first, EASY backfilling",
		Options:     []sched.OptionSpec{sched.HostsOption},
		New: func(opts sched.Options) (sched.Policy, error) {
			sel, err := sched.HostsFrom(opts)
			if err != nil {
				return nil, err
			}
			// (wait/walltime)³·hosts orders as its cube root,
			// wait·∛hosts/walltime, a line in the time since the
			// submission. The order is ascending: the line's rate is
			// negative, so that the largest WFP3 comes first.
			order := sched.NewTimeOrder("wfp3", func(j *sched.Job) sched.Line {
				return sched.Line{Rate: -math.Cbrt(float64(j.Res())) / j.WalltimeOrInf(), Since: j.Submit()}
			})
			return &sched.Composite{Order: order, Rule: sched.EASY{}, Hosts: sel}, nil
		},
	}
}
