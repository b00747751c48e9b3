// Package profile holds a profile of future availability: how many hosts,
// and optionally which ones, are free over time, from the present to a
// horizon, as reservations take them. It is what conservative backfilling
// plans with (sched.Conservative, and the twin of batsched's Schedule in
// policies/batsched).
//
// A Profile is a sequence of time slices. The first begins at the
// present (Begin), the last ends at the horizon; a slice boundary lies
// wherever a reservation begins or ends, and nowhere else (a boundary that
// no reservation uses any more is merged away, as batsched's Schedule
// merges slices). Dates are exact (sched/xtime), so sums of dates and
// durations compare as batsched's rationals do.
//
// The slices are the nodes of a balanced search tree by date (a treap with
// a fixed seed, so that the same operations build the same tree). Each
// node holds the change of the free-host count at its date, and each
// subtree the lowest and the highest running count over its dates: a
// reservation costs O(log S) for S slices, and the earliest date at which
// n hosts are free for a duration, which skips every stretch where fewer
// are, costs O(log S) per stretch skipped. With host sets (NewWithHosts) each
// slice also holds the set of its free hosts, which a reservation updates
// slice by slice.
package profile

import (
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/bucma-sched/bucma/sched/xtime"
)

// Profile is the free hosts of a platform over time. Build one with New
// or NewWithHosts.
type Profile struct {
	nodes   []node // index 0 is the null node
	recycle []int32
	root    int32
	first   int32
	horizon xtime.Time
	hosts   int
	words   int      // host-set words per slice; 0 without host sets
	sets    []uint64 // the free hosts of node i at sets[i*words:]
	rng     uint64
	nslices int
	inter   Hosts // scratch of EarliestFitHosts
	// Fits EarliestFitBefore found since the last release, none of which
	// bounds every fit another one bounds (see fitBound).
	bounds []fitBound
}

// maxFitBounds caps the fits a profile remembers.
const maxFitBounds = 256

// fitBound is a fit EarliestFitBefore found: n hosts free for dur from at
// on, at being the earliest such date from from on. As long as nothing is
// released, reservations only take hosts, so a fit of at least n hosts
// for at least dur, from from on or later, cannot be earlier than at: the
// search for it may begin at at. (Advance takes no hosts back from the
// dates after the present.)
type fitBound struct {
	n             int32
	from, dur, at xtime.Time
}

// applies reports whether b bounds the fit of n hosts for dur from from on:
// as few hosts for no longer, searched from no later.
func (b *fitBound) applies(n int32, from, dur xtime.Time) bool {
	return b.n <= n && !dur.Less(b.dur) && !from.Less(b.from)
}

// covers reports whether b bounds every fit c bounds, as much or more.
func (b *fitBound) covers(c *fitBound) bool {
	return b.applies(c.n, c.from, c.dur) && !b.at.Less(c.at)
}

// node is a slice: it begins at key and ends at the next node's key (the
// horizon for the last).
type node struct {
	key         xtime.Time
	left, right int32
	prev, next  int32
	prio        uint32
	refs        int32 // reservations that begin or end at key
	delta       int32 // free hosts at key minus free hosts just before
	sum         int32 // sum of the deltas of the subtree
	minP, maxP  int32 // lowest and highest running sum over the subtree's nodes, in date order
}

// New returns the profile of hosts free hosts from begin to horizon (the
// end of the last slice: nothing can be reserved past it; xtime.Inf for
// none), counting hosts only.
func New(hosts int, begin, horizon xtime.Time) *Profile { return newProfile(hosts, begin, horizon, 0) }

// NewWithHosts is New with the set of free hosts of every slice (hosts
// 0..hosts-1), for reservations of given hosts (ReserveHosts) and fits on
// given hosts (EarliestFitHosts).
func NewWithHosts(hosts int, begin, horizon xtime.Time) *Profile {
	return newProfile(hosts, begin, horizon, (hosts+63)/64)
}

