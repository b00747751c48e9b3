package schedulers

import (
	"math"
	"sort"

	"github.com/bucma-sched/bucma/batsim"
)

// The three building blocks every policy is made of (queue order, start
// rule, host selection), kept apart so that policies are small compositions
// and a re-ranking stage such as BUCMA can sit in front of any base.

// Order sorts a copy of the waiting queue, highest priority first.
type Order interface {
	Sort(s *State, q []*Job)
}

// StartRule turns an ordered queue into starts at one decision point.
type StartRule interface {
	Apply(s *State, q []*Job, hosts HostSelector, d *Decider)
}

// arrivalRule is implemented by start rules that have a faster path over
// the framework's own waiting queue (s.Waiting(), in arrival order), which
// they may walk through the State's indexes. Composite calls ApplyArrival
// instead of Apply when its order is the arrival order.
type arrivalRule interface {
	ApplyArrival(s *State, hosts HostSelector, d *Decider)
}

// HostSelector picks n free hosts for job j (n <= s.NbFree()): a function
// of the state and the job, so that a choice may depend on who submitted it
// (OwnFirst) or on what it is.
type HostSelector interface {
	Select(s *State, j *Job, n int) []int
}

// ---------------------------------------------------------------- orders

// lessBySubmit is the tie-breaker of every order: submission time, then job
// id, then arrival rank.
func lessBySubmit(a, b *Job) bool {
	if a.Submit != b.Submit {
		return a.Submit < b.Submit
	}
	if a.ID != b.ID {
		return a.ID < b.ID
	}
	return a.Seq < b.Seq
}

// FCFSOrder orders by submission time (ties by job id, then arrival).
type FCFSOrder struct{}

// arrivalOrder is implemented by orders that are the arrival order itself,
// so Composite can walk the framework's queue without copying or sorting it.
type arrivalOrder interface{ isArrivalOrder() }

// isArrivalOrder: Batsim submits jobs in time order, equal times by full id,
// which is exactly the FCFS order.
func (FCFSOrder) isArrivalOrder() {}

// Sort leaves the arrival order when it already is the FCFS order (the
// usual case: Batsim submits in time order) and sorts otherwise.
func (FCFSOrder) Sort(_ *State, q []*Job) {
	if sort.SliceIsSorted(q, func(i, k int) bool { return lessBySubmit(q[i], q[k]) }) {
		return
	}
	sort.SliceStable(q, func(i, k int) bool { return lessBySubmit(q[i], q[k]) })
}

// WalltimeOrder orders by walltime, ascending (MIN-MIN) or descending
// (MAX-MIN); a job without walltime counts as +Inf.
type WalltimeOrder struct{ Descending bool }

// Sort sorts q by walltime.
func (o WalltimeOrder) Sort(_ *State, q []*Job) {
	sort.Slice(q, func(i, k int) bool {
		a, b := q[i].WalltimeOrInf(), q[k].WalltimeOrInf()
		if a != b {
			if o.Descending {
				return a > b
			}
			return a < b
		}
		return lessBySubmit(q[i], q[k])
	})
}

// ---------------------------------------------------------------- start rules

// queueWalk yields the waiting jobs in a queue order, one at a time, for
// one decision. next returns the next job, nil at the end; it may skip the
// jobs whose res is above limit and the jobs no longer waiting (and only
// those).
type queueWalk interface {
	next(limit int) *Job
}

// sliceWalk walks an ordered slice.
type sliceWalk struct {
	q []*Job
	i int
}

func (w *sliceWalk) next(int) *Job {
	if w.i == len(w.q) {
		return nil
	}
	w.i++
	return w.q[w.i-1]
}

// walkRule is implemented by the start rules that run on a queueWalk, so
// that a policy can hand them an order it keeps (a jobSeq, BUCMA's Sf walk)
// instead of a sorted copy of the queue. Apply(q) is applyWalk over q.
type walkRule interface {
	applyWalk(s *State, w queueWalk, hosts HostSelector, d *Decider)
}

