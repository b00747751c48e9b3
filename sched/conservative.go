package sched

import (
	"math"
	"sort"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/sched/profile"
	"github.com/bucma-sched/bucma/sched/xtime"
)

// StatefulRule is implemented by the start rules that keep state from one
// decision to the next (Conservative keeps every waiting job's
// reservation). Fresh returns a rule of the same configuration without
// state: each policy takes its own (Base.NewRule gives it). A Composite
// and a Rerank run a StatefulRule at every decision, even when no job
// waits or no host is free, so that it sees every arrival and every end
// at the decision it happens.
type StatefulRule interface {
	StartRule
	Fresh() StartRule
}

// RunsAtEveryDecision reports whether rule must run at every decision (a
// StatefulRule): a policy that skips decisions where nothing can start
// must not skip them for it.
func RunsAtEveryDecision(rule StartRule) bool {
	_, ok := rule.(StatefulRule)
	return ok
}

// NewRule is the base's start rule for one policy: a fresh one when the
// rule keeps state (StatefulRule), the rule itself otherwise.
func (b Base) NewRule() StartRule {
	if r, ok := b.Rule.(StatefulRule); ok {
		return r.Fresh()
	}
	return b.Rule
}

// Conservative is conservative backfilling (Mu'alem and Feitelson, IEEE
// TPDS 12(6), 2001): every waiting job holds a reservation, the earliest
// date at which enough hosts are free for its whole walltime given the
// running jobs and every reservation made before it, and a job starts
// when its reservation begins. A later job may start before an earlier
// one (backfilling) only where it delays no reservation.
//
// It plans on a profile of free host counts (sched/profile): a running
// job holds its hosts until start + walltime (+ Delay), a job without
// walltime for ever. Reservations are counts, not hosts: when a job
// starts, the host selection picks any free hosts (a job holds its hosts
// until its planned end, so that any free hosts will do). When no job
// ended since the last decision, the jobs that arrived get their
// reservations in arrival order, after all others. When jobs ended (early:
// before their planned end), the schedule is compressed: the waiting jobs
// are taken in queue order, and each is removed from the profile and
// placed again at its earliest fit, which is never later than its
// reservation (its old place is still free), so that no job is ever
// delayed by another's early end (the compression of Mu'alem and
// Feitelson, which batsched's conservative_bf performs as well). A job
// that cannot start earlier is passed without being taken out: the rule
// tells it from what was freed since it last made sure of the job (see
// compress) and from the profile (profile.CanMoveEarlier), and the
// decisions are those of placing every job again.
//
// Conservative keeps its reservations between decisions: build one per
// policy (NewConservative, or Base.NewRule). It runs at every decision
// (StatefulRule). Hosts that Batsim makes unavailable count as busy for
// as long as they are; a running job past its planned end is planned to
// end right after the present, and once a reservation has begun without
// its job (it was behind such a job), every waiting job is placed anew,
// from scratch, in queue order.
type Conservative struct {
	// Delay is added to every walltime in the plan (batsched's RJMS
	// delay, its -d option); 0 for the textbook rule.
	Delay float64

	p        *profile.Profile
	running  map[*Job]consSpan // jobs in the profile that run
	reserved map[*Job]consSpan // waiting jobs' reservations
	lastSeq  int64             // arrivals seen: seq < lastSeq
	busy     int               // hosts counted busy for being unavailable
	scratch  []*Job

	// What the compressions free, for the test that passes the jobs that
	// cannot move (see compress): pass numbers the compressions; gain is
	// the latest end of what the current one freed so far (ended jobs,
	// and the old places of the jobs it moved); moved lists the jobs the
	// previous one moved, by position in its walk, each with the latest
	// end of what it and the later moves freed.
	pass  int
	gain  xtime.Time
	moved []consMove
	cur   []consMove
	// noPrune places every job again in a compression (the reference the
	// tests check the pruning against).
	noPrune bool
}

// consSpan is a job's place in the profile, and when the rule last made
// sure it could not start earlier: at position pos of the walk of
// compression pass (pos 0 of the next compression for a job placed on
// arrival).
type consSpan struct {
	begin, end xtime.Time
	pass, pos  int
}

// consMove is a job a compression moved: its position in the walk and
// the latest end of what it and the moves after it freed.
type consMove struct {
	pos int
	end xtime.Time
}

// NewConservative returns conservative backfilling without delay.
func NewConservative() *Conservative { return &Conservative{} }

// Fresh implements StatefulRule.
func (c *Conservative) Fresh() StartRule { return &Conservative{Delay: c.Delay} }

