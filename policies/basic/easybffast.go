package basic

import (
	"slices"
	"sort"

	"github.com/bucma-sched/bucma/policies/batsched"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sched/xtime"
)

// BatschedEASYFast is EASY backfilling as batsched's easy_bf_fast
// (src/algo/easy_bf_fast.cpp) decides it, decision for decision: the easy
// policy's backfill=batsched-fast. It is a simpler EASY than easy_bf
// (BatschedEASY):
//
//   - The queue is in arrival order. When a job arrives, it starts at
//     once if enough hosts are free and it ends (walltime plus the RJMS
//     delay) by the priority job's expected start; a job too large for
//     the free hosts becomes the priority job if there is none, and waits
//     otherwise.
//   - The priority job's expected start is computed once, when it becomes
//     the priority job: the date at which, adding the hosts of the running
//     jobs in the order of their expected ends (start + walltime + delay,
//     in floating point), enough hosts are free. It is not computed again
//     when jobs end early.
//   - When jobs ended: if the priority job fits, it starts, and the queue
//     starts in order until a job does not fit, which becomes the priority
//     job; then every waiting job that fits and ends by the priority job's
//     expected start starts (no job runs past it, even on hosts it does
//     not need).
//   - A job without walltime counts as one of walltime -1 s (plus the
//     delay: 4 s by default), as easy_bf_fast reads it.
//   - Decisions are dated with the message's now; a job too large for the
//     platform is rejected where its arrival is handled, between the
//     starts.
//
// The test that a job ends by the priority job's expected start compares
// exactly (xtime), as batsched does with a rational walltime; the
// expected ends are floating-point sums, as in easy_bf_fast.
type BatschedEASYFast struct {
	Hosts sched.HostSelector
	// Delay is the RJMS delay (batsched's -d), in seconds.
	Delay float64
	batsched.Recent

	priority   *sched.Job
	completion float64        // the priority job's expected start
	pending    []*sched.Job   // waiting jobs but the priority job, in arrival order
	horizons   []horizonPoint // running jobs' expected ends, by date (equal dates in start order)
}

// horizonPoint is a running job's expected end.
type horizonPoint struct {
	date float64
	j    *sched.Job
}

// RejectsInPlace implements sched.InPlaceRejecter: a job too large for
// the platform is rejected where its arrival is handled.
func (b *BatschedEASYFast) RejectsInPlace() bool { return true }

// walltime is the walltime easy_bf_fast plans with: walltime + delay, -1
// + delay without walltime.
func (b *BatschedEASYFast) walltime(j *sched.Job) float64 {
	if !j.HasWalltime() {
		return -1 + b.Delay
	}
	return j.Walltime() + b.Delay
}

// endsBy reports whether j, started now, ends by the priority job's
// expected start: now + walltime + delay <= completion, exactly.
func (b *BatschedEASYFast) endsBy(now float64, j *sched.Job) bool {
	if b.priority == nil {
		return true
	}
	// Without walltime: now + (-1) + delay <= completion, that is
	// now + delay <= completion + 1.
	left := xtime.Of(now).Add(xtime.Of(b.Delay))
	right := xtime.Of(b.completion)
	if j.HasWalltime() {
		left = left.Add(xtime.Of(j.Walltime()))
	} else {
		right = right.Add(xtime.Of(1))
	}
	return !right.Less(left)
}

// Decide implements sched.Policy.
func (b *BatschedEASYFast) Decide(s *sched.State, d *sched.Decider) {
	now := s.Now()
	for _, j := range b.Ended {
		if i := slices.IndexFunc(b.horizons, func(p horizonPoint) bool { return p.j == j }); i >= 0 {
			b.horizons = slices.Delete(b.horizons, i, i+1)
		}
	}
	if len(b.Ended) > 0 && b.priority != nil {
		if b.priority.Res() <= s.NbFree() {
			if !b.start(s, b.priority, d) {
				return
			}
			b.priority = nil
			// The queue starts in order until a job does not fit.
			i := 0
			for ; i < len(b.pending); i++ {
				j := b.pending[i]
				if j.Res() > s.NbFree() {
					b.becomePriority(s, j)
					i++
					break
				}
				if !b.start(s, j, d) {
					return
				}
			}
			b.pending = slices.Delete(b.pending, 0, i)
		}
		// Backfilling: the jobs that fit and end by the priority job's
		// expected start.
		if s.NbFree() > 0 {
			kept := b.pending[:0]
			for k, j := range b.pending {
				if s.NbFree() > 0 && j.Res() <= s.NbFree() && b.endsBy(now, j) {
					if !b.start(s, j, d) {
						return
					}
					continue
				}
				kept = append(kept, b.pending[k])
			}
			clear(b.pending[len(kept):])
			b.pending = kept
		}
	}
	for _, j := range b.Released {
		if !j.Waiting() {
			continue
		}
		switch {
		case j.Res() <= s.NbFree():
			if b.endsBy(now, j) {
				if !b.start(s, j, d) {
					return
				}
			} else {
				b.pending = append(b.pending, j)
			}
		case j.Refused():
			if !d.Reject(j) {
				return
			}
		case b.priority == nil:
			b.becomePriority(s, j)
		default:
			b.pending = append(b.pending, j)
		}
	}
	b.Recent.Clear()
}

// start starts j on the host selection's pick and records its expected
// end.
func (b *BatschedEASYFast) start(s *sched.State, j *sched.Job, d *sched.Decider) bool {
	if !d.Start(j, b.Hosts.Select(s, j, j.Res())) {
		return false
	}
	p := horizonPoint{date: s.Now() + b.walltime(j), j: j}
	i := sort.Search(len(b.horizons), func(k int) bool { return p.date < b.horizons[k].date })
	b.horizons = slices.Insert(b.horizons, i, p)
	return true
}

// becomePriority makes j the priority job and computes its expected
// start: the date of the expected end at which, counting the free hosts
// and those of the jobs ending by then, enough hosts are free.
func (b *BatschedEASYFast) becomePriority(s *sched.State, j *sched.Job) {
	b.priority = j
	avail := s.NbFree()
	for _, p := range b.horizons {
		avail += p.j.Res()
		if avail >= j.Res() {
			b.completion = p.date
			return
		}
	}
	// Never (easy_bf_fast stops on an assertion): nothing ends by then.
	b.completion = -1
}
