package sched

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Score levels and their records in a jobSeq, kept from one decision to
// the next for BUCMA's walk by records (rerank_records.go).
//
// A walk by records groups the users by level (the users whose scores
// give the same first term of Sf); it tells the jobSeq each user's level
// (setLevel) before it starts. A level's records are the jobs of its
// users that no earlier job of its users (in the jobSeq's order) has a
// walltime shorter than or equal to: the level's first waiting job, then
// each later one whose walltime is shorter than every earlier one's (+Inf
// for a job without walltime). They depend on the order, the walltimes and
// the levels only, not on the ranks, the date or the normalisation of Sf,
// so they change only when a job joins or leaves the queue or a user
// changes level:
//
//   - a job that joins is a record when its walltime is below that of the
//     last record of its level before it, and then ends the records after
//     it whose walltime is not below its own;
//   - a record that leaves is replaced by the jobs it held back: between
//     the record before it and the one after, the first job of the level
//     whose walltime is below the record before's, then each next one
//     below the last found (a search of the tree by the walltimes by users
//     bucket);
//   - a user that leaves a level takes its records with it, each replaced
//     as above; a user that joins one brings its own records (searched
//     the same way), merged into the level's.
//
// A level whose records would be more than stairMax (with an order whose
// walltimes decrease, every job is a record) is no longer kept (keep is
// false) until it has no waiting job: the walk then searches its records
// from the start, as it finds them.
//
// Between two purges, the records are those of the queue as the last
// purge left it and of the jobs that joined since: a job that leaves
// during a decision keeps its place (dead) until the purge replaces it.

// stairMax is the most records kept for one level (a variable so that
// the tests also walk levels that are not kept).
var stairMax = 256

// seqLevel is one score level of a jobSeq.
type seqLevel struct {
	// n counts the level's users by users bucket (user number mod 64);
	// mask has a bit for each bucket that holds one.
	n    [64]int32
	mask uint64
	// jobs counts the level's waiting jobs (dead ones until the purge).
	jobs int
	stairs
}

// stairs are the records of a level or of a user: keep is set while recs
// holds them (they are no more than stairMax).
type stairs struct {
	keep bool
	recs []stairRec
}

// stairRec is a record: its entry as it was inserted (the job, its key,
// walltime and user; res is not kept up to date) and where it was last
// seen (a hint: entries move as blocks split, merge and purge). r0 is its
// rank when it was last read, when the jobSeq had removed `at` entries in
// its epoch ep (all 0 when never read: rank 0 is a lower bound of any).
type stairRec struct {
	e      seqEntry
	b      *seqBlock
	ei     int32
	ep     int32
	r0, at int
}

func (r *stairRec) wall() float64 { return entryWall(&r.e) }

// rankLB is a lower bound of record r's rank now: the rank last read,
// less the entries removed since.
func (q *jobSeq) rankLB(r *stairRec) int {
	if int(r.ep) != q.epoch {
		return 0
	}
	return max(0, r.r0-(q.removed-r.at))
}

// sawRank notes that record r is at rank rank now.
func (q *jobSeq) sawRank(r *stairRec, rank int) {
	r.r0, r.at, r.ep = rank, q.removed, int32(q.epoch)
}

// levels holds the levels of a jobSeq whose records are kept.
type seqLevels struct {
	of    []int32 // each user's level (-1: none yet)
	njobs []int32 // each user's waiting jobs (dead ones until the purge)
	// us holds each user's own records: a user that joins a level
	// brings them (mergeUser) without a search of the queue.
	us []stairs
	lv []seqLevel
	// mine and all are mergeUser's buffers, kept from one merge to the
	// next (a user changes level at most decisions of a long queue).
	mine, all []stairRec
}

// enableLevels has the jobSeq keep score levels and their records from
// now on (and the walltimes by users bucket their searches read).
func (q *jobSeq) enableLevels() {
	q.enableWalls()
	if q.lv == nil {
		q.lv = &seqLevels{}
		q.rebuildLevels()
	}
}

