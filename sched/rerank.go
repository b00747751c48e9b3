package sched

import (
	"math"
	"slices"

	"github.com/bucma-sched/bucma/batsim"
)

// Re-ranking a base order by a weighted score (BUCMA's Sf, bucma.txt Eq. 2)
// without sorting the queue.
//
// Sf mixes the base rank r (every arrival and departure moves the ranks of
// the jobs behind it, and n) with the owner's score, the waiting time and
// the walltime, so the Sf order cannot be kept from one decision to the
// next. It is searched instead, best first, over the State's jobSeq of the
// base order: a node of the jobSeq's tree (a range of the base order) gets
// as upper bound the very Sf formula evaluated at the best values its live
// jobs can have (the highest score among the users it holds, the rank of
// its first entry, the earliest submission, the shortest walltime). Every
// operation of the formula is a correctly rounded addition, multiplication
// or division by a non-negative number, each monotone in its arguments, so
// the bound is at least the Sf of every job of the range, bit for bit: the
// search pops nodes and jobs from a heap by (value descending, rank
// ascending) and a job that reaches the top comes exactly where the sort by
// (Sf descending, base rank ascending) puts it. A decision costs the nodes
// and blocks whose bound reaches the Sf of the jobs it walks, not the whole
// queue.
//
// The ranks are those of the queue when the decision began: the jobSeq is
// purged first and its entries keep their place while jobs start.

// sfNorm holds what Sf is normalised by in one decision.
type sfNorm struct {
	w          RerankWeights
	n          int
	now        float64
	maxE, maxW float64
}

// sf is Eq. 2 for a job of score su at base rank r (the one expression of
// Sf: Rerank.rank uses it too).
func (z *sfNorm) sf(su float64, r int, submit, walltime float64, hasWalltime bool) float64 {
	return z.sfTerm(z.suTerm(su), r, submit, walltime, hasWalltime)
}

// suTerm is the first term of Sf, α·Su/100.
func (z *sfNorm) suTerm(su float64) float64 { return z.w.Score * su / 100 }

// sfTerm is sf given its first term. A term whose weight is 0 is not added:
// it is +0, and adding +0 changes no sum of non-negative terms.
func (z *sfNorm) sfTerm(suTerm float64, r int, submit, walltime float64, hasWalltime bool) float64 {
	sf := suTerm + z.w.Rank*float64(z.n-r)/float64(z.n)
	if z.maxE > 0 && z.w.Wait != 0 {
		sf += z.w.Wait * math.Max(z.now-submit, 0) / z.maxE
	}
	if z.maxW > 0 && hasWalltime && z.w.Walltime != 0 {
		sf += z.w.Walltime * (1 - walltime/z.maxW)
	}
	return sf
}

// sfOf is the Sf of a jobSeq entry at base rank r. The walltime is the
// entry's, the submission time the key of a queue in submission order,
// and is read from the job only when the E term needs it.
func (w *sfWalk) sfOf(e *seqEntry, r int) float64 {
	return w.z.sfTerm(w.suTerm[e.uid], r, w.submitOf(e), e.wall, e.wall > 0)
}

// submitOf is an entry's submission time when the E term needs it (0
// otherwise).
func (w *sfWalk) submitOf(e *seqEntry) float64 {
	if w.z.maxE > 0 && w.z.w.Wait != 0 {
		if w.q.order == seqBySubmit {
			return e.key
		}
		return e.j.submit
	}
	return 0
}

// userScores mirrors a UserScores by user number (State.userID) for the walk:
// each user's Su, and the highest Su among the users of each of the 64
// buckets a jobSeq's users mask tells apart (user number mod 64).
type userScores struct {
	s    *State // the State whose user numbers these are
	su   []float64
	hist [64][101]int32 // users per bucket and score (clamped to 0..100)
	bmax [64]float64
	bmin [64]float64
	// hi lists the distinct bucket maxima, highest first, each with the
	// buckets whose maximum is at least it; lo the minima, lowest first,
	// with the buckets whose minimum is at most it (a few levels: scores
	// take few values).
	hi, lo []suLevel
	dirty  bool
	// above is set once a score above 100 was seen: the bounds then give up on scores.
	above bool
}