func newProfile(hosts int, begin, horizon xtime.Time, words int) *Profile {
	p := &Profile{nodes: make([]node, 1, 64), horizon: horizon, hosts: hosts, words: words, rng: 0x9e3779b97f4a7c15}
	if words > 0 {
		p.sets = make([]uint64, words, 64*words)
	}
	p.first = p.newNode(begin)
	p.nodes[p.first].delta = int32(hosts)
	p.pull(p.first)
	p.root = p.first
	if words > 0 {
		copy(p.set(p.first), AllHosts(hosts))
	}
	return p
}

// Begin is the date the first slice begins: the present.
func (p *Profile) Begin() xtime.Time { return p.nodes[p.first].key }

// Horizon is the date the last slice ends.
func (p *Profile) Horizon() xtime.Time { return p.horizon }

// NbHosts is the number of hosts the profile was built with.
func (p *Profile) NbHosts() int { return p.hosts }

// NbSlices is the number of slices.
func (p *Profile) NbSlices() int { return p.nslices }

// TracksHosts reports whether the profile holds the set of free hosts of
// every slice (NewWithHosts).
func (p *Profile) TracksHosts() bool { return p.words > 0 }

// ---------------------------------------------------------------- the tree

func (p *Profile) newNode(key xtime.Time) int32 {
	// xorshift64: a fixed sequence, so that the same operations build the
	// same tree.
	p.rng ^= p.rng << 13
	p.rng ^= p.rng >> 7
	p.rng ^= p.rng << 17
	n := node{key: key, prio: uint32(p.rng >> 32)}
	var i int32
	if k := len(p.recycle); k > 0 {
		i = p.recycle[k-1]
		p.recycle = p.recycle[:k-1]
		p.nodes[i] = n
	} else {
		i = int32(len(p.nodes))
		p.nodes = append(p.nodes, n)
		if p.words > 0 {
			p.sets = append(p.sets, make([]uint64, p.words)...)
		}
	}
	p.pull(i)
	p.nslices++
	return i
}

// set is the free-host set of node i (a view into p.sets).
func (p *Profile) set(i int32) Hosts {
	return Hosts(p.sets[int(i)*p.words : int(i+1)*p.words : int(i+1)*p.words])
}

func (p *Profile) pull(v int32) {
	n := &p.nodes[v]
	cur, lo, hi := n.delta, n.delta, n.delta
	if n.left != 0 {
		l := &p.nodes[n.left]
		cur = l.sum + n.delta
		lo, hi = min(l.minP, cur), max(l.maxP, cur)
	}
	if n.right != 0 {
		r := &p.nodes[n.right]
		lo, hi = min(lo, cur+r.minP), max(hi, cur+r.maxP)
		cur += r.sum
	}
	n.sum, n.minP, n.maxP = cur, lo, hi
}

func (p *Profile) sumOf(v int32) int32 {
	if v == 0 {
		return 0
	}
	return p.nodes[v].sum
}

// split cuts the tree v into the nodes before key (l) and the others (r);
// with incl, key itself goes to l.
func (p *Profile) split(v int32, key xtime.Time, incl bool) (l, r int32) {
	if v == 0 {
		return 0, 0
	}
	n := &p.nodes[v]
	c := n.key.Cmp(key)
	if c < 0 || (incl && c == 0) {
		a, b := p.split(n.right, key, incl)
		p.nodes[v].right = a
		p.pull(v)
		return v, b
	}
	a, b := p.split(n.left, key, incl)
	p.nodes[v].left = b
	p.pull(v)
	return a, v
}

// merge joins a and b, every date of a before every date of b.
func (p *Profile) merge(a, b int32) int32 {
	switch {
	case a == 0:
		return b
	case b == 0:
		return a
	}
	if p.nodes[a].prio > p.nodes[b].prio {
		p.nodes[a].right = p.merge(p.nodes[a].right, b)
		p.pull(a)
		return a
	}
	p.nodes[b].left = p.merge(a, p.nodes[b].left)
	p.pull(b)
	return b
}

// floor is the node of the slice that holds t (the last node dated t or
// before; the first node for t before Begin).
func (p *Profile) floor(t xtime.Time) int32 {
	v, best := p.root, p.first
	for v != 0 {
		n := &p.nodes[v]
		if t.Less(n.key) {
			v = n.left
		} else {
			best, v = v, n.right
		}
	}
	return best
}

