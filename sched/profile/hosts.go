package profile

import "math/bits"

// Hosts is a set of host ids (0, 1, ...) as a bitset: bit i of word i/64
// is host i. The zero value is the empty set; a set has room for the ids
// below 64·len(h).
type Hosts []uint64

// NewHosts returns an empty set with room for the ids 0..n-1.
func NewHosts(n int) Hosts { return make(Hosts, (n+63)/64) }

// AllHosts returns the set of the ids 0..n-1.
func AllHosts(n int) Hosts {
	h := NewHosts(n)
	for i := range n / 64 {
		h[i] = ^uint64(0)
	}
	if r := n % 64; r != 0 {
		h[n/64] = 1<<r - 1
	}
	return h
}

// HostsOf returns the set of ids with room for the ids 0..n-1.
func HostsOf(n int, ids ...int) Hosts {
	h := NewHosts(n)
	for _, id := range ids {
		h.Add(id)
	}
	return h
}

// Add puts id in the set.
func (h Hosts) Add(id int) { h[id>>6] |= 1 << (id & 63) }

// Remove takes id out of the set.
func (h Hosts) Remove(id int) { h[id>>6] &^= 1 << (id & 63) }

// Has reports whether id is in the set.
func (h Hosts) Has(id int) bool { return id>>6 < len(h) && h[id>>6]&(1<<(id&63)) != 0 }

// Len is the number of ids in the set.
func (h Hosts) Len() int {
	n := 0
	for _, w := range h {
		n += bits.OnesCount64(w)
	}
	return n
}

// Clone returns a copy of h.
func (h Hosts) Clone() Hosts { return append(Hosts(nil), h...) }

// IDs appends the ids of the set to dst in increasing order.
func (h Hosts) IDs(dst []int) []int {
	for i, w := range h {
		for w != 0 {
			dst = append(dst, i*64+bits.TrailingZeros64(w))
			w &= w - 1
		}
	}
	return dst
}

// Lowest appends to dst the n lowest ids of the set (all of them when it
// holds fewer), in increasing order: batsched's IntervalSet::left.
func (h Hosts) Lowest(n int, dst []int) []int {
	for i, w := range h {
		for w != 0 && n > 0 {
			dst = append(dst, i*64+bits.TrailingZeros64(w))
			w &= w - 1
			n--
		}
		if n == 0 {
			break
		}
	}
	return dst
}

// FirstRun appends to dst the n lowest ids of the first run of
// consecutive ids (by increasing id) that holds at least n ids, and
// reports whether there is one: batsched's contiguous resource selection
// (the first interval of the set long enough, its left n ids).
func (h Hosts) FirstRun(n int, dst []int) ([]int, bool) {
	if n <= 0 {
		return dst, true
	}
	start, run := 0, 0
	for id := 0; id < len(h)*64; id++ {
		if id&63 == 0 && h[id>>6] == 0 {
			run = 0
			id += 63
			continue
		}
		if h[id>>6]&(1<<(id&63)) == 0 {
			run = 0
			continue
		}
		if run == 0 {
			start = id
		}
		if run++; run == n {
			for k := range n {
				dst = append(dst, start+k)
			}
			return dst, true
		}
	}
	return dst, false
}
