package sched

import (
	"math"
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
// best of the records.
//
// The records do not depend on the ranks, the date or the normalisation:
// the jobSeq of the base order keeps each level's from one decision to
// the next (jobseq_stairs.go), the walk telling it the users' levels as it
// starts. A level comes into the walk's heap as one item, bounded by its
// score, the first rank and its shortest walltime; when the item comes out
// each of the level's records comes in, bounded by its own walltime and a
// lower bound of its rank that costs no search (the rank the jobSeq last
// read for it, less the entries removed since, and more than the bound of
// the record before it); when a record's bound comes out, the record is
// placed (its rank read from the jobSeq) and comes in again with its exact
// Sf. A level's records are placed only as far as their bounds reach the
// jobs the decision gives (at most a few a decision once their ranks were
// read), where reading every record's rank would cost a search of the
// tree each, most of them for records that come nowhere near the top.
// When a record leaves the walk
// (given, gone, or above the limit) its place is taken by the records of
// the range it was holding back (between the records before and after
// it), found through the tree of the base order's jobSeq: the first job of
// the level after a place whose walltime is below a bound skips every
// range whose shortest walltime, smallest size or users rule it out. A
// level whose records the jobSeq does not keep (too many) is searched the
// same way from its start.
//
// A decision costs the records whose bounds reach the Sf of the jobs it
// gives, and a search for each record it takes out, rather than a search
// for every record it meets.

// recNode is a record of the walk: a job of one score level that no other
// remaining job of the level is ahead of on both base rank and walltime.
type recNode struct {
	lvl        int32
	bi, ei     int32   // place in the jobSeq (bi: recUnplaced, recGone)
	kept       int32   // index in the level's records kept by the jobSeq, -1 for one searched
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

// recRest is where a level's next records come from: the records the
// jobSeq keeps (kept: all brought in at once, openKept), or the search
// after place (bi, ei) below walltime thr (any when first). anchor is the
// last record the walk holds (-1: none), which the next one comes after.
// gen tells the heap item standing for it (node 1, bi the level, ei gen)
// from older ones.
type recRest struct {
	anchor int32
	kept   bool
	bi, ei int
	thr    float64
	first  bool
	gen    int32
	done   bool
	// minW is the shortest walltime of the level's jobs: the last
	// record's when the jobSeq keeps them, else the queue's.
	minW float64
}

// startRecords starts the records walk over w.q: the users' score levels
// (their first terms of Sf), told to the jobSeq, and an item for each
// level with waiting jobs, bounded by the level's score and shortest
// walltime at its first job's rank (a lower bound of it when the jobSeq
// keeps the level's records, else the first rank).
func (w *sfWalk) startRecords(o *Rerank) {
	w.byRecords = true
	q := w.q
	q.enableLevels()
	// A user already in the level of its first term stays there (a level
	// holding a user is never renumbered): only the others are told.
	for uid, t := range w.suTerm {
		if !q.lv.inLevel(int32(uid), math.Float64bits(t), o.levels) {
			q.setLevel(int32(uid), o.levelOf(q, t))
		}
	}
	q.ready()
	w.rest = w.rest[:0]
	for l := range q.lv.lv {
		v := &q.lv.lv[l]
		w.rest = append(w.rest, recRest{anchor: -1, gen: 1, done: v.jobs == 0, minW: w.minW0,
			kept: v.keep, first: true, ei: -1, thr: math.Inf(1)})
		if v.jobs == 0 {
			continue
		}
		r := 0
		if v.keep {
			// Bounded at its last record's walltime (the shortest) and
			// its first record's rank (at least the bound of it).
			w.rest[l].minW = v.recs[len(v.recs)-1].wall()
			r = q.rankLB(&v.recs[0])
		}
		w.h = append(w.h, sfItem{sf: w.restBound(int32(l), r), rank: int32(r), node: 1, bi: int32(l), ei: 1})
	}
	for i := len(w.h)/2 - 1; i >= 0; i-- {
		siftDown(w.h, i)
	}
}

// levelOf is the number of the score level whose first term of Sf is t
// (given on first sight). A new term takes the number of a level of q
// that no user is in any more, if any: the numbers stay as few as the
// terms in use, however many scores the users go through.
func (o *Rerank) levelOf(q *jobSeq, t float64) int32 {
	b := math.Float64bits(t)
	if l, ok := o.levelNum[b]; ok {
		return l
	}
	if o.levelNum == nil {
		o.levelNum = map[uint64]int32{}
	}
	l := int32(len(o.levels))
	for k, v := range q.lv.lv {
		if v.mask == 0 && k < len(o.levels) {
			l = int32(k)
			delete(o.levelNum, o.levels[k])
			break
		}
	}
	if int(l) == len(o.levels) {
		o.levels = append(o.levels, b)
	} else {
		o.levels[l] = b
	}
	o.levelNum[b] = l
	return l
}

// restBound bounds the Sf of the jobs of level l from base rank r on: the
// level's score and shortest walltime, the queue's earliest submission.
func (w *sfWalk) restBound(l int32, r int) float64 {
	mw := w.rest[l].minW
	return w.z.sfTerm(math.Float64frombits(w.lvlTerm(l)), r, w.minSub0, mw, !math.IsInf(mw, 1))
}

// lvlTerm is level l's first term of Sf, as bits.
func (w *sfWalk) lvlTerm(l int32) uint64 { return w.o.levels[l] }

// resume puts the heap item of level l's rest, whose next records come at
// base rank r or after, in the heap.
func (w *sfWalk) resume(l int32, r int) {
	rs := &w.rest[l]
	rs.gen++
	w.push(sfItem{sf: w.restBound(l, r), rank: int32(r), node: 1, bi: l, ei: rs.gen})
}

// resumeSearch sets level l's rest to the search after place (bi, ei) of
// base rank r, below walltime thr (any when first), after record anchor,
// and puts its item in the heap.
func (w *sfWalk) resumeSearch(l int32, anchor int32, bi, ei int, r int, thr float64, first bool) {
	rs := &w.rest[l]
	rs.anchor, rs.kept, rs.bi, rs.ei, rs.thr, rs.first, rs.done = anchor, false, bi, ei, thr, first, false
	w.resume(l, r+1)
}

// addRecord adds the record at place (bi, ei), of base rank r, between
// records prev and next of level l, and puts it in the heap; it returns
// its index.
func (w *sfWalk) addRecord(l int32, bi, ei int, prev, next int32, r int) int32 {
	n, it := w.newRecord(l, bi, ei, prev, next, r)
	w.push(it)
	return n
}

// newRecord is addRecord but for the heap: it returns the record's item.
func (w *sfWalk) newRecord(l int32, bi, ei int, prev, next int32, r int) (int32, sfItem) {
	e := &w.q.blocks[bi].e[ei]
	n := int32(len(w.recs))
	w.recs = append(w.recs, recNode{lvl: l, bi: int32(bi), ei: int32(ei), kept: -1, wall: entryWall(e), prev: prev, next: next})
	if prev >= 0 {
		w.recs[prev].next = n
	}
	return n, sfItem{sf: w.sfOf(e, r), rank: int32(r), bi: n}
}

// openKept brings into the walk every record the jobSeq keeps for level l,
// linked in base order, each bounded by its own walltime and a lower bound
// of its base rank (the rank last read less the entries removed since,
// and more than the bound of the record before it): a record is placed
// (its rank read from the jobSeq) only when its bound comes first. The
// level's rest is then done: past its last record, the jobs it holds back
// are searched when it leaves (dropRecord).
func (w *sfWalk) openKept(l int32) {
	q := w.q
	rs := &w.rest[l]
	rs.done = true
	recs := q.lv.lv[l].recs
	term := math.Float64frombits(w.lvlTerm(l))
	lb, prev := -1, rs.anchor
	a := len(w.runs)
	for k := range recs {
		rec := &recs[k]
		lb = max(lb+1, q.rankLB(rec))
		n := int32(len(w.recs))
		w.recs = append(w.recs, recNode{lvl: l, bi: recUnplaced, kept: int32(k), wall: rec.wall(), prev: prev, next: -1})
		if prev >= 0 {
			w.recs[prev].next = n
		}
		prev = n
		e := &rec.e
		w.runs = append(w.runs, sfItem{sf: w.z.sfTerm(term, lb, w.submitOf(e), e.wall, e.wall > 0), rank: int32(lb), bi: n, ei: recBounded})
	}
	// The bounds make a run (a heap of their own, whose best is in h).
	run := w.runs[a:]
	for i := len(run)/2 - 1; i >= 0; i-- {
		siftDown(run, i)
	}
	w.pushRun(a, len(w.runs))
	rs.anchor = prev
}

const (
	// recBounded marks the heap item of a record not yet placed
	// (sfItem.ei): its sf and rank are bounds.
	recBounded = 1
	// recUnplaced and recGone are the bi of a record not placed yet and
	// of one taken out of its level's list unplaced.
	recUnplaced, recGone = -1, -2
)

// place reads the place and base rank of record k, kept by the jobSeq and
// not yet placed, and returns its rank; ok is false when its job is not in
// the jobSeq (not reached: a record kept is in the queue).
func (w *sfWalk) place(k int32) (r int, ok bool) {
	q := w.q
	rn := &w.recs[k]
	rec := &q.lv.lv[rn.lvl].recs[rn.kept]
	bi, ei, ok := q.where(rec)
	if !ok {
		return 0, false
	}
	r = q.prefixN(bi) + ei
	q.sawRank(rec, r)
	rn.bi, rn.ei = int32(bi), int32(ei)
	return r, true
}

// unlink takes record k, kept and not found in the jobSeq, out of its
// level's list (not reached).
func (w *sfWalk) unlink(k int32) {
	x := &w.recs[k]
	if rs := &w.rest[x.lvl]; rs.anchor == k {
		rs.anchor = x.prev
	}
	if x.prev >= 0 {
		w.recs[x.prev].next = x.next
	}
	if x.next >= 0 {
		w.recs[x.next].prev = x.prev
	}
	x.bi = recGone
}

// nextRecord is Next by records.
func (w *sfWalk) nextRecord(lim int32) *Job {
	for w.settle() {
		it := w.take()
		if it.node == 1 {
			// A level's next record.
			l := it.bi
			rs := &w.rest[l]
			switch {
			case rs.gen != it.ei || rs.done:
				// replaced by a later resume
			case rs.kept:
				w.openKept(l)
			default:
				nb, ne, ok := w.q.findIn(-1, l, rs.bi, rs.ei, len(w.q.blocks), 0, rs.thr, rs.first, lim, w.given)
				if !ok {
					rs.done = true
					continue
				}
				r := w.q.prefixN(nb) + ne
				k := w.addRecord(l, nb, ne, rs.anchor, -1, r)
				w.resumeSearch(l, k, nb, ne, r, w.recs[k].wall, false)
			}
			continue
		}
		rn := &w.recs[it.bi]
		if it.ei == recBounded {
			// A kept record, bounded: its exact Sf comes in, and the
			// next bound of its run.
			w.nextOfRun(&it)
			var r int
			switch rn.bi {
			case recGone:
				continue
			case recUnplaced:
				var ok bool
				if r, ok = w.place(it.bi); !ok {
					w.unlink(it.bi)
					continue
				}
			default: // placed by dropRecord
				r = w.q.prefixN(int(rn.bi)) + int(rn.ei)
			}
			w.push(sfItem{sf: w.sfOf(&w.q.blocks[rn.bi].e[rn.ei], r), rank: int32(r), bi: it.bi})
			continue
		}
		bi, ei := int(rn.bi), int(rn.ei)
		e := &w.q.blocks[bi].e[ei]
		j := e.j
		_, gave := w.given[j]
		ok := e.res != seqDead && e.res <= lim && !gave
		w.dropRecord(it.bi, int(it.rank), lim)
		if ok {
			if w.given == nil {
				w.given = map[*Job]struct{}{}
			}
			w.given[j] = struct{}{}
			return w.q.gives(j, bi, ei)
		}
	}
	return nil
}

// dropRecord takes record k, of base rank r, out of the walk (given,
// gone, or above the limit): the remaining jobs it held back are behind
// the records found between the record before it and the one after, which
// enter the heap. When it is the last record the walk holds, the one after
// is the level's next record kept by the jobSeq, brought in first; past
// those, the level's search resumes after it as if it had not been found.
func (w *sfWalk) dropRecord(k int32, r int, lim int32) {
	x := w.recs[k]
	thr, first := math.Inf(1), true
	if x.prev >= 0 {
		thr, first = w.recs[x.prev].wall, false
	}
	for x.next >= 0 && w.recs[x.next].bi == recUnplaced {
		// The record after it is kept and not placed yet: the search
		// ends at its place.
		if _, ok := w.place(x.next); !ok {
			w.unlink(x.next)
			x.next = w.recs[k].next
		}
	}
	if x.next < 0 {
		if x.prev >= 0 {
			w.recs[x.prev].next = -1
		}
		w.resumeSearch(x.lvl, x.prev, int(x.bi), int(x.ei), r, thr, first)
		return
	}
	endB, endE := int(w.recs[x.next].bi), int(w.recs[x.next].ei)
	last := x.prev
	bi, ei := int(x.bi), int(x.ei)
	for {
		nb, ne, ok := w.q.findIn(-1, x.lvl, bi, ei, endB, endE, thr, first, lim, w.given)
		if !ok {
			break
		}
		last = w.addRecord(x.lvl, nb, ne, last, x.next, w.q.prefixN(nb)+ne)
		bi, ei, thr, first = nb, ne, w.recs[last].wall, false
	}
	if x.prev >= 0 && last == x.prev {
		w.recs[x.prev].next = x.next
	}
	w.recs[x.next].prev = last
}