type suLevel struct {
	su      float64
	buckets uint64
}

func (u *userScores) reset(s *State) {
	*u = userScores{s: s, su: u.su[:0], hi: u.hi[:0], lo: u.lo[:0]}
}

func (u *userScores) set(uid int, su int) {
	b := uid % 64
	if uid < len(u.su) {
		u.hist[b][min(max(int(u.su[uid]), 0), 100)]--
		u.su[uid] = float64(su)
	} else {
		u.su = append(u.su, float64(su))
	}
	u.above = u.above || su > 100
	u.hist[b][min(max(su, 0), 100)]++
	m := 100
	for m > 0 && u.hist[b][m] == 0 {
		m--
	}
	u.bmax[b] = float64(m)
	m = 0
	for m < 100 && u.hist[b][m] == 0 {
		m++
	}
	u.bmin[b] = float64(m)
	u.dirty = true
}

// levels rebuilds hi and lo (the bucket maxima and minima are whole
// numbers of 0..100).
func (u *userScores) levels() {
	u.hi, u.lo, u.dirty = u.hi[:0], u.lo[:0], false
	var byMax, byMin [101]uint64 // the buckets whose maximum (minimum) is v
	for b := range 64 {
		byMax[int(u.bmax[b])] |= 1 << b
		byMin[int(u.bmin[b])] |= 1 << b
	}
	var acc uint64
	for v := 100; v >= 0; v-- {
		if byMax[v] != 0 {
			acc |= byMax[v]
			u.hi = append(u.hi, suLevel{su: float64(v), buckets: acc})
		}
	}
	acc = 0
	for v := 0; v <= 100; v++ {
		if byMin[v] != 0 {
			acc |= byMin[v]
			u.lo = append(u.lo, suLevel{su: float64(v), buckets: acc})
		}
	}
}

// sync brings the mirror up to date: users the State numbered since, and
// the users whose score changed (all of them when the UserScores lost track).
func (u *userScores) sync(s *State, sc UserScores) {
	changed, all := sc.Changed()
	if u.s != s {
		u.reset(s)
		all = false // every user is read below
	}
	if all {
		for uid, name := range s.userNames[:len(u.su)] {
			u.set(uid, sc.Score(name))
		}
	} else {
		for _, name := range changed {
			if uid, ok := s.users[name]; ok && int(uid) < len(u.su) {
				u.set(int(uid), sc.Score(name))
			}
		}
	}
	for uid := len(u.su); uid < len(s.userNames); uid++ {
		u.set(uid, sc.Score(s.userNames[uid]))
	}
	if u.dirty {
		u.levels()
	}
}

// maxIn is the highest Su among the buckets of a users mask.
func (u *userScores) maxIn(mask uint64) float64 {
	if u.above {
		return math.MaxFloat64 // not +Inf: a weight 0 times it must stay 0
	}
	for _, l := range u.hi {
		if l.buckets&mask != 0 {
			return l.su
		}
	}
	return 0
}

// minIn is the lowest Su among the buckets of a users mask (a score below
// 0 counts as 0).
func (u *userScores) minIn(mask uint64) float64 {
	for _, l := range u.lo {
		if l.buckets&mask != 0 {
			return l.su
		}
	}
	return 100
}

