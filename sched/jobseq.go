package sched

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/bucma-sched/bucma/batsim"
)

// A jobSeq keeps the waiting jobs sorted by one queue order, so that a
// decision walks the order instead of copying and sorting the queue. The
// State maintains every jobSeq a policy asked for (seqFor) as jobs join and
// leave the queue.
//
// Layout: the jobs are kept in blocks of at most seqBlockMax entries, the
// blocks in order, and a segment tree over the blocks holds their
// aggregates (entries, live entries, smallest size, users, smallest and
// largest walltime, earliest and latest submission). A walk jumps from block to block
// to the next job that fits in O(log n); an entry costs 32 bytes.
//
// A job that leaves the queue (started or rejected) stays in place as a
// dead entry until the next purge: positions do not move during a decision,
// and the ranks a decision computes (BUCMA's base rank) are those of the
// queue as it was when the decision began. The State purges after every
// decision; a policy that needs exact ranks purges when its decision starts.

// seqOrder names an order a jobSeq can keep: a float key, ascending, ties
// by lessBySubmit (submission time, then job id, then arrival rank).
type seqOrder uint8

const (
	seqBySubmit       seqOrder = iota // FCFSOrder
	seqByWalltime                     // WalltimeOrder (no walltime = +Inf, last)
	seqByWalltimeDesc                 // WalltimeOrder{Descending: true}
	seqByArea                         // AreaOrder: walltime × res
	seqByAreaDesc                     // AreaOrder{Descending: true}
	seqByKey                          // a KeyOrder: the jobSeq's custom key
)

// seqKeyed is implemented by the orders a jobSeq can keep.
type seqKeyed interface {
	seqOrder() seqOrder
}

func (FCFSOrder) seqOrder() seqOrder { return seqBySubmit }

func (o WalltimeOrder) seqOrder() seqOrder {
	if o.Descending {
		return seqByWalltimeDesc
	}
	return seqByWalltime
}

func (o AreaOrder) seqOrder() seqOrder {
	if o.Descending {
		return seqByAreaDesc
	}
	return seqByArea
}

// key is the job's primary key in the order. Keys compare as floats: equal
// keys fall back to lessBySubmit. A NaN key (walltime × res of a job with
// res 0 and no walltime: a refused job, rejected before any order is
// walked) is mapped to +Inf so that the order stays total.
func (k seqOrder) key(j *Job) float64 {
	var v float64
	switch k {
	case seqBySubmit:
		v = j.submit
	case seqByWalltime:
		v = j.WalltimeOrInf()
	case seqByWalltimeDesc:
		v = -j.WalltimeOrInf()
	case seqByArea:
		v = j.WalltimeOrInf() * float64(j.res)
	case seqByAreaDesc:
		v = -(j.WalltimeOrInf() * float64(j.res))
	}
	if math.IsNaN(v) {
		return math.Inf(1)
	}
	return v
}

const (
	seqBlockMax  = 128 // a block holding more is split in two
	seqBlockMin  = 32  // a block holding fewer is merged with a neighbour
	seqBlockFill = 112 // entries per block when a sequence is built at once
	seqNoRes     = math.MaxInt32
	seqDead      = -1 // res of a dead entry
)

type seqEntry struct {
	j    *Job
	key  float64
	wall float64 // j.Walltime (what BUCMA's Sf reads without touching the job)
	res  int32   // max(Res, 0), at most seqNoRes-1; seqDead once the job left
	uid  int32   // the user's index in the State (State.userID)
}

// wallOrInf is the job's WalltimeOrInf, read from the entry.
func (e *seqEntry) wallOrInf() float64 {
	if e.wall > 0 {
		return e.wall
	}
	return math.Inf(1)
}

// seqAgg aggregates a range of entries. Every field but n is over the live
// entries only.
type seqAgg struct {
	n       int32   // entries, dead ones included
	live    int32   // live entries
	minRes  int32   // smallest res (seqNoRes when none)
	users   uint64  // bit uid%64 of every user
	minW    float64 // smallest WalltimeOrInf (+Inf when none)
	maxWall float64 // largest walltime of the jobs that have one (0 when none)
	noWall  int32   // jobs without walltime
	minSub  float64 // earliest submission (+Inf when none)
	maxSub  float64 // latest submission (-Inf when none)
}

var emptySeqAgg = seqAgg{minRes: seqNoRes, minW: math.Inf(1), minSub: math.Inf(1), maxSub: math.Inf(-1)}

func (a *seqAgg) addEntry(e *seqEntry) {
	if a.addLocal(e) {
		a.minSub = min(a.minSub, e.j.submit)
		a.maxSub = max(a.maxSub, e.j.submit)
	}
}

