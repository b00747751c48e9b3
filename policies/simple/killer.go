package simple

import (
	"fmt"
	"math"
	"strconv"

	"github.com/bucma-sched/bucma/sched"
)

func killerSpec() sched.Spec {
	return sched.Spec{
		Name: "killer",
		Description: "killer: at most one start per decision, the first job of the queue when it fits, killed kill-delay seconds later " +
			"(the reply's now moves that far: Batsim's decision time); kills > 1 kills it again every kill-delay " +
			"(batsched's killer with queue=batsched hosts=first-fit)",
		Options: append(queueOptions(),
			sched.OptionSpec{Name: "kills", Default: "1", Help: "kills of each job (an integer >= 0; batsched's nb_kills_per_job); Batsim ignores a kill of a job whose kill was asked already"},
			sched.OptionSpec{Name: "kill-delay", Default: "10", Help: "seconds between a job's start and its kill, and between two kills (>= 0; batsched's delay_before_kill)"}),
		New: func(opts sched.Options) (sched.Policy, error) {
			qd, err := newQueued(opts)
			if err != nil {
				return nil, err
			}
			kills, err := strconv.Atoi(opts["kills"])
			if err != nil || kills < 0 {
				return nil, fmt.Errorf("killer: kills=%q: want an integer >= 0", opts["kills"])
			}
			delay, err := strconv.ParseFloat(opts["kill-delay"], 64)
			if err != nil || !(delay >= 0) || math.IsInf(delay, 1) {
				return nil, fmt.Errorf("killer: kill-delay=%q: want a number of seconds >= 0", opts["kill-delay"])
			}
			return &Killer{queued: qd, kills: kills, delay: delay}, nil
		},
	}
}

// Killer starts the first job of the queue when it fits (one start per
// decision at most), then kills it kills times, every delay seconds: each
// kill is dated delay seconds after the previous event and the reply's
// now moves with it, so Batsim applies it then (a job that ends before is
// not killed) and calls the scheduler again no earlier.
type Killer struct {
	queued
	kills int
	delay float64
}

// Decide implements sched.Policy.
func (p *Killer) Decide(s *sched.State, d *sched.Decider) {
	p.q.update(s)
	j := p.q.first(s)
	if j == nil {
		return
	}
	hosts, ok := p.place.fit(s, j)
	if !ok || !d.Start(j, hosts) {
		return
	}
	for i := 0; i < p.kills; i++ {
		r := d.Reply()
		if err := r.AdvanceTo(r.LastDate() + p.delay); err != nil {
			return
		}
		if i == 0 {
			d.Kill(j)
		} else if err := r.KillJobs(j.ID()); err != nil {
			return
		}
	}
}
