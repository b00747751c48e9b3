package energy

import (
	"math/bits"
	"strconv"
	"strings"
)

// mset is a set of machines (batsched's IntervalSet) as a bit set; every
// set of one schedule has the same number of words.
type mset []uint64

func newMset(n int) mset { return make(mset, (n+63)/64) }

// fullMset is {0, ..., n-1}.
func fullMset(n int) mset {
	s := newMset(n)
	for i := 0; i < n; i++ {
		s.add(i)
	}
	return s
}

func msetOf(n int, ids ...int) mset {
	s := newMset(n)
	for _, i := range ids {
		s.add(i)
	}
	return s
}

func (s mset) clone() mset { return append(mset(nil), s...) }

func (s mset) has(i int) bool { return s[i>>6]&(1<<(uint(i)&63)) != 0 }
func (s mset) add(i int)      { s[i>>6] |= 1 << (uint(i) & 63) }
func (s mset) del(i int)      { s[i>>6] &^= 1 << (uint(i) & 63) }

func (s mset) size() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

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
	for i, w := range s {
		if w != 0 {
			return i<<6 + bits.TrailingZeros64(w)
		}
	}
	return -1
}

// elements lists the machines in increasing order.
func (s mset) elements() []int {
	var out []int
	for i, w := range s {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			out = append(out, i<<6+b)
			w &^= 1 << uint(b)
		}
	}
	return out
}

// String is the set as Batsim writes one ("0-3 5").
func (s mset) String() string {
	var b strings.Builder
	e := s.elements()
	for i := 0; i < len(e); {
		k := i
		for k+1 < len(e) && e[k+1] == e[k]+1 {
			k++
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(e[i]))
		if k > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(e[k]))
		}
		i = k + 1
	}
	return b.String()
}
