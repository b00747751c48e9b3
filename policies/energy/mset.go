package energy

import (
	"math/bits"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/sched/profile"
)

// mset is a set of machines (batsched's IntervalSet) as a bit set; every
// set of one schedule has the same number of words. It is a
// profile.Hosts, with the set algebra batsched's energy variants use in
// place (and, or, andNot) and as new sets (inter, union, minus).
type mset profile.Hosts

func newMset(n int) mset { return mset(profile.NewHosts(n)) }

// fullMset is {0, ..., n-1}.
func fullMset(n int) mset { return mset(profile.AllHosts(n)) }

func msetOf(n int, ids ...int) mset { return mset(profile.HostsOf(n, ids...)) }

func (s mset) clone() mset { return mset(profile.Hosts(s).Clone()) }

func (s mset) has(i int) bool { return profile.Hosts(s).Has(i) }
func (s mset) add(i int)      { profile.Hosts(s).Add(i) }
func (s mset) del(i int)      { profile.Hosts(s).Remove(i) }
func (s mset) size() int      { return profile.Hosts(s).Len() }

func (s mset) empty() bool {
	for _, w := range s {
		if w != 0 {
			return false
		}
	}
	return true
}

// and, or and andNot change s in place (s &= o, s += o, s -= o).
func (s mset) and(o mset) {
	for i := range s {
		s[i] &= o[i]
	}
}

func (s mset) or(o mset) {
	for i := range s {
		s[i] |= o[i]
	}
}

func (s mset) andNot(o mset) {
	for i := range s {
		s[i] &^= o[i]
	}
}

func (s mset) equal(o mset) bool {
	for i := range s {
		if s[i] != o[i] {
			return false
		}
	}
	return true
}

// inter, union and minus are new sets.
func (s mset) inter(o mset) mset { c := s.clone(); c.and(o); return c }
func (s mset) union(o mset) mset { c := s.clone(); c.or(o); return c }
func (s mset) minus(o mset) mset { c := s.clone(); c.andNot(o); return c }

// left is the set of the k lowest machines of s (all of s when it has
// fewer).
func (s mset) left(k int) mset {
	out := make(mset, len(s))
	for i, w := range s {
		if k <= 0 {
			break
		}
		if c := bits.OnesCount64(w); c <= k {
			out[i] = w
			k -= c
			continue
		}
		for ; k > 0; k-- {
			b := w & -w
			out[i] |= b
			w &^= b
		}
	}
	return out
}

// first is the lowest machine (-1 when empty).
func (s mset) first() int {
	if l := profile.Hosts(s).Lowest(1, nil); len(l) > 0 {
		return l[0]
	}
	return -1
}

// elements lists the machines in increasing order.
func (s mset) elements() []int { return profile.Hosts(s).IDs(nil) }

// String is the set as Batsim writes one ("0-3 5").
func (s mset) String() string { return batsim.IntervalSet(s.elements()).String() }
