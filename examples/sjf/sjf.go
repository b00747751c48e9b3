// Package sjf is shortest-job-first: the waiting jobs in walltime order
// (no walltime last), each started on the lowest free hosts when it fits.
package sjf

import "github.com/bucma-sched/bucma/sched"

// Spec is the policy's declaration: its name, its option and its
// constructor.
func Spec() sched.Spec {
	hosts := sched.HostsOption
	hosts.Default = "first-fit"
	return sched.Spec{
		Name:        "sjf",
		Description: "shortest job first: walltime ascending (none last), every job that fits starts",
		Options:     []sched.OptionSpec{hosts},
		New: func(opts sched.Options) (sched.Policy, error) {
			sel, err := sched.HostsFrom(opts)
			if err != nil {
				return nil, err
			}
			// The framework indexes the queue by this key as jobs arrive,
			// so a decision never sorts the queue.
			byWalltime := sched.NewKeyOrder("walltime", (*sched.Job).WalltimeOrInf)
			return &sched.Composite{Order: byWalltime, Rule: sched.Greedy{}, Hosts: sel}, nil
		},
	}
}
