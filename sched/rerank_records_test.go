package sched

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
)

// TestSfRecordsAcrossDecisions plays BUCMA situations over many decisions
// (jobs arriving anywhere in the base order, starting, leaving, users'
// scores changing, time passing) and checks at every decision that the walk
// by records and the search of the whole tree give the jobs in the order of
// the sort by Sf (Rerank.rank, the reference), then a walk by records with
// decreasing limits while jobs leave (and the jobSeq's walltimes by users
// bucket, which the records walk keeps, are checked after each change).
//
// SFSEEDS=N runs N seeds (default 8), each with the levels' records kept
// as usual and again with at most 3 kept (so that most levels are searched
// from their start).
func TestSfRecordsAcrossDecisions(t *testing.T) {
	seeds := 8
	if v, err := strconv.Atoi(os.Getenv("SFSEEDS")); err == nil && v > 0 {
		seeds = v
	}
	defer func(m int) { stairMax = m }(stairMax)
	for _, m := range []int{stairMax, 3} {
		stairMax = m
		sfRecordsSeeds(t, seeds)
	}
}

func sfRecordsSeeds(t *testing.T, seeds int) {
	t.Helper()
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		s, o := sfCase(r)
		if o.Weights.Wait != 0 && r.IntN(2) == 0 {
			o.Base = FCFSOrder{} // the E term counts: records only over the submission order
		} else if o.Weights.Wait != 0 {
			o.Weights = RerankWeights{.4, .3, 0, .3}
		}
		q, _ := s.seqFor(o.Base)
		for dec := range 12 {
			what := fmt.Sprintf("seed %d decision %d (%d jobs, base %T%v, weights %v, at most %d records kept)", seed, dec, s.NbWaiting(), o.Base, o.Base, o.Weights, stairMax)
			q.purge()
			ranked := slices.Clone(o.rank(s, s.WaitingCopy()))
			for _, records := range []bool{false, true} {
				w := o.walkBy(s, q, records)
				for i, sj := range ranked {
					if got := w.Next(math.MaxInt); got != sj.j {
						t.Fatalf("%s: records %v: position %d: walk gives %v, sort %s (Sf %v)", what, records, i, got, sj.j.ID(), sj.sf)
					}
				}
				if got := w.Next(math.MaxInt); got != nil {
					t.Fatalf("%s: records %v: walk goes on past the queue with %s", what, records, got.ID())
				}
				w.release()
			}
			w := o.walkBy(s, q, true)
			checkWalkWithLeaves(t, what, r, s, w, ranked)
			w.release()
			if err := s.checkSeqs(); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if q.lv != nil && len(o.levels) > len(q.lv.of) {
				t.Fatalf("%s: %d level numbers for %d users", what, len(o.levels), len(q.lv.of))
			}
			// Between two decisions: the queue compacted, arrivals, scores
			// learnt, time.
			s.compactWaiting()
			for k := r.IntN(80); k > 0; k-- {
				j := randomJob(r, s, 10000*dec+k, 40)
				j.res = max(j.res, 1)
				s.enqueue(j)
			}
			for k := r.IntN(10); k > 0; k-- {
				o.Scores.(*testScores).add("u"+strconv.Itoa(r.IntN(40)), r.IntN(21)-10)
			}
			s.now += float64(r.IntN(4))
			if err := s.checkSeqs(); err != nil {
				t.Fatalf("%s: after arrivals: %v", what, err)
			}
		}
	}
}
