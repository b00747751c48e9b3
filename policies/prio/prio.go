// Package prio holds the priority-function policies, the baselines of
// batch-scheduling studies: the waiting jobs in the order of a priority
// function of their requested time r (the walltime), requested hosts n,
// submission time s and wait w = now − s, started with no backfilling
// (in order, stopping at the first job that does not fit), EASY
// backfilling or conservative backfilling, on the hosts of the common
// hosts option.
//
// The functions: FCFS (s), SJF and LJF (r), smallest and largest first
// (n), smallest area (n·r), largest expansion factor ((w + r)/r), WFP3
// ((w/r)³·n, largest first), UNICEP (w / (log2(n)·r), largest first) and
// the functions Carastan-Santos and de Camargo learned (SC17), smallest
// first: F1 = log10(r)·n + 870·log10(s), F2 = √r·n + 25600·log10(s),
// F3 = r·n + 6.86e6·log10(s), F4 = r·√n + 530000·log10(s).
//
// Ties go by submission time, then job id, then arrival (the framework's
// tie-break of every order): a deterministic order in which, among equal
// priorities, the first submitted goes first. A job without walltime has
// r = +∞ (last under SJF, smallest area and F1-F4; first under LJF; its
// WFP3 and UNICEP are 0 and its expansion factor 1, the limits). Under
// UNICEP a one-host job counts as two (log2(1) = 0 would give it an
// infinite priority from its first second: every one-host job would pass
// every larger one, whatever their waits and walltimes), and F1-F4 take a
// submission time below 0.1 s as 0.1 s (log10(0) = −∞: every job
// submitted at time 0 would pass every other; 0.1 is the guard the
// reference implementation of RLScheduler puts on F1).
//
// The orders that do not depend on the time are the framework's indexed
// orders (sched.KeyOrder and the built-in ones); WFP3, UNICEP and the
// expansion factor are sched.TimeOrders (sched.NewWFP3Order, ...), kept
// as the time goes by without computing every key at every decision.
package prio

import (
	"fmt"
	"math"

	"github.com/bucma-sched/bucma/sched"
)

// Function is one priority function: its policy's name and description,
// and a constructor of its order (one per policy: an order's index
// belongs to it).
type Function struct {
	Name        string
	Description string
	Order       func() sched.Order
}

// Functions are the priority functions, in the order of their policies in
// the documentation.
var Functions = []Function{
	{"prio-fcfs", "first come, first served: submission time", func() sched.Order { return sched.FCFSOrder{} }},
	{"prio-sjf", "shortest job first: requested time ascending (none last)", func() sched.Order { return sched.WalltimeOrder{} }},
	{"prio-ljf", "longest job first: requested time descending (none first)", func() sched.Order { return sched.WalltimeOrder{Descending: true} }},
	{"prio-smallest", "smallest first: requested hosts ascending", func() sched.Order { return sched.NewKeyOrder("smallest", hosts) }},
	{"prio-largest", "largest first: requested hosts descending", func() sched.Order {
		return sched.NewKeyOrder("largest", func(j *sched.Job) float64 { return -hosts(j) })
	}},
	{"prio-area", "smallest area first: requested hosts × requested time ascending", func() sched.Order { return sched.AreaOrder{} }},
	{"prio-xf", "largest expansion factor first: (wait + requested time) / requested time", func() sched.Order { return sched.NewExpansionOrder() }},
	{"prio-wfp3", "WFP3: largest (wait / requested time)³ × requested hosts first", func() sched.Order { return sched.NewWFP3Order() }},
	{"prio-unicep", "UNICEP: largest wait / (log2(requested hosts) × requested time) first", func() sched.Order { return sched.NewUNICEPOrder() }},
	{"prio-f1", "F1: smallest log10(r)·n + 870·log10(s) first (r requested time, n hosts, s submission time)", func() sched.Order { return sched.NewKeyOrder("f1", F1) }},
	{"prio-f2", "F2: smallest √r·n + 25600·log10(s) first (r requested time, n hosts, s submission time)", func() sched.Order { return sched.NewKeyOrder("f2", F2) }},
	{"prio-f3", "F3: smallest r·n + 6.86e6·log10(s) first (r requested time, n hosts, s submission time)", func() sched.Order { return sched.NewKeyOrder("f3", F3) }},
	{"prio-f4", "F4: smallest r·√n + 530000·log10(s) first (r requested time, n hosts, s submission time)", func() sched.Order { return sched.NewKeyOrder("f4", F4) }},
}

// BackfillOption is the start rule of every priority-function policy.
var BackfillOption = sched.OptionSpec{
	Name:    "backfill",
	Default: "none",
	Help: "none: start jobs in order, stop at the first that does not fit; easy: EASY backfilling (a reservation for that job, " +
		"later jobs start if they do not delay it); conservative: conservative backfilling (every waiting job holds a reservation, " +
		"placed in arrival order, compressed in priority order when jobs end early)",
	Values: []string{"none", "easy", "conservative"},
}

// Register adds the priority-function policies to r.
func Register(r *sched.Registry) {
	for _, f := range Functions {
		r.Add(f.spec())
	}
}

func (f Function) spec() sched.Spec {
	return sched.Spec{
		Name:        f.Name,
		Description: f.Description + "; no, EASY or conservative backfilling",
		Options:     []sched.OptionSpec{BackfillOption, sched.HostsOption},
		New: func(opts sched.Options) (sched.Policy, error) {
			sel, err := sched.HostsFrom(opts)
			if err != nil {
				return nil, err
			}
			rule, err := Rule(opts["backfill"])
			if err != nil {
				return nil, err
			}
			return &sched.Composite{Order: f.Order(), Rule: rule, Hosts: sel}, nil
		},
	}
}

// Rule is the start rule of a backfill option value (a fresh one: the
// conservative rule keeps its reservations).
func Rule(backfill string) (sched.StartRule, error) {
	switch backfill {
	case "none":
		return sched.Blocking{}, nil
	case "easy":
		return sched.EASY{}, nil
	case "conservative":
		return sched.NewConservative(), nil
	}
	return nil, fmt.Errorf("backfill %q: want none, easy or conservative", backfill)
}

func hosts(j *sched.Job) float64 { return float64(j.Res()) }

// logSubmit is log10 of the submission time, at least 0.1 s.
func logSubmit(j *sched.Job) float64 { return math.Log10(max(j.Submit(), 0.1)) }

// F1 is log10(r)·n + 870·log10(s). Each product is rounded on its own
// (never fused into the sum), so that every platform orders alike.
func F1(j *sched.Job) float64 {
	return float64(math.Log10(j.WalltimeOrInf())*hosts(j)) + float64(870*logSubmit(j))
}

// F2 is √r·n + 25600·log10(s).
func F2(j *sched.Job) float64 {
	return float64(math.Sqrt(j.WalltimeOrInf())*hosts(j)) + float64(25600*logSubmit(j))
}

// F3 is r·n + 6.86e6·log10(s).
func F3(j *sched.Job) float64 {
	return float64(j.WalltimeOrInf()*hosts(j)) + float64(6.86e6*logSubmit(j))
}

// F4 is r·√n + 530000·log10(s).
func F4(j *sched.Job) float64 {
	return float64(j.WalltimeOrInf()*math.Sqrt(hosts(j))) + float64(530000*logSubmit(j))
}
