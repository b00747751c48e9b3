// Package preempt gives short jobs priority by preemption: a job whose
// walltime is at most the "short" option that cannot start has long
// running jobs killed (the most recently started first) until it fits;
// each killed job's remaining work is resubmitted as a new job (the
// framework's kill and resubmit: sched.Decider.Kill, then Resubmit when
// Batsim reports the kill). Jobs start greedily, short ones first, then in
// arrival order, on the lowest free hosts.
package preempt

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/bucma-sched/bucma/sched"
)

// Preempt is the policy.
type Preempt struct {
	// Short is the walltime (seconds) at or under which a job is short.
	Short float64
	// Checkpoint, when > 0, keeps the whole blocks of that many seconds a
	// killed job executed; 0 restarts it from zero.
	Checkpoint float64
}

// Spec is the policy's declaration. It registers dynamic jobs: Batsim
// runs with --enable-dynamic-jobs (bucma's runners add it).
func Spec() sched.Spec {
	return sched.Spec{
		Name:        "preempt",
		Description: "short jobs first, preempting long running jobs (kill and resubmit of the remaining work)",
		Options: []sched.OptionSpec{
			{Name: "short", Default: "600", Help: "walltime in seconds at or under which a job is short"},
			{Name: "checkpoint", Default: "0", Help: "seconds of execution kept per checkpoint of a killed job (0: it restarts)"},
		},
		DynamicJobs: true,
		New: func(opts sched.Options) (sched.Policy, error) {
			short, err := strconv.ParseFloat(opts["short"], 64)
			if err != nil || short <= 0 {
				return nil, fmt.Errorf("short=%q: want a positive number of seconds", opts["short"])
			}
			ckpt, err := strconv.ParseFloat(opts["checkpoint"], 64)
			if err != nil || ckpt < 0 {
				return nil, fmt.Errorf("checkpoint=%q: want a number of seconds >= 0", opts["checkpoint"])
			}
			return &Preempt{Short: short, Checkpoint: ckpt}, nil
		},
	}
}

// RegistersDynamicJobs implements sched.Registrar: the framework tells
// Batsim that registrations are over once none can come.
func (p *Preempt) RegistersDynamicJobs() bool { return true }

func (p *Preempt) short(j *sched.Job) bool { return j.HasWalltime() && j.Walltime() <= p.Short }

// Decide implements sched.Policy.
func (p *Preempt) Decide(s *sched.State, d *sched.Decider) {
	for _, k := range s.Killed() {
		d.Resubmit(k, p.Checkpoint)
	}
	queue := s.WaitingCopy() // arrival order, short jobs first
	slices.SortStableFunc(queue, func(a, b *sched.Job) int {
		switch {
		case p.short(a) && !p.short(b):
			return -1
		case p.short(b) && !p.short(a):
			return 1
		}
		return 0
	})
	for _, j := range queue {
		if j.Refused() || j.Res() > s.NbFree() {
			continue
		}
		if !d.Start(j, sched.FirstFit{}.Select(s, j, j.Res())) {
			return
		}
	}
	// The first short job left waiting gets long jobs killed for it.
	for _, j := range queue {
		if !j.Waiting() || j.Refused() || !p.short(j) || j.Res() > s.NbHosts() {
			continue
		}
		p.makeRoom(s, d, j)
		return
	}
}

// makeRoom kills long running jobs, the most recently started first, until
// the hosts free now or being freed by kills are enough for j.
func (p *Preempt) makeRoom(s *sched.State, d *sched.Decider, j *sched.Job) {
	avail := s.NbFree()
	var long []*sched.Job
	for _, r := range s.Running() {
		switch {
		case r.Killing():
			avail += r.Res()
		case !p.short(r):
			long = append(long, r)
		}
	}
	slices.SortFunc(long, func(a, b *sched.Job) int {
		if a.Start() != b.Start() {
			if a.Start() > b.Start() {
				return -1
			}
			return 1
		}
		return sched.Compare(a, b)
	})
	var kill []*sched.Job
	for _, r := range long {
		if avail >= j.Res() {
			break
		}
		kill = append(kill, r)
		avail += r.Res()
	}
	if avail >= j.Res() && len(kill) > 0 {
		d.Kill(kill...)
	}
}
