package sched

import (
	"math"
	"slices"
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

// LessBySubmit is the tie-breaker of every order: submission time, then
// job id, then arrival rank.
func LessBySubmit(a, b *Job) bool { return lessBySubmit(a, b) }

// Compare is LessBySubmit as a comparison for slices.SortFunc: -1 when a
// comes first, 1 when b does, 0 for the same job.
func Compare(a, b *Job) int {
	switch {
	case a == b:
		return 0
	case lessBySubmit(a, b):
		return -1
	}
	return 1
}

func lessBySubmit(a, b *Job) bool {
	if a.submit != b.submit {
		return a.submit < b.submit
	}
	if a.id != b.id {
		return a.id < b.id
	}
	return a.seq < b.seq
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

// KeyOrder orders the waiting jobs by a number computed from each job,
// ascending (negate the key for a descending order), ties by submission
// time, then job id, then arrival. The framework keeps the waiting queue
// indexed by it, as it does its own orders (FCFSOrder, WalltimeOrder,
// AreaOrder): a Composite, State.Walk and Rerank walk the index and jump
// to the jobs that fit instead of copying and sorting the queue at every
// decision, so a policy's own order runs at the speed of the built-in
// ones.
//
// The key is computed once, when a job joins the queue: it must depend
// only on what does not change while the job waits (its size, walltime,
// user, submission time, profile, JSON fields), never on the time or on
// the other jobs (TimeOrder is the order of a key that changes with the
// time). A NaN key counts as +Inf. The index belongs to the
// *KeyOrder value: build one per policy (NewKeyOrder) and keep it.
type KeyOrder struct {
	name string
	key  func(*Job) float64
}

// NewKeyOrder returns the order of key, ascending; name describes it (in
// messages).
func NewKeyOrder(name string, key func(j *Job) float64) *KeyOrder {
	return &KeyOrder{name: name, key: key}
}

// Name is the order's name.
func (o *KeyOrder) Name() string { return o.name }

// Key is job j's key in the order (NaN as +Inf).
func (o *KeyOrder) Key(j *Job) float64 {
	v := o.key(j)
	if math.IsNaN(v) {
		return math.Inf(1)
	}
	return v
}

// Sort implements Order: q by key, then submission time, job id and
// arrival.
func (o *KeyOrder) Sort(_ *State, q []*Job) {
	type keyed struct {
		k float64
		j *Job
	}
	ks := make([]keyed, len(q))
	for i, j := range q {
		ks[i] = keyed{o.Key(j), j}
	}
	sort.Slice(ks, func(a, b int) bool {
		if ks[a].k != ks[b].k {
			return ks[a].k < ks[b].k
		}
		return lessBySubmit(ks[a].j, ks[b].j)
	})
	for i := range ks {
		q[i] = ks[i].j
	}
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

// AreaOrder orders by walltime × requested hosts (unlimited walltime =
// +Inf), ties by submission time then job id.
type AreaOrder struct{ Descending bool }

// Sort implements Order.
func (o AreaOrder) Sort(_ *State, q []*Job) {
	type keyed struct {
		area float64
		j    *Job
	}
	k := make([]keyed, len(q))
	for i, j := range q {
		k[i] = keyed{j.WalltimeOrInf() * float64(j.Res()), j}
	}
	slices.SortFunc(k, func(a, b keyed) int {
		if a.area != b.area {
			if (a.area > b.area) == o.Descending {
				return -1
			}
			return 1
		}
		if lessBySubmit(a.j, b.j) {
			return -1
		}
		if lessBySubmit(b.j, a.j) {
			return 1
		}
		return 0
	})
	for i := range k {
		q[i] = k[i].j
	}
}

// ---------------------------------------------------------------- start rules

// Walk yields the waiting jobs in a queue order, one at a time, for one
// decision (State.Walk gives one). Next returns the next job, nil at the
// end; it may skip the jobs whose Res is above limit and the jobs no
// longer waiting (and only those), so a caller checks Waiting on what it
// gets.
type Walk interface {
	Next(limit int) *Job
}

// sliceWalk walks an ordered slice.
type sliceWalk struct {
	q []*Job
	i int
}

func (w *sliceWalk) Next(int) *Job {
	if w.i == len(w.q) {
		return nil
	}
	w.i++
	return w.q[w.i-1]
}

// WalkRule is implemented by the start rules that run on a Walk, so that
// a policy can hand them an order the framework keeps (State.Walk, a
// Rerank) instead of a sorted copy of the queue. Apply(q) is ApplyWalk over
// q. Blocking, Greedy and EASY are WalkRules.
type WalkRule interface {
	ApplyWalk(s *State, w Walk, hosts HostSelector, d *Decider)
}

// Blocking starts jobs in order while they fit and stops at the first that
// does not (FCFS). A refused job it meets on the way is rejected there
// (when the policy leaves refused jobs in the queue: InPlaceRejecter), so
// that a reply interleaves rejections and starts in queue order, as
// batsched's fcfs_fast does.
type Blocking struct{}

// Apply implements StartRule (ApplyWalk over q, written out: FCFS runs it
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
	case j.state != batsim.StateSubmitted:
		return true
	case j.refused:
		return d.Reject(j)
	}
	return j.res <= s.NbFree() && d.Start(j, hosts.Select(s, j, j.res))
}

// ApplyWalk implements WalkRule.
func (Blocking) ApplyWalk(s *State, w Walk, hosts HostSelector, d *Decider) {
	for {
		j := w.Next(math.MaxInt)
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
	g.ApplyWalk(s, &sliceWalk{q: q}, hosts, d)
}

// ApplyWalk implements WalkRule.
func (Greedy) ApplyWalk(s *State, w Walk, hosts HostSelector, d *Decider) {
	for s.NbFree() > 0 {
		j := w.Next(s.NbFree())
		if j == nil {
			return
		}
		if j.state != batsim.StateSubmitted {
			continue
		}
		if j.res <= s.NbFree() && !d.Start(j, hosts.Select(s, j, j.res)) {
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
	e.ApplyWalk(s, &sliceWalk{q: q}, hosts, d)
}

// ApplyArrival is Apply over the framework's waiting queue: the backfill
// jumps from fitting job to fitting job instead of walking the queue.
func (EASY) ApplyArrival(s *State, hosts HostSelector, d *Decider) {
	q := s.waiting
	i := 0
	for ; i < len(q); i++ {
		j := q[i]
		if j.state != batsim.StateSubmitted {
			continue
		}
		if j.res > s.NbFree() {
			break
		}
		if !d.Start(j, hosts.Select(s, j, j.res)) {
			return
		}
	}
	if i >= len(q) {
		return
	}
	shadow, extra := Reservation(s, q[i].res)
	pos := s.qbase + int64(i) + 1
	backfill(s, shadow, extra, hosts, d, true, func(free, small int) *Job {
		p := s.fitIndex().nextStartable(pos, free, small, s.now, shadow)
		if p < 0 {
			return nil
		}
		pos = p + 1
		return s.waiting[p-s.qbase]
	})
}

// ApplyWalk implements WalkRule: the backfill jumps over what cannot
// start when w is the framework's index (State.Walk).
func (EASY) ApplyWalk(s *State, w Walk, hosts HostSelector, d *Decider) {
	var head *Job
	for head == nil {
		j := w.Next(math.MaxInt)
		if j == nil {
			return
		}
		if j.state != batsim.StateSubmitted {
			continue
		}
		if j.res > s.NbFree() {
			head = j
		} else if !d.Start(j, hosts.Select(s, j, j.res)) {
			return
		}
	}
	shadow, extra := Reservation(s, head.res)
	if sw, ok := w.(startableWalk); ok {
		// Only the jobs that can start now come out of the walk: the
		// others would be passed one by one (a million of them when a
		// million jobs wait).
		backfill(s, shadow, extra, hosts, d, true, func(free, small int) *Job {
			return sw.nextStartable(free, small, s.now, shadow)
		})
		return
	}
	backfill(s, shadow, extra, hosts, d, false, func(free, _ int) *Job { return w.Next(free) })
}

// startableWalk is a walk over one of the framework's indexes (seqWalk,
// timeWalk), which can give the next job Backfill can start, jumping over
// the others: at most free hosts, and at most small or ending by shadow.
type startableWalk interface {
	Walk
	nextStartable(free, small int, now, shadow float64) *Job
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
		if j.state != batsim.StateSubmitted {
			continue
		}
		ends := s.now+j.WalltimeOrInf() <= shadow
		if j.res <= free && (ends || j.res <= extra) {
			left--
		}
		var started bool
		switch {
		case j.res > free:
		case ends:
			started = d.Start(j, hosts.Select(s, j, j.res))
		case j.res <= extra:
			started = d.Start(j, hosts.Select(s, j, j.res))
			extra -= j.res
		}
		if d.err != nil {
			return
		}
		if !started {
			// A job left waiting: the index still counts it.
			if passedEnds != nil {
				if ends {
					passedEnds[s.resIndex(j.res)]++
				} else {
					passedLong[s.resIndex(j.res)]++
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
// time is +Inf and there is no extra host. The running jobs are read in
// the order of their expected ends, which the state keeps as they start
// and end: from the front, only as far as the shadow time.
func Reservation(s *State, need int) (shadow float64, extra int) {
	avail := s.NbFree()
	if avail >= need {
		return s.now, avail - need
	}
	ends := s.byEnd
	for k := 0; k < len(ends); {
		// Jobs ending at the same instant free their hosts together; a
		// job past its walltime is expected to end now.
		end := math.Max(ends[k].ExpectedEnd(), s.now)
		avail += s.availableOf(ends[k])
		for k++; k < len(ends) && math.Max(ends[k].ExpectedEnd(), s.now) == end; k++ {
			avail += s.availableOf(ends[k])
		}
		if avail >= need && !math.IsInf(end, 1) {
			return end, avail - need
		}
	}
	return math.Inf(1), 0
}

// availableOf counts the hosts of running job j that are available.
func (s *State) availableOf(j *Job) int {
	if !s.unavailableSeen {
		return len(j.alloc)
	}
	n := 0
	for _, h := range j.alloc {
		if !s.hosts[h].unavailable {
			n++
		}
	}
	return n
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
		if s.hosts[h].Free() {
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
	if j.user != "" {
		for _, h := range s.byFastest {
			if len(out) == n {
				return out
			}
			if s.hosts[h].Free() && s.hosts[h].props[o.Property] == j.user {
				out = append(out, h)
			}
		}
	}
	for _, h := range s.byFastest {
		if len(out) == n {
			break
		}
		if s.hosts[h].Free() && (j.user == "" || s.hosts[h].props[o.Property] != j.user) {
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
	for i := range s.hosts {
		if len(out) == n {
			break
		}
		if s.hosts[i].Free() {
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

// Walk returns a walk of the waiting queue in order o: over the
// framework's index when o is indexed (FCFSOrder, WalltimeOrder,
// AreaOrder, a KeyOrder, a TimeOrder at the state's time), else over a
// sorted copy of the queue. The walk is valid for the current decision; a
// job started or rejected during it is skipped.
func (s *State) Walk(o Order) Walk {
	if _, ok := o.(arrivalOrder); ok {
		return &sliceWalk{q: s.waiting}
	}
	if w, ok := s.indexedWalk(o); ok {
		return w
	}
	q := s.WaitingCopy()
	o.Sort(s, q)
	return &sliceWalk{q: q}
}

// indexedWalk is a walk of o over the framework's index of it, when it
// keeps one (ok false otherwise).
func (s *State) indexedWalk(o Order) (Walk, bool) {
	if t, ok := o.(*TimeOrder); ok {
		return s.timeFor(t).walk(s), true
	}
	if q, ok := s.seqFor(o); ok {
		return &seqWalk{q: q}, true
	}
	return nil, false
}

// Decide implements Policy. A decision where no job waits or no host is
// free starts nothing and is skipped, unless the rule keeps state
// (StatefulRule).
func (c *Composite) Decide(s *State, d *Decider) {
	if (s.NbWaiting() == 0 || s.NbFree() == 0) && !RunsAtEveryDecision(c.Rule) {
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
	if r, ok := c.Rule.(WalkRule); ok {
		if w, ok := s.indexedWalk(c.Order); ok {
			r.ApplyWalk(s, w, c.Hosts, d)
			return
		}
	}
	q := s.WaitingCopy()
	c.Order.Sort(s, q)
	c.Rule.Apply(s, q, c.Hosts, d)
}
