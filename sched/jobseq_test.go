package sched

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
)

// Differential tests of the incremental orders: a jobSeq against a sort of
// the waiting queue, BUCMA's Sf walk against BUCMAOrder.rank, and whole
// runs of every policy that walks an order against the same policy forced
// to sort a copy of the queue at every decision.

// seqOrders are the orders a jobSeq keeps, with the Order whose Sort is the
// reference.
var seqOrders = []struct {
	order seqOrder
	ref   Order
}{
	{seqBySubmit, FCFSOrder{}},
	{seqByWalltime, WalltimeOrder{}},
	{seqByWalltimeDesc, WalltimeOrder{Descending: true}},
	{seqByArea, AreaOrder{}},
	{seqByAreaDesc, AreaOrder{Descending: true}},
}

// randomJob draws a waiting job with many ties: few submission times and
// walltimes, ids that do not follow the submission order, no walltime, and
// sizes 0 (a refused job) to 40.
func randomJob(r *rand.Rand, s *State, i int, users int) *Job {
	j := &Job{id: "w" + strconv.Itoa(r.IntN(3)) + "!" + strconv.Itoa(r.IntN(5000)) + "_" + strconv.Itoa(i),
		submit: float64(r.IntN(40)), res: r.IntN(41), user: "u" + strconv.Itoa(r.IntN(users)),
		state: batsim.StateSubmitted, seq: s.seq}
	if r.IntN(8) > 0 {
		j.walltime = float64(1 + r.IntN(30)*r.IntN(30))
	}
	if r.IntN(50) == 0 {
		j.user = ""
	}
	s.seq++
	return j
}

// leave takes j out of the queue as a start or a rejection does.
func leave(s *State, j *Job) {
	s.dequeued(j)
	j.state = batsim.StateRunning
}

// liveInOrder is the reference: the waiting jobs sorted by o.
func liveInOrder(s *State, o Order) []*Job {
	q := s.WaitingCopy()
	o.Sort(s, q)
	return q
}

func TestJobSeqMatchesSort(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		r := rand.New(rand.NewPCG(seed, 99))
		s := newState(make([]Host, 8))
		var waiting []*Job
		steps := 2400
		for step := 0; step < steps; step++ {
			// Phases of growth and of draining (exercises merges).
			arrive := 70
			if step/400%2 == 1 {
				arrive = 10
			}
			switch k := r.IntN(100); {
			case k < arrive || len(waiting) == 0:
				// A burst of arrivals now and then (exercises splits).
				for n := 1 + r.IntN(1+20*(r.IntN(10)/9)); n > 0; n-- {
					j := randomJob(r, s, step, 90)
					s.enqueue(j)
					if j.Res() == 0 && !j.HasWalltime() {
						// Area NaN: a refused job, which leaves the
						// queue before any walk.
						leave(s, j)
						continue
					}
					waiting = append(waiting, j)
				}
			case k < 95:
				i := r.IntN(len(waiting))
				leave(s, waiting[i])
				waiting = slices.Delete(waiting, i, i+1)
			default:
				s.compactWaiting()
			}
			if step == 10 || step == steps/3 {
				for _, o := range seqOrders {
					s.seqOf(o.order) // built from the queue as it is, then kept
				}
			}
			if step%23 != 0 && step != steps-1 {
				continue
			}
			if err := s.checkSeqs(); err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
			for _, o := range seqOrders {
				if step < 10 {
					break
				}
				checkSeqWalk(t, s, o.order, o.ref, r, fmt.Sprintf("seed %d step %d order %d", seed, step, o.order))
			}
		}
	}
}

// checkSeqWalk compares walks of the order's jobSeq with the sorted queue:
// one unrestricted, one with decreasing limits, and the ranks.
func checkSeqWalk(t *testing.T, s *State, order seqOrder, ref Order, r *rand.Rand, what string) {
	t.Helper()
	q := s.seqOf(order)
	want := liveInOrder(s, ref)
	checkWalk(t, func() Walk { return &seqWalk{q: q} }, want, r, what)
	// Ranks count the dead entries still in place.
	pos := 0
	q.each(func(e *seqEntry, rank int) {
		if got := q.rank(e.j); got != rank {
			t.Fatalf("%s: rank of %s is %d, each says %d", what, e.j.ID(), got, rank)
		}
		if e.j != want[pos] {
			t.Fatalf("%s: each at %d gives %s, want %s", what, pos, e.j.ID(), want[pos].ID())
		}
		pos++
	})
	if pos != len(want) {
		t.Fatalf("%s: each gave %d jobs, want %d", what, pos, len(want))
	}
}