// sfItem is a job (node 0) with its exact Sf, or a node of the jobSeq's
// tree with an upper bound of the Sf of its live jobs; rank is the job's
// base rank, or the node's first entry's. Its 32 bytes are what the heap
// moves: the walks push and pop tens of items a decision.
type sfItem struct {
	sf     float64
	rank   int32
	node   int32
	bi, ei int32
	// A job's item stands for the run of its block that is still in the
	// walk: run..runEnd of sfWalk.runs, a heap of the block's other jobs
	// by the same order, whose top comes in when this job leaves. A
	// block's item has no run: run is 1 once its bound was refined (from
	// its users' own scores and shortest walltimes), and the block is
	// opened when it comes out again.
	run, runEnd int32
}

func sfItemBefore(a, b *sfItem) bool {
	if a.sf != b.sf {
		return a.sf > b.sf
	}
	return a.rank < b.rank
}

// sfWalk walks the Sf order of one decision (a Walk).
type sfWalk struct {
	q      *jobSeq
	z      sfNorm
	us     *userScores
	suTerm []float64 // the first term of Sf by user number
	h      []sfItem
	// runs holds, for each block the walk opened, its jobs' items as a
	// heap: only the best of a block is in h at a time, so opening a block
	// costs a linear heapify rather than a push per job.
	runs []sfItem

	// The walk by records (rerank_records.go): the users' records, the
	// jobs this walk gave.
	byRecords bool
	// recPending: the records walk is to start at the first Next.
	recPending bool
	// hole: the top of h was taken and its place is free (push, settle).
	hole  bool
	recs  []recNode
	given map[*Job]struct{}
	rest  []recRest // by level: where the level's next records come from
	o     *Rerank   // the Rerank whose levels these are
	// the queue's shortest walltime and earliest submission at the start
	minW0, minSub0 float64
}

// walk starts the Sf walk over q, the State's jobSeq of the base order,
// purged: its entries are the waiting jobs.
func (o *Rerank) walk(s *State, q *jobSeq) *sfWalk {
	return o.walkBy(s, q, o.Weights.Wait == 0 || q.order == seqBySubmit)
}

// walkBy is walk by records (when Sf cannot grow with the rank, see
// rerank_records.go) or by the search of the whole queue's tree.
func (o *Rerank) walkBy(s *State, q *jobSeq, records bool) *sfWalk {
	o.users.sync(s, o.Scores)
	root := q.root()
	w := &o.sfw
	*w = sfWalk{q: q, us: &o.users, h: w.h[:0], runs: w.runs[:0], suTerm: w.suTerm[:0], recs: w.recs[:0], given: w.given,
		rest: w.rest, minW0: root.minW, minSub0: root.minSub,
		z: sfNorm{w: o.Weights, n: int(root.n), now: s.now, maxW: root.maxWall}}
	if root.live > 0 {
		w.z.maxE = math.Max(0, s.now-root.minSub)
	}
	for _, su := range o.users.su {
		w.suTerm = append(w.suTerm, w.z.suTerm(su))
	}
	if records {
		// The records walk starts at the first Next: a decision that only
		// places new jobs in the order (positions) does not need it.
		clear(w.given)
		w.o = o
		w.byRecords, w.recPending = true, true
		return w
	}
	w.pushNode(1, 0, seqNoRes-1)
	return w
}

// bound is an upper bound of the Sf of the live jobs of a range of the
// base order whose first entry has rank r: Sf at their best values.
func (w *sfWalk) bound(a *seqAgg, r int) float64 {
	return w.z.sf(w.us.maxIn(a.users), r, a.minSub, a.minW, !math.IsInf(a.minW, 1))
}

// blockBound is an upper bound of the Sf of the live jobs of block b,
// whose first entry has rank r: the highest, over the block's users, of Sf
// at the user's score, the block's earliest submission and the user's
// shortest walltime. Each is at least the Sf of each of that user's jobs,
// bit for bit, as bound's is.
func (w *sfWalk) blockBound(b *seqBlock, r int) float64 {
	best := math.Inf(-1)
	for _, m := range b.userMins() {
		best = max(best, w.z.sfTerm(w.suTerm[m.uid], r, b.agg.minSub, m.minW, !math.IsInf(m.minW, 1)))
	}
	return best
}