// Blocking starts jobs in order while they fit and stops at the first that
// does not (FCFS). A refused job it meets on the way is rejected there
// (when the policy leaves refused jobs in the queue: InPlaceRejecter), so
// that a reply interleaves rejections and starts in queue order, as
// batsched's fcfs_fast does.
type Blocking struct{}

// Apply implements StartRule (applyWalk over q, written out: FCFS runs it
// on the framework's queue at every decision).
func (Blocking) Apply(s *State, q []*Job, hosts HostSelector, d *Decider) {
	for _, j := range q {
		if !blockingStep(s, j, hosts, d) {
			return
		}
	}
}

// blockingStep is the blocking rule on one job of the queue: a job that is
// no longer waiting is passed, a refused one rejected, any other started
// if it fits; false when the rule stops there (the job does not fit, or
// the decider refuses the action).
func blockingStep(s *State, j *Job, hosts HostSelector, d *Decider) bool {
	switch {
	case j.State != batsim.StateSubmitted:
		return true
	case j.refused:
		return d.Reject(j)
	}
	return j.Res <= s.NbFree() && d.Start(j, hosts.Select(s, j, j.Res))
}

func (Blocking) applyWalk(s *State, w queueWalk, hosts HostSelector, d *Decider) {
	for {
		j := w.next(math.MaxInt)
		if j == nil {
			return
		}
		if !blockingStep(s, j, hosts, d) {
			return
		}
	}
}

// rejectsInPlace marks the start rules that reject the refused jobs they
// meet.
func (Blocking) rejectsInPlace() {}

// Greedy walks the whole queue and starts every job that fits (MIN-MIN,
// MAX-MIN).
type Greedy struct{}

// Apply implements StartRule.
func (g Greedy) Apply(s *State, q []*Job, hosts HostSelector, d *Decider) {
	g.applyWalk(s, &sliceWalk{q: q}, hosts, d)
}

func (Greedy) applyWalk(s *State, w queueWalk, hosts HostSelector, d *Decider) {
	for s.NbFree() > 0 {
		j := w.next(s.NbFree())
		if j == nil {
			return
		}
		if j.State != batsim.StateSubmitted {
			continue
		}
		if j.Res <= s.NbFree() && !d.Start(j, hosts.Select(s, j, j.Res)) {
			return
		}
	}
}

// EASY is EASY backfilling: blocking until the first job that does not fit
// (the head), a reservation for the head at the shadow time, then every
// later job that fits now and either ends by the shadow time or uses only
// the extra hosts.
type EASY struct{}

// Apply implements StartRule.
func (e EASY) Apply(s *State, q []*Job, hosts HostSelector, d *Decider) {
	e.applyWalk(s, &sliceWalk{q: q}, hosts, d)
}

// ApplyArrival is Apply over the framework's waiting queue: the backfill
// jumps from fitting job to fitting job instead of walking the queue.
func (EASY) ApplyArrival(s *State, hosts HostSelector, d *Decider) {
	q := s.waiting
	i := 0
	for ; i < len(q); i++ {
		j := q[i]
		if j.State != batsim.StateSubmitted {
			continue
		}
		if j.Res > s.NbFree() {
			break
		}
		if !d.Start(j, hosts.Select(s, j, j.Res)) {
			return
		}
	}
	if i >= len(q) {
		return
	}
	shadow, extra := Reservation(s, q[i].Res)
	pos := s.qbase + int64(i) + 1
	backfill(s, shadow, extra, hosts, d, true, func(free, small int) *Job {
		p := s.fit.nextStartable(pos, free, small, s.Now, shadow)
		if p < 0 {
			return nil
		}
		pos = p + 1
		return s.waiting[p-s.qbase]
	})
}