// freeAt is the running count at node date t: the free hosts of the slice
// that holds t.
func (p *Profile) freeAt(t xtime.Time) int32 {
	v, s := p.root, int32(0)
	for v != 0 {
		n := &p.nodes[v]
		if t.Less(n.key) {
			v = n.left
		} else {
			s += p.sumOf(n.left) + n.delta
			v = n.right
		}
	}
	return s
}

// addDelta changes the delta of the node dated key (which exists).
func (p *Profile) addDelta(key xtime.Time, d int32) {
	if d != 0 {
		p.addDeltaAt(p.root, key, d)
	}
}

func (p *Profile) addDeltaAt(v int32, key xtime.Time, d int32) {
	if v == 0 {
		// A release whose dates no reservation holds (a caller's bug).
		panic(fmt.Sprintf("profile: no boundary at %v (released dates that were not reserved, or merged by Advance)", key.Float()))
	}
	n := &p.nodes[v]
	switch c := key.Cmp(n.key); {
	case c < 0:
		p.addDeltaAt(n.left, key, d)
	case c > 0:
		p.addDeltaAt(n.right, key, d)
	default:
		n.delta += d
	}
	p.pull(v)
}

// boundary returns the node dated t (Begin < t < horizon), inserting it
// (a split of the slice that holds t) when there is none.
func (p *Profile) boundary(t xtime.Time) int32 {
	at := p.floor(t)
	if p.nodes[at].key == t {
		return at
	}
	i := p.newNode(t)
	if p.words > 0 {
		copy(p.set(i), p.set(at))
	}
	next := p.nodes[at].next
	p.nodes[i].prev, p.nodes[i].next = at, next
	p.nodes[at].next = i
	if next != 0 {
		p.nodes[next].prev = i
	}
	l, r := p.split(p.root, t, false)
	p.root = p.merge(p.merge(l, i), r)
	return i
}

// drop takes node i (not the first) out of the profile.
func (p *Profile) drop(i int32) {
	key := p.nodes[i].key
	l, r := p.split(p.root, key, false)
	_, r = p.split(r, key, true)
	p.root = p.merge(l, r)
	prev, next := p.nodes[i].prev, p.nodes[i].next
	p.nodes[prev].next = next
	if next != 0 {
		p.nodes[next].prev = prev
	}
	p.nodes[i] = node{}
	p.recycle = append(p.recycle, i)
	p.nslices--
}

// unref drops a reference to node i, and the node when none is left.
func (p *Profile) unref(i int32) {
	if i == p.first {
		return
	}
	n := &p.nodes[i]
	if n.refs--; n.refs <= 0 {
		if n.delta != 0 {
			panic(fmt.Sprintf("profile: the boundary at %v is used by no reservation but changes the free hosts by %d", n.key.Float(), n.delta))
		}
		p.drop(i)
	}
}

// ---------------------------------------------------------------- time

// Advance moves the present to t (t >= Begin): the first slice begins at
// t, and the boundaries dated t or before are merged into it (the
// reservations that ended by t have given their hosts back, those that
// began by t hold them). A reservation whose end is merged so counts as
// over: a holder still running past its planned end must be reserved
// anew (for instance until right after t, xtime.Time.Succ). Advance
// returns the number of boundaries dated before t that it merged: where
// there are some, a reservation began or ended between the old present
// and t.
func (p *Profile) Advance(t xtime.Time) (passed int) {
	f := p.first
	for {
		nx := p.nodes[f].next
		if nx == 0 || t.Less(p.nodes[nx].key) {
			break
		}
		if p.nodes[nx].key.Less(t) {
			passed++
		}
		d := p.nodes[nx].delta
		if p.words > 0 {
			copy(p.set(f), p.set(nx))
		}
		// The node's change moves to the first slice, then the node goes,
		// whatever reservations still name it.
		p.addDelta(p.nodes[nx].key, -d)
		p.addDelta(p.nodes[f].key, d)
		p.drop(nx)
	}
	if p.nodes[f].key.Less(t) {
		// The first node is the least: its new date keeps the order.
		p.nodes[f].key = t
	}
	return passed
}

