package schedulers

import "math"

// candidateIndex counts waiting jobs by (size, walltime class) in a 2-D
// Fenwick tree, so that EASY's backfill can tell in O(log² n) that no job
// left in the queue can start, instead of scanning the whole queue. Walltime
// classes are quarter octaves of seconds (each class spans less than 19 %),
// the last class holds jobs without walltime. Counts only ever
// over-estimate the candidates a scan can find, which keeps every early exit
// exact.
type candidateIndex struct {
	nres, ncls int
	tree       []int32 // (nres+1) × (ncls+1), 1-based
}

const walltimeClasses = 128

func newCandidateIndex(nhosts int) *candidateIndex {
	// Sizes 0..nhosts+1 (0: res <= 0, nhosts+1: above the platform).
	n := nhosts + 2
	return &candidateIndex{nres: n, ncls: walltimeClasses, tree: make([]int32, (n+1)*(walltimeClasses+1))}
}

// walltimeClass maps a walltime (0 or less: none) to its class.
func walltimeClass(w float64) int {
	switch {
	case w <= 0 || math.IsInf(w, 1):
		return walltimeClasses - 1
	case w <= 1:
		return 0
	}
	c := 1 + int(4*math.Log2(w))
	if c > walltimeClasses-2 {
		c = walltimeClasses - 2
	}
	return c
}

func (x *candidateIndex) add(res, cls int, delta int32) {
	for i := res + 1; i <= x.nres; i += i & -i {
		row := x.tree[i*(x.ncls+1):]
		for k := cls + 1; k <= x.ncls; k += k & -k {
			row[k] += delta
		}
	}
}

// count is the number of jobs with size index <= res and class <= cls.
func (x *candidateIndex) count(res, cls int) int {
	if res < 0 || cls < 0 {
		return 0
	}
	res = min(res, x.nres-1)
	cls = min(cls, x.ncls-1)
	n := int32(0)
	for i := res + 1; i > 0; i -= i & -i {
		row := x.tree[i*(x.ncls+1):]
		for k := cls + 1; k > 0; k -= k & -k {
			n += row[k]
		}
	}
	return int(n)
}
