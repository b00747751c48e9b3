package policies_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/policies/bucma"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit"
)

// benchState builds a loaded platform: 1000 hosts (four speeds), 990 of
// them busy with 99 running jobs of 10 hosts, and n waiting jobs that each
// need 11 to 64 hosts. No waiting job fits, so every policy has to look at
// its whole queue (order it, scan it, reserve, try to backfill) and the
// state is left as it was: each iteration is one full decision.
func benchState(b *testing.B, n int, spec *sched.Spec, p sched.Policy) *testkit.Hand {
	r := rand.New(rand.NewPCG(uint64(n), 42))
	sp := testkit.StateSpec{Spec: spec, Policy: p}
	for i := range 1000 {
		sp.Hosts = append(sp.Hosts, testkit.Host{Speed: float64(1+i%4) * 1e9})
	}
	for k := 0; k < 99; k++ {
		j := testkit.Job{Name: fmt.Sprintf("r%d", k), Res: 10, Walltime: float64(600 + r.IntN(86400)), User: "u" + strconv.Itoa(r.IntN(200))}
		start := float64(r.IntN(1000))
		j.Submit = start
		var hosts []int
		for h := 10 * k; h < 10*k+10; h++ {
			hosts = append(hosts, h)
		}
		sp.Running = append(sp.Running, testkit.Running{Job: j, Start: start, Hosts: hosts})
	}
	t := 1000.0
	for i := 0; i < n; i++ {
		t += float64(r.IntN(3))
		j := testkit.Job{Name: strconv.Itoa(i), Submit: t, Res: 11 + r.IntN(54), User: "u" + strconv.Itoa(r.IntN(200))}
		if r.IntN(20) > 0 {
			j.Walltime = float64(60 + r.IntN(86400))
		}
		sp.Waiting = append(sp.Waiting, j)
	}
	sp.Now = t + 1
	h, err := testkit.NewState(sp)
	if err != nil {
		b.Fatal(err)
	}
	return h
}

// decideOnce times one decision of p on h, checking that it starts,
// rejects and kills nothing (the state stays as it was; a request for a
// call is no change).
func decideOnce(b *testing.B, h *testkit.Hand, p sched.Policy) {
	b.Helper()
	got, err := h.Decide(p)
	if err != nil {
		b.Fatal(err)
	}
	for _, d := range got {
		if !strings.HasPrefix(d, "C ") {
			b.Fatalf("decision changed the state: %q", got)
		}
	}
}

// BenchmarkDecide times one decision of every registered policy with 10k
// and 100k waiting jobs on 1000 hosts (through the Session, as one
// message costs).
func BenchmarkDecide(b *testing.B) {
	reg := policies.Builtin()
	for _, n := range []int{10_000, 100_000} {
		for _, name := range reg.Names() {
			spec, _ := reg.Get(name)
			if spec.DynamicJobs {
				continue // sequential jobs on owned hosts: BenchmarkDecideOSEP
			}
			p, err := spec.Build(nil)
			if err != nil {
				b.Fatal(err)
			}
			h := benchState(b, n, spec, p)
			b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				for b.Loop() {
					decideOnce(b, h, p)
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
		spec, _ := policies.Builtin().Get("bucma")
		p, _ := spec.Build(nil)
		h := benchState(b, n, spec, p)
		bu := p.(*bucma.BUCMA)
		bu.RecordSubmissions() // as with a decision trace
		w := h.State().Waiting()
		last := w[len(w)-1]
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				bu.JobSubmitted(h.State(), last)
				decideOnce(b, h, bu)
			}
		})
	}
}

// osepBenchState is the OSEP grid's situation at scale: 1000 hosts owned by
// 200 users, all busy with sequential jobs, and n sequential jobs waiting.
func osepBenchState(b *testing.B, n int, spec *sched.Spec, p sched.Policy) *testkit.Hand {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	sp := testkit.StateSpec{Spec: spec, Policy: p}
	for i := range 1000 {
		sp.Hosts = append(sp.Hosts, testkit.Host{Speed: float64(1+i%4) * 1e9, Properties: map[string]string{"owner": "u" + strconv.Itoa(i%200)}})
	}
	for h := range 1000 {
		start := float64(r.IntN(1000))
		j := testkit.Job{Name: fmt.Sprintf("r%d", h), Submit: start, Res: 1, User: "u" + strconv.Itoa(r.IntN(200))}
		sp.Running = append(sp.Running, testkit.Running{Job: j, Start: start, Hosts: []int{h}})
	}
	t := 1000.0
	for i := 0; i < n; i++ {
		t += float64(r.IntN(3))
		sp.Waiting = append(sp.Waiting, testkit.Job{Name: strconv.Itoa(i), Submit: t, Res: 1, User: "u" + strconv.Itoa(r.IntN(200))})
	}
	sp.Now = t + 1
	h, err := testkit.NewState(sp)
	if err != nil {
		b.Fatal(err)
	}
	return h
}

// BenchmarkDecideOSEP times one decision of the OSEP policies (no free
// host, no round due) with 10k and 100k waiting jobs on 1000 owned hosts.
func BenchmarkDecideOSEP(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		for _, name := range []string{"osep", "osep-hetero"} {
			spec, _ := policies.Builtin().Get(name)
			p, err := spec.Build(nil)
			if err != nil {
				b.Fatal(err)
			}
			h := osepBenchState(b, n, spec, p)
			b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				for b.Loop() {
					decideOnce(b, h, p)
				}
			})
		}
	}
}
