// Package edctwins holds policies that take the decisions of Batsim 5's own
// test decision components (Batsim's test/edc-lib: fcfs, easy, exec1by1,
// rejecter, killer), so that bucma's Batsim 5 path can be compared with
// them output file for output file. Batsim's fcfs is bucma's fcfs with one
// difference of placement (edc-fcfs); its easy is bucma's easy (first-fit
// hosts, jobs without walltime rejected) but where jobs end at the same
// instant (edc-easy).
//
// The package uses only exported names of package schedulers (Spec,
// OptionSpec, Options, OptionError, Policy, State, Decider, Job, Builtin,
// Composite), so it stays outside the framework: Specs lists the policies
// for a registry to add.
package edctwins

import (
	"fmt"
	"strconv"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/sched"
)

// Specs are the twin policies.
func Specs() []sched.Spec {
	return []sched.Spec{
		{
			Name: "edc-fcfs",
			Description: "Batsim 5's test EDC fcfs: bucma's fcfs with first-fit hosts, the rejections of jobs that can never run placed before the starts " +
				"(Batsim's fcfs rejects as it reads the submissions; bucma's fcfs where its walk of the queue meets them, as batsched does)",
			New: newFCFS,
		},
		{
			Name: "edc-easy",
			Description: "Batsim 5's test EDC easy: EASY backfilling on first-fit hosts, jobs without walltime rejected, with that component's reservation " +
				"(jobs ending at the same instant counted in its C++ containers' order) and single-precision dates",
			New: newEasy,
		},
		{
			Name:        "edc-exec1by1",
			Description: "Batsim 5's test EDC exec1by1: one job at a time, in submission order, on hosts 0..res-1",
			New:         func(sched.Options) (sched.Policy, error) { return &exec1by1{}, nil },
		},
		{
			Name:        "edc-rejecter",
			Description: "Batsim 5's test EDC rejecter: rejects every job",
			New:         func(sched.Options) (sched.Policy, error) { return rejecter{}, nil },
		},
		{
			Name:        "edc-killer",
			Description: "Batsim 5's test EDC killer: exec1by1 that kills each job kill-delay seconds after starting it (the kill is dated then, in the same reply)",
			Options: []sched.OptionSpec{{Name: "kill-delay", Default: "5",
				Help: "seconds between a job's start and its kill (the reply's now moves that far)"}},
			New: func(opts sched.Options) (sched.Policy, error) {
				d, err := strconv.ParseFloat(opts["kill-delay"], 64)
				if err != nil || d < 0 || d != d || d > 1e15 {
					return nil, &sched.OptionError{Msg: fmt.Sprintf("edc-killer: kill-delay=%q: want a number of seconds >= 0", opts["kill-delay"])}
				}
				return &exec1by1{killDelay: d, kill: true}, nil
			},
		},
	}
}

// fcfsTwin is bucma's fcfs policy with the refused jobs rejected before
// its decisions rather than in place: Batsim 5 applies a reply's events one
// after the other, each costing simulated time, so the order of a rejection
// and a start in one reply shows in the start time.
type fcfsTwin struct{ *sched.Composite }

func (fcfsTwin) RejectsInPlace() bool { return false }

// newFCFS is bucma's fcfs with hosts=first-fit (policies/basic's base
// composition).
func newFCFS(sched.Options) (sched.Policy, error) {
	return fcfsTwin{&sched.Composite{Order: sched.FCFSOrder{}, Rule: sched.Blocking{}, Hosts: sched.FirstFit{}}}, nil
}

// exec1by1 runs the oldest waiting job alone on hosts 0..res-1 once no job
// runs; with kill, it kills the job killDelay seconds after its start, in
// the same reply. A job asking for more hosts than the platform has is
// rejected at submission (the framework's rule, and the test EDCs').
type exec1by1 struct {
	killDelay float64
	kill      bool
}

func (p *exec1by1) Decide(s *sched.State, d *sched.Decider) {
	if len(s.Running()) > 0 {
		return
	}
	var next *sched.Job
	for _, j := range s.Waiting() {
		if j.State() == batsim.StateSubmitted && !j.Refused() {
			next = j
			break
		}
	}
	if next == nil {
		return
	}
	hosts := make([]int, next.Res())
	for i := range hosts {
		hosts[i] = i
	}
	if !d.Start(next, hosts) || !p.kill {
		return
	}
	if err := d.Reply().AdvanceTo(d.Reply().Now() + p.killDelay); err != nil {
		return
	}
	d.Kill(next)
}

// rejecter refuses every job: the framework rejects it at submission.
type rejecter struct{}

func (rejecter) Decide(*sched.State, *sched.Decider) {}

func (rejecter) Admits(*sched.State, *sched.Job) bool { return false }
