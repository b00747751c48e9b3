package sched

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
		hosts[i] = Host{id: i, name: "h" + strconv.Itoa(i), speed: float64(1+i%4) * 1e9}
	}
	s := newState(hosts)
	now := 100000.0
	next := 0
	for k := 0; next < nHosts-keepFree; k++ {
		res := min(resMix(r), nHosts-keepFree-next)
		wt := walltimeMix(r)
		start := now - r.Float64()*math.Min(wt, 3600)
		if wt == 0 {
			start = now - r.Float64()*3600
		}
		j := &Job{id: fmt.Sprintf("w0!r%d", k), res: res, walltime: wt, state: batsim.StateRunning, start: start, seq: s.seq}
		s.seq++
		for h := next; h < next+res; h++ {
			j.alloc = append(j.Alloc(), h)
			s.hosts[h].jobs = []*Job{j}
		}
		next += res
		s.runStarted(j)
		s.jobs[j.id] = j
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
		j := &Job{id: fmt.Sprintf("w0!%d", i), submit: t, res: res, walltime: walltimeMix(r), state: batsim.StateSubmitted, seq: s.seq}
		s.seq++
		s.enqueue(j)
		s.jobs[j.id] = j
	}
	s.now = now
	s.reindexHosts()
	return s
}

// undo reverts the starts of a decision so the next iteration sees the
// same state.
func undo(s *State, started []*Job) {
	for _, j := range started {
		for _, h := range j.Alloc() {
			s.hosts[h].jobs = nil
		}
		s.nfree += len(j.Alloc())
		delete(s.running, j.ID())
		s.cands.insert(s.resIndex(j.Res()), j)
		if s.fit != nil {
			s.fit.set(j.qpos, j.Res(), j.WalltimeOrInf())
		}
		s.dead--
		j.state, j.start, j.alloc = batsim.StateSubmitted, 0, nil
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
				p := testBase(policy)
				b.Run(fmt.Sprintf("%s/%s/waiting=%d", scenario, policy, n), func(b *testing.B) {
					starts := -1
					for b.Loop() {
						d := &Decider{s: s, reply: batsim.NewReply(s.Now())}
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
	if s.NbFree() < 1 || s.NbFree() >= s.Waiting()[0].Res() {
		t.Fatalf("%d free hosts, head needs %d", s.NbFree(), s.Waiting()[0].Res())
	}
	free := s.NbFree()
	for _, policy := range []string{"easy", "fcfs"} {
		p := testBase(policy)
		d := &Decider{s: s, reply: batsim.NewReply(s.Now())}
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
	p := testBase("easy")
	d := &Decider{s: blocked, reply: batsim.NewReply(blocked.Now())}
	p.Decide(blocked, d)
	if d.Err() != nil || len(d.Started()) != 0 {
		t.Fatalf("blocked fixture: %v, %d started", d.Err(), len(d.Started()))
	}
}

// testBase is base policy fcfs or easy as the basic policies register them
// (default host selection).
func testBase(name string) Policy {
	rule := StartRule(Blocking{})
	if name == "easy" {
		rule = EASY{}
	}
	return &Composite{Order: FCFSOrder{}, Rule: rule, Hosts: Fastest{}}
}

// testSpec is the spec of base policy fcfs or easy (its hosts option
// included), as the basic policies register it.
func testSpec(name string) *Spec {
	rule := StartRule(Blocking{})
	if name == "easy" {
		rule = EASY{}
	}
	s := BaseSpec(name, name, Base{Order: FCFSOrder{}, Rule: rule})
	return &s
}

// sortedWalltime is the walltime order as a policy of its own would write
// it without the framework's index: a sort of a copy of the queue at every
// decision.
type sortedWalltime struct{}

func (sortedWalltime) Sort(s *State, q []*Job) { WalltimeOrder{}.Sort(s, q) }

// BenchmarkKeyOrder times one decision at 100 000 waiting jobs of the same
// order given three ways: the built-in WalltimeOrder, a KeyOrder of the
// same key (what a user's own order is), and an Order that sorts the queue
// (what a user's order would cost without the index); under the greedy
// scan and under EASY, on the loaded platform of BenchmarkPolicyDecision
// ("blocked": no waiting job fits).
func BenchmarkKeyOrder(b *testing.B) {
	orders := []struct {
		name  string
		order Order
	}{
		{"builtin", WalltimeOrder{}},
		{"keyorder", NewKeyOrder("walltime", (*Job).WalltimeOrInf)},
		{"sorted", sortedWalltime{}},
	}
	for _, rule := range []StartRule{Greedy{}, EASY{}} {
		for _, o := range orders {
			s := loadedPlatform(100_000, true)
			p := &Composite{Order: o.order, Rule: rule, Hosts: Fastest{}}
			decide := func() {
				d := &Decider{s: s, reply: batsim.NewReply(s.Now())}
				p.Decide(s, d)
				if d.Err() != nil || len(d.Started()) != 0 {
					b.Fatalf("decision changed the state: %v, %d started", d.Err(), len(d.Started()))
				}
			}
			decide() // builds the order's index once, as the first decision of a run does
			b.Run(fmt.Sprintf("%T/%s/waiting=100000", rule, o.name), func(b *testing.B) {
				for b.Loop() {
					decide()
				}
			})
		}
	}
}
