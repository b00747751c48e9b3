package sched

import "math"

// fitTree is a segment tree of job sizes over the positions of the waiting
// queue (absolute positions: they do not change when leading entries are
// dropped). A leaf holds the size of the waiting job at that position, or
// +Inf once the job left the queue. nextFit finds the first waiting job at
// or after a position that fits in a number of free hosts in O(log n), so
// EASY's backfill over an arrival-ordered queue skips runs of jobs too
// large to start.
//
// Each node covering at least fitBucket leaves also keeps, by size tier
// (fitTierBounds), the shortest walltime among its jobs of at most the
// tier's hosts: nextStartable's test of such a node is then exact when the
// free hosts are a tier's bound (every size up to 8 hosts is one), where
// the smallest size and the shortest walltime alone would let it go down
// into ranges whose small jobs are all long and whose short jobs are all
// large, to find nothing there.
type fitTree struct {
	base int64   // absolute position of leaf 0
	n    int     // number of leaves (a power of two)
	t    []int32 // 1-based heap layout: t[1] is the root, leaves at n..2n-1
	// w is the shortest walltime under each node (WalltimeOrInf), rounded
	// down to a float32: never above the true one.
	w []float32
	// tw is, for the nodes 1..2n/fitBucket-1 (those covering fitBucket
	// leaves or more), the shortest walltime by size tier, rounded as w.
	tw [][fitTiers]float32
}

const (
	fitNone   = math.MaxInt32
	fitBucket = 32
	fitTiers  = 16
)

// fitTierBounds are the sizes of the tiers of fitTree.tw: tier k holds the
// jobs of at most fitTierBounds[k] hosts.
var fitTierBounds = [fitTiers]int32{1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 32, 64, 128, 256, 512, 1024}

// fitTier is the first tier whose bound is at least res hosts (fitTiers
// when above them all).
func fitTier(res int32) int {
	if res >= 0 && int(res) < len(fitTierOf) {
		return int(fitTierOf[res])
	}
	return fitTiers
}

// fitTierOf is fitTier of the sizes up to the last tier's bound.
var fitTierOf = func() (t [1025]uint8) {
	k := 0
	for r := range t {
		for int32(r) > fitTierBounds[k] {
			k++
		}
		t[r] = uint8(k)
	}
	return t
}()

// Shortest walltimes by size tier, kept as float32 by the fit tree and as
// float64 by the order index (seqBlock.tw, jobSeq.tb).
type tierWalls interface{ ~float32 | ~float64 }

// noTiersOf is every tier empty: +Inf.
func noTiersOf[T tierWalls]() (t [fitTiers]T) {
	for k := range t {
		t[k] = T(math.Inf(1))
	}
	return t
}

// minTiers is the tier-by-tier minimum of a and b (the tiers of a range
// from those of its two halves).
func minTiers[T tierWalls](a, b *[fitTiers]T) (c [fitTiers]T) {
	for k := range c {
		c[k] = min(a[k], b[k])
	}
	return c
}

// cumulateTiers turns the shortest walltime of the sizes of each tier
// alone into that of the sizes up to each tier's bound.
func cumulateTiers[T tierWalls](m *[fitTiers]T) {
	for k := 1; k < fitTiers; k++ {
		m[k] = min(m[k], m[k-1])
	}
}

var fitNoTiers = noTiersOf[float32]()

func newFitTree(base int64, capacity int) *fitTree {
	n := 64
	for n < capacity {
		n *= 2
	}
	f := &fitTree{base: base, n: n, t: make([]int32, 2*n), w: make([]float32, 2*n), tw: make([][fitTiers]float32, 2*n/fitBucket)}
	inf := float32(math.Inf(1))
	for i := range f.t {
		f.t[i] = fitNone
		f.w[i] = inf
	}
	for i := range f.tw {
		f.tw[i] = fitNoTiers
	}
	return f
}

// covers reports whether absolute position p has a leaf.
func (f *fitTree) covers(p int64) bool { return p >= f.base && p < f.base+int64(f.n) }