// ---------------------------------------------------------------- reservations

// span clamps a reservation to the profile: from max(begin, Begin) to
// min(end, horizon); ok is false when nothing of it is left.
func (p *Profile) span(begin, end xtime.Time) (b, e xtime.Time, ok bool) {
	b = xtime.Max(begin, p.Begin())
	e = end
	if p.horizon.Less(e) {
		e = p.horizon
	}
	return b, e, b.Less(e)
}

// Reserve takes n hosts from begin to end (clamped to the profile: what
// lies before Begin or after the horizon is ignored). The count may go
// below zero: Reserve does not check that the hosts are free (EarliestFit
// finds where they are).
func (p *Profile) Reserve(begin, end xtime.Time, n int) { p.reserve(begin, end, n, nil, false) }

// Release gives back n hosts taken by Reserve(begin, end, n); with the
// same dates, the profile is as if the reservation had not been made
// (but for the slices merged by Advance since).
func (p *Profile) Release(begin, end xtime.Time, n int) { p.reserve(begin, end, n, nil, true) }

// ReserveHosts takes the given hosts from begin to end (a profile with
// host sets).
func (p *Profile) ReserveHosts(begin, end xtime.Time, hosts Hosts) {
	p.reserve(begin, end, hosts.Len(), hosts, false)
}

// ReleaseHosts gives back hosts taken by ReserveHosts(begin, end, hosts).
func (p *Profile) ReleaseHosts(begin, end xtime.Time, hosts Hosts) {
	p.reserve(begin, end, hosts.Len(), hosts, true)
}

func (p *Profile) reserve(begin, end xtime.Time, n int, hosts Hosts, release bool) {
	b, e, ok := p.span(begin, end)
	if !ok {
		return
	}
	d := int32(n)
	if release {
		d = -d
	}
	var bi, ei int32
	if b == p.Begin() {
		bi = p.first
	} else if release {
		bi = p.floor(b)
	} else {
		bi = p.boundary(b)
		p.nodes[bi].refs++
	}
	if e.Less(p.horizon) {
		if release {
			ei = p.floor(e)
		} else {
			ei = p.boundary(e)
			p.nodes[ei].refs++
		}
	}
	p.addDelta(b, -d)
	if ei != 0 {
		p.addDelta(e, d)
	}
	if hosts != nil && p.words > 0 {
		for v := bi; v != 0 && p.nodes[v].key.Less(e); v = p.nodes[v].next {
			s := p.set(v)
			for k, w := range hosts {
				if release {
					s[k] |= w
				} else {
					s[k] &^= w
				}
			}
		}
	}
	if release {
		if ei != 0 {
			p.unref(ei)
		}
		p.unref(bi)
		p.bounds = p.bounds[:0] // hosts freed: a fit may now be earlier
	}
}

// ---------------------------------------------------------------- queries

// Free is the number of free hosts at t (in the slice that holds t; Begin
// for t before it).
func (p *Profile) Free(t xtime.Time) int { return int(p.freeAt(xtime.Max(t, p.Begin()))) }

// MaxFree is the highest number of free hosts over [from, to) (from >=
// Begin); 0 when to <= from.
func (p *Profile) MaxFree(from, to xtime.Time) int {
	if !from.Less(to) {
		return 0
	}
	best := p.freeAt(from)
	if m, ok := p.maxBetween(p.root, 0, from, to); ok {
		best = max(best, m)
	}
	return int(best)
}

// maxBetween is the highest running count at the nodes dated in (lo, hi)
// of subtree v, off being the sum of the deltas before the subtree.
func (p *Profile) maxBetween(v, off int32, lo, hi xtime.Time) (int32, bool) {
	for v != 0 {
		n := &p.nodes[v]
		switch {
		case !lo.Less(n.key): // key <= lo
			off += p.sumOf(n.left) + n.delta
			v = n.right
		case !n.key.Less(hi): // key >= hi
			v = n.left
		default:
			here := off + p.sumOf(n.left) + n.delta
			best := here
			if m, ok := p.maxAfter(n.left, off, lo); ok {
				best = max(best, m)
			}
			if m, ok := p.maxBefore(n.right, here, hi); ok {
				best = max(best, m)
			}
			return best, true
		}
	}
	return 0, false
}

