package conservative

import (
	"slices"

	"github.com/bucma-sched/bucma/policies/batsched"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sched/xtime"
)

// BatschedConservative is conservative backfilling as batsched's
// conservative_bf (src/algo/conservative_bf.cpp over src/schedule.cpp)
// decides it, decision for decision: the conservative policy's
// backfill=batsched. It differs from the textbook rule (backfill=count)
// in these ways:
//
//   - Reservations are on hosts. Each waiting job is planned, first fit,
//     on the very hosts it will get (the resource selection's pick among
//     the hosts free throughout its walltime at the earliest slice begin
//     where there are enough), in batsched's Schedule.
//   - Queue order. A job's release date is the date of the last event of
//     the message that submitted it; the queue is in one of batsched's
//     orders (its -o; fcfs: release date, then job id as a string).
//   - When no job ended since the last decision, the jobs the message
//     submitted are planned in arrival order. When jobs ended, every
//     queued job, in queue order, is taken out of the schedule and
//     planned anew (first fit again), whether it can move or not: on
//     hosts, the same date may come with other hosts.
//   - Dates are exact: a job is planned for its walltime plus batsched's
//     RJMS delay (its -d, 5 s by default), sums compared as batsched's
//     rationals (xtime).
//
// Jobs start when their plan begins at the present, with the decision's
// date. Unlike conservative_bf, which ignores them, hosts that Batsim
// reports unavailable are planned busy while they are and never given to
// a job; and where batsched stops on an assertion (a message dated after
// the end of a job's plan while the job still runs, a job that fits
// nowhere before 1e19 s), the job keeps its hosts until it ends, or waits
// unplanned until jobs end.
type BatschedConservative struct {
	// Order is the queue order (batsched's -o).
	Order batsched.Order
	// Selector picks a job's hosts among the free ones (batsched's -p);
	// nil with fastest set: the fastest hosts first.
	Selector batsched.Selector
	// Delay is added to every walltime (batsched's -d).
	Delay xtime.Time
	// Recent gathers the jobs submitted and ended between decisions; its
	// RejectNoWalltime refuses jobs without walltime at submission (as
	// conservative_bf does), which are otherwise planned to the horizon.
	batsched.Recent

	fastest  bool
	schedule *batsched.Schedule
	queue    *batsched.Queue
	down     []int // hosts planned busy for being unavailable
	scratch  []*sched.Job
}

// unavailableID names the allocation that holds the unavailable hosts.
const unavailableID = "\x00unavailable"

// Decide implements sched.Policy.
func (b *BatschedConservative) Decide(s *sched.State, d *sched.Decider) {
	now := xtime.Of(s.Now())
	if b.schedule == nil {
		b.schedule = batsched.NewSchedule(s.NbHosts(), now)
		b.queue = batsched.NewQueue(b.Order)
		if b.fastest {
			b.Selector = batsched.Ordered{Order: s.HostsByFastest()}
		}
	}
	for _, j := range b.Ended {
		b.schedule.Remove(j.ID())
	}
	ended := len(b.Ended) > 0
	if b.unavailable(s, now) {
		ended = true
	}
	recent := b.scratch[:0]
	for _, j := range b.Released {
		if j.Waiting() { // refused jobs are rejected already
			b.queue.Append(j, s.LastEvent())
			recent = append(recent, j)
		}
	}
	b.Recent.Clear()
	// A job still running past the end of its plan keeps its hosts.
	for _, r := range s.Running() {
		if a, ok := b.schedule.Alloc(r.ID()); ok && !now.Less(a.End) {
			b.schedule.Extend(r.ID(), now.Succ())
		}
	}
	b.schedule.UpdateFirstSlice(now)

	if !ended {
		for _, j := range recent {
			if d.Err() != nil {
				break
			}
			b.plan(j, d)
		}
	} else {
		for i := b.queue.Head(); i < b.queue.Len() && d.Err() == nil; i++ {
			if j := b.queue.At(i).Job; j.Waiting() {
				b.plan(j, d)
			}
		}
	}
	clear(recent)
	b.scratch = recent[:0]
	b.queue.Compact()
}

// plan plans j anew, first fit, and starts it when its plan begins now.
func (b *BatschedConservative) plan(j *sched.Job, d *sched.Decider) {
	a, ok := b.schedule.AddFirstFit(j.ID(), j.Res(), batsched.Walltime(j.Walltime(), b.Delay), b.Selector)
	if ok && a.StartedInFirstSlice && d.Start(j, a.Hosts) {
		b.queue.Left()
	}
}

// unavailable plans the hosts Batsim made unavailable as busy from now to
// the horizon, and reports whether some became available again (hosts
// freed: the queue is planned anew).
func (b *BatschedConservative) unavailable(s *sched.State, now xtime.Time) bool {
	var down []int
	for h := range s.NbHosts() {
		if s.Host(h).Unavailable() {
			down = append(down, h)
		}
	}
	if slices.Equal(down, b.down) {
		return false
	}
	freed := false
	for _, h := range b.down {
		if !s.Host(h).Unavailable() {
			freed = true
		}
	}
	b.schedule.Remove(unavailableID)
	if len(down) > 0 {
		b.schedule.Place(unavailableID, now, batsched.Horizon, down)
	}
	b.down = down
	return freed
}

// Planned is the date, in seconds, the waiting job j is planned to
// start at; ok is false when it has no plan.
func (b *BatschedConservative) Planned(j *sched.Job) (at float64, ok bool) {
	if b.schedule == nil {
		return 0, false
	}
	a, ok := b.schedule.Alloc(j.ID())
	if !ok {
		return 0, false
	}
	return a.Begin.Float(), true
}
