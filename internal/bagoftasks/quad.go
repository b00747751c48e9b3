// Package bagoftasks holds what the bag-of-tasks workload generator
// (package workloads) and planner (package schedulers) share: the
// quadruple that describes a group of identical tasks, and its rules.
package bagoftasks

// Quad is one group of identical tasks of a bag of tasks: arrival step A
// (of the application's uncontended execution), duration D steps, B
// tasks, CPU cost C percent (1..100) of one processor during each step.
type Quad struct{ A, D, B, C int }

// Problem says what is wrong with q ("" when nothing is): a ≥ 0, d ≥ 1,
// b ≥ 1, 1 ≤ c ≤ 100.
func (q Quad) Problem() string {
	switch {
	case q.A < 0:
		return "arrival a must be ≥ 0"
	case q.D < 1:
		return "duration d must be ≥ 1 step"
	case q.B < 1:
		return "task count b must be ≥ 1"
	case q.C < 1 || q.C > 100:
		return "cost c must be in 1..100 percent"
	}
	return ""
}