// maxAfter: the highest running count at the nodes dated after lo.
func (p *Profile) maxAfter(v, off int32, lo xtime.Time) (int32, bool) {
	best, found := int32(0), false
	for v != 0 {
		n := &p.nodes[v]
		here := off + p.sumOf(n.left) + n.delta
		if !lo.Less(n.key) {
			off = here
			v = n.right
			continue
		}
		// n and its right subtree are all after lo.
		m := here
		if n.right != 0 {
			m = max(m, here+p.nodes[n.right].maxP)
		}
		if !found || m > best {
			best, found = m, true
		}
		v = n.left
	}
	return best, found
}

// maxBefore: the highest running count at the nodes dated before hi.
func (p *Profile) maxBefore(v, off int32, hi xtime.Time) (int32, bool) {
	best, found := int32(0), false
	for v != 0 {
		n := &p.nodes[v]
		if !n.key.Less(hi) {
			v = n.left
			continue
		}
		// n and its left subtree are all before hi.
		here := off + p.sumOf(n.left) + n.delta
		m := here
		if n.left != 0 {
			m = max(m, off+p.nodes[n.left].maxP)
		}
		if !found || m > best {
			best, found = m, true
		}
		off = here
		v = n.right
	}
	return best, found
}

// atLeast is the first node dated after lo whose running count is at
// least n (0: none).
func (p *Profile) atLeast(v, off int32, lo xtime.Time, n int32) int32 {
	if v == 0 || off+p.nodes[v].maxP < n {
		return 0
	}
	nd := &p.nodes[v]
	ls := p.sumOf(nd.left)
	if !lo.Less(nd.key) {
		return p.atLeast(nd.right, off+ls+nd.delta, lo, n)
	}
	if r := p.atLeast(nd.left, off, lo, n); r != 0 {
		return r
	}
	here := off + ls + nd.delta
	if here >= n {
		return v
	}
	return p.atLeast(nd.right, here, lo, n)
}

// lastBelow is the last node dated in (lo, hi) ([lo, hi) with incl)
// whose running count is below n (0: none).
func (p *Profile) lastBelow(v, off int32, lo, hi xtime.Time, n int32, incl bool) int32 {
	if v == 0 || off+p.nodes[v].minP >= n {
		return 0
	}
	nd := &p.nodes[v]
	ls := p.sumOf(nd.left)
	if c := lo.Cmp(nd.key); c > 0 || (c == 0 && !incl) {
		return p.lastBelow(nd.right, off+ls+nd.delta, lo, hi, n, incl)
	}
	if !nd.key.Less(hi) {
		return p.lastBelow(nd.left, off, lo, hi, n, incl)
	}
	here := off + ls + nd.delta
	if r := p.lastBelow(nd.right, here, lo, hi, n, incl); r != 0 {
		return r
	}
	if here < n {
		return v
	}
	return p.lastBelow(nd.left, off, lo, hi, n, incl)
}

// CanMoveEarlier reports whether a reservation of n hosts from at to
// at+dur (dur xtime.Inf: to the horizon), held in the profile, could be
// made at a date before before (at most at), from on, once taken out:
// whether n hosts are free from such a date t to t+dur, the reservation's
// own hosts counting as free from at on. It does not take the reservation
// out. The dates tried are those of EarliestFit; t is the first that
// fits (every date tried before it lacks hosts).
func (p *Profile) CanMoveEarlier(from, before, at, dur xtime.Time, n int) (t xtime.Time, ok bool) {
	if at.Less(before) {
		before = at
	}
	if !from.Less(before) {
		return from, false
	}
	n32 := int32(n)
	t, have := from, p.freeAt(from) >= n32
	for {
		if !have {
			v := p.atLeast(p.root, 0, t, n32)
			if v == 0 || !p.nodes[v].key.Less(before) {
				return t, false
			}
			t = p.nodes[v].key
		}
		end, ok := p.endOf(t, dur)
		if !ok {
			return t, false
		}
		// From at on, the reservation's own n hosts are free: the span
		// ends before the reservation does, so only its part before at
		// may lack hosts.
		if at.Less(end) {
			end = at
		}
		b := p.lastBelow(p.root, 0, t, end, n32, false)
		if b == 0 {
			return t, true
		}
		t, have = p.nodes[b].key, false
	}
}

