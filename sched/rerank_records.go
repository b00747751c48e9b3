package sched

import (
	"math"
	"math/bits"
	"slices"
)

// The Sf walk by records, used when Sf cannot grow with the rank: when the
// waiting-time weight is 0 (BUCMA's two weightings of the paper) or when the
// base order is the submission order (an earlier rank is then an earlier
// submission, a longer wait).
//
// Sf is then the sum of the owner's term (α·Su/100) and terms that only
// decrease as the base rank and the walltime grow (a job without walltime
// counts as the longest), each operation monotone bit for bit. So a job
// that comes after another job of the same score in the base order, with a
// walltime no shorter, also comes after it in the Sf order (the same Sf or
// less, and a later rank breaks the tie). The jobs no such job is ahead of
// are the records of their score level: the first job of the level in the
// base order, then each next one whose walltime is shorter than every
// earlier one's (about ln n of n jobs for walltimes in random order).
// Every other job is behind a record, so the best job of the queue is the
// best of the records, and when a record leaves the walk its place is taken
// by the records of the range it was holding back (between the records
// before and after it). Records are found through the tree of the base
// order's jobSeq: the first job after a place whose walltime is below a
// bound skips every range whose shortest walltime, smallest size or users
// rule it out.
//
// A decision costs the levels' records (a few per score level: scores take
// few values) rather than the part of the queue whose bounds reach the
// best Sf, as the search of the tree does.

// recNode is a record of the walk: a job of one score level that no other
// remaining job of the level is ahead of on both base rank and walltime.
type recNode struct {
	lvl        int32
	bi, ei     int32   // place in the jobSeq
	wall       float64 // walltime, +Inf without
	prev, next int32   // the level's records before and after it (w.recs indexes), -1 for none
}

// entryWall is an entry's walltime as the records compare it: +Inf without.
func entryWall(e *seqEntry) float64 {
	if e.wall > 0 {
		return e.wall
	}
	return math.Inf(1)
}

// startRecords starts the records walk over w.q: the score levels of the
// users (their first terms of Sf), and the records of each level, in the
// heap with their exact Sf.
func (w *sfWalk) startRecords() {
	w.byRecords = true
	w.q.enableWalls()
	w.q.ready()
	w.lvlOf = w.lvlOf[:0]
	w.lvlMask = w.lvlMask[:0]
	var terms []float64
	var many map[uint64]int32 // past a few levels
	for uid, t := range w.suTerm {
		l := int32(-1)
		if many != nil {
			if v, ok := many[math.Float64bits(t)]; ok {
				l = v
			}
		} else if i := slices.IndexFunc(terms, func(v float64) bool { return math.Float64bits(v) == math.Float64bits(t) }); i >= 0 {
			l = int32(i)
		}
		if l < 0 {
			l = int32(len(w.lvlMask))
			w.lvlMask = append(w.lvlMask, 0)
			if many != nil {
				many[math.Float64bits(t)] = l
			} else if terms = append(terms, t); len(terms) > 16 {
				many = map[uint64]int32{}
				for i, v := range terms {
					many[math.Float64bits(v)] = int32(i)
				}
			}
		}
		w.lvlOf = append(w.lvlOf, l)
		w.lvlMask[l] |= 1 << (uint(uid) % 64)
	}
	w.lvlTerm = w.lvlTerm[:0]
	for l := range w.lvlMask {
		w.lvlTerm = append(w.lvlTerm, math.NaN())
		_ = l
	}
	for uid, l := range w.lvlOf {
		w.lvlTerm[l] = w.suTerm[uid]
	}
	w.rest = w.rest[:0]
	for l := range w.lvlMask {
		w.rest = append(w.rest, recRest{anchor: -1, bi: 0, ei: -1, first: true})
		w.h = append(w.h, sfItem{sf: w.restBound(int32(l), 0), node: 1, bi: int32(l)})
	}
	for i := len(w.h)/2 - 1; i >= 0; i-- {
		siftDown(w.h, i)
	}
}

// recRest is where the search for a level's next records resumes: after
// place (bi, ei), a walltime below thr (any when first), the record found
// coming after record anchor (-1: first). gen tells the heap item standing
// for it (node 1, bi the level, ei gen) from older ones.
type recRest struct {
	anchor int32
	bi, ei int
	thr    float64
	first  bool
	gen    int32
	done   bool
}

// restBound bounds the Sf of the jobs of level l from base rank r on: the
// level's score, the shortest walltime and earliest submission of the
// queue.
func (w *sfWalk) restBound(l int32, r int) float64 {
	return w.z.sfTerm(w.lvlTerm[l], r, w.minSub0, w.minW0, !math.IsInf(w.minW0, 1))
}

// resume sets level l's search to resume after place (bi, ei) of base rank
// r, below walltime thr (any when first), after record anchor, and puts
// its item in the heap.
func (w *sfWalk) resume(l int32, anchor int32, bi, ei int, r int, thr float64, first bool) {
	rs := &w.rest[l]
	*rs = recRest{anchor: anchor, bi: bi, ei: ei, thr: thr, first: first, gen: rs.gen + 1}
	w.push(sfItem{sf: w.restBound(l, r+1), rank: r + 1, node: 1, bi: l, ei: rs.gen})
}

