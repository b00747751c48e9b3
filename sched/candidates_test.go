package sched

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
)

// refBackfill is Backfill without the candidate index: the plain scan of
// the whole queue that the index must never change the outcome of.
func refBackfill(s *State, q []*Job, shadow float64, extra int, hosts HostSelector, d *Decider) {
	for _, j := range q {
		if s.NbFree() == 0 {
			return
		}
		if j.State() != batsim.StateSubmitted || j.Res() > s.NbFree() {
			continue
		}
		switch {
		case s.Now()+j.WalltimeOrInf() <= shadow:
			d.Start(j, hosts.Select(s, j, j.Res()))
		case j.Res() <= extra:
			d.Start(j, hosts.Select(s, j, j.Res()))
			extra -= j.Res()
		}
	}
}

// randomQueueState builds a platform with running and waiting jobs of
// random sizes and walltimes (some without walltime), seeded.
func randomQueueState(seed uint64) *State {
	r := rand.New(rand.NewPCG(seed, 11))
	n := 1 + r.IntN(64)
	hosts := make([]Host, n)
	for i := range hosts {
		hosts[i] = Host{id: i, speed: float64(1 + r.IntN(4))}
	}
	s := newState(hosts)
	s.now = 1000
	wt := func() float64 {
		switch r.IntN(6) {
		case 0:
			return 0
		case 1:
			return float64(1 + r.IntN(3))
		}
		return math.Round(math.Pow(10, 1+3*r.Float64()))
	}
	h := 0
	for k := 0; h < n && r.IntN(8) > 0; k++ {
		res := min(1+r.IntN(1+n/3), n-h)
		j := &Job{id: fmt.Sprintf("w0!r%d", k), res: res, walltime: wt(), state: batsim.StateRunning, start: s.Now() - float64(r.IntN(500))}
		for x := h; x < h+res; x++ {
			j.alloc = append(j.Alloc(), x)
			s.hosts[x].jobs = []*Job{j}
		}
		h += res
		s.runStarted(j)
		s.jobs[j.id] = j
	}
	for i := 0; i < r.IntN(300); i++ {
		j := &Job{id: fmt.Sprintf("w0!%d", i), submit: float64(i), res: 1 + r.IntN(n), walltime: wt(), state: batsim.StateSubmitted, seq: int64(i)}
		if r.IntN(3) == 0 {
			j.res = 1 + r.IntN(1+n/8)
		}
		s.enqueue(j)
		s.jobs[j.id] = j
	}
	s.reindexHosts()
	return s
}

// TestBackfillIndexMatchesPlainScan runs EASY's backfill with and without
// the candidate index on many random states (and random reservations,
// including shadow times that fall exactly on a job's end) and checks the
// same jobs start on the same hosts.
func TestBackfillIndexMatchesPlainScan(t *testing.T) {
	for seed := uint64(0); seed < 3000; seed++ {
		a, b := randomQueueState(seed), randomQueueState(seed)
		r := rand.New(rand.NewPCG(seed, 5))
		head := 1 + r.IntN(len(a.hosts))
		shadow, extra := Reservation(a, head)
		switch r.IntN(4) {
		case 0: // an arbitrary reservation
			shadow, extra = a.Now()+float64(r.IntN(3000)), r.IntN(len(a.hosts)+1)
		case 1: // a shadow time exactly at the end of some waiting job
			if w := a.Waiting(); len(w) > 0 {
				shadow, extra = a.Now()+w[r.IntN(len(w))].WalltimeOrInf(), r.IntN(3)
			}
		}
		da := &Decider{s: a, reply: batsim.NewReply(a.Now())}
		db := &Decider{s: b, reply: batsim.NewReply(b.Now())}
		Backfill(a, a.Waiting(), shadow, extra, Fastest{}, da)
		refBackfill(b, b.Waiting(), shadow, extra, Fastest{}, db)
		if da.Err() != nil || db.Err() != nil {
			t.Fatalf("seed %d: %v / %v", seed, da.Err(), db.Err())
		}
		ga, gb := string(da.reply.Encode()), string(db.reply.Encode())
		if ga != gb {
			t.Fatalf("seed %d (shadow %v, extra %d): with index %s, plain scan %s", seed, shadow, extra, ga, gb)
		}
	}
}

