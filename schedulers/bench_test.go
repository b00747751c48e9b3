package schedulers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
)

// resMix draws a job size from a mix typical of HPC logs: mostly small
// jobs, powers of two more frequent than other sizes, a tail up to 128.
func resMix(r *rand.Rand) int {
	switch p := r.IntN(100); {
	case p < 35:
		return 1
	case p < 55:
		return 1 << (1 + r.IntN(3)) // 2, 4, 8
	case p < 80:
		return 2 + r.IntN(31)
	case p < 95:
		return 1 << (5 + r.IntN(2)) // 32, 64
	default:
		return 65 + r.IntN(64)
	}
}

// walltimeMix draws a walltime, log-uniform between 1 min and 2 days;
// 0 (no walltime) for 5% of the jobs.
func walltimeMix(r *rand.Rand) float64 {
	if r.IntN(20) == 0 {
		return 0
	}
	return math.Round(60 * math.Pow(2880, r.Float64()))
}

// loadedPlatform builds a mostly busy platform of 1000 hosts (four speeds):
// running jobs of the mix on all but 40 hosts, each due to end within its
// walltime, and n waiting jobs of the same mix behind a 256-host head that
// cannot start. With blocked, every waiting job needs more than the 40 free
// hosts, so a decision examines the whole queue and starts nothing. Seeded:
// the same arguments give the same state.
func loadedPlatform(n int, blocked bool) *State {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	const nHosts, keepFree = 1000, 40
	hosts := make([]Host, nHosts)
	for i := range hosts {
		hosts[i] = Host{ID: i, Name: "h" + strconv.Itoa(i), Speed: float64(1+i%4) * 1e9}
	}
	s := NewState(hosts)
	now := 100000.0
	next := 0
	for k := 0; next < nHosts-keepFree; k++ {
		res := min(resMix(r), nHosts-keepFree-next)
		wt := walltimeMix(r)
		start := now - r.Float64()*math.Min(wt, 3600)
		if wt == 0 {
			start = now - r.Float64()*3600
		}
		j := &Job{ID: fmt.Sprintf("w0!r%d", k), Res: res, Walltime: wt, State: batsim.StateRunning, Start: start, Seq: s.seq}
		s.seq++
		for h := next; h < next+res; h++ {
			j.Alloc = append(j.Alloc, h)
			s.Hosts[h].Jobs = []*Job{j}
		}
		next += res
		s.running[j.ID] = j
		s.jobs[j.ID] = j
	}
	t := now - float64(n)
	for i := 0; i < n; i++ {
		t += r.Float64()
		res := resMix(r)
		if blocked {
			res += keepFree
		}
		if i == 0 {
			res = 256
		}
		j := &Job{ID: fmt.Sprintf("w0!%d", i), Submit: t, Res: res, Walltime: walltimeMix(r), State: batsim.StateSubmitted, Seq: s.seq}
		s.seq++
		s.enqueue(j)
		s.jobs[j.ID] = j
	}
	s.Now = now
	s.reindexHosts()
	return s
}

// undo reverts the starts of a decision so the next iteration sees the
// same state.
func undo(s *State, started []*Job) {
	for _, j := range started {
		for _, h := range j.Alloc {
			s.Hosts[h].Jobs = nil
		}
		s.nfree += len(j.Alloc)
		delete(s.running, j.ID)
		s.cands.insert(s.resIndex(j.Res), j)
		s.fit.set(j.qpos, j.Res, j.WalltimeOrInf())
		s.dead--
		j.State, j.Start, j.Alloc = batsim.StateSubmitted, 0, nil
	}
}

// BenchmarkPolicyDecision times one decision of fcfs and easy on a mostly
// busy platform with 1k, 10k and 100k waiting jobs. The head of the queue
// does not fit, so fcfs starts nothing. In "backfill", easy backfills jobs
// of the mix until the free hosts are used (undoing those few starts is
// part of each timed iteration); in "blocked" no waiting job fits now, the
// worst case of a backfilling scan: its cost per decision must not grow
// faster than the queue.
func BenchmarkPolicyDecision(b *testing.B) {
	for _, scenario := range []string{"backfill", "blocked"} {
		for _, policy := range []string{"fcfs", "easy"} {
			for _, n := range []int{1_000, 10_000, 100_000} {
				s := loadedPlatform(n, scenario == "blocked")
				spec, _ := Builtin().Get(policy)
				p, err := spec.Build(nil)
				if err != nil {
					b.Fatal(err)
				}
				b.Run(fmt.Sprintf("%s/%s/waiting=%d", scenario, policy, n), func(b *testing.B) {
					starts := -1
					for b.Loop() {
						d := &Decider{s: s, reply: batsim.NewReply(s.Now)}
						p.Decide(s, d)
						if d.Err() != nil {
							b.Fatal(d.Err())
						}
						if starts >= 0 && len(d.Started()) != starts {
							b.Fatalf("decisions differ between iterations: %d then %d starts", starts, len(d.Started()))
						}
						starts = len(d.Started())
						undo(s, d.Started())
					}
					b.ReportMetric(float64(starts), "starts/op")
				})
			}
		}
	}
}

// TestLoadedPlatformBenchFixture checks the benchmark's premise: the head
// does not fit, easy backfills some jobs and leaves the state as it found
// it once undone, fcfs starts nothing.
func TestLoadedPlatformBenchFixture(t *testing.T) {
	s := loadedPlatform(1000, false)
	if s.NbFree() < 1 || s.NbFree() >= s.Waiting()[0].Res {
		t.Fatalf("%d free hosts, head needs %d", s.NbFree(), s.Waiting()[0].Res)
	}
	free := s.NbFree()
	for _, policy := range []string{"easy", "fcfs"} {
		spec, _ := Builtin().Get(policy)
		p, _ := spec.Build(nil)
		d := &Decider{s: s, reply: batsim.NewReply(s.Now)}
		p.Decide(s, d)
		if d.Err() != nil {
			t.Fatal(d.Err())
		}
		if policy == "easy" && len(d.Started()) == 0 {
			t.Fatal("easy backfilled nothing")
		}
		if policy == "fcfs" && len(d.Started()) != 0 {
			t.Fatal("fcfs started a job behind a blocked head")
		}
		undo(s, d.Started())
		if s.NbFree() != free || len(s.WaitingCopy()) != len(s.Waiting()) {
			t.Fatal("undo did not restore the state")
		}
	}
	blocked := loadedPlatform(1000, true)
	spec, _ := Builtin().Get("easy")
	p, _ := spec.Build(nil)
	d := &Decider{s: blocked, reply: batsim.NewReply(blocked.Now)}
	p.Decide(blocked, d)
	if d.Err() != nil || len(d.Started()) != 0 {
		t.Fatalf("blocked fixture: %v, %d started", d.Err(), len(d.Started()))
	}
}