// rebuildLevels counts the jobs of every user and level again and
// computes the records of the levels from the entries.
func (q *jobSeq) rebuildLevels() {
	lv := q.lv
	clear(lv.njobs)
	for l := range lv.lv {
		lv.lv[l].jobs = 0
		lv.lv[l].reset()
	}
	for u := range lv.us {
		lv.us[u].reset()
	}
	r := 0 // the entry's rank
	for _, b := range q.blocks {
		for ei := range b.e {
			e := &b.e[ei]
			v := lv.count(e.uid)
			q.appendRec(&lv.us[e.uid], e, b, ei, r)
			if v != nil {
				q.appendRec(&v.stairs, e, b, ei, r)
			}
			r++
		}
	}
}

// appendRec adds entry e, at (b, ei) and rank r after every entry v's
// records were computed from, when it is a record.
func (q *jobSeq) appendRec(v *stairs, e *seqEntry, b *seqBlock, ei, r int) {
	n := len(v.recs)
	if !v.keep || (n > 0 && !(entryWall(e) < v.recs[n-1].wall())) {
		return
	}
	if n == stairMax {
		v.unkeep()
		return
	}
	v.recs = append(v.recs, stairRec{e: *e, b: b, ei: int32(ei)})
	q.sawRank(&v.recs[n], r)
}

// inLevel reports whether user uid is in the level whose first term of Sf
// has the bits term, levels giving each level number's term.
func (l *seqLevels) inLevel(uid int32, term uint64, levels []uint64) bool {
	if int(uid) >= len(l.of) {
		return false
	}
	n := l.of[uid]
	return n >= 0 && int(n) < len(levels) && levels[n] == term
}

// user makes room for user uid.
func (l *seqLevels) user(uid int32) {
	for int(uid) >= len(l.of) {
		l.of = append(l.of, -1)
		l.njobs = append(l.njobs, 0)
		l.us = append(l.us, stairs{keep: true})
	}
}

// count counts a waiting job of user uid, in its level too: the level,
// nil when the user has none.
func (l *seqLevels) count(uid int32) *seqLevel {
	l.user(uid)
	l.njobs[uid]++
	n := l.of[uid]
	if n < 0 {
		return nil
	}
	v := &l.lv[n]
	v.jobs++
	return v
}

// setLevel puts user uid in level l (0 <= l; levels are numbered by the
// walk), updating the records of the level it leaves and of l.
func (q *jobSeq) setLevel(uid, l int32) {
	lv := q.lv
	lv.user(uid)
	old := lv.of[uid]
	if old == l {
		return
	}
	for int(l) >= len(lv.lv) {
		lv.lv = append(lv.lv, seqLevel{stairs: stairs{keep: true}})
	}
	b := uint32(uid) % 64
	lv.of[uid] = l
	nj := int(lv.njobs[uid])
	if old >= 0 {
		o := &lv.lv[old]
		if o.n[b]--; o.n[b] == 0 {
			o.mask &^= 1 << b
		}
		o.jobs -= nj
		if o.jobs == 0 {
			o.reset()
		} else if o.keep && nj > 0 {
			q.dropUser(old, uid)
		}
	}
	n := &lv.lv[l]
	n.n[b]++
	n.mask |= 1 << b
	n.jobs += nj
	if n.keep && nj > 0 {
		q.mergeUser(l, uid)
	}
}

// reset empties the records of a level or user with no waiting job: they
// are kept again.
func (v *stairs) reset() {
	clear(v.recs)
	v.recs, v.keep = v.recs[:0], true
}

// unkeep stops keeping the records.
func (v *stairs) unkeep() {
	clear(v.recs)
	v.recs, v.keep = v.recs[:0], false
}

