package schedulers

import "math"

// fitTree is a segment tree of job sizes over the positions of the waiting
// queue (absolute positions: they do not change when leading entries are
// dropped). A leaf holds the size of the waiting job at that position, or
// +Inf once the job left the queue. nextFit finds the first waiting job at
// or after a position that fits in a number of free hosts in O(log n), so
// EASY's backfill over an arrival-ordered queue skips runs of jobs too
// large to start.
type fitTree struct {
	base int64   // absolute position of leaf 0
	n    int     // number of leaves (a power of two)
	t    []int32 // 1-based heap layout: t[1] is the root, leaves at n..2n-1
}

const fitNone = math.MaxInt32

func newFitTree(base int64, capacity int) *fitTree {
	n := 64
	for n < capacity {
		n *= 2
	}
	f := &fitTree{base: base, n: n, t: make([]int32, 2*n)}
	for i := range f.t {
		f.t[i] = fitNone
	}
	return f
}

// covers reports whether absolute position p has a leaf.
func (f *fitTree) covers(p int64) bool { return p >= f.base && p < f.base+int64(f.n) }

func (f *fitTree) set(p int64, res int) {
	v := int32(fitNone)
	if res < fitNone {
		v = int32(max(res, 0))
	}
	i := int(p-f.base) + f.n
	f.t[i] = v
	for i /= 2; i >= 1; i /= 2 {
		f.t[i] = min(f.t[2*i], f.t[2*i+1])
	}
}

// nextFit is the first absolute position >= from whose size is <= limit,
// or -1.
func (f *fitTree) nextFit(from int64, limit int) int64 {
	if from < f.base {
		from = f.base
	}
	if from >= f.base+int64(f.n) {
		return -1
	}
	// Walk up from the leaf, looking right, then down to the first match.
	i := int(from-f.base) + f.n
	if int(f.t[i]) <= limit {
		return from
	}
	for {
		// Move to the next subtree on the right that starts after i.
		for i%2 == 1 {
			i /= 2
			if i == 0 {
				return -1
			}
		}
		i++
		if int(f.t[i]) <= limit {
			break
		}
	}
	for i < f.n {
		if int(f.t[2*i]) <= limit {
			i = 2 * i
		} else {
			i = 2*i + 1
		}
	}
	return f.base + int64(i-f.n)
}
