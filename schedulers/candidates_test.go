package schedulers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"bucma/protocol"
)

// refBackfill is Backfill without the candidate index: the plain scan of
// the whole queue that the index must never change the outcome of.
func refBackfill(s *State, q []*Job, shadow float64, extra int, hosts HostSelector, d *Decider) {
	for _, j := range q {
		if s.NbFree() == 0 {
			return
		}
		if j.State != protocol.StateSubmitted || j.Res > s.NbFree() {
			continue
		}
		switch {
		case s.Now+j.WalltimeOrInf() <= shadow:
			d.Start(j, hosts.Select(s, j.Res))
		case j.Res <= extra:
			d.Start(j, hosts.Select(s, j.Res))
			extra -= j.Res
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
		hosts[i] = Host{ID: i, Speed: float64(1 + r.IntN(4))}
	}
	s := NewState(hosts)
	s.Now = 1000
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
		j := &Job{ID: fmt.Sprintf("w0!r%d", k), Res: res, Walltime: wt(), State: protocol.StateRunning, Start: s.Now - float64(r.IntN(500))}
		for x := h; x < h+res; x++ {
			j.Alloc = append(j.Alloc, x)
			s.Hosts[x].Job = j
		}
		h += res
		s.running[j.ID] = j
		s.jobs[j.ID] = j
	}
	for i := 0; i < r.IntN(300); i++ {
		j := &Job{ID: fmt.Sprintf("w0!%d", i), Submit: float64(i), Res: 1 + r.IntN(n), Walltime: wt(), State: protocol.StateSubmitted, Seq: int64(i)}
		if r.IntN(3) == 0 {
			j.Res = 1 + r.IntN(1+n/8)
		}
		s.enqueue(j)
		s.jobs[j.ID] = j
	}
	s.reindexHosts()
	return s
}

// TestBackfillIndexMatchesPlainScan runs EASY's backfill with and without
// the candidate index on many random states (and random reservations,
// including shadow times that fall exactly on a job's end) and checks the
// same jobs start on the same hosts.
func TestBackfillIndexMatchesPlainScan(t *testing.T) {
	for seed := uint64(0); seed < 5000; seed++ {
		a, b := randomQueueState(seed), randomQueueState(seed)
		r := rand.New(rand.NewPCG(seed, 5))
		head := 1 + r.IntN(len(a.Hosts))
		shadow, extra := Reservation(a, head)
		switch r.IntN(4) {
		case 0: // an arbitrary reservation
			shadow, extra = a.Now+float64(r.IntN(3000)), r.IntN(len(a.Hosts)+1)
		case 1: // a shadow time exactly at the end of some waiting job
			if w := a.Waiting(); len(w) > 0 {
				shadow, extra = a.Now+w[r.IntN(len(w))].WalltimeOrInf(), r.IntN(3)
			}
		}
		da := &Decider{s: a, reply: protocol.NewReply(a.Now)}
		db := &Decider{s: b, reply: protocol.NewReply(b.Now)}
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
