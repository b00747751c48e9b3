package sched

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"

	"github.com/bucma-sched/bucma/batsim"
)

// A timeIndex keeps the waiting jobs of a TimeOrder so that a decision
// walks them in the order of their keys at its time without computing
// every key: the keys change with the time, but the order of two jobs only
// where their lines cross, and the index knows until when each of its
// comparisons holds.
//
// Layout: the jobs are split by size tier (one tier per size up to 64
// hosts, then 16 per doubling of the size), so that a walk for the jobs of
// at most a few hosts never meets the larger ones however high their
// keys, and a walk's test of a size is exact at the tier for the sizes up
// to 64 (a tier mixing sizes that fit and sizes that do not would have the
// walk pass its larger jobs one by one). Each tier is a
// tournament: a binary tree over slots in arrival order (a job takes the
// next slot when it joins; slots are compacted when half of them are
// empty), each node holding the winner of its subtree (the job whose key
// comes first at the time the node was last computed), the smallest size
// and walltime under it, and until when its winner is sure to stay the
// winner: the earliest of its children's times and of the time its two
// children's winners may cross (TimeOrder.certify). A node is computed
// again only once that time has come (or a job under it joined or left):
// a decision computes the nodes whose comparison may have changed since
// the last one, not the queue.
//
// A walk merges the tiers' trees in a heap of subtrees keyed by their
// winners' keys at the walk's time: it takes the first, gives its winner,
// and puts back the subtrees along the winner's path (each the winner of
// its own), skipping those whose smallest size (and walltime) rule out
// every job the walk looks for.
type timeIndex struct {
	o     *TimeOrder
	tiers []*timeTier // by timeTierOf, nil until a job of the tier comes
	// at is the latest time the trees were computed at: a walk at an
	// earlier time (not in a simulation, where time only goes forward)
	// computes every node again.
	at float64
}

const (
	timeMinSlots = 64
	timeNoRes    = math.MaxInt32
)

// timeLeaf is what the index keeps of a job.
type timeLeaf struct {
	j    *Job // nil once the job left (the slot is empty)
	line Line
	wall float64 // WalltimeOrInf
	seq  int64   // the job's arrival rank (kept in an empty slot: slots are in arrival order)
	res  int32
}

// timeTier is the tournament of one size tier.
type timeTier struct {
	n      int        // leaves: a power of two, at least timeMinSlots
	leaves []timeLeaf // the used slots, in arrival order
	live   int        // slots holding a job
	// per node, 1-based heap layout, leaf i at n+i:
	win    []int32   // slot of the winner, -1 when empty
	until  []float64 // the winner holds while the time is below it; -Inf: to compute
	minRes []int32   // smallest size (timeNoRes when empty)
	minW   []float64 // shortest WalltimeOrInf (+Inf when empty)
}

func newTimeIndex(o *TimeOrder) *timeIndex { return &timeIndex{o: o, at: math.Inf(-1)} }

// timeTierOf is the tier of a job of res hosts: its size up to 64 hosts,
// then 16 tiers for each doubling of the size (sizes 65 to 67 share tier
// 65, 68 to 71 tier 66, ..., 128 to 135 tier 81).
func timeTierOf(res int32) int {
	if res <= 64 {
		return int(max(res, 0))
	}
	e := bits.Len32(uint32(res)) - 1 // 2^e <= res < 2^(e+1), e >= 6
	return 65 + (e-6)*16 + int((res-1<<e)>>(e-4))
}

// timeTierLow is the smallest size of tier k.
func timeTierLow(k int) int32 {
	if k <= 64 {
		return int32(k)
	}
	e := 6 + (k-65)/16
	return max(1<<e+int32((k-65)%16)<<(e-4), 65) // 64 is tier 64's
}

func newTimeTier(n int) *timeTier {
	t := &timeTier{n: n, win: make([]int32, 2*n), until: make([]float64, 2*n), minRes: make([]int32, 2*n), minW: make([]float64, 2*n)}
	for i := range t.win {
		t.win[i], t.minRes[i], t.minW[i] = -1, timeNoRes, math.Inf(1)
		t.until[i] = math.Inf(1)
		if i < n {
			t.until[i] = math.Inf(-1)
		}
	}
	return t
}

