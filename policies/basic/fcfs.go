package basic

import "github.com/bucma-sched/bucma/sched"

// registerFCFS adds fcfs.
func registerFCFS(r *sched.Registry) {
	r.Add(sched.BaseSpec("fcfs",
		"first come, first served: start jobs in submission order, stop at the first that does not fit",
		sched.Base{Order: sched.FCFSOrder{}, Rule: sched.Blocking{}, Rank: 10}))
}