// checkWalk compares walks from walk with want, the waiting jobs in
// order: one unrestricted, one with decreasing limits.
func checkWalk(t *testing.T, walk func() Walk, want []*Job, r *rand.Rand, what string) {
	t.Helper()
	w := walk()
	for i, wj := range want {
		if got := w.Next(math.MaxInt); got != wj {
			t.Fatalf("%s: walk position %d: %v, want %s", what, i, got, wj.ID())
		}
	}
	if got := w.Next(math.MaxInt); got != nil {
		t.Fatalf("%s: walk goes on past the queue with %s", what, got.ID())
	}
	// Decreasing limits: the walk gives, in order, the jobs that fit.
	limit := 40
	w = walk()
	for i := 0; ; {
		for i < len(want) && want[i].Res() > limit {
			i++
		}
		got := w.Next(limit)
		if i == len(want) {
			if got != nil && got.Res() <= limit {
				t.Fatalf("%s: limit %d: walk gives %s past the end", what, limit, got.ID())
			}
			break
		}
		if got != want[i] {
			t.Fatalf("%s: limit %d: walk gives %v, want %s", what, limit, got, want[i].ID())
		}
		i++
		if r.IntN(4) == 0 {
			limit = r.IntN(limit + 1)
		}
	}
}

// TestJobSeqShapes drives a jobSeq through the block operations a random
// walk seldom reaches: a small block beside a full one (entries shared),
// the last block emptied, the tree shrunk and grown again.
func TestJobSeqShapes(t *testing.T) {
	s := newState(make([]Host, 4))
	q := s.seqOf(seqBySubmit)
	var jobs []*Job
	add := func(n int) {
		for i := 0; i < n; i++ {
			j := &Job{id: fmt.Sprintf("w0!%06d", len(jobs)), submit: float64(len(jobs)), res: 1, state: batsim.StateSubmitted, seq: s.seq}
			s.seq++
			s.enqueue(j)
			jobs = append(jobs, j)
		}
	}
	check := func(what string) {
		t.Helper()
		if err := s.checkSeqs(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	add(5000)
	check("after 5000 arrivals")
	// Empty most of the second block while the third is nearly full.
	if len(q.blocks[1].e) < 60 {
		t.Fatalf("second block holds %d entries", len(q.blocks[1].e))
	}
	// Fill the third block nearly up with jobs that go between its own.
	third := q.blocks[2].e[0].j.Submit()
	var between []*Job
	for i := 0; i < 60; i++ {
		j := &Job{id: fmt.Sprintf("w0!b%04d", i), submit: third + 0.5 + float64(i%50), res: 2, state: batsim.StateSubmitted, seq: s.seq}
		s.seq++
		s.enqueue(j)
		between = append(between, j)
	}
	if n := len(q.blocks[2].e); n < 120 {
		t.Fatalf("third block holds %d entries", n)
	}
	first := q.blocks[1].e[0].j.Seq()
	for _, j := range jobs[first : first+int64(len(q.blocks[1].e))-5] {
		leave(s, j)
	}
	add(3) // arrivals while dead entries wait to be purged
	check("dead entries")
	s.compactWaiting()
	check("after the purge of a block")
	// Everything leaves: the blocks go, the tree shrinks.
	for _, j := range append(jobs, between...) {
		if j.State() == batsim.StateSubmitted {
			leave(s, j)
		}
	}
	s.compactWaiting()
	check("empty")
	if len(q.blocks) != 0 || q.root().n != 0 || q.p > 64 {
		t.Fatalf("empty sequence: %d blocks, %d entries, %d leaves", len(q.blocks), q.root().n, q.p)
	}
	if (&seqWalk{q: q}).Next(math.MaxInt) != nil {
		t.Fatal("the walk of an empty sequence gives a job")
	}
	add(700)
	check("grown again")
	// Out of order arrivals: every one goes into the first block.
	for i := 0; i < 300; i++ {
		j := &Job{id: fmt.Sprintf("w0!a%04d", i), submit: -1, res: 1, state: batsim.StateSubmitted, seq: s.seq}
		s.seq++
		s.enqueue(j)
	}
	check("inserted at the front")
	checkSeqWalk(t, s, seqBySubmit, FCFSOrder{}, rand.New(rand.NewPCG(1, 1)), "shapes")

	// Blocks emptied in the middle of the queue stay as tombstones, one
	// merged into its neighbour too; a job that goes where a tombstone
	// stands brings it back; once they are an eighth of the blocks they
	// are dropped together.
	add(3000)
	nb := len(q.blocks)
	emptyBlock := func(bi int) {
		for _, e := range q.blocks[bi].e {
			leave(s, e.j)
		}
	}
	// Block 4 shrinks below seqBlockMin and goes into block 5; then
	// block 3, beside that tombstone, empties in place.
	emptyBlock(4)
	s.compactWaiting()
	check("a block emptied")
	emptyBlock(3)
	s.compactWaiting()
	check("two blocks emptied")
	if q.tombs != 2 || len(q.blocks) != nb || len(q.blocks[3].e) != 0 || len(q.blocks[4].e) != 0 {
		t.Fatalf("two blocks emptied: %d tombstones, %d blocks of %d", q.tombs, len(q.blocks), nb)
	}
	k0 := q.blocks[3].k0.j
	j := &Job{id: k0.id + "x", submit: k0.submit, res: 1, state: batsim.StateSubmitted, seq: s.seq}
	s.seq++
	s.enqueue(j)
	check("a job where a tombstone stands")
	if q.tombs != 1 || len(q.blocks[3].e) != 1 || q.blocks[3].e[0].j != j {
		t.Fatalf("a job where a tombstone stands: %d tombstones, block 3 holds %d", q.tombs, len(q.blocks[3].e))
	}
	// Leave all but a few jobs of block 7: it merges with block 8.
	for _, e := range q.blocks[7].e[3:] {
		leave(s, e.j)
	}
	s.compactWaiting()
	check("a block merged")
	if q.tombs != 2 || len(q.blocks[7].e) != 0 || len(q.blocks) != nb {
		t.Fatalf("a block merged: %d tombstones, block 7 holds %d, %d blocks", q.tombs, len(q.blocks[7].e), len(q.blocks))
	}
	checkSeqWalk(t, s, seqBySubmit, FCFSOrder{}, rand.New(rand.NewPCG(1, 2)), "tombstones")
	for bi := 10; q.tombs > 0; bi += 2 {
		emptyBlock(bi)
		s.compactWaiting()
		check(fmt.Sprintf("block %d emptied", bi))
	}
	if len(q.blocks) >= nb-nb/8 {
		t.Fatalf("tombstones dropped: %d blocks of %d", len(q.blocks), nb)
	}
	checkSeqWalk(t, s, seqBySubmit, FCFSOrder{}, rand.New(rand.NewPCG(1, 3)), "tombstones dropped")
}

// sfCase draws a BUCMA situation: a queue, users with scores, weights, a
// base order and a time.
func sfCase(r *rand.Rand) (*State, *Rerank) {
	s := newState(make([]Host, 8))
	nusers := 1 + r.IntN(150)
	pinned := map[string]int{}
	for u := 0; u < nusers; u++ {
		if r.IntN(2) == 0 {
			pinned["u"+strconv.Itoa(u)] = []int{0, 25, 50, 75, 100, r.IntN(101)}[r.IntN(6)]
		}
	}
	weights := []RerankWeights{{.5, .3, 0, .2}, {.4, .3, 0, .3}, {.25, .25, .25, .25}, {0, 0, 1, 0}, {.5, .5, 0, 0}, {0, 1, 0, 0},
		{.5, 0, 0, .5}, {1, 0, 0, 0}, {.35, .15, .3, .2}, {.1, .7, .1, .1}}
	bases := []Order{FCFSOrder{}, WalltimeOrder{}, WalltimeOrder{Descending: true}}
	o := &Rerank{Base: bases[r.IntN(len(bases))], Weights: weights[r.IntN(len(weights))],
		Scores: newTestScores(r.IntN(101), pinned)}
	n := r.IntN(3000)
	if r.IntN(4) == 0 {
		n = r.IntN(20)
	}
	for i := 0; i < n; i++ {
		j := randomJob(r, s, i, nusers)
		if j.Res() == 0 {
			j.res = 1
		}
		s.enqueue(j)
	}
	s.now = 40 + float64(r.IntN(3))*17
	if r.IntN(5) == 0 {
		s.now = 39 // a job submitted at now: E = 0 for it
	}
	return s, o
}

func TestSfWalkMatchesRank(t *testing.T) {
	for seed := uint64(1); seed <= 60; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		s, o := sfCase(r)
		// Some scores learnt (and the walk's mirror told) before the walk.
		for k := r.IntN(40); k > 0; k-- {
			u := "u" + strconv.Itoa(r.IntN(20))
			o.Scores.(*testScores).add(u, r.IntN(21)-10)
		}
		what := fmt.Sprintf("seed %d (%d jobs, base %T%v, weights %v)", seed, s.NbWaiting(), o.Base, o.Base, o.Weights)
		want := s.WaitingCopy()
		ranked := slices.Clone(o.rank(s, want))
		q, _ := s.seqFor(o.Base)
		q.purge()
		w := o.walk(s, q)
		for i, sj := range ranked {
			if got := w.Next(math.MaxInt); got != sj.j {
				t.Fatalf("%s: position %d: walk gives %v, sort %s (Sf %v)", what, i, got, sj.j.ID(), sj.sf)
			}
		}
		if got := w.Next(math.MaxInt); got != nil {
			t.Fatalf("%s: walk goes on past the queue with %s", what, got.ID())
		}
		// Positions: of many jobs at once (one pass over the queue), and
		// of single jobs (counted with the bounds).
		var some []*Job
		for _, j := range want {
			if len(want) < 50 || r.IntN(100) == 0 {
				some = append(some, j)
			}
		}
		at := map[*Job]int{}
		for i, sj := range ranked {
			at[sj.j] = i
		}
		checkPositions := func(jobs []*Job) {
			t.Helper()
			w := o.walk(s, q)
			sf, pos := w.positions(jobs)
			for i, j := range jobs {
				k := at[j]
				if pos[i] != k+1 || math.Float64bits(sf[i]) != math.Float64bits(ranked[k].sf) {
					t.Fatalf("%s: %d jobs: job %s: position %d Sf %v, sort says %d, %v", what, len(jobs), j.ID(), pos[i], sf[i], k+1, ranked[k].sf)
				}
			}
		}
		checkPositions(some)
		for i, j := range some {
			if i%3 == 0 {
				checkPositions([]*Job{j})
			}
		}
		if len(want) > 0 {
			last := slices.MaxFunc(want, func(a, b *Job) int { return int(a.Seq() - b.Seq()) })
			checkPositions([]*Job{last}) // the last arrival
		}
		// A walk with decreasing limits while the jobs it gives leave the
		// queue (starts), some others leaving too: the order stays the one
		// of the decision's start.
		w = o.walk(s, q)
		checkWalkWithLeaves(t, what, r, s, w, ranked)
		w.release()
		// Scores learnt between two decisions (sometimes more changes
		// than the Scores lists), then the next decision's walk.
		q.purge()
		for k := r.IntN(30); k > 0; k-- {
			u := "u" + strconv.Itoa(r.IntN(160))
			o.Scores.(*testScores).add(u, r.IntN(21)-10)
		}
		if seed%5 == 4 {
			// +3 and -3 in turn: every update changes a score.
			for k := 0; k < 2*maxTestChanged; k++ {
				o.Scores.(*testScores).add("u"+strconv.Itoa(k%7), 6*(k/7%2)-3)
			}
		}
		want = s.WaitingCopy()
		ranked = slices.Clone(o.rank(s, want))
		w = o.walk(s, q)
		for i, sj := range ranked {
			if got := w.Next(math.MaxInt); got != sj.j {
				t.Fatalf("%s: after learning: position %d: walk gives %v, sort %s", what, i, got, sj.j.ID())
			}
		}
		w.release()
	}
}

// checkWalkWithLeaves walks w with decreasing limits while the jobs it
// gives leave the queue (starts), some others leaving too, and checks that
// it gives the jobs of ranked (the Sf order at the walk's start) that are
// still waiting and within the limit, in that order.
func checkWalkWithLeaves(t *testing.T, what string, r *rand.Rand, s *State, w Walk, ranked []scoredJob) {
	t.Helper()
	limit := 40
	gone := map[*Job]bool{}
	for i := 0; ; {
		for i < len(ranked) && (ranked[i].j.Res() > limit || gone[ranked[i].j]) {
			i++
		}
		got := w.Next(limit)
		if i == len(ranked) {
			if got != nil {
				t.Fatalf("%s: limit %d: walk gives %s past the end", what, limit, got.ID())
			}
			return
		}
		if got != ranked[i].j {
			t.Fatalf("%s: limit %d: walk gives %v, want %s", what, limit, got, ranked[i].j.ID())
		}
		i++
		// Most given jobs start; some stay waiting (a head that does not
		// fit, a job the backfill passes).
		if r.IntN(5) > 0 {
			leave(s, got)
		}
		gone[got] = true
		if r.IntN(3) == 0 && i < len(ranked) {
			other := ranked[i+r.IntN(len(ranked)-i)].j
			if !gone[other] {
				leave(s, other)
				gone[other] = true
			}
		}
		if r.IntN(4) == 0 {
			limit = r.IntN(limit + 1)
		}
	}
}

// TestSfWalkScoreOutOfRange: scores above 100 (not a value BUCMA's
// options accept) still walk in the sorted order.
func TestSfWalkScoreOutOfRange(t *testing.T) {
	for _, w := range []RerankWeights{{.5, .3, 0, .2}, {0, .5, .25, .25}} {
		r := rand.New(rand.NewPCG(3, 3))
		s, o := sfCase(r)
		o.Weights = w
		o.Scores = newTestScores(150, map[string]int{"u1": 100})
		want := s.WaitingCopy()
		ranked := slices.Clone(o.rank(s, want))
		q, _ := s.seqFor(o.Base)
		wk := o.walk(s, q)
		for i, sj := range ranked {
			if got := wk.Next(math.MaxInt); got != sj.j {
				t.Fatalf("weights %v: position %d: walk gives %v, sort %s", w, i, got, sj.j.ID())
			}
		}
		wk.release()
	}
}

// testScores is a UserScores for the tests: an initial score, pinned
// scores, and the changed list as BUCMA's Scores keeps it (lost past
// maxTestChanged changes).
type testScores struct {
	initial int
	pinned  map[string]int
	cur     map[string]int
	changed []string
	lost    bool
}

const maxTestChanged = 1 << 12

func newTestScores(initial int, pinned map[string]int) *testScores {
	return &testScores{initial: initial, pinned: pinned, cur: map[string]int{}}
}

func (s *testScores) Score(user string) int {
	if v, ok := s.pinned[user]; ok {
		return v
	}
	if v, ok := s.cur[user]; ok {
		return v
	}
	return s.initial
}

func (s *testScores) Changed() ([]string, bool) {
	users, all := s.changed, s.lost
	s.changed, s.lost = nil, false
	return users, all
}

// add moves an unpinned user's score by delta, within 0..100.
func (s *testScores) add(user string, delta int) {
	if _, ok := s.pinned[user]; ok {
		return
	}
	old := s.Score(user)
	v := min(max(old+delta, 0), 100)
	s.cur[user] = v
	if v == old {
		return
	}
	if len(s.changed) == maxTestChanged {
		s.changed, s.lost = nil, true
	}
	s.changed = append(s.changed, user)
}