// dropUser takes out of level l's records those of user uid (no longer of
// the level), each replaced by the jobs it held back.
func (q *jobSeq) dropUser(l, uid int32) {
	v := &q.lv.lv[l]
	for k := 0; k < len(v.recs); {
		if v.recs[k].e.uid != uid {
			k++
			continue
		}
		v.recs = slices.Delete(v.recs, k, k+1)
		n, ok := q.refill(&v.stairs, -1, l, k)
		if !ok {
			return
		}
		k += n
	}
}

// mergeUser merges the records of user uid (new in level l) into the
// level's: the user's own, kept, or searched when they are not (or when
// dead entries wait for the purge: the search passes them, the records
// kept count them).
func (q *jobSeq) mergeUser(l, uid int32) {
	v := &q.lv.lv[l]
	mine := q.lv.mine[:0]
	defer func() { clear(mine); q.lv.mine = mine[:0] }()
	if us := &q.lv.us[uid]; us.keep && len(q.dead) == 0 {
		mine = append(mine, us.recs...)
	} else {
		bi, ei, thr, first := 0, -1, math.Inf(1), true
		for {
			nb, ne, ok := q.findIn(uid, -1, bi, ei, len(q.blocks), 0, thr, first, seqNoRes-1, nil)
			if !ok {
				break
			}
			if len(mine) == stairMax {
				v.unkeep()
				return
			}
			e := &q.blocks[nb].e[ne]
			mine = append(mine, stairRec{e: *e, b: q.blocks[nb], ei: int32(ne)})
			bi, ei, thr, first = nb, ne, entryWall(e), false
		}
	}
	all := q.lv.all[:0]
	defer func() { clear(all); q.lv.all = all[:0] }()
	i, k := 0, 0
	for i < len(v.recs) || k < len(mine) {
		var r stairRec
		if k == len(mine) || (i < len(v.recs) && cmpSeqEntry(&v.recs[i].e, &mine[k].e) < 0) {
			r, i = v.recs[i], i+1
		} else {
			r, k = mine[k], k+1
		}
		if len(all) == 0 || r.wall() < all[len(all)-1].wall() {
			all = append(all, r)
		}
	}
	if len(all) > stairMax {
		v.unkeep()
		return
	}
	clear(v.recs)
	v.recs = append(v.recs[:0], all...)
}

