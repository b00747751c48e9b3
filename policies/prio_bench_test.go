package policies_test

import (
	"container/heap"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/policies/prio"
	"github.com/bucma-sched/bucma/sched"
)

// BenchmarkTimeOrderDecide times one decision of the priority-function
// policies whose order changes with the time (prio-wfp3, prio-unicep,
// prio-xf) and of a user's WFP3 written on sched.TimeOrder (userWFP3),
// with no and with EASY backfilling, with 10 000 and 100 000 waiting
// jobs, next to easy, and to three orders that do not change with the
// time under EASY (prio-f1, prio-sjf, prio-largest), in the same state.
//
// The state: 1000 hosts, full but for a few, with jobs of 11 to 64 hosts
// running and n waiting, submitted over the 100 000 s before the first
// decision, walltimes of 1 minute to 24 hours. Each decision is a message
// in which the running job expected to end first ends, dt seconds after
// the previous message or at its walltime if that comes first, and a job
// like the others arrives: the keys have moved, the policy starts what the
// freed hosts allow (one job a decision on average), and the queue stays
// near n. "waiting" is the queue after the last decision; "cpu-ns/op" the
// process's CPU time per decision.
//
// Conservative backfilling compresses its schedule at every one of these
// decisions, since a job ended: BenchmarkConservativeEnd times that.
func BenchmarkTimeOrderDecide(b *testing.B) {
	specs := []*sched.Spec{userWFP3()}
	for _, name := range []string{"prio-wfp3", "prio-unicep", "prio-xf", "easy", "prio-f1", "prio-sjf", "prio-largest"} {
		spec, _ := reg.Get(name)
		specs = append(specs, spec)
	}
	for _, n := range []int{10_000, 100_000} {
		msgs := churnMessages(n)
		for _, spec := range specs {
			backfills := []string{"none", "easy"}
			switch spec.Name {
			case "easy":
				backfills = []string{""}
			case "prio-f1", "prio-sjf", "prio-largest":
				backfills = []string{"easy"} // orders that do not change with the time, for reference
			}
			for _, backfill := range backfills {
				var opts sched.Options
				if backfill != "" {
					opts = sched.Options{"backfill": backfill}
				}
				for _, dt := range []float64{10, 1000} {
					name := fmt.Sprintf("%s/%s/%d/dt=%g", spec.Name, backfill, n, dt)
					if backfill == "" {
						name = fmt.Sprintf("%s/%d/dt=%g", spec.Name, n, dt)
					}
					b.Run(name, func(b *testing.B) {
						benchChurn(b, spec, opts, msgs, dt)
					})
				}
			}
		}
	}
}

// benchChurn plays msgs to a session of spec and times the decisions of
// the churn (see BenchmarkTimeOrderDecide).
func benchChurn(b *testing.B, spec *sched.Spec, opts sched.Options, msgs []*batsim.Message, dt float64) {
	sess, err := sched.NewSession(sched.SessionConfig{Spec: spec, Options: opts, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range msgs {
		if _, err := sess.Handle(m); err != nil {
			b.Fatal(err)
		}
	}
	var ends endHeap
	for _, j := range sess.State().Running() {
		heap.Push(&ends, j)
	}
	now := msgs[len(msgs)-1].Now
	r := rand.New(rand.NewPCG(7, 7))
	k := 0
	decide := func() {
		j := heap.Pop(&ends).(*sched.Job)
		now = max(now, min(now+dt, j.ExpectedEnd()))
		k++
		m := &batsim.Message{Now: now, Events: []batsim.Event{
			{Timestamp: now, Type: batsim.TypeJobCompleted, Data: &batsim.JobCompleted{JobID: j.ID(), JobState: batsim.StateSuccess,
				Alloc: batsim.NewIntervalSet(j.Alloc()...).String()}},
			submitted(now, "n"+strconv.Itoa(k), churnJob(r, now)),
		}}
		reply, err := sess.Handle(m)
		if err != nil {
			b.Fatal(err)
		}
		for _, ev := range reply.Events() {
			if x, ok := ev.Data.(*batsim.ExecuteJob); ok {
				started, _ := sess.State().Job(x.JobID)
				heap.Push(&ends, started)
			}
		}
	}
	decide() // the first decision after the arrivals computes every node
	cpu0, cpuOK := processCPU()
	for b.Loop() {
		decide()
	}
	if cpu1, ok := processCPU(); ok && cpuOK {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
	}
	b.ReportMetric(float64(sess.State().NbWaiting()), "waiting")
}

// endHeap holds running jobs by expected end, then id.
type endHeap []*sched.Job

func (h endHeap) Len() int { return len(h) }
func (h endHeap) Less(a, b int) bool {
	if x, y := h[a].ExpectedEnd(), h[b].ExpectedEnd(); x != y {
		return x < y
	}
	return h[a].ID() < h[b].ID()
}
func (h endHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *endHeap) Push(x any)   { *h = append(*h, x.(*sched.Job)) }
func (h *endHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// userWFP3 is WFP3 as a user writes it on the public API
// (docs/writing-a-policy.md): the cube root of (wait/walltime)³·hosts, a
// line in the time, with the built-in policies' backfill option.
func userWFP3() *sched.Spec {
	return &sched.Spec{
		Name:    "user-wfp3",
		Options: []sched.OptionSpec{prio.BackfillOption},
		New: func(opts sched.Options) (sched.Policy, error) {
			rule, err := prio.Rule(opts["backfill"])
			if err != nil {
				return nil, err
			}
			order := sched.NewTimeOrder("wfp3", func(j *sched.Job) sched.Line {
				return sched.Line{Rate: -math.Cbrt(float64(j.Res())) / j.WalltimeOrInf(), Since: j.Submit()}
			})
			return &sched.Composite{Order: order, Rule: rule, Hosts: sched.Fastest{}}, nil
		},
	}
}

// churnJob is the description of a job of the churn submitted at at: 11
// to 64 hosts, a walltime of 1 minute to 24 hours, a run that never ends
// by itself.
func churnJob(r *rand.Rand, at float64) string {
	return fmt.Sprintf(`"subtime":%g,"res":%d,"walltime":%d,"profile":"d"`, at, 11+r.IntN(54), 60+r.IntN(86400))
}

// churnMessages: SIMULATION_BEGINS on 1000 hosts, jobs of the churn that
// start at 0 until fewer than 11 hosts are free (the last takes what is
// left), then n jobs of the churn submitted over 100 000 s, in 1000
// messages.
func churnMessages(n int) []*batsim.Message {
	r := rand.New(rand.NewPCG(uint64(n), 48))
	first := &batsim.Message{Events: []batsim.Event{benchHostsBegins(false, false)}}
	for free, k := 1000, 0; free >= 11; k++ {
		res := min(11+r.IntN(54), free)
		free -= res
		// Long enough to run until the arrivals are in.
		first.Events = append(first.Events, submitted(0, "r"+strconv.Itoa(k), fmt.Sprintf(`"subtime":0,"res":%d,"walltime":%d,"profile":"d"`, res, 100_000+r.IntN(86400))))
	}
	msgs := []*batsim.Message{first}
	per := n / 1000
	for m := 0; m < 1000; m++ {
		at := float64(1 + m*100)
		msg := &batsim.Message{Now: at}
		for i := m * per; i < (m+1)*per; i++ {
			msg.Events = append(msg.Events, submitted(at, strconv.Itoa(i), churnJob(r, at)))
		}
		msgs = append(msgs, msg)
	}
	return msgs
}
