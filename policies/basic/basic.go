// Package basic holds the base policies: FCFS, EASY backfilling (textbook,
// and batsched's easy_bf exactly), MIN-MIN and MAX-MIN. Each is a
// composition of the framework's building blocks (a queue order, a start
// rule and a host selection, see sched.Composite) registered as a base
// (sched.BaseSpec) that re-ranking policies such as BUCMA can wrap.
package basic

import "github.com/bucma-sched/bucma/sched"

// Register adds fcfs, easy, minmin and maxmin to r.
func Register(r *sched.Registry) {
	registerFCFS(r)
	registerEASY(r)
	registerMinMax(r)
}
