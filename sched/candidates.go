package sched

import "math"

// candidateIndex counts waiting jobs by (size, walltime class) in a 2-D
// Fenwick tree and keeps the jobs of each class in a bucket, so that EASY's
// backfill can count exactly the jobs that can still start and stop its
// scan of the queue once it has passed them all. Walltime classes are
// sixteenths of an octave of seconds (each spans under 4.5 %); the last class
// holds jobs without walltime.
type candidateIndex struct {
	nres, ncls int
	tree       []int32  // (nres+1) × (ncls+1), 1-based
	byClass    [][]*Job // the waiting jobs of each class (j.cpos is the index)
	// scratch tallies of Backfill, by size index
	passEnds, passLong []int
}

const (
	walltimeClasses = 16*40 + 2
	// maxIndexedHosts bounds the platforms the index is built for (its size
	// grows with hosts × classes); beyond it, Backfill scans the whole queue.
	maxIndexedHosts = 4096
)

func newCandidateIndex(nhosts int) *candidateIndex {
	if nhosts > maxIndexedHosts {
		return nil
	}
	// Sizes 0..nhosts+1 (0: res <= 0, nhosts+1: above the platform).
	n := nhosts + 2
	return &candidateIndex{nres: n, ncls: walltimeClasses,
		tree: make([]int32, (n+1)*(walltimeClasses+1)), byClass: make([][]*Job, walltimeClasses),
		passEnds: make([]int, n), passLong: make([]int, n)}
}

// passedScratch returns the two zeroed tallies Backfill keeps of the jobs
// it has passed.
func (x *candidateIndex) passedScratch() (ends, long []int) {
	clear(x.passEnds)
	clear(x.passLong)
	return x.passEnds, x.passLong
}

// walltimeClass maps a walltime (0 or less, or +Inf: none) to its class;
// it never decreases as w grows.
func walltimeClass(w float64) int {
	switch {
	case w <= 0 || math.IsInf(w, 1):
		return walltimeClasses - 1
	case w <= 1:
		return 0
	}
	c := 1 + int(16*math.Log2(w))
	if c > walltimeClasses-2 {
		c = walltimeClasses - 2
	}
	return c
}

func (x *candidateIndex) insert(res int, j *Job) {
	c := int(j.wcls)
	j.cpos = int32(len(x.byClass[c]))
	x.byClass[c] = append(x.byClass[c], j)
	x.add(res, c, 1)
}

func (x *candidateIndex) remove(res int, j *Job) {
	c := int(j.wcls)
	b := x.byClass[c]
	last := b[len(b)-1]
	b[j.cpos] = last
	last.cpos = j.cpos
	b[len(b)-1] = nil
	x.byClass[c] = b[:len(b)-1]
	x.add(res, c, -1)
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

// backfillCandidates counts exactly the waiting jobs that EASY's backfill
// could start with free hosts, the shadow time and small = min(free,
// extra): size <= free and now + walltime <= shadow, or size <= small
// whatever the walltime. Classes more than one away from the class of
// shadow - now are counted from the tree (their walltimes are at least
// 4 % away from it, far beyond rounding); the jobs of the three classes
// around it are tested one by one with the very predicate Backfill uses.
func (s *State) backfillCandidates(free, small int, shadow float64) int {
	x := s.cands
	rf, rs := s.resIndex(free), s.resIndex(small)
	if small < 1 {
		rs = -1
	}
	if math.IsInf(shadow, 1) {
		return x.count(rf, walltimeClasses-1)
	}
	cls := walltimeClass(shadow - s.now)
	if shadow <= s.now {
		cls = 0
	}
	lo, hi := max(cls-1, 0), min(cls+1, walltimeClasses-1)
	n := x.count(rf, lo-1)
	if rs >= 0 {
		n += x.count(rs, walltimeClasses-1) - x.count(rs, hi)
	}
	for c := lo; c <= hi; c++ {
		for _, j := range x.byClass[c] {
			if j.res > free {
				continue
			}
			if s.now+j.WalltimeOrInf() <= shadow || j.res <= small {
				n++
			}
		}
	}
	return n
}