// stairIndex is the index of the first record of recs not before e.
func stairIndex(recs []stairRec, e *seqEntry) int {
	n := len(recs)
	if n == 0 || cmpSeqEntry(&recs[n-1].e, e) < 0 {
		return n // the usual case in submission order
	}
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cmpSeqEntry(&recs[m].e, e) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// levelInsert updates the records after entry e joined at (b, ei): its
// user's and its level's.
func (q *jobSeq) levelInsert(e *seqEntry, b *seqBlock, ei int) {
	v := q.lv.count(e.uid)
	q.lv.us[e.uid].insert(e, b, ei)
	if v != nil {
		v.insert(e, b, ei)
	}
}

// insert updates the records after entry e joined at (b, ei).
func (v *stairs) insert(e *seqEntry, b *seqBlock, ei int) {
	if !v.keep {
		return
	}
	p := stairIndex(v.recs, e)
	w := entryWall(e)
	if p > 0 && !(w < v.recs[p-1].wall()) {
		return // held back by the record before it
	}
	k := p
	for k < len(v.recs) && !(v.recs[k].wall() < w) {
		k++
	}
	v.recs = slices.Replace(v.recs, p, k, stairRec{e: *e, b: b, ei: int32(ei)})
	if len(v.recs) > stairMax {
		v.unkeep()
	}
}

// levelRemove updates the records after entry e left the queue (dead,
// still in place), its user's and its level's: a record is replaced by
// the jobs it held back.
func (q *jobSeq) levelRemove(e *seqEntry) {
	lv := q.lv
	lv.njobs[e.uid]--
	if us := &lv.us[e.uid]; lv.njobs[e.uid] == 0 {
		us.reset()
	} else {
		q.stairRemove(us, e.uid, -1, e)
	}
	l := lv.of[e.uid]
	if l < 0 {
		return
	}
	v := &lv.lv[l]
	if v.jobs--; v.jobs == 0 {
		v.reset()
		return
	}
	q.stairRemove(&v.stairs, -1, l, e)
}

// stairRemove takes entry e out of v, the records of user uid (uid >= 0)
// or of level l, refilling its place when it is one.
func (q *jobSeq) stairRemove(v *stairs, uid, l int32, e *seqEntry) {
	if !v.keep {
		return
	}
	k := stairIndex(v.recs, e)
	if k < len(v.recs) && v.recs[k].e.j == e.j {
		v.recs = slices.Delete(v.recs, k, k+1)
		q.refill(v, uid, l, k)
	}
}

// refill puts in v, the records of user uid (uid >= 0) or of level l, at
// index k, the jobs the record taken out from there held back: between
// the records k-1 and k, the first job of the user or level whose
// walltime is below record k-1's (any job when k is 0), then each next
// one below the last found. It returns how many it found; ok is false
// when the records are no longer kept.
func (q *jobSeq) refill(v *stairs, uid, l int32, k int) (n int, ok bool) {
	bi, ei, thr, first := 0, -1, math.Inf(1), true
	if k > 0 {
		prev := &v.recs[k-1]
		if bi, ei, ok = q.where(prev); !ok {
			v.unkeep() // not reached: a record is always in the queue
			return 0, false
		}
		thr, first = prev.wall(), false
	}
	endB, endE := len(q.blocks), 0
	if k < len(v.recs) {
		if endB, endE, ok = q.where(&v.recs[k]); !ok {
			v.unkeep()
			return 0, false
		}
	}
	for {
		nb, ne, found := q.findIn(uid, l, bi, ei, endB, endE, thr, first, seqNoRes-1, nil)
		if !found {
			return n, true
		}
		if len(v.recs) == stairMax {
			v.unkeep()
			return 0, false
		}
		f := &q.blocks[nb].e[ne]
		v.recs = slices.Insert(v.recs, k+n, stairRec{e: *f, b: q.blocks[nb], ei: int32(ne)})
		n++
		bi, ei, thr, first = nb, ne, entryWall(f), false
	}
}

// where is the place (block, index) of record r in the jobSeq, from its
// hint when it still holds; ok is false when the job is not there.
func (q *jobSeq) where(r *stairRec) (bi, ei int, ok bool) {
	q.ready()
	if b := r.b; b != nil && b.idx < len(q.blocks) && q.blocks[b.idx] == b {
		if int(r.ei) < len(b.e) && b.e[r.ei].j == r.e.j {
			return b.idx, int(r.ei), true
		}
		if k := lowerBound(b, &r.e); k < len(b.e) && b.e[k].j == r.e.j {
			r.ei = int32(k)
			return b.idx, k, true
		}
	}
	if bi, ei, ok = q.locate(r.e.j); ok {
		r.b, r.ei = q.blocks[bi], int32(ei)
	}
	return bi, ei, ok
}

// findIn is the place of the first live entry of user uid (when uid >= 0)
// or of level l after place (bi, ei) (ei = -1: from the start of block
// bi) and before (endB, endE), with res <= lim, not in skip, whose
// walltime is below thr (any walltime when first). The tree's walltimes
// by users bucket skip the ranges without such an entry.
func (q *jobSeq) findIn(uid, l int32, bi, ei, endB, endE int, thr float64, first bool, lim int32, skip map[*Job]struct{}) (int, int, bool) {
	var mask uint64
	if uid >= 0 {
		mask = 1 << (uint32(uid) % 64)
	} else {
		mask = q.lv.lv[l].mask
	}
	one := bits.OnesCount64(mask) == 1
	bucket := bits.TrailingZeros64(mask)
	may := func(x int) bool {
		a := &q.tree[x]
		if a.live == 0 || a.minRes > lim || a.users&mask == 0 {
			return false
		}
		if first {
			return true
		}
		wb := &q.wb[x]
		if one {
			return wb[bucket] < thr
		}
		if !(a.minW < thr) {
			return false
		}
		for m := mask; m != 0; m &= m - 1 {
			if wb[bits.TrailingZeros64(m)] < thr {
				return true
			}
		}
		return false
	}
	of := q.lv.of
	q.ready()
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
			if e.res == seqDead || e.res > lim || !(first || entryWall(e) < thr) {
				continue
			}
			if uid >= 0 {
				if e.uid != uid {
					continue
				}
			} else if int(e.uid) >= len(of) || of[e.uid] != l {
				continue
			}
			if _, gave := skip[e.j]; gave {
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

// checkLevels verifies the levels against the entries: the users and jobs
// counted, and the records of each level kept.
func (q *jobSeq) checkLevels() error {
	lv := q.lv
	if lv == nil {
		return nil
	}
	njobs := make([]int32, len(lv.njobs))
	jobs := make([]int, len(lv.lv))
	recs := make([][]*Job, len(lv.lv))
	urecs := make([][]*Job, len(lv.us))
	for _, b := range q.blocks {
		for i := range b.e {
			e := &b.e[i]
			if int(e.uid) >= len(njobs) || int(e.uid) >= len(urecs) {
				return fmt.Errorf("order index %d: user %d of job %s has no level entry", q.order, e.uid, e.j.id)
			}
			njobs[e.uid]++
			if r := urecs[e.uid]; len(r) == 0 || e.j.WalltimeOrInf() < r[len(r)-1].WalltimeOrInf() {
				urecs[e.uid] = append(r, e.j)
			}
			l := lv.of[e.uid]
			if l < 0 {
				continue
			}
			jobs[l]++
			if r := recs[l]; len(r) == 0 || e.j.WalltimeOrInf() < r[len(r)-1].WalltimeOrInf() {
				recs[l] = append(r, e.j) // dead entries count until the purge
			}
		}
	}
	if !slices.Equal(njobs, lv.njobs) {
		return fmt.Errorf("order index %d: jobs by user %v, counted %v", q.order, lv.njobs, njobs)
	}
	for uid := range lv.us {
		if us := &lv.us[uid]; us.keep {
			if got := stairJobs(us.recs); !slices.Equal(got, urecs[uid]) {
				return fmt.Errorf("order index %d: user %d: records %v, computed %v", q.order, uid, jobIDs(got), jobIDs(urecs[uid]))
			}
		}
	}
	for l := range lv.lv {
		v := &lv.lv[l]
		var n [64]int32
		var mask uint64
		for uid, ul := range lv.of {
			if ul == int32(l) {
				n[uid%64]++
				mask |= 1 << (uid % 64)
			}
		}
		if n != v.n || mask != v.mask {
			return fmt.Errorf("order index %d: level %d: users by bucket differ", q.order, l)
		}
		if v.jobs != jobs[l] {
			return fmt.Errorf("order index %d: level %d: %d jobs, counted %d", q.order, l, v.jobs, jobs[l])
		}
		if !v.keep {
			continue
		}
		if got := stairJobs(v.recs); !slices.Equal(got, recs[l]) {
			return fmt.Errorf("order index %d: level %d: records %v, computed %v", q.order, l, jobIDs(got), jobIDs(recs[l]))
		}
	}
	return nil
}

func stairJobs(recs []stairRec) []*Job {
	out := make([]*Job, len(recs))
	for i := range recs {
		out[i] = recs[i].e.j
	}
	return out
}

func jobIDs(js []*Job) []string {
	out := make([]string, len(js))
	for i, j := range js {
		out[i] = j.id
	}
	return out
}
