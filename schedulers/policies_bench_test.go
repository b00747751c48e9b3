package schedulers

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
)

// benchState builds a loaded platform: 1000 hosts (four speeds), 990 of
// them busy with 99 running jobs of 10 hosts, and n waiting jobs that each
// need 11 to 64 hosts. No waiting job fits, so every policy has to look at
// its whole queue (order it, scan it, reserve, try to backfill) and the
// state is left as it was: each iteration is one full decision.
func benchState(n int) *State {
	r := rand.New(rand.NewPCG(uint64(n), 42))
	hosts := make([]Host, 1000)
	for i := range hosts {
		hosts[i] = Host{ID: i, Name: "h" + strconv.Itoa(i), Speed: float64(1+i%4) * 1e9}
	}
	s := NewState(hosts)
	for k := 0; k < 99; k++ {
		j := &Job{ID: fmt.Sprintf("w0!r%d", k), Res: 10, Walltime: float64(600 + r.IntN(86400)), State: batsim.StateRunning,
			Start: float64(r.IntN(1000)), User: "u" + strconv.Itoa(r.IntN(200))}
		for h := 10 * k; h < 10*k+10; h++ {
			j.Alloc = append(j.Alloc, h)
			s.Hosts[h].Jobs = []*Job{j}
		}
		s.running[j.ID] = j
		s.jobs[j.ID] = j
	}
	t := 1000.0
	for i := 0; i < n; i++ {
		t += float64(r.IntN(3))
		j := &Job{ID: fmt.Sprintf("w0!%d", i), Submit: t, Res: 11 + r.IntN(54), User: "u" + strconv.Itoa(r.IntN(200)),
			State: batsim.StateSubmitted, Seq: s.seq}
		if r.IntN(20) > 0 {
			j.Walltime = float64(60 + r.IntN(86400))
		}
		s.seq++
		s.enqueue(j)
		s.jobs[j.ID] = j
	}
	s.Now = t + 1
	s.reindexHosts()
	return s
}

// BenchmarkDecide times one decision of every registered policy with 10k
// and 100k waiting jobs on 1000 hosts.
func BenchmarkDecide(b *testing.B) {
	reg := Builtin()
	for _, n := range []int{10_000, 100_000} {
		s := benchState(n)
		for _, name := range reg.Names() {
			spec, _ := reg.Get(name)
			if spec.DynamicJobs {
				continue // sequential jobs on owned hosts: BenchmarkDecideOSEP
			}
			p, err := spec.Build(nil)
			if err != nil {
				b.Fatal(err)
			}
			if st, ok := p.(Starter); ok {
				if err := st.SimulationBegins(s); err != nil {
					b.Fatal(err)
				}
			}
			b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				for b.Loop() {
					d := &Decider{s: s, reply: batsim.NewReply(s.Now)}
					p.Decide(s, d)
					if d.Err() != nil || len(d.Started()) != 0 {
						b.Fatalf("decision changed the state: %v, %d started", d.Err(), len(d.Started()))
					}
				}
			})
		}
	}
}

// BenchmarkBUCMASubmission times BUCMA's work when a job arrives on a full
// platform: no start is possible, but the queue is re-ranked to record the
// job's position (BUCMA records it for a decision trace).
func BenchmarkBUCMASubmission(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		s := benchState(n)
		spec, _ := Builtin().Get("bucma")
		p, _ := spec.Build(nil)
		bu := p.(*BUCMA)
		bu.RecordSubmissions() // as with a decision trace
		last := s.waiting[len(s.waiting)-1]
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				bu.JobSubmitted(s, last)
				bu.Decide(s, &Decider{s: s, reply: batsim.NewReply(s.Now)})
			}
		})
	}
}

// osepBenchState is the OSEP grid's situation at scale: 1000 hosts owned by
// 200 users, all busy with sequential jobs, and n sequential jobs waiting.
func osepBenchState(n int) *State {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	hosts := make([]Host, 1000)
	for i := range hosts {
		sp := float64(1+i%4) * 1e9
		hosts[i] = Host{ID: i, Name: "h" + strconv.Itoa(i), Speed: sp,
			Properties: map[string]string{"owner": "u" + strconv.Itoa(i%200), "speed": strconv.FormatFloat(sp, 'g', -1, 64)}}
	}
	s := NewState(hosts)
	s.Config.DynamicJobsEnabled = true
	for h := range hosts {
		j := &Job{ID: fmt.Sprintf("w0!r%d", h), Res: 1, State: batsim.StateRunning, Start: float64(r.IntN(1000)),
			User: "u" + strconv.Itoa(r.IntN(200)), Alloc: []int{h}, Seq: s.seq}
		s.seq++
		s.Hosts[h].Jobs = []*Job{j}
		s.running[j.ID] = j
		s.jobs[j.ID] = j
	}
	t := 1000.0
	for i := 0; i < n; i++ {
		t += float64(r.IntN(3))
		j := &Job{ID: fmt.Sprintf("w0!%d", i), Submit: t, Res: 1, User: "u" + strconv.Itoa(r.IntN(200)),
			State: batsim.StateSubmitted, Seq: s.seq}
		s.seq++
		s.enqueue(j)
		s.jobs[j.ID] = j
	}
	s.Now = t + 1
	s.reindexHosts()
	return s
}

// BenchmarkDecideOSEP times one decision of the OSEP policies (no free
// host, no round due) with 10k and 100k waiting jobs on 1000 owned hosts.
func BenchmarkDecideOSEP(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		for _, name := range []string{"osep", "osep-hetero"} {
			s := osepBenchState(n)
			spec, _ := Builtin().Get(name)
			p, err := spec.Build(nil)
			if err != nil {
				b.Fatal(err)
			}
			if err := p.(Starter).SimulationBegins(s); err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				for b.Loop() {
					d := &Decider{s: s, reply: batsim.NewReply(s.Now)}
					p.Decide(s, d)
					if d.Err() != nil || len(d.Started()) != 0 {
						b.Fatalf("decision changed the state: %v, %d started", d.Err(), len(d.Started()))
					}
				}
			})
		}
	}
}