// lowBound is a lower bound of the same: Sf at their worst values (a job
// without walltime has no walltime term).
func (w *sfWalk) lowBound(a *seqAgg, r int) float64 {
	su := w.us.minIn(a.users)
	if w.us.above {
		su = 0
	}
	return w.z.sf(su, r+int(a.n)-1, a.maxSub, a.maxWall, a.noWall == 0)
}

// push puts it in the heap: in the top's place when the top was taken
// (take) and its place is still free, else at the end.
func (w *sfWalk) push(it sfItem) {
	if w.hole {
		// The item the walk pushes after taking the top is most often
		// the next best (a level's bound at its next record): in the
		// top's place it sinks at once where an appended one would
		// climb the whole heap, and the top's removal is saved.
		w.hole = false
		w.h[0] = it
		siftDown(w.h, 0)
		return
	}
	w.h = append(w.h, it)
	w.up(len(w.h) - 1)
}

// take takes the top of the heap, leaving its place to the next push.
func (w *sfWalk) take() sfItem {
	w.settle()
	w.hole = true
	return w.h[0]
}

// settle fills the place of a top taken and not replaced; it reports
// whether the heap holds items.
func (w *sfWalk) settle() bool {
	if w.hole {
		w.hole = false
		w.pop()
	}
	return len(w.h) > 0
}

// up restores the heap order of h above i.
func (w *sfWalk) up(i int) {
	h := w.h
	for i > 0 {
		p := (i - 1) / 2
		if !sfItemBefore(&h[i], &h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}

}

func (w *sfWalk) pop() sfItem {
	h := w.h
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	w.h = h[:n]
	siftDown(w.h, 0)
	return top
}

// siftDown restores the heap order of h below i.
func siftDown(h []sfItem, i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		if r := l + 1; r < n && sfItemBefore(&h[r], &h[l]) {
			l = r
		}
		if !sfItemBefore(&h[l], &h[i]) {
			break
		}
		h[i], h[l] = h[l], h[i]
		i = l
	}
}

// pushRun pushes the top of runs[a:b], a heap, as the run's item.
func (w *sfWalk) pushRun(a, b int) {
	if a == b {
		return
	}
	it := w.runs[a]
	it.run, it.runEnd = int32(a), int32(b)
	w.push(it)
}

// nextOfRun takes the top off the run of a job's item that left h and
// pushes the run's next best.
func (w *sfWalk) nextOfRun(it *sfItem) {
	a, b := int(it.run), int(it.runEnd)-1
	run := w.runs[a : b+1]
	run[0] = run[b-a]
	siftDown(run[:b-a], 0)
	w.pushRun(a, b)
}

// pushNode pushes tree node x, whose first entry has base rank r, when it
// holds a live job of res <= lim.
func (w *sfWalk) pushNode(x, r int, lim int32) {
	a := &w.q.tree[x]
	if a.live == 0 || a.minRes > lim {
		return
	}
	w.push(sfItem{sf: w.bound(a, r), rank: int32(r), node: int32(x)})
}

// Next implements Walk.
func (w *sfWalk) Next(limit int) *Job {
	lim := int32(min(limit, seqNoRes-1))
	if w.byRecords {
		if w.recPending {
			w.recPending = false
			w.startRecords(w.o)
		}
		return w.nextRecord(lim)
	}
	return w.nextInTree(lim)
}