// setLeaf puts slot i's leaf (or its emptiness) into its node and marks
// the nodes above it to compute.
func (t *timeTier) setLeaf(i int) {
	x := t.n + i
	if l := &t.leaves[i]; l.j != nil {
		t.win[x], t.minRes[x], t.minW[x] = int32(i), l.res, l.wall
	} else {
		t.win[x], t.minRes[x], t.minW[x] = -1, timeNoRes, math.Inf(1)
	}
	for x /= 2; x >= 1 && t.until[x] != math.Inf(-1); x /= 2 {
		t.until[x] = math.Inf(-1)
	}
}

// insert adds job j (the latest arrival).
func (x *timeIndex) insert(j *Job) {
	l := x.o.leaf(j)
	k := timeTierOf(l.res)
	if k >= len(x.tiers) {
		x.tiers = append(x.tiers, make([]*timeTier, k+1-len(x.tiers))...)
	}
	t := x.tiers[k]
	if t == nil {
		t = newTimeTier(timeMinSlots)
		x.tiers[k] = t
	}
	if len(t.leaves) == t.n {
		t = t.compacted(t.live + 1)
		x.tiers[k] = t
	}
	t.leaves = append(t.leaves, l)
	t.live++
	t.setLeaf(len(t.leaves) - 1)
}

// remove takes job j out (started or rejected).
func (x *timeIndex) remove(j *Job) {
	k := timeTierOf(int32(min(max(j.res, 0), math.MaxInt32)))
	if k >= len(x.tiers) || x.tiers[k] == nil {
		return
	}
	t := x.tiers[k]
	i := sort.Search(len(t.leaves), func(i int) bool { return t.leaves[i].seq >= j.seq })
	if i == len(t.leaves) || t.leaves[i].j != j {
		return
	}
	t.leaves[i].j = nil
	t.live--
	t.setLeaf(i)
}

// purge compacts the tiers whose slots are mostly empty (after a
// decision).
func (x *timeIndex) purge() {
	for k, t := range x.tiers {
		if t != nil && len(t.leaves) > timeMinSlots && 2*t.live < len(t.leaves) {
			x.tiers[k] = t.compacted(t.live)
		}
	}
}

// compacted is the tier's jobs in a tree of fresh slots with room for
// twice need, every node to compute.
func (t *timeTier) compacted(need int) *timeTier {
	n := timeMinSlots
	for n < 2*need {
		n *= 2
	}
	c := newTimeTier(n)
	c.leaves = make([]timeLeaf, 0, n)
	for _, l := range t.leaves {
		if l.j != nil {
			c.leaves = append(c.leaves, l)
		}
	}
	c.live = len(c.leaves)
	for i := range c.leaves {
		x := n + i
		c.win[x], c.minRes[x], c.minW[x] = int32(i), c.leaves[i].res, c.leaves[i].wall
	}
	return c
}

// refresh computes again, at time now, the nodes of subtree i whose
// winner may have changed.
func (x *timeIndex) refresh(t *timeTier, i int, now float64) {
	if now < t.until[i] {
		return
	}
	x.refresh(t, 2*i, now)
	x.refresh(t, 2*i+1, now)
	l, r := 2*i, 2*i+1
	t.minRes[i] = min(t.minRes[l], t.minRes[r])
	t.minW[i] = min(t.minW[l], t.minW[r])
	wl, wr := t.win[l], t.win[r]
	cert := math.Inf(1)
	switch {
	case wl < 0:
		t.win[i] = wr
	case wr < 0:
		t.win[i] = wl
	default:
		a, b := &t.leaves[wl], &t.leaves[wr]
		if timeLess(a, b, x.o.key(a, now), x.o.key(b, now)) {
			t.win[i], cert = wl, x.o.certify(a, b, now)
		} else {
			t.win[i], cert = wr, x.o.certify(b, a, now)
		}
	}
	t.until[i] = min(cert, t.until[l], t.until[r])
}