// addLocal adds what e holds itself (all but the submission time, which
// is the job's), and reports whether e is live.
func (a *seqAgg) addLocal(e *seqEntry) bool {
	a.n++
	if e.res == seqDead {
		return false
	}
	a.live++
	a.minRes = min(a.minRes, e.res)
	a.users |= 1 << (uint32(e.uid) % 64)
	if e.wall > 0 {
		a.minW = min(a.minW, e.wall)
		a.maxWall = max(a.maxWall, e.wall)
	} else {
		a.minW = min(a.minW, math.Inf(1))
		a.noWall++
	}
	return true
}

func combineSeqAgg(a, b seqAgg) seqAgg {
	return seqAgg{
		n: a.n + b.n, live: a.live + b.live,
		minRes: min(a.minRes, b.minRes), users: a.users | b.users,
		minW: min(a.minW, b.minW), maxWall: max(a.maxWall, b.maxWall), noWall: a.noWall + b.noWall,
		minSub: min(a.minSub, b.minSub), maxSub: max(a.maxSub, b.maxSub),
	}
}

type seqBlock struct {
	e   []seqEntry
	agg seqAgg
	// um is each user's shortest walltime among the block's live jobs
	// (BUCMA's walk bounds a block with it), valid while umOK.
	um   []seqUserMin
	umOK bool
	// wb is the shortest WalltimeOrInf of the block's live jobs by users
	// bucket (user number mod 64), valid while wbOK (walls).
	wb   [64]float64
	wbOK bool
	// tw[k] is the shortest WalltimeOrInf of the block's live jobs of at
	// most fitTierBounds[k] hosts, valid while twOK (tiers).
	tw   [seqResTiers]float64
	twOK bool
	// idx is the block's index in the jobSeq's blocks, valid once the
	// tree is ready (the records' hints check it).
	idx int
	// k0 stands for the first entry of an empty block (a tombstone, see
	// purge): after every entry of the blocks before it, not after the
	// first of the blocks after it.
	k0 seqEntry
}

// first is the block's first entry, or what stands for it in an empty
// block.
func (b *seqBlock) first() *seqEntry {
	if len(b.e) > 0 {
		return &b.e[0]
	}
	return &b.k0
}

// walls returns wb, computed again after a change.
func (b *seqBlock) walls() *[64]float64 {
	if !b.wbOK {
		for i := range b.wb {
			b.wb[i] = math.Inf(1)
		}
		for i := range b.e {
			if e := &b.e[i]; e.res != seqDead {
				k := uint32(e.uid) % 64
				b.wb[k] = min(b.wb[k], e.wallOrInf())
			}
		}
		b.wbOK = true
	}
	return &b.wb
}

// seqResTiers is the number of size tiers of seqBlock.tw and jobSeq.tb,
// those of the fit tree: jobs of at most 1, 2, ..., 8, 12, 16, 32, ...
// hosts (fitTierBounds), so that the test of a range is exact for any
// number of free hosts up to 8.
const seqResTiers = fitTiers

// resTier is the first tier whose bound is at least res hosts (seqResTiers
// when above every tier's).
func resTier(res int32) int { return fitTier(res) }

// tiers returns tw, computed again after a change.
func (b *seqBlock) tiers() *[seqResTiers]float64 {
	if !b.twOK {
		b.tw = noTiers
		for i := range b.e {
			if e := &b.e[i]; e.res != seqDead {
				if k := resTier(e.res); k < seqResTiers {
					b.tw[k] = min(b.tw[k], e.wallOrInf())
				}
			}
		}
		cumulateTiers(&b.tw)
		b.twOK = true
	}
	return &b.tw
}

var noTiers = noTiersOf[float64]()

// seqUserMin is a user's shortest WalltimeOrInf in a block.
type seqUserMin struct {
	uid  int32
	minW float64
}

// userMins returns um, computed again after a change.
func (b *seqBlock) userMins() []seqUserMin {
	if b.umOK {
		return b.um
	}
	b.um = b.um[:0]
	for i := range b.e {
		e := &b.e[i]
		if e.res == seqDead {
			continue
		}
		w := e.j.WalltimeOrInf()
		k := 0
		for k < len(b.um) && b.um[k].uid != e.uid {
			k++
		}
		if k == len(b.um) {
			b.um = append(b.um, seqUserMin{uid: e.uid, minW: w})
		} else {
			b.um[k].minW = min(b.um[k].minW, w)
		}
	}
	b.umOK = true
	return b.um
}

func (b *seqBlock) recompute() {
	b.umOK, b.wbOK, b.twOK = false, false, false
	b.agg = emptySeqAgg
	for i := range b.e {
		b.agg.addEntry(&b.e[i])
	}
}

// killAt marks entry ei dead and recomputes the block's aggregate. The
// jobs are not read (one cache miss each) unless the one leaving held the
// block's earliest or latest submission and others' differ: when every
// live job was submitted at the same time, or the one leaving neither
// first nor last, the bounds stay.
func (b *seqBlock) killAt(ei int) {
	e := &b.e[ei]
	sub := e.j.submit
	e.res = seqDead
	old := b.agg
	if old.minSub != old.maxSub && (sub == old.minSub || sub == old.maxSub) {
		b.recompute()
		return
	}
	b.umOK, b.wbOK, b.twOK = false, false, false
	a := emptySeqAgg
	for i := range b.e {
		a.addLocal(&b.e[i])
	}
	if a.live > 0 {
		a.minSub, a.maxSub = old.minSub, old.maxSub
	}
	b.agg = a
}

