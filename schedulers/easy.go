package schedulers

func init() {
	Register(baseSpec("easy",
		"EASY backfilling: FCFS with a reservation for the first blocked job; later jobs start if they do not delay it",
		Base{Order: FCFSOrder{}, Rule: EASY{}, Rank: 20}))
}