// endOf is the end of a reservation of dur from t: the horizon for
// xtime.Inf (until the horizon); ok is false past the horizon.
func (p *Profile) endOf(t, dur xtime.Time) (xtime.Time, bool) {
	if dur == xtime.Inf {
		return p.horizon, t.Less(p.horizon) || p.horizon == xtime.Inf
	}
	e := t.Add(dur)
	return e, !p.horizon.Less(e)
}

// EarliestFit is the earliest date t, from on (from >= Begin), at which n
// hosts are free from t to t + dur: from itself or the beginning of a
// later slice. dur xtime.Inf asks for the hosts until the horizon. ok is
// false when there is none before the horizon (or when n exceeds every
// slice's free hosts).
func (p *Profile) EarliestFit(from, dur xtime.Time, n int) (t xtime.Time, ok bool) {
	return p.EarliestFitBefore(from, xtime.Inf, dur, n)
}

// EarliestFitBefore is EarliestFit among the dates before before: ok is
// false when none of them fits. Its cost does not grow with the slices
// after before.
func (p *Profile) EarliestFitBefore(from, before, dur xtime.Time, n int) (t xtime.Time, ok bool) {
	start := p.lowerBound(from, dur, int32(n))
	if !start.Less(before) {
		return from, false
	}
	t, _, ok = p.earliestCount(start, before, dur, int32(n), p.freeAt(start) >= int32(n))
	if ok {
		p.remember(fitBound{n: int32(n), from: from, dur: dur, at: t})
	}
	return t, ok
}

// lowerBound is the latest date, from on, that the fits remembered since
// the last release show the fit of n hosts for dur from from on cannot
// precede (from itself when none does). A search begun there finds the
// same date as one begun at from: the fit is the earliest date, not only
// the earliest date tried, where the hosts are free (a date inside a
// slice that fits makes the slice's begin, or from, fit as well), so no
// date tried between from and the bound fits.
func (p *Profile) lowerBound(from, dur xtime.Time, n int32) xtime.Time {
	lb := from
	for i := range p.bounds {
		b := &p.bounds[i]
		if b.applies(n, from, dur) && lb.Less(b.at) {
			lb = b.at
		}
	}
	return lb
}

// remember keeps the fit b, unless a fit kept covers it, and drops the
// fits it covers. Past maxFitBounds, the earliest fit goes.
func (p *Profile) remember(b fitBound) {
	for i := range p.bounds {
		if p.bounds[i].covers(&b) {
			return
		}
	}
	kept := p.bounds[:0]
	for _, c := range p.bounds {
		if !b.covers(&c) {
			kept = append(kept, c)
		}
	}
	if len(kept) == maxFitBounds {
		first := 0
		for i := range kept {
			if kept[i].at.Less(kept[first].at) {
				first = i
			}
		}
		kept = slices.Delete(kept, first, first+1)
	}
	p.bounds = append(kept, b)
}

// earliestCount is EarliestFitBefore; have says whether the slice that
// holds from has n free hosts. It returns the date and the end of the
// span.
func (p *Profile) earliestCount(from, before, dur xtime.Time, n int32, have bool) (t, end xtime.Time, ok bool) {
	t = from
	for {
		if !have {
			v := p.atLeast(p.root, 0, t, n)
			if v == 0 || !p.nodes[v].key.Less(before) {
				return t, t, false
			}
			t = p.nodes[v].key
		}
		end, ok := p.endOf(t, dur)
		if !ok {
			return t, end, false
		}
		// The last slice of the span with too few hosts: every date
		// before it fails too (its span holds that slice), so the next
		// one to try is after it.
		b := p.lastBelow(p.root, 0, t, end, n, false)
		if b == 0 {
			return t, end, true
		}
		t, have = p.nodes[b].key, false
	}
}