// ready brings the trees to time now: an earlier time than the last one
// has every node computed again.
func (x *timeIndex) ready(now float64) {
	if now < x.at {
		for _, t := range x.tiers {
			if t != nil {
				for i := 1; i < t.n; i++ {
					t.until[i] = math.Inf(-1)
				}
			}
		}
	}
	x.at = now
}

// ---------------------------------------------------------------- walks

// timeFilter is what a walk looks for: the jobs of at most limit hosts,
// or (startable) those Backfill can start: at most free hosts, and at
// most small or ending by shadow.
type timeFilter struct {
	startable   bool
	limit       int32 // free, when startable
	small       int32
	now, shadow float64
}

// may reports whether a subtree whose smallest size and walltime are res
// and wall may hold a job the walk looks for (exact for a job).
func (f *timeFilter) may(res int32, wall float64) bool {
	if !f.startable {
		return res <= f.limit
	}
	return res <= f.small || (res <= f.limit && f.now+wall <= f.shadow)
}

// timeItem is a subtree in a walk's heap, keyed by its winner.
type timeItem struct {
	key  float64
	j    *Job
	tier int32
	node int32
}

// timeWalk walks a timeIndex of State s in order at time t.
type timeWalk struct {
	x       *timeIndex
	s       *State
	t       float64
	h       []timeItem
	started bool
	// last is the job the walk gave last, with its key (the backfill's
	// candidates come after it).
	last    *Job
	lastKey float64
	// cands are the jobs Backfill can start, in order, when they were
	// few (candMode 1), next the first not given yet; candMode 2: they
	// were many, the walk goes on over the trees.
	cands    []*Job
	next0    int
	candMode int
}

// timeMaxCands is the number of jobs Backfill can start up to which
// nextStartable finds them by position (the State's fit tree) and sorts
// them, rather than walking the trees, where the jobs that cannot start
// but come first and share subtrees with those that can are passed one
// by one.
const timeMaxCands = 64

// walk returns a walk of the index at s's time.
func (x *timeIndex) walk(s *State) *timeWalk {
	x.ready(s.now)
	return &timeWalk{x: x, s: s, t: s.now}
}

// Next implements Walk: the next waiting job of at most limit hosts.
func (w *timeWalk) Next(limit int) *Job {
	return w.next(timeFilter{limit: int32(min(max(limit, -1), timeNoRes-1))})
}

// nextStartable is Next restricted to the jobs Backfill can start (as
// seqWalk's): at most free hosts, and at most small or ending by shadow.
// Backfill's scan only shrinks free and small: the jobs the first call
// finds are all those later calls may give. When they are few, they are
// found by position and sorted by key (those after the last job the walk
// gave); otherwise the trees are walked. A walk gives no job by Next once
// it gave one by nextStartable.
func (w *timeWalk) nextStartable(free, small int, now, shadow float64) *Job {
	f := timeFilter{startable: true, limit: int32(min(max(free, -1), timeNoRes-1)), small: int32(min(max(small, -1), free, timeNoRes-1)), now: now, shadow: shadow}
	if w.candMode == 0 {
		// The candidate index counts exactly the waiting jobs that can
		// start (those before the last job given among them, when they
		// still wait: none in Backfill's scan).
		w.candMode = 2
		if w.s.cands != nil && w.s.backfillCandidates(free, int(f.small), shadow) <= timeMaxCands && w.findCands(&f) {
			w.candMode = 1
		}
	}
	if w.candMode == 2 {
		return w.next(f)
	}
	for w.next0 < len(w.cands) {
		j := w.cands[w.next0]
		w.next0++
		if j.state == batsim.StateSubmitted && f.may(int32(min(max(j.res, 0), timeNoRes-1)), j.WalltimeOrInf()) {
			return j
		}
	}
	return nil
}