func (EASY) applyWalk(s *State, w queueWalk, hosts HostSelector, d *Decider) {
	var head *Job
	for head == nil {
		j := w.next(math.MaxInt)
		if j == nil {
			return
		}
		if j.State != batsim.StateSubmitted {
			continue
		}
		if j.Res > s.NbFree() {
			head = j
		} else if !d.Start(j, hosts.Select(s, j, j.Res)) {
			return
		}
	}
	shadow, extra := Reservation(s, head.Res)
	if sw, ok := w.(*seqWalk); ok {
		// Only the jobs that can start now come out of the walk: the
		// others would be passed one by one (a million of them when a
		// million jobs wait).
		backfill(s, shadow, extra, hosts, d, true, func(free, small int) *Job {
			return sw.nextStartable(free, small, s.Now, shadow)
		})
		return
	}
	backfill(s, shadow, extra, hosts, d, false, func(free, _ int) *Job { return w.next(free) })
}

// Backfill starts the jobs of q that fit now and either end by shadow
// (now + walltime <= shadow) or use only extra hosts (which they consume).
// A job without walltime can only use extra hosts. The framework's index of
// waiting jobs gives the exact number of jobs that could still start; the
// scan stops once it has passed them all (the count is redone after each
// start, as the free and extra hosts shrink), so a decision does not walk
// the part of the queue where nothing can start.
func Backfill(s *State, q []*Job, shadow float64, extra int, hosts HostSelector, d *Decider) {
	i := 0
	backfill(s, shadow, extra, hosts, d, false, func(int, int) *Job {
		if i == len(q) {
			return nil
		}
		i++
		return q[i-1]
	})
}

// backfill is Backfill over the jobs next returns in queue order (nil at
// the end). next may skip jobs larger than the free hosts it is given, and
// jobs that cannot start: larger than small (the extra hosts still free)
// and not ending by shadow. Such jobs change nothing when passed: the
// free and extra hosts only shrink during the scan.
//
// With jumps set, next itself skips the jobs that cannot start (a few
// others at most), so the scan ends when next does; otherwise the
// candidate index counts what can still start and the scan stops once it
// has passed them all.
func backfill(s *State, shadow float64, extra int, hosts HostSelector, d *Decider, jumps bool, next func(free, small int) *Job) {
	free := s.NbFree()
	left := math.MaxInt
	var passedEnds, passedLong []int // passed jobs by size index: ending by shadow or not
	if s.cands != nil && !jumps {
		left = s.backfillCandidates(free, min(free, extra), shadow)
		passedEnds, passedLong = s.cands.passedScratch()
	}
	for free > 0 && left > 0 {
		j := next(free, min(free, extra))
		if j == nil {
			return
		}
		if j.State != batsim.StateSubmitted {
			continue
		}
		ends := s.Now+j.WalltimeOrInf() <= shadow
		if j.Res <= free && (ends || j.Res <= extra) {
			left--
		}
		var started bool
		switch {
		case j.Res > free:
		case ends:
			started = d.Start(j, hosts.Select(s, j, j.Res))
		case j.Res <= extra:
			started = d.Start(j, hosts.Select(s, j, j.Res))
			extra -= j.Res
		}
		if d.err != nil {
			return
		}
		if !started {
			// A job left waiting: the index still counts it.
			if passedEnds != nil {
				if ends {
					passedEnds[s.resIndex(j.Res)]++
				} else {
					passedLong[s.resIndex(j.Res)]++
				}
			}
			continue
		}
		free = s.NbFree()
		if passedEnds != nil {
			// What can still start, less what the scan has passed.
			small := min(free, extra)
			left = s.backfillCandidates(free, small, shadow)
			for r := 1; r <= free; r++ {
				left -= passedEnds[r]
				if r <= small {
					left -= passedLong[r]
				}
			}
		}
	}
}