// Apply implements StartRule.
func (c *Conservative) Apply(s *State, q []*Job, hosts HostSelector, d *Decider) {
	c.ApplyWalk(s, &sliceWalk{q: q}, hosts, d)
}

// ApplyWalk implements WalkRule. w is walked whole only when jobs ended
// since the last decision.
func (c *Conservative) ApplyWalk(s *State, w Walk, hosts HostSelector, d *Decider) {
	now := xtime.Of(s.now)
	if c.p == nil {
		c.p = profile.New(len(s.hosts), now, xtime.Inf)
		c.running, c.reserved = map[*Job]consSpan{}, map[*Job]consSpan{}
	}
	// The jobs that ended give their hosts back (in any order: counts add
	// up alike).
	ended := false
	c.gain = xtime.Time{}
	for j, sp := range c.running {
		if j.state != batsim.StateRunning {
			c.p.Release(sp.begin, sp.end, j.res)
			delete(c.running, j)
			ended = true
			c.gain = xtime.Max(c.gain, sp.end)
		}
	}
	// A running job past its planned end ends any moment now.
	for j, sp := range c.running {
		if !now.Less(sp.end) {
			c.p.Release(sp.begin, sp.end, j.res)
			sp.end = now.Succ()
			c.p.Reserve(sp.begin, sp.end, j.res)
			c.running[j] = sp
		}
	}
	if c.p.Advance(now) > 0 && c.late(now) {
		// A job ran past its planned end and the jobs reserved after it
		// could not start when planned: every reservation is made anew,
		// in queue order, so that the jobs that can start now do.
		for j, sp := range c.reserved {
			c.p.Release(sp.begin, sp.end, j.res)
		}
		clear(c.reserved)
		ended = true
		c.gain = xtime.Inf
	}

	// Unavailable hosts are busy from now on (the present of the profile); hosts available again free.
	busy := 0
	for i := range s.hosts {
		if s.hosts[i].unavailable {
			busy++
		}
	}
	if busy != c.busy {
		if busy > c.busy {
			c.p.Reserve(now, xtime.Inf, busy-c.busy)
		} else {
			c.p.Release(now, xtime.Inf, c.busy-busy)
			ended = true
			c.gain = xtime.Inf
		}
		c.busy = busy
	}
	arrived := c.arrivals(s)
	if !ended {
		for _, j := range arrived {
			if d.err != nil {
				return
			}
			c.place(s, j, now, hosts, d, c.pass+1, 0)
		}
		return
	}
	c.compress(s, w, now, hosts, d)
}

// compress places the waiting jobs again, in the order of w: each is
// taken out of the profile and placed at its earliest fit, which is never
// later than its reservation.
//
// A job that cannot start earlier is passed without being taken out: it
// cannot when no date before its reservation has enough free hosts, nor
// when nothing was freed, since the rule last made sure it could not
// start earlier, that a span before its reservation could meet. The rule
// knows that of every job: placed at its earliest fit (on arrival or in a
// compression) or passed, it could not start earlier at that point, and
// only what was freed since can change that. What was freed since is, for
// a job the previous compression walked, what that compression freed
// after it (its later moves) and everything this one freed so far; for a
// job placed on arrival since, what this one freed so far. A span
// starting at t meets what was freed only if t is before the latest end
// of it: the job's earliest fit, if earlier than its reservation, is
// before that end.
func (c *Conservative) compress(s *State, w Walk, now xtime.Time, hosts HostSelector, d *Decider) {
	c.pass++
	c.cur = c.cur[:0]
	pos := 0
	for {
		j := w.Next(math.MaxInt)
		if j == nil || d.err != nil {
			break
		}
		if j.state != batsim.StateSubmitted || j.refused {
			continue
		}
		pos++
		sp, ok := c.reserved[j]
		if !ok {
			c.place(s, j, now, hosts, d, c.pass, pos)
			continue
		}
		limit := sp.begin
		var at xtime.Time
		found := false
		if now.Less(sp.begin) && !c.noPrune {
			limit = c.freedBefore(sp, limit)
			if now.Less(limit) && c.p.MaxFree(now, limit) >= j.res {
				at, found = c.p.CanMoveEarlier(now, limit, sp.begin, c.duration(j), j.res)
			}
			if !found {
				// It cannot start earlier: it keeps its place.
				sp.pass, sp.pos = c.pass, pos
				c.reserved[j] = sp
				continue
			}
		}
		c.p.Release(sp.begin, sp.end, j.res)
		// Where CanMoveEarlier found at, it is the earliest fit before
		// limit once the job is out: the dates it tries are before the
		// reservation, and it counts the job's hosts free from there on.
		// Otherwise (the reservation has begun, or the reference) the
		// earliest fit before limit is looked for; the job goes back to
		// its place when there is none.
		if !found {
			if at, found = c.p.EarliestFitBefore(now, limit, c.duration(j), j.res); !found {
				at = sp.begin
			}
		}
		if c.placeAt(s, j, now, hosts, d, c.pass, pos, at).Less(sp.begin) {
			c.gain = xtime.Max(c.gain, sp.end)
			c.cur = append(c.cur, consMove{pos, sp.end})
		}
	}
	// What each move of this compression and the later ones freed.
	for i := len(c.cur) - 2; i >= 0; i-- {
		c.cur[i].end = xtime.Max(c.cur[i].end, c.cur[i+1].end)
	}
	c.moved, c.cur = c.cur, c.moved
}