// findCands lists in w.cands, in order, the waiting jobs f accepts that
// come after the last job the walk gave, and reports whether they are at
// most timeMaxCands.
func (w *timeWalk) findCands(f *timeFilter) bool {
	s := w.s
	fit := s.fitIndex()
	type keyed struct {
		k float64
		j *Job
	}
	var ks []keyed
	for pos := s.qbase; ; {
		p := fit.nextStartable(pos, int(f.limit), int(f.small), f.now, f.shadow)
		if p < 0 || p-s.qbase >= int64(len(s.waiting)) {
			break
		}
		pos = p + 1
		j := s.waiting[p-s.qbase]
		if j.state != batsim.StateSubmitted || !f.may(int32(min(max(j.res, 0), timeNoRes-1)), j.WalltimeOrInf()) {
			continue
		}
		k := w.x.o.Key(j, w.t)
		if w.last != nil && !(w.lastKey < k || (w.lastKey == k && lessBySubmit(w.last, j))) {
			continue
		}
		if len(ks) == timeMaxCands {
			return false
		}
		ks = append(ks, keyed{k, j})
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		switch {
		case a.j == b.j:
			return 0
		case a.k < b.k || (a.k == b.k && lessBySubmit(a.j, b.j)):
			return -1
		}
		return 1
	})
	w.cands = make([]*Job, len(ks))
	for i := range ks {
		w.cands[i] = ks[i].j
	}
	return true
}

func (w *timeWalk) next(f timeFilter) *Job {
	if !w.started {
		w.started = true
		for k, t := range w.x.tiers {
			// A tier whose sizes are all too large is not computed.
			if t != nil && t.live > 0 && f.may(timeTierLow(k), 0) {
				w.push(k, 1, &f)
			}
		}
	}
	for len(w.h) > 0 {
		it := w.pop()
		t := w.x.tiers[it.tier]
		if !(w.t < t.until[it.node]) {
			// A job under it left since it was put in the heap (its
			// winner may be another now).
			w.push(int(it.tier), int(it.node), &f)
			continue
		}
		if !f.may(t.minRes[it.node], t.minW[it.node]) {
			continue
		}
		s := int(t.win[it.node])
		for i := t.n + s; i > int(it.node); i /= 2 {
			w.push(int(it.tier), i^1, &f)
		}
		if l := &t.leaves[s]; l.j != nil && l.j.state == batsim.StateSubmitted && f.may(l.res, l.wall) {
			w.last, w.lastKey = l.j, it.key
			return l.j
		}
	}
	return nil
}

// push puts subtree node of tier k into the heap, computed at the walk's
// time, unless it holds no job the walk looks for.
func (w *timeWalk) push(k, node int, f *timeFilter) {
	t := w.x.tiers[k]
	w.x.refresh(t, node, w.t)
	if t.win[node] < 0 || !f.may(t.minRes[node], t.minW[node]) {
		return
	}
	l := &t.leaves[t.win[node]]
	w.h = append(w.h, timeItem{key: w.x.o.key(l, w.t), j: l.j, tier: int32(k), node: int32(node)})
	for i := len(w.h) - 1; i > 0; {
		p := (i - 1) / 2
		if !w.less(i, p) {
			break
		}
		w.h[i], w.h[p] = w.h[p], w.h[i]
		i = p
	}
}

func (w *timeWalk) less(a, b int) bool {
	if x, y := &w.h[a], &w.h[b]; x.key != y.key {
		return x.key < y.key
	} else {
		return lessBySubmit(x.j, y.j)
	}
}

// pop takes the heap's first subtree.
func (w *timeWalk) pop() timeItem {
	top := w.h[0]
	n := len(w.h) - 1
	w.h[0] = w.h[n]
	w.h = w.h[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && w.less(c+1, c) {
			c++
		}
		if !w.less(c, i) {
			break
		}
		w.h[i], w.h[c] = w.h[c], w.h[i]
		i = c
	}
	return top
}

// ---------------------------------------------------------------- State side

// timeFor returns the State's index of order o, built from the waiting
// queue the first time; from then on the State keeps it up to date.
func (s *State) timeFor(o *TimeOrder) *timeIndex {
	for _, x := range s.timed {
		if x.o == o {
			return x
		}
	}
	x := newTimeIndex(o)
	for _, j := range s.waiting {
		if j.state == batsim.StateSubmitted {
			x.insert(j)
		}
	}
	s.timed = append(s.timed, x)
	return x
}