// Reservation computes, for a job needing need hosts, the shadow time (the
// earliest time enough hosts are free, from running jobs' start + walltime)
// and the extra hosts (free at the shadow time beyond need). When need hosts
// can never be gathered (unavailable hosts, unlimited walltimes), the shadow
// time is +Inf and there is no extra host.
func Reservation(s *State, need int) (shadow float64, extra int) {
	avail := s.NbFree()
	if avail >= need {
		return s.Now, avail - need
	}
	type rel struct {
		end float64
		n   int
	}
	rels := make([]rel, 0, len(s.running))
	for _, j := range s.running {
		n := 0
		for _, h := range j.Alloc {
			if !s.Hosts[h].Unavailable {
				n++
			}
		}
		rels = append(rels, rel{math.Max(j.ExpectedEnd(), s.Now), n})
	}
	sort.Slice(rels, func(i, k int) bool { return rels[i].end < rels[k].end })
	for k := 0; k < len(rels); k++ {
		avail += rels[k].n
		// Jobs ending at the same instant free their hosts together.
		for k+1 < len(rels) && rels[k+1].end == rels[k].end {
			k++
			avail += rels[k].n
		}
		if avail >= need && !math.IsInf(rels[k].end, 1) {
			return rels[k].end, avail - need
		}
	}
	return math.Inf(1), 0
}

// ---------------------------------------------------------------- host selection

// Fastest gives the fastest free hosts first (ties by resource id).
type Fastest struct{}

// Select implements HostSelector.
func (Fastest) Select(s *State, _ *Job, n int) []int {
	out := make([]int, 0, n)
	for _, h := range s.byFastest {
		if len(out) == n {
			break
		}
		if s.Hosts[h].Free() {
			out = append(out, h)
		}
	}
	return out
}

// OwnFirst gives the free hosts that the job's user owns (host property
// Property equal to the job's user) first, fastest first, then the fastest
// other free hosts (ties by resource id).
type OwnFirst struct{ Property string }

// Select implements HostSelector.
func (o OwnFirst) Select(s *State, j *Job, n int) []int {
	out := make([]int, 0, n)
	if j.User != "" {
		for _, h := range s.byFastest {
			if len(out) == n {
				return out
			}
			if s.Hosts[h].Free() && s.Hosts[h].Properties[o.Property] == j.User {
				out = append(out, h)
			}
		}
	}
	for _, h := range s.byFastest {
		if len(out) == n {
			break
		}
		if s.Hosts[h].Free() && (j.User == "" || s.Hosts[h].Properties[o.Property] != j.User) {
			out = append(out, h)
		}
	}
	return out
}

// FirstFit gives the free hosts with the lowest resource ids (batsched's
// "basic" selection).
type FirstFit struct{}

// Select implements HostSelector.
func (FirstFit) Select(s *State, _ *Job, n int) []int {
	out := make([]int, 0, n)
	for i := range s.Hosts {
		if len(out) == n {
			break
		}
		if s.Hosts[i].Free() {
			out = append(out, i)
		}
	}
	return out
}

// ---------------------------------------------------------------- composition

// Composite is a policy made of an order, a start rule and a host selector.
type Composite struct {
	Order Order
	Rule  StartRule
	Hosts HostSelector
	// RejectNoWalltime refuses jobs without walltime at submission.
	RejectNoWalltime bool
}

// Admits implements Admitter.
func (c *Composite) Admits(_ *State, j *Job) bool { return !c.RejectNoWalltime || j.HasWalltime() }

// RejectsInPlace implements InPlaceRejecter: a start rule that rejects the
// refused jobs it meets (Blocking) places their rejections.
func (c *Composite) RejectsInPlace() bool {
	_, ok := c.Rule.(interface{ rejectsInPlace() })
	return ok
}

// Decide implements Policy.
func (c *Composite) Decide(s *State, d *Decider) {
	if s.NbWaiting() == 0 || s.NbFree() == 0 {
		return
	}
	if _, ok := c.Order.(arrivalOrder); ok {
		if r, ok := c.Rule.(arrivalRule); ok {
			r.ApplyArrival(s, c.Hosts, d)
			return
		}
		c.Rule.Apply(s, s.Waiting(), c.Hosts, d)
		return
	}
	if r, ok := c.Rule.(walkRule); ok {
		if q, ok := s.seqFor(c.Order); ok {
			r.applyWalk(s, &seqWalk{q: q}, c.Hosts, d)
			return
		}
	}
	q := s.WaitingCopy()
	c.Order.Sort(s, q)
	c.Rule.Apply(s, q, c.Hosts, d)
}