// freedBefore bounds the dates before limit where the job of sp may now
// start: before the latest end of what was freed since the rule last made
// sure it could not start earlier (see compress).
func (c *Conservative) freedBefore(sp consSpan, limit xtime.Time) xtime.Time {
	freed := c.gain
	switch sp.pass {
	case c.pass: // placed on arrival since the last compression
	case c.pass - 1:
		// the previous compression's moves after the job's position
		i := sort.Search(len(c.moved), func(k int) bool { return c.moved[k].pos > sp.pos })
		if i < len(c.moved) {
			freed = xtime.Max(freed, c.moved[i].end)
		}
	default:
		return limit
	}
	if freed.Less(limit) {
		return freed
	}
	return limit
}

// late reports whether a reservation began before now without its job.
func (c *Conservative) late(now xtime.Time) bool {
	for _, sp := range c.reserved {
		if sp.begin.Less(now) {
			return true
		}
	}
	return false
}

// arrivals lists the jobs that joined the queue since the last decision
// and still wait, in arrival order.
func (c *Conservative) arrivals(s *State) []*Job {
	out := c.scratch[:0]
	for i := len(s.waiting) - 1; i >= 0 && s.waiting[i].seq >= c.lastSeq; i-- {
		if j := s.waiting[i]; j.state == batsim.StateSubmitted && !j.refused {
			out = append(out, j)
		}
	}
	for i, k := 0, len(out)-1; i < k; i, k = i+1, k-1 {
		out[i], out[k] = out[k], out[i]
	}
	c.lastSeq = s.seq
	c.scratch = out[:0]
	return out
}

// duration is j's span in the plan: walltime + Delay, xtime.Inf without
// walltime.
func (c *Conservative) duration(j *Job) xtime.Time {
	if !j.HasWalltime() {
		return xtime.Inf
	}
	return xtime.Of(j.walltime).Add(xtime.Of(c.Delay))
}

// place reserves j at its earliest fit and starts it when that is now
// and its hosts are free (placeAt); it returns the date of the
// reservation. A job that fits nowhere (more hosts than are available for
// ever) gets no reservation until jobs end (the date is then xtime.Inf).
// pass and pos say when the place was found (see compress).
func (c *Conservative) place(s *State, j *Job, now xtime.Time, hosts HostSelector, d *Decider, pass, pos int) xtime.Time {
	at, ok := c.p.EarliestFitBefore(now, xtime.Inf, c.duration(j), j.res)
	if !ok {
		return xtime.Inf
	}
	return c.placeAt(s, j, now, hosts, d, pass, pos, at)
}

// placeAt reserves j at at, found at pass and pos, and starts it when at
// is now and its hosts are free; it returns at.
func (c *Conservative) placeAt(s *State, j *Job, now xtime.Time, hosts HostSelector, d *Decider, pass, pos int, at xtime.Time) xtime.Time {
	sp := consSpan{begin: at, end: at.Add(c.duration(j)), pass: pass, pos: pos}
	c.p.Reserve(sp.begin, sp.end, j.res)
	if at == now && j.res <= s.NbFree() && d.Start(j, hosts.Select(s, j, j.res)) {
		delete(c.reserved, j)
		c.running[j] = sp
		return at
	}
	c.reserved[j] = sp
	return at
}

// Reservation is the date the waiting job j is planned to start at, in
// seconds; ok is false when it has no reservation (it fits nowhere, or the
// rule has not seen it yet).
func (c *Conservative) Reservation(j *Job) (at float64, ok bool) {
	sp, ok := c.reserved[j]
	return sp.begin.Float(), ok
}
