package schedulers

func init() {
	Register(baseSpec("fcfs",
		"first come, first served: start jobs in submission order, stop at the first that does not fit",
		Base{Order: FCFSOrder{}, Rule: Blocking{}, Rank: 10}))
}
