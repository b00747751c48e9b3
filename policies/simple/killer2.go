package simple

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/bucma-sched/bucma/sched"
)

// lowestHostsOption is the hosts option of the policies that place jobs on
// hosts being freed: first-fit or contiguous.
var lowestHostsOption = sched.OptionSpec{
	Name:    "hosts",
	Default: "first-fit",
	Help:    "first-fit: the lowest hosts free or being freed (batsched's basic); contiguous: the first run of consecutive ones long enough",
	Values:  []string{"first-fit", "contiguous"},
}

func killer2Spec() sched.Spec {
	return sched.Spec{
		Name: "killer2",
		Description: "killer2: whenever a job waits, kill the running job and start the first job of the queue start-delay seconds later, " +
			"on the hosts the kill frees (the reply's now moves that far) (batsched's killer2 with queue=batsched)",
		Options: []sched.OptionSpec{orderOption, queueOption, lowestHostsOption,
			{Name: "start-delay", Default: "5", Help: "seconds between the kill and the start (> 0: Batsim frees the killed job's hosts in between; batsched's 5)"}},
		New: func(opts sched.Options) (sched.Policy, error) {
			qd, err := newQueued(opts)
			if err != nil {
				return nil, err
			}
			delay, err := strconv.ParseFloat(opts["start-delay"], 64)
			if err != nil || !(delay > 0) || math.IsInf(delay, 1) {
				return nil, fmt.Errorf("killer2: start-delay=%q: want a number of seconds > 0", opts["start-delay"])
			}
			return &Killer2{queued: qd, delay: delay}, nil
		},
	}
}

// Killer2 keeps one job running, the newest first of the queue: at every
// decision where a job waits, it kills the running job (if any) and starts
// the first job of the queue delay seconds later, on the lowest hosts free
// or freed by the kill (Decider.StartAt hands the killed job's hosts over).
type Killer2 struct {
	queued
	delay float64
}

// Decide implements sched.Policy.
func (p *Killer2) Decide(s *sched.State, d *sched.Decider) {
	p.q.update(s)
	j := p.q.first(s)
	if j == nil {
		return
	}
	var victims []*sched.Job
	for _, r := range s.Running() {
		if !r.Killing() {
			victims = append(victims, r)
		}
	}
	if len(victims) > 0 {
		slices.SortFunc(victims, sched.Compare)
		if !d.Kill(victims...) {
			return
		}
		r := d.Reply()
		if err := r.AdvanceTo(r.Now() + p.delay); err != nil {
			return
		}
	}
	hosts, ok := p.place.fitOn(s, j, func(h int) bool { return usableAfterKills(s.Host(h)) })
	if ok {
		d.Start(j, hosts)
	}
}

// usableAfterKills reports whether h is free, or on with every job on it
// being killed.
func usableAfterKills(h *sched.Host) bool {
	if h.Free() {
		return true
	}
	if h.Unavailable() || h.Power() != sched.PowerOn || h.Idle() {
		return false
	}
	for _, j := range h.Jobs() {
		if !j.Killing() {
			return false
		}
	}
	return true
}