// nextInTree is Next by the search of the whole queue's tree.
func (w *sfWalk) nextInTree(lim int32) *Job {
	q := w.q
	for w.settle() {
		it := w.take()
		x := int(it.node)
		switch {
		case x == 0:
			w.nextOfRun(&it)
			e := &q.blocks[it.bi].e[it.ei]
			if e.res != seqDead && e.res <= lim {
				return q.gives(e.j, int(it.bi), int(it.ei))
			}
		case x < q.p:
			if a := &q.tree[x]; a.live > 0 && a.minRes <= lim {
				w.pushNode(2*x, int(it.rank), lim)
				w.pushNode(2*x+1, int(it.rank)+int(q.tree[2*x].n), lim)
			}
		default:
			bi := x - q.p
			b := q.blocks[bi]
			if b.agg.live == 0 || b.agg.minRes > lim {
				continue
			}
			if it.run == 0 {
				// Before paying for every job of the block, bound it
				// again per user: the bound of the tree mixes the
				// best score and the shortest walltime of different
				// users' jobs.
				it.sf, it.run = w.blockBound(b, int(it.rank)), 1
				w.push(it)
				continue
			}
			a := len(w.runs)
			for ei := range b.e {
				e := &b.e[ei]
				if e.res == seqDead || e.res > lim {
					continue
				}
				r := int(it.rank) + ei
				w.runs = append(w.runs, sfItem{sf: w.sfOf(e, r), rank: int32(r), bi: int32(bi), ei: int32(ei)})
			}
			run := w.runs[a:]
			for i := len(run)/2 - 1; i >= 0; i-- {
				siftDown(run, i)
			}
			w.pushRun(a, len(w.runs))
		}
	}
	return nil
}

// release drops the walk's references to the queue.
func (w *sfWalk) release() {
	clear(w.h)
	w.h, w.hole = w.h[:0], false
	w.runs = w.runs[:0]
	w.recs = w.recs[:0]
	clear(w.given)
	w.q = nil
}

// sfKey places a job in the Sf order.
type sfKey struct {
	sf   float64
	rank int
	i    int
}

// preceded reports whether a job of Sf sf and base rank r comes before k.
func (k *sfKey) preceded(sf float64, r int) bool {
	if sf != k.sf {
		return sf > k.sf
	}
	return r < k.rank
}

// positions gives the Sf and the 1-based position in the Sf order of each
// of jobs (waiting jobs of the walk's queue, at the start of the walk).
func (w *sfWalk) positions(jobs []*Job) (sf []float64, pos []int) {
	keys := make([]sfKey, len(jobs))
	for i, j := range jobs {
		bi, ei, _ := w.q.locate(j)
		r := w.q.prefixN(bi) + ei
		keys[i] = sfKey{w.sfOf(&w.q.blocks[bi].e[ei], r), r, i}
	}
	sf, pos = make([]float64, len(jobs)), make([]int, len(jobs))
	if len(keys) <= 8 {
		// A few jobs: count, for each, the jobs before it, skipping the
		// ranges whose bounds decide.
		for _, k := range keys {
			sf[k.i], pos[k.i] = k.sf, 1+w.countBefore(1, 0, &k)
		}
		return sf, pos
	}
	// Many: one pass over the queue.
	slices.SortFunc(keys, func(a, b sfKey) int {
		if a.preceded(b.sf, b.rank) {
			return 1
		}
		if b.preceded(a.sf, a.rank) {
			return -1
		}
		return 0
	})
	// ahead[k] counts the jobs of the queue that come before keys[k] but
	// not before keys[k-1].
	ahead := make([]int, len(keys)+1)
	r := 0
	for _, b := range w.q.blocks {
		for i := range b.e {
			e := &b.e[i]
			if e.res != seqDead {
				sf := w.sfOf(e, r)
				lo, hi := 0, len(keys) // the first key this job comes before
				for lo < hi {
					m := int(uint(lo+hi) >> 1)
					if keys[m].preceded(sf, r) {
						hi = m
					} else {
						lo = m + 1
					}
				}
				ahead[lo]++
			}
			r++
		}
	}
	n := 0
	for k := range keys {
		n += ahead[k]
		sf[keys[k].i], pos[keys[k].i] = keys[k].sf, n+1
	}
	return sf, pos
}