type jobSeq struct {
	order  seqOrder
	custom *KeyOrder // the order when order is seqByKey
	blocks []*seqBlock
	p      int      // leaves of the tree: a power of two >= len(blocks)
	tree   []seqAgg // 1-based heap layout, leaf i at p+i
	// stale is the first leaf whose block moved (blocks split, merged or
	// dropped) since the tree was laid out, math.MaxInt when none: the
	// tree is laid out again when next read (ready), once for all the
	// moves of a burst of arrivals.
	stale int
	dead  []seqPos // dead entries (where kill found them), purged by purge
	// hint is where the last job a walk gave is (its start then kills
	// it): locate tries it before searching.
	hint seqPos
	// tombs counts the empty blocks kept in place (purge): never the
	// last one.
	tombs int
	// wb, once enabled (wbOn, by enableWalls), holds for each node of the
	// tree the shortest walltime of its live jobs by users bucket: BUCMA's
	// walk by records searches one score level's jobs with it.
	wb   [][64]float64
	wbOn bool
	// tb, once enabled (tbOn, by enableTiers), holds for each node of the
	// tree the shortest walltime of its live jobs by size tier
	// (seqBlock.tw): backfilling's search then pairs the sizes and
	// walltimes of the same jobs nearly, where minRes and minW may be two
	// jobs' (a range where a small job and a short one wait, none both,
	// would be searched for nothing).
	tb   [][seqResTiers]float64
	tbOn bool
	// lv, once enabled (by enableLevels), holds BUCMA's score levels and
	// their records (jobseq_stairs.go).
	lv *seqLevels
	// removed counts the entries purged since the sequence was built
	// (epoch counts the builds): a rank read once, less the entries
	// removed since, is a lower bound of the entry's rank now (an entry
	// that joins only moves the ones behind it back).
	removed, epoch int
}

// enableWalls has the tree keep wb from now on.
func (q *jobSeq) enableWalls() {
	if !q.wbOn {
		q.wbOn = true
		q.moved(0)
	}
}

// enableTiers has the tree keep tb from now on.
func (q *jobSeq) enableTiers() {
	if !q.tbOn {
		q.tbOn = true
		q.moved(0)
	}
}

func combineWalls(a, b *[64]float64) (c [64]float64) {
	for i := range c {
		c[i] = min(a[i], b[i])
	}
	return c
}

var noWalls = func() (w [64]float64) {
	for i := range w {
		w[i] = math.Inf(1)
	}
	return w
}()

func newJobSeq(order seqOrder, custom *KeyOrder) *jobSeq {
	q := &jobSeq{order: order, custom: custom, stale: 0}
	q.ready()
	return q
}

// cmp orders two entries: key, then lessBySubmit.
func cmpSeqEntry(a, b *seqEntry) int {
	switch {
	case a.key < b.key:
		return -1
	case a.key > b.key:
		return 1
	case a.j == b.j:
		return 0
	case lessBySubmit(a.j, b.j):
		return -1
	}
	return 1
}

// build replaces the contents with the given jobs (any order).
func (q *jobSeq) build(s *State, jobs []*Job) {
	es := make([]seqEntry, 0, len(jobs))
	for _, j := range jobs {
		es = append(es, q.entry(s, j))
	}
	slices.SortFunc(es, func(a, b seqEntry) int { return cmpSeqEntry(&a, &b) })
	q.blocks = q.blocks[:0]
	nb := (len(es) + seqBlockFill - 1) / seqBlockFill
	for i := 0; i < nb; i++ {
		k := len(es) / (nb - i) // spread evenly: at most seqBlockFill each
		// The blocks share the sorted entries' array (a copy would
		// double the entries for as long as a million jobs are sorted):
		// a block that grows gets its own array (append).
		b := &seqBlock{e: es[:k:k]}
		b.recompute()
		q.blocks = append(q.blocks, b)
		es = es[k:]
	}
	clear(q.dead)
	q.dead, q.hint = q.dead[:0], seqPos{}
	q.stale, q.tombs = 0, 0
	q.epoch++
	if q.lv != nil {
		q.rebuildLevels()
	}
}

// key is job j's key in the sequence's order.
func (q *jobSeq) key(j *Job) float64 {
	if q.custom != nil {
		v := q.custom.key(j)
		if math.IsNaN(v) {
			return math.Inf(1)
		}
		return v
	}
	return q.order.key(j)
}

func (q *jobSeq) entry(s *State, j *Job) seqEntry {
	res := int32(min(max(j.res, 0), seqNoRes-1))
	return seqEntry{j: j, key: q.key(j), wall: j.walltime, res: res, uid: s.userID(j.user)}
}