// addRecord adds the record at place (bi, ei), of base rank r, between
// records prev and next of level l, and puts it in the heap (appended
// only: the caller restores the heap order); it returns its index.
func (w *sfWalk) addRecord(l int32, bi, ei int, prev, next int32, r int) int32 {
	e := &w.q.blocks[bi].e[ei]
	n := int32(len(w.recs))
	w.recs = append(w.recs, recNode{lvl: l, bi: int32(bi), ei: int32(ei), wall: entryWall(e), prev: prev, next: next})
	if prev >= 0 {
		w.recs[prev].next = n
	}
	w.h = append(w.h, sfItem{sf: w.sfOf(e, r), rank: r, bi: n})
	return n
}

// nextRecord is Next by records.
func (w *sfWalk) nextRecord(lim int32) *Job {
	for len(w.h) > 0 {
		it := w.pop()
		if it.node == 1 {
			// A level's next record.
			l := it.bi
			rs := w.rest[l]
			if rs.gen != it.ei || rs.done {
				continue // replaced by a later resume
			}
			nb, ne, ok := w.findRecord(l, rs.bi, rs.ei, len(w.q.blocks), 0, rs.thr, rs.first, lim)
			if !ok {
				w.rest[l].done = true
				continue
			}
			r := w.q.prefixN(nb) + ne
			k := w.addRecord(l, nb, ne, rs.anchor, -1, r)
			w.up(len(w.h) - 1)
			w.resume(l, k, nb, ne, r, w.recs[k].wall, false)
			continue
		}
		rn := &w.recs[it.bi]
		e := &w.q.blocks[rn.bi].e[rn.ei]
		j := e.j
		_, gave := w.given[j]
		ok := e.res != seqDead && e.res <= lim && !gave
		w.dropRecord(it.bi, it.rank, lim)
		if ok {
			if w.given == nil {
				w.given = map[*Job]struct{}{}
			}
			w.given[j] = struct{}{}
			return j
		}
	}
	return nil
}

// dropRecord takes record k, of base rank r, out of the walk (given,
// gone, or above the limit): the remaining jobs it held back are behind
// the records found between the record before it and the one after, which
// enter the heap; when it is the last record found, its level's search
// resumes after it as if it had not been found.
func (w *sfWalk) dropRecord(k int32, r int, lim int32) {
	x := w.recs[k]
	thr, first := math.Inf(1), true
	if x.prev >= 0 {
		thr, first = w.recs[x.prev].wall, false
	}
	if x.next < 0 {
		if x.prev >= 0 {
			w.recs[x.prev].next = -1
		}
		w.resume(x.lvl, x.prev, int(x.bi), int(x.ei), r, thr, first)
		return
	}
	endB, endE := int(w.recs[x.next].bi), int(w.recs[x.next].ei)
	last := x.prev
	bi, ei := int(x.bi), int(x.ei)
	for {
		nb, ne, ok := w.findRecord(x.lvl, bi, ei, endB, endE, thr, first, lim)
		if !ok {
			break
		}
		last = w.addRecord(x.lvl, nb, ne, last, x.next, w.q.prefixN(nb)+ne)
		w.up(len(w.h) - 1)
		bi, ei, thr, first = nb, ne, w.recs[last].wall, false
	}
	if x.prev >= 0 && last == x.prev {
		w.recs[x.prev].next = x.next
	}
	w.recs[x.next].prev = last
}

// findRecord is the place of the first remaining job of level l (live,
// res <= lim, not given by the walk) after place (bi, ei) and before
// (endB, endE) whose walltime is below thr (any walltime when first).
func (w *sfWalk) findRecord(l int32, bi, ei, endB, endE int, thr float64, first bool, lim int32) (int, int, bool) {
	q := w.q
	mask := w.lvlMask[l]
	one := len(w.lvlMask) == 1
	may := func(x int) bool {
		a := &q.tree[x]
		if a.live == 0 || a.minRes > lim || a.users&mask == 0 || !(first || a.minW < thr) {
			return false
		}
		if first || one {
			return true
		}
		// The shortest walltime of the level's users' buckets.
		wb := &q.wb[x]
		for m := mask; m != 0; m &= m - 1 {
			if wb[bits.TrailingZeros64(m)] < thr {
				return true
			}
		}
		return false
	}
	ei++
	for bi < len(q.blocks) && bi <= endB {
		b := q.blocks[bi]
		if !may(q.p + bi) {
			ei = len(b.e) // nothing in the rest of this block either
		}
		for ; ei < len(b.e); ei++ {
			if bi == endB && ei >= endE {
				return 0, 0, false
			}
			e := &b.e[ei]
			if e.res == seqDead || e.res > lim || !(first || entryWall(e) < thr) || w.lvlOf[e.uid] != l {
				continue
			}
			if _, gave := w.given[e.j]; gave {
				continue
			}
			return bi, ei, true
		}
		bi = q.nextBlockAt(bi+1, may)
		if bi < 0 {
			return 0, 0, false
		}
		ei = 0
	}
	return 0, 0, false
}