// countBefore counts the live jobs of tree node x, whose first entry has
// base rank r, that come before k in the Sf order.
func (w *sfWalk) countBefore(x, r int, k *sfKey) int {
	q := w.q
	a := &q.tree[x]
	if a.live == 0 || w.bound(a, r) < k.sf {
		return 0
	}
	if w.lowBound(a, r) > k.sf {
		return int(a.live)
	}
	if x < q.p {
		return w.countBefore(2*x, r, k) + w.countBefore(2*x+1, r+int(q.tree[2*x].n), k)
	}
	n := 0
	for i := range q.blocks[x-q.p].e {
		e := &q.blocks[x-q.p].e[i]
		if e.res != seqDead && k.preceded(w.sfOf(e, r+i), r+i) {
			n++
		}
	}
	return n
}

// RerankWeights are the weights of Sf's four terms (BUCMA's α, β, γ, δ):
// the owner's score, the rank in the base order, the waiting time and the
// walltime. Each is in [0, 1]; BUCMA's weights sum to 1.
type RerankWeights struct{ Score, Rank, Wait, Walltime float64 }

// UserScores gives each user's score, a number in 0..100 (higher ranks
// first), and tells which scores changed, so that a Rerank updates only
// those.
type UserScores interface {
	// Score is the user's current score.
	Score(user string) int
	// Changed lists the users whose score changed since the last call
	// and forgets them; all is true when any score may have changed.
	Changed() (users []string, all bool)
}

// Rerank is an Order that re-ranks a base order by
//
//	Sf = α·Su/100 + β·(n − r)/n + γ·E/MaxE + δ·(1 − W/MaxW)
//
// descending, ties by the base order (BUCMA's Eq. 2), over the n waiting
// jobs: Su the owner's score, r the job's 0-based rank in the base order,
// E = now − submission and MaxE the largest (term 0 when MaxE = 0), W the
// walltime and MaxW the largest walltime of the jobs that have one (a job
// without walltime has no W term; 0 when MaxW = 0). A term whose weight is
// 0 is left out.
//
// Sort costs one sort by the base order plus one sort by Sf (O(n log n));
// Apply walks the Sf order over the State's index of the base order
// instead, when the base order is indexed (see IndexedOrder): a decision
// then costs the jobs it walks, not the whole queue.
type Rerank struct {
	Base    Order
	Weights RerankWeights
	Scores  UserScores

	buf  []scoredJob
	used int // entries of buf filled by the last rank

	users userScores // the scores by user number, for walk
	sfw   sfWalk
	// levels are the score levels of the walk by records: each one's
	// first term of Sf (as bits), by level number.
	levels []uint64
	// levelNum is the level number of each term in levels.
	levelNum map[uint64]int32
}

// Ranked is a job's place in a Rerank's order at the start of a decision.
type Ranked struct {
	Job      *Job
	Sf       float64
	Position int // 1-based position in the re-ranked queue
	QueueLen int // n: waiting jobs
}

// Apply re-ranks the waiting queue and runs rule on it with hosts (a
// policy's Decide). The jobs of record that are waiting get their Sf and
// position in the queue as the decision began (for a decision trace).
func (o *Rerank) Apply(s *State, rule StartRule, hosts HostSelector, d *Decider, record []*Job) []Ranked {
	if wr, ok := rule.(WalkRule); ok {
		if q, ok := s.seqFor(o.Base); ok {
			q.purge() // the ranks are those of the queue as the decision begins
			w := o.walk(s, q)
			defer w.release()
			var out []Ranked
			var queued []*Job
			for _, j := range record {
				if j.state == batsim.StateSubmitted {
					queued = append(queued, j)
				}
			}
			if len(queued) > 0 {
				sf, pos := w.positions(queued)
				for i, j := range queued {
					out = append(out, Ranked{Job: j, Sf: sf[i], Position: pos[i], QueueLen: w.z.n})
				}
			}
			if (s.NbFree() > 0 && w.z.n > 0) || RunsAtEveryDecision(rule) {
				wr.ApplyWalk(s, w, hosts, d)
			}
			return out
		}
	}
	q := s.WaitingCopy()
	ranked := o.rank(s, q)
	var out []Ranked
	if len(record) > 0 {
		// The jobs to record are the latest arrivals: exactly the waiting
		// jobs whose arrival rank is at least the first one's.
		first := record[0].seq
		want := map[*Job]bool{}
		for _, j := range record {
			first = min(first, j.seq)
			if j.state == batsim.StateSubmitted {
				want[j] = true
			}
		}
		for i := 0; i < len(ranked) && len(want) > 0; i++ {
			j := ranked[i].j
			if j.seq < first || !want[j] {
				continue
			}
			out = append(out, Ranked{Job: j, Sf: ranked[i].sf, Position: i + 1, QueueLen: len(ranked)})
			delete(want, j)
		}
	}
	o.release()
	if (s.NbFree() > 0 && len(q) > 0) || RunsAtEveryDecision(rule) {
		rule.Apply(s, q, hosts, d)
	}
	return out
}