func TestWalltimeClassIsMonotone(t *testing.T) {
	prev := walltimeClass(1e-9)
	for w := 1e-9; w < 1e12; w *= 1.01 {
		c := walltimeClass(w)
		if c < prev || c >= walltimeClasses-1 {
			t.Fatalf("class(%g) = %d after %d", w, c, prev)
		}
		prev = c
	}
	if walltimeClass(0) != walltimeClasses-1 || walltimeClass(math.Inf(1)) != walltimeClasses-1 {
		t.Fatal("jobs without walltime must be in the last class")
	}
}

func TestFitTreeNextFit(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for round := 0; round < 200; round++ {
		base := int64(r.IntN(1000))
		n := 1 + r.IntN(300)
		if round%4 == 0 {
			n = 1 + r.IntN(5000) // several buckets with their size tiers
		}
		f := newFitTree(base, n)
		vals := make([]int, n)
		walls := make([]float64, n)
		maxRes := []int{40, 9, 2000}[r.IntN(3)]
		job := func(i int) {
			vals[i], walls[i] = fitNone, math.Inf(1)
			if r.IntN(3) > 0 {
				vals[i] = r.IntN(maxRes)
				walls[i] = []float64{math.Inf(1), 0.1 + r.Float64()*1e4, float64(60 * (1 + r.IntN(100)))}[r.IntN(3)]
			}
		}
		// Filled leaf by leaf (set), or all leaves then the nodes
		// (build); then changed here and there (set).
		bulk := r.IntN(2) == 0
		for i := range vals {
			job(i)
			if bulk {
				f.leaf(base+int64(i), vals[i], walls[i])
			} else {
				f.set(base+int64(i), vals[i], walls[i])
			}
		}
		if bulk {
			f.build()
		}
		for k := r.IntN(2 * n); k > 0; k-- {
			i := r.IntN(n)
			job(i)
			f.set(base+int64(i), vals[i], walls[i])
		}
		checkFitTree(t, f)
		for q := 0; q < 50; q++ {
			from, limit := base+int64(r.IntN(n+5))-2, r.IntN(45)
			want := int64(-1)
			for i := max(from-base, 0); i < int64(n); i++ {
				if vals[i] <= limit {
					want = base + i
					break
				}
			}
			if got := f.nextFit(from, limit); got != want {
				t.Fatalf("round %d: nextFit(%d, %d) = %d, want %d", round, from, limit, got, want)
			}
		}
		// nextStartable finds every startable job, in order; what it
		// finds besides is only there by the float32 rounding down.
		for q := 0; q < 50; q++ {
			free, small := r.IntN(maxRes+5), 0
			if r.IntN(2) == 0 {
				free = 1 + r.IntN(8) // a tier's bound
			}
			if free > 0 {
				small = r.IntN(free + 1)
			}
			now := float64(r.IntN(1000))
			shadow := now + []float64{math.Inf(1), r.Float64() * 1e4, float64(60 * (1 + r.IntN(100)))}[r.IntN(3)]
			var want []int64
			for i := range vals {
				if vals[i] <= small || (vals[i] <= free && now+walls[i] <= shadow) {
					want = append(want, base+int64(i))
				}
			}
			var got []int64
			for p := f.nextStartable(base-1, free, small, now, shadow); p >= 0; p = f.nextStartable(p+1, free, small, now, shadow) {
				i := p - base
				if vals[i] <= small || (vals[i] <= free && now+walls[i] <= shadow) {
					got = append(got, p)
				} else if vals[i] > free || now+float64(float32(walls[i]))-1e-3*walls[i] > shadow {
					t.Fatalf("round %d: nextStartable found position %d (res %d, walltime %v) with free %d, small %d, now %v, shadow %v",
						round, p, vals[i], walls[i], free, small, now, shadow)
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("round %d: nextStartable found %v, want %v", round, got, want)
			}
		}
	}
}

// checkFitTree checks every node of f against its leaves.
func checkFitTree(t *testing.T, f *fitTree) {
	t.Helper()
	nb := len(f.tw) / 2
	if nb*fitBucket != f.n {
		t.Fatalf("%d buckets of %d for %d leaves", nb, fitBucket, f.n)
	}
	for i := 1; i < f.n; i++ {
		lo, hi := i, i+1 // the leaves under i
		for lo < f.n {
			lo, hi = 2*lo, 2*hi
		}
		res, wall := int32(fitNone), float32(math.Inf(1))
		tiers := fitNoTiers
		for l := lo; l < hi; l++ {
			res, wall = min(res, f.t[l]), min(wall, f.w[l])
			for k := range tiers {
				if f.t[l] <= fitTierBounds[k] {
					tiers[k] = min(tiers[k], f.w[l])
				}
			}
		}
		if f.t[i] != res || f.w[i] != wall {
			t.Fatalf("node %d: size %d walltime %v, its leaves %d %v", i, f.t[i], f.w[i], res, wall)
		}
		if i < len(f.tw) && f.tw[i] != tiers {
			t.Fatalf("node %d: tiers %v, its leaves %v", i, f.tw[i], tiers)
		}
	}
}

func TestFitTier(t *testing.T) {
	for r := int32(-1); r <= 2000; r++ {
		want := fitTiers
		for k, b := range fitTierBounds {
			if r <= b {
				want = k
				break
			}
		}
		if r < 0 {
			want = fitTiers
		}
		if got := fitTier(r); got != want {
			t.Fatalf("fitTier(%d) = %d, want %d", r, got, want)
		}
	}
}

// refEASY is EASY over a copy of the queue with the plain backfill scan: no
// candidate index, no fit tree.
type refEASY struct{}

func (refEASY) Apply(s *State, q []*Job, hosts HostSelector, d *Decider) {
	i := 0
	for ; i < len(q); i++ {
		if q[i].Res() > s.NbFree() {
			break
		}
		if !d.Start(q[i], hosts.Select(s, q[i], q[i].Res())) {
			return
		}
	}
	if i < len(q) {
		shadow, extra := Reservation(s, q[i].Res())
		refBackfill(s, q[i+1:], shadow, extra, hosts, d)
	}
}

// copiedFCFS is the FCFS order without the arrival-order fast path.
type copiedFCFS struct{}

func (copiedFCFS) Sort(s *State, q []*Job) { FCFSOrder{}.Sort(s, q) }

// TestStartKnowsItsOwnJobs: Decider.Start takes a waiting job of its State
// only; a job of another State (same id, same place in its queue) is an
// unknown job, and so is one that left the queue.
func TestStartKnowsItsOwnJobs(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		a, b := randomQueueState(seed), randomQueueState(seed)
		if a.NbWaiting() == 0 || a.NbFree() == 0 {
			continue
		}
		var ja, jb *Job
		for i, j := range a.Waiting() {
			if j.res <= a.NbFree() {
				ja, jb = j, b.Waiting()[i]
				break
			}
		}
		if ja == nil {
			continue
		}
		free := func(s *State) []int {
			var hs []int
			for h := range s.hosts {
				if s.hosts[h].Free() && len(hs) < ja.res {
					hs = append(hs, h)
				}
			}
			return hs
		}
		d := &Decider{s: a, reply: batsim.NewReply(a.Now())}
		if d.Start(jb, free(a)) || d.Err() == nil || !strings.Contains(d.Err().Error(), "unknown job") {
			t.Fatalf("seed %d: started another State's job %s: %v", seed, jb.id, d.Err())
		}
		d = &Decider{s: a, reply: batsim.NewReply(a.Now())}
		if !d.Start(ja, free(a)) {
			t.Fatalf("seed %d: its own job %s: %v", seed, ja.id, d.Err())
		}
	}
}

