package basic

import "github.com/bucma-sched/bucma/sched"

// MIN-MIN and MAX-MIN (specs/algorithms.md §2): in an online, space-shared
// setting where a job's walltime is the same on every host, picking the job
// with the minimum (maximum) of the minimum completion times reduces to
// ordering the queue by walltime ascending (descending) and giving each job
// the fastest free hosts. Every job that fits is started (greedy scan).

// registerMinMax adds minmin and maxmin.
func registerMinMax(r *sched.Registry) {
	r.Add(sched.BaseSpec("minmin",
		"MIN-MIN: shortest walltime first (no walltime = last); start every job that fits, skip the others",
		sched.Base{Order: sched.WalltimeOrder{}, Rule: sched.Greedy{}, Rank: 30}))
	r.Add(sched.BaseSpec("maxmin",
		"MAX-MIN: longest walltime first (no walltime = first); start every job that fits, skip the others",
		sched.Base{Order: sched.WalltimeOrder{Descending: true}, Rule: sched.Greedy{}, Rank: 40}))
}