type scoredJob struct {
	j    *Job
	sf   float64
	rank int // 0-based rank in the base order
}

// Sort implements Order.
func (o *Rerank) Sort(s *State, q []*Job) {
	o.rank(s, q)
	o.release()
}

// Rank sorts q (waiting jobs) into the re-ranked order and returns each
// job's place in it, in that order.
func (o *Rerank) Rank(s *State, q []*Job) []Ranked {
	ranked := o.rank(s, q)
	out := make([]Ranked, len(ranked))
	for i, r := range ranked {
		out[i] = Ranked{Job: r.j, Sf: r.sf, Position: i + 1, QueueLen: len(ranked)}
	}
	o.release()
	return out
}

// release drops the job pointers of the scratch buffer, so that finished
// jobs are not kept alive between decisions.
func (o *Rerank) release() {
	clear(o.buf[:o.used])
	o.used = 0
}

// rank sorts q by Sf and returns the scored jobs in the new order (valid
// until the next call).
//
// Terms, over the n jobs of q at s.Now:
//   - Su: the owner's current score.
//   - Ab/MaxAb = (n − r)/n, r the 0-based rank in the base order.
//   - E/MaxE with E = now − submission; 0 when MaxE = 0.
//   - 1 − W/MaxW, MaxW the largest walltime of the jobs that have one; a
//     job without walltime counts as W = MaxW (term 0); 0 when MaxW = 0.
func (o *Rerank) rank(s *State, q []*Job) []scoredJob {
	n := len(q)
	if cap(o.buf) < n {
		o.buf = make([]scoredJob, n)
	}
	buf := o.buf[:n]
	o.used = max(o.used, n)
	if n == 0 {
		return buf
	}
	o.Base.Sort(s, q)
	maxE, maxW := 0.0, 0.0
	for _, j := range q {
		maxE = math.Max(maxE, s.Now()-j.Submit())
		if j.HasWalltime() {
			maxW = math.Max(maxW, j.Walltime())
		}
	}
	z := sfNorm{w: o.Weights, n: n, now: s.Now(), maxE: maxE, maxW: maxW}
	// Users usually have many jobs: remember the last lookup.
	lastUser, lastSu := "", 0.0
	haveLast := false
	for r, j := range q {
		if !haveLast || j.User() != lastUser {
			lastUser, lastSu, haveLast = j.User(), float64(o.Scores.Score(j.User())), true
		}
		buf[r] = scoredJob{j: j, sf: z.sf(lastSu, r, j.Submit(), j.Walltime(), j.HasWalltime()), rank: r}
	}
	slices.SortFunc(buf, func(a, b scoredJob) int {
		switch {
		case a.sf > b.sf:
			return -1
		case a.sf < b.sf:
			return 1
		}
		return a.rank - b.rank
	})
	for i := range buf {
		q[i] = buf[i].j
	}
	return buf
}
