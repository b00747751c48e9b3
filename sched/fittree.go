package sched

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
	// w is the shortest walltime under each node (WalltimeOrInf), rounded
	// down to a float32: never above the true one.
	w []float32
}

const fitNone = math.MaxInt32

func newFitTree(base int64, capacity int) *fitTree {
	n := 64
	for n < capacity {
		n *= 2
	}
	f := &fitTree{base: base, n: n, t: make([]int32, 2*n), w: make([]float32, 2*n)}
	inf := float32(math.Inf(1))
	for i := range f.t {
		f.t[i] = fitNone
		f.w[i] = inf
	}
	return f
}

// covers reports whether absolute position p has a leaf.
func (f *fitTree) covers(p int64) bool { return p >= f.base && p < f.base+int64(f.n) }

// set puts a job of res hosts and walltime wall (WalltimeOrInf) at p;
// res fitNone (and wall +Inf) empties the leaf.
func (f *fitTree) set(p int64, res int, wall float64) {
	v := int32(fitNone)
	if res < fitNone {
		v = int32(max(res, 0))
	}
	w := float32(wall)
	if float64(w) > wall {
		w = math.Nextafter32(w, float32(math.Inf(-1)))
	}
	i := int(p-f.base) + f.n
	f.t[i], f.w[i] = v, w
	for i /= 2; i >= 1; i /= 2 {
		f.t[i] = min(f.t[2*i], f.t[2*i+1])
		f.w[i] = min(f.w[2*i], f.w[2*i+1])
	}
}

// nextStartable is the first absolute position >= from that may hold a
// job Backfill can start (res <= small, or res <= free and now + walltime
// <= shadow), or -1: the position of every such job is found, and a few
// others may be (the stored walltimes are rounded down), which Backfill
// tests and passes.
func (f *fitTree) nextStartable(from int64, free, small int, now, shadow float64) int64 {
	if from < f.base {
		from = f.base
	}
	if from >= f.base+int64(f.n) {
		return -1
	}
	may := func(i int) bool {
		r := int(f.t[i])
		return r <= small || (r <= free && now+float64(f.w[i]) <= shadow)
	}
	i := int(from-f.base) + f.n
	for {
		if may(i) {
			// Down to the first leaf that may (a node may while none
			// of its children does: its smallest size and shortest
			// walltime are two jobs'; then the search goes on after it).
			for i < f.n && (may(2*i) || may(2*i+1)) {
				if may(2 * i) {
					i = 2 * i
				} else {
					i = 2*i + 1
				}
			}
			if i >= f.n {
				return f.base + int64(i-f.n)
			}
		}
		// The next subtree on the right of i.
		for i%2 == 1 {
			i /= 2
			if i == 0 {
				return -1
			}
		}
		i++
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
