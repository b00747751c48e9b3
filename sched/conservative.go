package sched

import (
	"math"

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
// whose reservation cannot move (fewer hosts than it needs are free at
// every date before it) is passed without being placed anew.
//
// Conservative keeps its reservations between decisions: build one per
// policy (NewConservative, or Base.NewRule). It runs at every decision
// (StatefulRule). Hosts that Batsim makes unavailable count as busy for
// as long as they are; a running job past its planned end is planned to
// end right after the present.
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
}

// consSpan is a job's place in the profile.
type consSpan struct{ begin, end xtime.Time }

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
	for j, sp := range c.running {
		if j.state != batsim.StateRunning {
			c.p.Release(sp.begin, sp.end, j.res)
			delete(c.running, j)
			ended = true
		}
	}
	// Unavailable hosts are busy from now on; hosts available again free.
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
		}
		c.busy = busy
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
	c.p.Advance(now)

	arrived := c.arrivals(s)
	if !ended {
		for _, j := range arrived {
			if d.err != nil {
				return
			}
			c.place(s, j, now, hosts, d)
		}
		return
	}
	for {
		j := w.Next(math.MaxInt)
		if j == nil || d.err != nil {
			return
		}
		if j.state != batsim.StateSubmitted || j.refused {
			continue
		}
		if sp, ok := c.reserved[j]; ok {
			if now.Less(sp.begin) && c.p.MaxFree(now, sp.begin) < j.res {
				continue // it cannot start earlier: it keeps its place
			}
			c.p.Release(sp.begin, sp.end, j.res)
			delete(c.reserved, j)
		}
		c.place(s, j, now, hosts, d)
	}
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
// and its hosts are free. A job that fits nowhere (more hosts than are
// available for ever) gets no reservation until jobs end.
func (c *Conservative) place(s *State, j *Job, now xtime.Time, hosts HostSelector, d *Decider) {
	dur := c.duration(j)
	at, ok := c.p.EarliestFit(now, dur, j.res)
	if !ok {
		return
	}
	sp := consSpan{at, at.Add(dur)}
	c.p.Reserve(sp.begin, sp.end, j.res)
	if at == now && j.res <= s.NbFree() && d.Start(j, hosts.Select(s, j, j.res)) {
		c.running[j] = sp
		return
	}
	c.reserved[j] = sp
}

// Reservation is the date the waiting job j is planned to start at, in
// seconds; ok is false when it has no reservation (it fits nowhere, or the
// rule has not seen it yet).
func (c *Conservative) Reservation(j *Job) (at float64, ok bool) {
	sp, ok := c.reserved[j]
	return sp.begin.Float(), ok
}