// moved records that the blocks from index from on changed index.
func (q *jobSeq) moved(from int) { q.stale = min(q.stale, from) }

// ready lays the leaves out anew from the first stale one on (the blocks
// before it kept their index) and recomputes the inner nodes above them.
// Every read of the tree goes through it.
func (q *jobSeq) ready() {
	if q.stale == math.MaxInt {
		return
	}
	from := q.stale
	q.stale = math.MaxInt
	nb := len(q.blocks)
	if nb > q.p || q.p == 0 || (q.p > 64 && nb < q.p/4) {
		p := 1
		for p < nb {
			p *= 2
		}
		q.p = p
		q.tree = make([]seqAgg, 2*p)
		from = 0
	}
	if q.wbOn && len(q.wb) != len(q.tree) {
		q.wb = make([][64]float64, len(q.tree))
		from = 0
	}
	if q.tbOn && len(q.tb) != len(q.tree) {
		q.tb = make([][seqResTiers]float64, len(q.tree))
		from = 0
	}
	for i := from; i < q.p; i++ {
		if i < nb {
			q.blocks[i].idx = i
			q.tree[q.p+i] = q.blocks[i].agg
		} else {
			q.tree[q.p+i] = emptySeqAgg
		}
		if q.wbOn {
			if i < nb {
				q.wb[q.p+i] = *q.blocks[i].walls()
			} else {
				q.wb[q.p+i] = noWalls
			}
		}
		if q.tbOn {
			if i < nb {
				q.tb[q.p+i] = *q.blocks[i].tiers()
			} else {
				q.tb[q.p+i] = noTiers
			}
		}
	}
	lo, hi := (q.p+from)/2, (2*q.p-1)/2
	for lo >= 1 {
		for i := lo; i <= hi; i++ {
			q.tree[i] = combineSeqAgg(q.tree[2*i], q.tree[2*i+1])
			if q.wbOn {
				q.wb[i] = combineWalls(&q.wb[2*i], &q.wb[2*i+1])
			}
			if q.tbOn {
				q.tb[i] = minTiers(&q.tb[2*i], &q.tb[2*i+1])
			}
		}
		lo, hi = lo/2, hi/2
	}
}

// fix updates the tree above block bi after its aggregate changed (the
// next ready does, when the block moved).
func (q *jobSeq) fix(bi int) {
	if bi >= q.stale {
		return
	}
	i := q.p + bi
	q.tree[i] = q.blocks[bi].agg
	for x := i / 2; x >= 1; x /= 2 {
		q.tree[x] = combineSeqAgg(q.tree[2*x], q.tree[2*x+1])
	}
	// The walltimes by users bucket and by size tier change less often
	// (only with a range's shortest): a node they do not change in leaves
	// the ones above it as they are.
	if q.wbOn {
		fixUp(q.wb, i, q.blocks[bi].walls(), combineWalls)
	}
	if q.tbOn {
		fixUp(q.tb, i, q.blocks[bi].tiers(), minTiers)
	}
}

// fixUp sets leaf i of t, a tree in heap layout, to v and updates the
// nodes above it up to the first one that does not change.
func fixUp[T comparable](t []T, i int, v *T, combine func(a, b *T) T) {
	if *v == t[i] {
		return
	}
	t[i] = *v
	for x := i / 2; x >= 1; x /= 2 {
		c := combine(&t[2*x], &t[2*x+1])
		if c == t[x] {
			return
		}
		t[x] = c
	}
}

// root is the aggregate of the whole sequence.
func (q *jobSeq) root() seqAgg {
	q.ready()
	return q.tree[1]
}