// leaf puts a job of res hosts and walltime wall at p without updating
// the nodes above it (set does; build does for all leaves at once).
func (f *fitTree) leaf(p int64, res int, wall float64) int {
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
	return i
}

// set puts a job of res hosts and walltime wall (WalltimeOrInf) at p;
// res fitNone (and wall +Inf) empties the leaf.
func (f *fitTree) set(p int64, res int, wall float64) {
	leaf := int(p-f.base) + f.n
	empty := f.t[leaf] == fitNone // a job joins: the tiers only go down
	i := f.leaf(p, res, wall)
	tiers := true // whether the tiers below i changed
	for i /= 2; i >= 1; i /= 2 {
		f.t[i] = min(f.t[2*i], f.t[2*i+1])
		f.w[i] = min(f.w[2*i], f.w[2*i+1])
		switch {
		case i >= len(f.tw):
		case i >= len(f.tw)/2 && empty:
			tiers = f.lowerTiers(i, f.t[leaf], f.w[leaf])
		case i >= len(f.tw)/2:
			tiers = f.bucketTiers(i)
		case tiers:
			old := f.tw[i]
			f.tw[i] = minTiers(&f.tw[2*i], &f.tw[2*i+1])
			tiers = f.tw[i] != old
		}
	}
}

// lowerTiers lowers the tiers of node b for a job of res hosts and
// walltime w (rounded) that joined it, and reports whether they changed.
func (f *fitTree) lowerTiers(b int, res int32, w float32) bool {
	changed := false
	for k := fitTier(res); k < fitTiers; k++ {
		if w < f.tw[b][k] {
			f.tw[b][k], changed = w, true
		}
	}
	return changed
}

// bucketTiers recomputes the tiers of bucket node b from its leaves and
// reports whether they changed.
func (f *fitTree) bucketTiers(b int) bool {
	m := fitNoTiers
	lo := (b - len(f.tw)/2) * fitBucket
	for i := f.n + lo; i < f.n+lo+fitBucket; i++ {
		if k := fitTier(f.t[i]); k < fitTiers {
			m[k] = min(m[k], f.w[i])
		}
	}
	cumulateTiers(&m)
	if m == f.tw[b] {
		return false
	}
	f.tw[b] = m
	return true
}

// build computes every node above the leaves (after leaf calls).
func (f *fitTree) build() {
	nb := len(f.tw) / 2
	for i := f.n - 1; i >= 1; i-- {
		f.t[i] = min(f.t[2*i], f.t[2*i+1])
		f.w[i] = min(f.w[2*i], f.w[2*i+1])
		switch {
		case i >= 2*nb:
		case i >= nb:
			f.bucketTiers(i)
		default:
			f.tw[i] = minTiers(&f.tw[2*i], &f.tw[2*i+1])
		}
	}
}

// nextStartable is the first absolute position >= from that may hold a
// job Backfill can start (res <= small, or res <= free and now + walltime
// <= shadow), or -1: the position of every such job is found, and a few
// others may be (the stored walltimes are rounded down; a range of a
// bucket, or a node when free is not a tier's bound, may hold a job small
// enough and another short enough), which Backfill tests and passes.
func (f *fitTree) nextStartable(from int64, free, small int, now, shadow float64) int64 {
	if from < f.base {
		from = f.base
	}
	if from >= f.base+int64(f.n) {
		return -1
	}
	tier := fitTier(int32(min(free, fitNone)))
	may := func(i int) bool {
		r := int(f.t[i])
		if r <= small {
			return true
		}
		if r > free {
			return false
		}
		w := f.w[i]
		if i < len(f.tw) && tier < fitTiers {
			w = f.tw[i][tier]
		}
		return now+float64(w) <= shadow
	}
	i := int(from-f.base) + f.n
	for {
		if may(i) {
			// Down to the first leaf that may (a node may while none
			// of its children does when its test is not exact; then
			// the search goes on after it).
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
