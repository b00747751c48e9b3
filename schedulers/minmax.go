package schedulers

// MIN-MIN and MAX-MIN (specs/algorithms.md §2): in an online, space-shared
// setting where a job's walltime is the same on every host, picking the job
// with the minimum (maximum) of the minimum completion times reduces to
// ordering the queue by walltime ascending (descending) and giving each job
// the fastest free hosts. Every job that fits is started (greedy scan).

func init() {
	Register(baseSpec("minmin",
		"MIN-MIN: shortest walltime first (no walltime = last); start every job that fits, skip the others",
		Base{Order: WalltimeOrder{}, Rule: Greedy{}, Rank: 30}))
	Register(baseSpec("maxmin",
		"MAX-MIN: longest walltime first (no walltime = first); start every job that fits, skip the others",
		Base{Order: WalltimeOrder{Descending: true}, Rule: Greedy{}, Rank: 40}))
}