// refReservation is Reservation as it was before the state kept its
// running jobs by end: every running job's release gathered and sorted at
// each call. Reservation must give the same shadow time and extra hosts.
func refReservation(s *State, need int) (shadow float64, extra int) {
	avail := s.NbFree()
	if avail >= need {
		return s.now, avail - need
	}
	type release struct {
		end float64
		n   int
	}
	var rels []release
	for _, j := range s.running {
		n := 0
		for _, h := range j.alloc {
			if !s.hosts[h].unavailable {
				n++
			}
		}
		rels = append(rels, release{math.Max(j.ExpectedEnd(), s.now), n})
	}
	slices.SortFunc(rels, func(a, b release) int { return cmp.Compare(a.end, b.end) })
	for k := 0; k < len(rels); k++ {
		avail += rels[k].n
		for k+1 < len(rels) && rels[k+1].end == rels[k].end {
			k++
			avail += rels[k].n
		}
		if avail >= need && !math.IsInf(rels[k].end, 1) {
			return rels[k].end, avail - need
		}
	}
	return math.Inf(1), 0
}

// TestReservationMatchesSort compares Reservation with refReservation on
// random states (ties of ends, jobs past their walltime, jobs without
// walltime, unavailable hosts), for every need, while jobs end and start
// one by one: the order by end is kept up to date, not rebuilt.
func TestReservationMatchesSort(t *testing.T) {
	for seed := uint64(0); seed < 500; seed++ {
		s := randomQueueState(seed)
		r := rand.New(rand.NewPCG(seed, 17))
		if seed%4 != 0 {
			for i := range s.hosts {
				s.hosts[i].unavailable = r.IntN(10) == 0
			}
			s.unavailableSeen = true
		}
		check := func(step int) {
			t.Helper()
			if len(s.byEnd) != len(s.running) {
				t.Fatalf("seed %d step %d: %d jobs by end, %d running", seed, step, len(s.byEnd), len(s.running))
			}
			for need := 0; need <= len(s.hosts)+1; need++ {
				gs, ge := Reservation(s, need)
				ws, we := refReservation(s, need)
				if gs != ws || ge != we {
					t.Fatalf("seed %d step %d need %d: Reservation %v, %d; sorted %v, %d", seed, step, need, gs, ge, ws, we)
				}
			}
		}
		check(0)
		for step := 1; step <= 20; step++ {
			s.now += float64(r.IntN(200))
			running := slices.SortedFunc(maps.Values(s.running), func(a, b *Job) int { return strings.Compare(a.id, b.id) })
			if len(running) > 0 && r.IntN(2) == 0 {
				// A job ends: its hosts are freed.
				j := running[r.IntN(len(running))]
				for _, h := range j.alloc {
					s.hosts[h].removeJob(j)
				}
				s.runEnded(j)
				s.reindexHosts()
			} else {
				// A job starts on free hosts, its end often tied with
				// another's.
				var free []int
				for h := range s.hosts {
					if s.hosts[h].Free() {
						free = append(free, h)
					}
				}
				if len(free) == 0 {
					continue
				}
				j := &Job{id: fmt.Sprintf("w0!s%d", step), state: batsim.StateRunning, start: s.now, walltime: float64(10 * r.IntN(4))}
				if len(running) > 0 && r.IntN(2) == 0 {
					o := running[r.IntN(len(running))]
					if o.HasWalltime() && o.ExpectedEnd() > s.now {
						j.walltime = o.ExpectedEnd() - s.now
					}
				}
				for _, h := range free[:1+r.IntN(len(free))] {
					j.alloc = append(j.alloc, h)
					s.hosts[h].jobs = []*Job{j}
				}
				j.res = len(j.alloc)
				s.jobs[j.id] = j
				s.runStarted(j)
				s.reindexHosts()
			}
			check(step)
		}
	}
}
