package simple

import (
	"math"

	"github.com/bucma-sched/bucma/sched"
)

func sequencerSpec() sched.Spec {
	return sched.Spec{
		Name: "sequencer",
		Description: "sequencer: one job at a time, in queue order; the first job of the queue starts once no job runs " +
			"(batsched's sequencer with queue=batsched hosts=first-fit)",
		Options: queueOptions(),
		New: func(opts sched.Options) (sched.Policy, error) {
			qd, err := newQueued(opts)
			return &Sequencer{queued: qd}, err
		},
	}
}

// Sequencer runs the jobs one after the other: when no job runs, the first
// job of the queue starts (and waits while it does not fit, on hosts made
// unavailable). With queue=batsched and hosts=first-fit it decides as
// batsched's sequencer, which starts a job on hosts 0..res-1: the first
// free hosts when none runs (unlike batsched, bucma never starts a job on
// a host Batsim made unavailable).
type Sequencer struct{ queued }

// Decide implements sched.Policy.
func (p *Sequencer) Decide(s *sched.State, d *sched.Decider) {
	p.q.update(s)
	if len(s.Running()) > 0 {
		return
	}
	if j := p.q.first(s); j != nil {
		if hosts, ok := p.place.fit(s, j); ok {
			d.Start(j, hosts)
		}
	}
}

// EstimateWaitingTime implements sched.WaitingTimeEstimator: the running
// job's expected end plus the walltimes of the jobs queued before j
// (never, -1, behind a job without walltime).
func (p *Sequencer) EstimateWaitingTime(s *sched.State, j *sched.Job) (float64, bool) {
	return wait(s, sequenceStart(s, p.q, j)), true
}

// sequenceStart is when j would start if the jobs ran one at a time, in
// o's order, each for its whole walltime.
func sequenceStart(s *sched.State, o sched.Order, j *sched.Job) float64 {
	t := s.Now()
	for _, r := range s.Running() {
		t = max(t, r.ExpectedEnd())
	}
	q := append(s.WaitingCopy(), j)
	o.Sort(s, q)
	for _, w := range q {
		if w == j || math.IsInf(t, 1) {
			break
		}
		if !w.Refused() {
			t += w.WalltimeOrInf()
		}
	}
	return t
}