// findBlock is the block an entry belongs to: the last one whose first
// entry is not after it (block 0 when there is none).
func (q *jobSeq) findBlock(e *seqEntry) int {
	lo, hi := 0, len(q.blocks) // the answer is the last i in [0, hi) with first <= e
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if cmpSeqEntry(q.blocks[m].first(), e) <= 0 {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}

// lowerBound is the first index of b whose entry is not before e.
func lowerBound(b *seqBlock, e *seqEntry) int {
	lo, hi := 0, len(b.e)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cmpSeqEntry(&b.e[m], e) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// seqPos is where a job's entry was: its block and index (a hint, which
// holds while the entry there is still the job's).
type seqPos struct {
	j      *Job
	bi, ei int32
}

// at reports whether j's entry is at p.
func (q *jobSeq) at(p seqPos) bool {
	if int(p.bi) >= len(q.blocks) {
		return false
	}
	b := q.blocks[p.bi]
	return int(p.ei) < len(b.e) && b.e[p.ei].j == p.j
}

// gives records that the walk gives job j, at block bi and index ei.
func (q *jobSeq) gives(j *Job, bi, ei int) *Job {
	q.hint = seqPos{j: j, bi: int32(bi), ei: int32(ei)}
	return j
}

// locate finds job j: its block and index, ok false when it is not there
// (where the walk last gave it, when it did).
func (q *jobSeq) locate(j *Job) (bi, ei int, ok bool) {
	if q.hint.j == j {
		return q.locateAt(q.hint)
	}
	return q.search(j)
}

// locateAt is locate trying p first.
func (q *jobSeq) locateAt(p seqPos) (bi, ei int, ok bool) {
	if q.at(p) {
		return int(p.bi), int(p.ei), true
	}
	return q.search(p.j)
}

// search is locate by the order.
func (q *jobSeq) search(j *Job) (bi, ei int, ok bool) {
	if len(q.blocks) == 0 {
		return 0, 0, false
	}
	e := seqEntry{j: j, key: q.key(j)}
	bi = q.findBlock(&e)
	b := q.blocks[bi]
	ei = lowerBound(b, &e)
	return bi, ei, ei < len(b.e) && b.e[ei].j == j
}

// insert adds job j (not in the sequence).
func (q *jobSeq) insert(s *State, j *Job) {
	e := q.entry(s, j)
	if len(q.blocks) == 0 {
		q.blocks = append(q.blocks, &seqBlock{e: make([]seqEntry, 0, seqBlockMax), agg: emptySeqAgg})
		q.moved(0)
	}
	var bi, ei int
	if last := q.blocks[len(q.blocks)-1]; len(last.e) == 0 || cmpSeqEntry(&last.e[len(last.e)-1], &e) < 0 {
		bi, ei = len(q.blocks)-1, len(last.e) // the usual case in submission order
	} else {
		bi = q.findBlock(&e)
		ei = lowerBound(q.blocks[bi], &e)
	}
	b := q.blocks[bi]
	if len(b.e) == seqBlockMax {
		// Full: split in two halves first (a block never holds more
		// than seqBlockMax entries).
		h := seqBlockMax / 2
		nb := &seqBlock{e: make([]seqEntry, seqBlockMax-h, seqBlockMax)}
		copy(nb.e, b.e[h:])
		clear(b.e[h:])
		b.e = b.e[:h]
		b.recompute()
		nb.recompute()
		q.blocks = slices.Insert(q.blocks, bi+1, nb)
		q.moved(bi)
		if ei > h {
			bi, ei, b = bi+1, ei-h, nb
		}
	}
	if len(b.e) == 0 && len(q.blocks) > 1 {
		q.tombs-- // a tombstone (purge) comes back to life
	}
	b.e = slices.Insert(b.e, ei, e)
	b.agg.addEntry(&e)
	b.umOK, b.wbOK, b.twOK = false, false, false
	q.fix(bi)
	if q.lv != nil {
		q.levelInsert(&e, b, ei)
	}
}

// kill marks job j dead: it no longer counts in the live aggregates, but
// keeps its place (and its rank) until the next purge.
func (q *jobSeq) kill(j *Job) {
	bi, ei, ok := q.locate(j)
	if !ok || q.blocks[bi].e[ei].res == seqDead {
		return
	}
	q.blocks[bi].killAt(ei)
	q.fix(bi)
	q.dead = append(q.dead, seqPos{j: j, bi: int32(bi), ei: int32(ei)})
}

// purge drops the dead entries.
func (q *jobSeq) purge() {
	if len(q.dead) == 0 {
		return
	}
	if q.lv != nil {
		// The records that leave are replaced while the dead entries
		// still hold their places (the searches pass them).
		for _, p := range q.dead {
			if bi, ei, ok := q.locateAt(p); ok {
				q.levelRemove(&q.blocks[bi].e[ei])
			}
		}
	}
	// From the last place to the first: an entry deleted only moves
	// those after it in its block, whose places are then passed.
	if len(q.dead) > 1 {
		slices.SortFunc(q.dead, func(a, b seqPos) int {
			if c := cmp.Compare(b.bi, a.bi); c != 0 {
				return c
			}
			return cmp.Compare(b.ei, a.ei)
		})
	}
	// A block left empty stays in place as a tombstone (standing for its
	// last entry), and so does one merged into its neighbour: dropping
	// it would move every block after it and lay their part of the tree
	// out again, a pass over the whole queue each time a block goes
	// when jobs leave from all over a long queue. The tombstones are
	// dropped together once they are an eighth of the blocks, and an
	// empty last block at once (nothing comes after it).
	for _, p := range q.dead {
		bi, ei, ok := q.locateAt(p)
		if !ok {
			continue
		}
		b := q.blocks[bi]
		if len(b.e) == 1 {
			b.k0 = b.e[0]
		}
		b.e = slices.Delete(b.e, ei, ei+1)
		b.agg.n--
		q.removed++
		b.umOK, b.wbOK, b.twOK = false, false, false
		switch {
		case len(b.e) == 0:
			b.recompute()
			q.tombs++
			q.fix(bi)
		case len(b.e) < seqBlockMin && len(q.blocks) > 1:
			k := min(bi, len(q.blocks)-2)
			if len(q.blocks[k].e) == 0 || len(q.blocks[k+1].e) == 0 {
				q.fix(bi) // a tombstone beside it: left as it is
				break
			}
			q.merge(k)
			q.fix(k)
			q.fix(k + 1)
		default:
			q.fix(bi)
		}
	}
	clear(q.dead)
	q.dead = q.dead[:0]
	q.dropTombs()
}

// dropTombs drops the empty last blocks, and every tombstone once they
// are an eighth of the blocks.
func (q *jobSeq) dropTombs() {
	n := len(q.blocks)
	for n > 0 && len(q.blocks[n-1].e) == 0 {
		n--
		q.tombs--
	}
	if n < len(q.blocks) {
		clear(q.blocks[n:])
		q.blocks = q.blocks[:n]
		q.moved(n)
	}
	if q.tombs <= 8 || q.tombs < len(q.blocks)/8 {
		return
	}
	k, from := 0, len(q.blocks)
	for i, b := range q.blocks {
		if len(b.e) == 0 {
			from = min(from, i)
			continue
		}
		q.blocks[k] = b
		k++
	}
	clear(q.blocks[k:])
	q.blocks, q.tombs = q.blocks[:k], 0
	q.moved(from)
}

// merge joins blocks k and k+1 when they fit in one block, block k then
// left empty as a tombstone (see purge), or shares their entries evenly.
// Neither moves a block.
func (q *jobSeq) merge(k int) {
	a, b := q.blocks[k], q.blocks[k+1]
	if n := len(a.e) + len(b.e); n <= seqBlockMax {
		// b takes a's entries in front of its own: b's first is a's,
		// which a keeps as its tombstone's.
		a.k0 = a.e[0]
		m := len(b.e)
		b.e = slices.Grow(b.e, n-m)[:n]
		copy(b.e[len(a.e):], b.e[:m])
		copy(b.e, a.e)
		clear(a.e)
		a.e = a.e[:0]
		a.recompute()
		b.recompute()
		q.tombs++
		return
	}
	all := make([]seqEntry, 0, len(a.e)+len(b.e))
	all = append(append(all, a.e...), b.e...)
	h := len(all) / 2
	a.e = append(a.e[:0], all[:h]...)
	b.e = append(b.e[:0], all[h:]...)
	a.recompute()
	b.recompute()
}

// prefixN is the number of entries (dead ones included) in the blocks
// before block bi.
func (q *jobSeq) prefixN(bi int) int {
	q.ready()
	n := 0
	for i := q.p + bi; i > 1; i /= 2 {
		if i%2 == 1 {
			n += int(q.tree[i-1].n)
		}
	}
	return n
}

// rank is the 0-based position of job j among the entries (dead ones
// included), -1 when it is not there.
func (q *jobSeq) rank(j *Job) int {
	bi, ei, ok := q.locate(j)
	if !ok {
		return -1
	}
	return q.prefixN(bi) + ei
}

// nextBlock is the first block index >= from holding a live entry of res
// <= limit, or -1.
func (q *jobSeq) nextBlock(from, limit int) int {
	lim := int32(min(limit, seqNoRes-1))
	return q.nextBlockWhere(from, func(a *seqAgg) bool { return a.minRes <= lim })
}

// seqWalk walks a jobSeq in order.
type seqWalk struct {
	q      *jobSeq
	bi, ei int
}

// Next implements Walk: the next live job of res <= limit.
func (w *seqWalk) Next(limit int) *Job {
	lim := int32(min(limit, seqNoRes-1))
	return w.nextWhere(func(a *seqAgg) bool { return a.minRes <= lim },
		func(e *seqEntry) bool { return e.res <= lim })
}

// nextWhere is the next live entry's job that ok accepts, skipping the
// blocks (and ranges) whose aggregate may rules out: may must hold for a
// range holding an entry ok accepts.
func (w *seqWalk) nextWhere(may func(a *seqAgg) bool, ok func(e *seqEntry) bool) *Job {
	q := w.q
	return w.nextWhereAt(func(b *seqBlock) bool { return may(&b.agg) }, func(x int) bool { return may(&q.tree[x]) }, ok)
}

// nextWhereAt is nextWhere with the test of a block (mayBlock) and of a
// node of the tree by its index (mayNode), for what the tree keeps beside
// its aggregates.
func (w *seqWalk) nextWhereAt(mayBlock func(b *seqBlock) bool, mayNode func(x int) bool, ok func(e *seqEntry) bool) *Job {
	q := w.q
	for w.bi < len(q.blocks) {
		b := q.blocks[w.bi]
		if mayBlock(b) {
			for w.ei < len(b.e) {
				e := &b.e[w.ei]
				w.ei++
				if e.res != seqDead && ok(e) {
					return q.gives(e.j, w.bi, w.ei-1)
				}
			}
		}
		w.bi = q.nextBlockAt(w.bi+1, mayNode)
		w.ei = 0
		if w.bi < 0 {
			w.bi = len(q.blocks)
		}
	}
	return nil
}

// nextStartable is next(free) restricted to the jobs that could be
// backfilled now: res <= small, or res <= free and now + walltime <=
// shadow (Backfill's very test). A range is skipped when its smallest res
// and shortest walltime rule all of its jobs out; now + walltime grows
// with the walltime, so the test on the shortest is exact.
//
// The walltime tested is the shortest among the range's jobs of at most
// free hosts' tier (tb), so that a range whose small jobs are all long
// and whose short jobs are all large is skipped too.
func (w *seqWalk) nextStartable(free, small int, now, shadow float64) *Job {
	lf, ls := int32(min(free, seqNoRes-1)), int32(min(small, seqNoRes-1))
	q := w.q
	q.enableTiers() // laid out by the tree's first read (nextBlockAt)
	tier := resTier(lf)
	mayW := func(a *seqAgg, tw *[seqResTiers]float64) bool {
		if a.minRes <= ls {
			return true
		}
		if a.minRes > lf {
			return false
		}
		wmin := a.minW
		if tier < seqResTiers {
			wmin = tw[tier]
		}
		return now+wmin <= shadow
	}
	return w.nextWhereAt(func(b *seqBlock) bool { return mayW(&b.agg, b.tiers()) },
		func(x int) bool { return mayW(&q.tree[x], &q.tb[x]) },
		func(e *seqEntry) bool {
			// e.wall is the job's walltime, 0 without (WalltimeOrInf
			// without going to the job).
			w := e.wall
			if !(w > 0) {
				w = math.Inf(1)
			}
			return e.res <= lf && (e.res <= ls || now+w <= shadow)
		})
}

// nextBlockWhere is the first block index >= from whose aggregate, and
// those of the tree's ranges above it, satisfy may, or -1. may must hold
// for a range whenever it holds for one of its parts.
func (q *jobSeq) nextBlockWhere(from int, may func(a *seqAgg) bool) int {
	return q.nextBlockAt(from, func(x int) bool { return may(&q.tree[x]) })
}

// nextBlockAt is nextBlockWhere with may given the index of the tree's
// node (for what the tree keeps beside its aggregates: wb).
func (q *jobSeq) nextBlockAt(from int, may func(x int) bool) int {
	if from >= len(q.blocks) {
		return -1
	}
	q.ready()
	i := q.p + from
	if may(i) {
		return from
	}
	for {
		for i%2 == 1 {
			i /= 2
			if i == 0 {
				return -1
			}
		}
		i++
		if may(i) {
			break
		}
	}
	for i < q.p {
		if may(2 * i) {
			i = 2 * i
		} else {
			i = 2*i + 1
		}
	}
	if i-q.p >= len(q.blocks) {
		return -1
	}
	return i - q.p
}

// each calls f on every live entry in order with its rank (dead entries
// count in the ranks).
func (q *jobSeq) each(f func(e *seqEntry, rank int)) {
	r := 0
	for _, b := range q.blocks {
		for i := range b.e {
			if b.e[i].res != seqDead {
				f(&b.e[i], r)
			}
			r++
		}
	}
}

// ---------------------------------------------------------------- State side

// userID is the index of a user name in the State (assigned on first
// sight).
func (s *State) userID(name string) int32 {
	if id, ok := s.users[name]; ok {
		return id
	}
	if s.users == nil {
		s.users = map[string]int32{}
	}
	id := int32(len(s.userNames))
	s.users[name] = id
	s.userNames = append(s.userNames, name)
	return id
}

// seqFor returns the State's jobSeq of an order, building it from the
// waiting queue the first time; from then on the State keeps it up to
// date. ok is false when the order is not one a jobSeq keeps.
func (s *State) seqFor(o Order) (*jobSeq, bool) {
	if k, ok := o.(*KeyOrder); ok {
		for _, q := range s.seqs {
			if q.custom == k {
				return q, true
			}
		}
		q := newJobSeq(seqByKey, k)
		q.build(s, s.WaitingCopy())
		s.seqs = append(s.seqs, q)
		return q, true
	}
	k, ok := o.(seqKeyed)
	if !ok {
		return nil, false
	}
	return s.seqOf(k.seqOrder()), true
}

func (s *State) seqOf(order seqOrder) *jobSeq {
	for _, q := range s.seqs {
		if q.order == order {
			return q
		}
	}
	q := newJobSeq(order, nil)
	q.build(s, s.WaitingCopy())
	s.seqs = append(s.seqs, q)
	return q
}

// checkSeqs verifies every jobSeq against the waiting queue: the live
// entries are exactly the waiting jobs, in order, and every aggregate
// holds.
func (s *State) checkSeqs() error {
	for _, q := range s.seqs {
		if err := q.check(s); err != nil {
			return err
		}
	}
	return nil
}

func (q *jobSeq) check(s *State) error {
	q.ready()
	want := map[*Job]bool{}
	for _, j := range s.waiting {
		if j.state == batsim.StateSubmitted {
			want[j] = true
		}
	}
	live, total, tombs := 0, 0, 0
	var prev, tomb *seqEntry // the last entry, the last tombstone's k0 since
	for bi, b := range q.blocks {
		if len(b.e) > seqBlockMax || (len(b.e) == 0 && bi == len(q.blocks)-1) {
			return fmt.Errorf("order index %d: block %d of %d holds %d entries", q.order, bi, len(q.blocks), len(b.e))
		}
		if len(b.e) == 0 {
			tombs++
			if prev != nil && cmpSeqEntry(prev, &b.k0) >= 0 {
				return fmt.Errorf("order index %d: empty block %d stands for %s, not after %s", q.order, bi, b.k0.j.id, prev.j.id)
			}
			tomb = &b.k0
		} else if tomb != nil {
			if cmpSeqEntry(tomb, &b.e[0]) > 0 {
				return fmt.Errorf("order index %d: an empty block before block %d stands for %s, after its first %s", q.order, bi, tomb.j.id, b.e[0].j.id)
			}
			tomb = nil
		}
		agg := b.agg
		var um []seqUserMin
		if b.umOK {
			um = slices.Clone(b.um)
		}
		b.recompute()
		if um != nil && !slices.Equal(um, b.userMins()) {
			return fmt.Errorf("order index %d: block %d users' shortest walltimes %v, recomputed %v", q.order, bi, um, b.um)
		}
		if agg != b.agg {
			return fmt.Errorf("order index %d: block %d aggregate %+v, recomputed %+v", q.order, bi, agg, b.agg)
		}
		if q.tree[q.p+bi] != b.agg {
			return fmt.Errorf("order index %d: block %d leaf differs from its aggregate", q.order, bi)
		}
		for i := range b.e {
			e := &b.e[i]
			total++
			if e.key != q.key(e.j) && !(math.IsNaN(e.key) && math.IsNaN(q.key(e.j))) {
				return fmt.Errorf("order index %d: job %s has key %v, want %v", q.order, e.j.id, e.key, q.key(e.j))
			}
			if e.wall != e.j.walltime || e.uid < 0 || int(e.uid) >= len(s.userNames) || s.userNames[e.uid] != e.j.user {
				return fmt.Errorf("order index %d: job %s: entry holds walltime %v user %d", q.order, e.j.id, e.wall, e.uid)
			}
			if prev != nil && cmpSeqEntry(prev, e) >= 0 {
				return fmt.Errorf("order index %d: %s is not before %s", q.order, prev.j.id, e.j.id)
			}
			prev = e
			if e.res == seqDead {
				continue
			}
			live++
			if !want[e.j] {
				return fmt.Errorf("order index %d: job %s (%s) is not waiting", q.order, e.j.id, e.j.state)
			}
		}
	}
	if tombs != q.tombs {
		return fmt.Errorf("order index %d: %d empty blocks, %d counted", q.order, tombs, q.tombs)
	}
	if live != len(want) {
		return fmt.Errorf("order index %d: %d live entries, %d waiting jobs", q.order, live, len(want))
	}
	if total-live != len(q.dead) {
		return fmt.Errorf("order index %d: %d dead entries, %d recorded", q.order, total-live, len(q.dead))
	}
	for i := q.p - 1; i >= 1; i-- {
		if q.tree[i] != combineSeqAgg(q.tree[2*i], q.tree[2*i+1]) {
			return fmt.Errorf("order index %d: tree node %d is stale", q.order, i)
		}
		if q.wbOn && q.wb[i] != combineWalls(&q.wb[2*i], &q.wb[2*i+1]) {
			return fmt.Errorf("order index %d: tree node %d's walltimes by user are stale", q.order, i)
		}
		if q.tbOn && q.tb[i] != minTiers(&q.tb[2*i], &q.tb[2*i+1]) {
			return fmt.Errorf("order index %d: tree node %d's walltimes by size are stale", q.order, i)
		}
	}
	for bi, b := range q.blocks {
		if q.wbOn {
			wb := *b.walls()
			b.wbOK = false
			if wb != *b.walls() || q.wb[q.p+bi] != wb {
				return fmt.Errorf("order index %d: block %d's walltimes by user are stale", q.order, bi)
			}
		}
		if q.tbOn {
			tw := *b.tiers()
			b.twOK = false
			if tw != *b.tiers() || q.tb[q.p+bi] != tw {
				return fmt.Errorf("order index %d: block %d's walltimes by size are stale", q.order, bi)
			}
		}
	}
	for i := len(q.blocks); i < q.p; i++ {
		if q.tree[q.p+i] != emptySeqAgg {
			return fmt.Errorf("order index %d: leaf %d beyond the blocks is not empty", q.order, i)
		}
	}
	for bi, b := range q.blocks {
		if b.idx != bi {
			return fmt.Errorf("order index %d: block %d says it is block %d", q.order, bi, b.idx)
		}
	}
	return q.checkLevels()
}