// EarliestFitHosts is EarliestFit on a profile with host sets: the
// earliest date t at which the hosts free throughout [t, t+dur) (their
// intersection over the slices the span meets) hold n hosts and pick
// finds its n hosts among them. pick returns the hosts it took (appended
// to dst) and whether it found them. The dates tried are those of
// EarliestFit: from, then slice beginnings, as batsched's first fit
// tries its anchors; a date where pick fails is passed for the next one.
func (p *Profile) EarliestFitHosts(from, dur xtime.Time, n int, pick func(free Hosts, n int, dst []int) ([]int, bool), dst []int) (t xtime.Time, hosts []int, ok bool) {
	if p.words == 0 {
		panic("profile: EarliestFitHosts on a profile without host sets")
	}
	if len(p.inter) != p.words {
		p.inter = make(Hosts, p.words)
	}
	inter := p.inter
	t = from
	have := p.freeAt(from) >= int32(n)
	for {
		var end xtime.Time
		t, end, ok = p.earliestCount(t, xtime.Inf, dur, int32(n), have)
		if !ok {
			return t, dst, false
		}
		// Every slice of [t, end) has n free hosts: are n the same?
		v := p.floor(t)
		copy(inter, p.set(v))
		for w := p.nodes[v].next; w != 0 && p.nodes[w].key.Less(end); w = p.nodes[w].next {
			s := p.set(w)
			for k := range inter {
				inter[k] &= s[k]
			}
		}
		if inter.Len() >= n {
			if out, found := pick(inter, n, dst); found {
				return t, out, true
			}
		}
		// The next anchor: the next slice with n free hosts.
		have = false
	}
}

// FreeHosts returns the hosts free throughout [from, to) (from >= Begin,
// to > from) in a profile with host sets.
func (p *Profile) FreeHosts(from, to xtime.Time) Hosts { return p.FreeHostsInto(nil, from, to) }

// FreeHostsInto is FreeHosts in dst (reused when large enough).
func (p *Profile) FreeHostsInto(dst Hosts, from, to xtime.Time) Hosts {
	v := p.floor(from)
	out := append(dst[:0], p.set(v)...)
	for w := p.nodes[v].next; w != 0 && p.nodes[w].key.Less(to); w = p.nodes[w].next {
		s := p.set(w)
		for k := range out {
			out[k] &= s[k]
		}
	}
	return out
}

// ---------------------------------------------------------------- slices

// Slice is one slice of a profile, as Slices gives them.
type Slice struct {
	// Begin and End are the slice's dates (End is the horizon for the
	// last).
	Begin, End xtime.Time
	// Free is the number of free hosts.
	Free int
	// Hosts is the set of free hosts (nil without host sets). It is the
	// profile's: do not modify it, and do not keep it past a change of
	// the profile.
	Hosts Hosts
}

// Slices yields the slices in date order. The profile must not change
// during the iteration.
func (p *Profile) Slices() iter.Seq[Slice] {
	return func(yield func(Slice) bool) {
		free := int32(0)
		for v := p.first; v != 0; v = p.nodes[v].next {
			n := &p.nodes[v]
			free += n.delta
			s := Slice{Begin: n.key, End: p.horizon, Free: int(free)}
			if n.next != 0 {
				s.End = p.nodes[n.next].key
			}
			if p.words > 0 {
				s.Hosts = p.set(v)
			}
			if !yield(s) {
				return
			}
		}
	}
}

// String lists the slices, one a line: [begin, end) free (and the free
// hosts' ids with host sets).
func (p *Profile) String() string {
	var b strings.Builder
	for s := range p.Slices() {
		fmt.Fprintf(&b, "[%g, %g) %d", s.Begin.Float(), s.End.Float(), s.Free)
		if s.Hosts != nil {
			fmt.Fprintf(&b, " %v", s.Hosts.IDs(nil))
		}
		b.WriteByte('\n')
	}
	return b.String()
}