// checkTimed verifies every timeIndex against the waiting queue at the
// state's time: its jobs are exactly the waiting ones, each tier's in
// arrival order, and every node whose winner holds at this time has the
// winner a comparison of its whole subtree gives, with exact aggregates.
func (s *State) checkTimed() error {
	for _, x := range s.timed {
		if err := x.check(s); err != nil {
			return fmt.Errorf("time order %s: %w", x.o.name, err)
		}
	}
	return nil
}

func (x *timeIndex) check(s *State) error {
	want := map[*Job]bool{}
	for _, j := range s.waiting {
		if j.state == batsim.StateSubmitted {
			want[j] = true
		}
	}
	seen := 0
	for k, t := range x.tiers {
		if t == nil {
			continue
		}
		if len(t.leaves) > t.n || len(t.win) != 2*t.n {
			return fmt.Errorf("tier %d: %d slots in a tree of %d", k, len(t.leaves), t.n)
		}
		live := 0
		for i, l := range t.leaves {
			if i > 0 && t.leaves[i-1].seq >= l.seq {
				return fmt.Errorf("tier %d: slot %d out of arrival order", k, i)
			}
			if l.j == nil {
				continue
			}
			live++
			if !want[l.j] {
				return fmt.Errorf("tier %d: job %s is not waiting", k, l.j.id)
			}
			if timeTierOf(l.res) != k || l != x.o.leaf(l.j) {
				return fmt.Errorf("tier %d: job %s is kept as %+v", k, l.j.id, l)
			}
		}
		if live != t.live {
			return fmt.Errorf("tier %d: %d jobs, %d counted", k, live, t.live)
		}
		seen += live
		if _, _, _, err := x.truth(t, 1, max(s.now, x.at)); err != nil {
			return fmt.Errorf("tier %d: %w", k, err)
		}
	}
	if seen != len(want) {
		return fmt.Errorf("%d jobs kept, %d waiting", seen, len(want))
	}
	return nil
}

// truth is subtree i's winner at time now (-1 when empty), smallest size
// and walltime, computed from its leaves: a node whose winner holds at now
// (computed at or before it, to hold until after it) must agree, and hold
// no longer than its children.
func (x *timeIndex) truth(t *timeTier, i int, now float64) (win int32, res int32, wall float64, err error) {
	if i >= t.n {
		s := i - t.n
		if s < len(t.leaves) && t.leaves[s].j != nil {
			win, res, wall = int32(s), t.leaves[s].res, t.leaves[s].wall
		} else {
			win, res, wall = -1, timeNoRes, math.Inf(1)
		}
		if t.win[i] != win || t.minRes[i] != res || t.minW[i] != wall {
			return 0, 0, 0, fmt.Errorf("leaf %d holds %d (%d hosts, %v s), want %d", s, t.win[i], t.minRes[i], t.minW[i], win)
		}
		return win, res, wall, nil
	}
	wl, rl, ml, err := x.truth(t, 2*i, now)
	if err != nil {
		return 0, 0, 0, err
	}
	wr, rr, mr, err := x.truth(t, 2*i+1, now)
	if err != nil {
		return 0, 0, 0, err
	}
	win, res, wall = wl, min(rl, rr), min(ml, mr)
	if wl < 0 || (wr >= 0 && !timeLess(&t.leaves[wl], &t.leaves[wr], x.o.key(&t.leaves[wl], now), x.o.key(&t.leaves[wr], now))) {
		win = wr
	}
	if t.until[i] > t.until[2*i] || t.until[i] > t.until[2*i+1] {
		return 0, 0, 0, fmt.Errorf("node %d holds until %v, after a child", i, t.until[i])
	}
	if now < t.until[i] && (t.win[i] != win || t.minRes[i] != res || t.minW[i] != wall) {
		return 0, 0, 0, fmt.Errorf("node %d at t=%v: winner slot %d (%d hosts, %v s) until %v, want slot %d (%d hosts, %v s)",
			i, now, t.win[i], t.minRes[i], t.minW[i], t.until[i], win, res, wall)
	}
	return win, res, wall, nil
}
