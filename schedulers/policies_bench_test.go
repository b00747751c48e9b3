package schedulers

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/protocol"
	"github.com/bucma-sched/bucma/workloads"
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
		j := &Job{ID: fmt.Sprintf("w0!r%d", k), Res: 10, Walltime: float64(600 + r.IntN(86400)), State: protocol.StateRunning,
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
			State: protocol.StateSubmitted, Seq: s.seq}
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
// and 100k waiting jobs, none of which the decision can start (so that each
// iteration is the same decision), on a state that fits the policy:
//
//   - the queue policies and gang: benchState's 1000 hosts, 990 of them busy,
//     jobs of 11 to 64 hosts waiting (gang gets them through a session, so
//     that its host queues hold them);
//   - the SGE policies: 1000 hosts of 4 slots, every slot busy with a
//     sequential job, sequential jobs waiting;
//   - the bag-of-tasks policies: 1000 cores in nodes of 4, BoTs of 100
//     tasks whose first steps run, the later steps waiting;
//   - the OSEP policies: osepBenchState's owned hosts, all busy.
func BenchmarkDecide(b *testing.B) {
	reg := Builtin()
	for _, n := range []int{10_000, 100_000} {
		plain := benchState(n)
		for _, name := range reg.Names() {
			spec, _ := reg.Get(name)
			s, p := benchFixture(b, spec, n, plain)
			b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				for b.Loop() {
					d := &Decider{s: s, reply: protocol.NewReply(s.Now)}
					p.Decide(s, d)
					if d.Err() != nil || len(d.Started()) != 0 {
						b.Fatalf("decision changed the state: %v, %d started", d.Err(), len(d.Started()))
					}
				}
			})
		}
	}
}

// benchFixture returns the state and the policy BenchmarkDecide times for
// spec with n waiting jobs (plain is benchState(n), shared by the queue
// policies).
func benchFixture(b *testing.B, spec *Spec, n int, plain *State) (*State, Policy) {
	b.Helper()
	switch {
	case spec.DynamicJobs:
		s := osepBenchState(n)
		return s, builtPolicy(b, spec, s)
	case spec.Energy:
		return sessionFixture(b, spec, botBenchMessages(b, n))
	case spec.ComputeSharing:
		return sessionFixture(b, spec, sgeBenchMessages(n))
	case spec.Profiles:
		return sessionFixture(b, spec, queueBenchMessages(n))
	}
	return plain, builtPolicy(b, spec, plain)
}

// builtPolicy builds spec's policy with its defaults on s.
func builtPolicy(b *testing.B, spec *Spec, s *State) Policy {
	b.Helper()
	p, err := spec.Build(nil)
	if err != nil {
		b.Fatal(err)
	}
	if st, ok := p.(Starter); ok {
		if err := st.SimulationBegins(s); err != nil {
			b.Fatal(err)
		}
	}
	return p
}

// benchHostsBegins is SIMULATION_BEGINS on 1000 hosts of four speeds, each
// with the properties the policies read: slots (4), node (4 cores each)
// and cluster (two of 500).
func benchHostsBegins(sharing bool) protocol.Event {
	res := make([]protocol.Resource, 1000)
	for i := range res {
		sp := strconv.FormatFloat(float64(1+i%4)*1e9, 'g', -1, 64)
		res[i] = protocol.Resource{ID: i, Name: "h" + strconv.Itoa(i), State: "idle", Properties: map[string]string{
			"speed": sp, "slots": "4", "node": "n" + strconv.Itoa(i/4), "cluster": "c" + strconv.Itoa(i/500)}}
	}
	return protocol.Event{Type: protocol.TypeSimulationBegins, Data: &protocol.SimulationBegins{
		NbResources: len(res), NbComputeResources: len(res), AllowComputeSharing: sharing, ComputeResources: res,
		Profiles: map[string]map[string]json.RawMessage{"w0": {"d": json.RawMessage(`{"type":"delay","delay":3600}`)}}}}
}

// submitted is JOB_SUBMITTED of job id with the members of its description
// after its id.
func submitted(at float64, id, rest string) protocol.Event {
	full := "w0!" + id
	return protocol.Event{Timestamp: at, Type: protocol.TypeJobSubmitted,
		Data: &protocol.JobSubmitted{JobID: full, Job: json.RawMessage(`{"id":"` + full + `",` + rest + `}`)}}
}

// queueBenchMessages: 99 jobs of 10 hosts start, then n jobs of 11 to 64
// hosts wait (benchState's situation, through submissions).
func queueBenchMessages(n int) []*protocol.Message {
	r := rand.New(rand.NewPCG(uint64(n), 42))
	first := &protocol.Message{Events: []protocol.Event{benchHostsBegins(false)}}
	for k := 0; k < 99; k++ {
		first.Events = append(first.Events, submitted(0, fmt.Sprintf("r%d", k), fmt.Sprintf(`"subtime":0,"res":10,"walltime":%d,"profile":"d","user":"u%d"`, 600+r.IntN(86400), r.IntN(200))))
	}
	next := &protocol.Message{Now: 1000}
	for i := 0; i < n; i++ {
		wall := ""
		if r.IntN(20) > 0 {
			wall = fmt.Sprintf(`"walltime":%d,`, 60+r.IntN(86400))
		}
		next.Events = append(next.Events, submitted(1000, strconv.Itoa(i), fmt.Sprintf(`"subtime":1000,"res":%d,%s"profile":"d","user":"u%d"`, 11+r.IntN(54), wall, r.IntN(200))))
	}
	return []*protocol.Message{first, next}
}

// sgeBenchMessages: 4000 sequential jobs fill every slot, then n more
// wait.
func sgeBenchMessages(n int) []*protocol.Message {
	first := &protocol.Message{Events: []protocol.Event{benchHostsBegins(true)}}
	for k := 0; k < 4000; k++ {
		first.Events = append(first.Events, submitted(0, fmt.Sprintf("r%d", k), `"subtime":0,"res":1,"profile":"d"`))
	}
	next := &protocol.Message{Now: 1000}
	for i := 0; i < n; i++ {
		next.Events = append(next.Events, submitted(1000, strconv.Itoa(i), `"subtime":1000,"res":1,"profile":"d"`))
	}
	return []*protocol.Message{first, next}
}

// botBenchMessages: n/10000 BoTs of 100 tasks of 100 steps at 50 % arrive
// at once, with 250 VMs each; their first steps run.
func botBenchMessages(b *testing.B, n int) []*protocol.Message {
	b.Helper()
	var bots []workloads.BotSpec
	for i := 0; i < n/10_000; i++ {
		bots = append(bots, workloads.BotSpec{Name: fmt.Sprintf("b%d", i), VMs: 250, Quads: []workloads.BotQuad{{A: 0, D: 100, B: 100, C: 50}}})
	}
	w, err := workloads.BotWorkload(bots, workloads.BotWorkloadOptions{Hosts: 1000})
	if err != nil {
		b.Fatal(err)
	}
	m := &protocol.Message{Events: []protocol.Event{benchHostsBegins(true)}}
	for _, j := range w.Jobs {
		full := "w0!" + j.ID
		raw, err := workloads.AppendForwardedJob(nil, j.Raw, full)
		if err != nil {
			b.Fatal(err)
		}
		m.Events = append(m.Events, protocol.Event{Type: protocol.TypeJobSubmitted, Data: &protocol.JobSubmitted{JobID: full, Job: raw}})
	}
	return []*protocol.Message{m}
}

// sessionFixture plays msgs to a session of spec and returns its state
// and policy once they are answered.
func sessionFixture(b *testing.B, spec *Spec, msgs []*protocol.Message) (*State, Policy) {
	b.Helper()
	sess, err := NewSession(SessionConfig{Spec: spec})
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range msgs {
		if _, err := sess.Handle(m); err != nil {
			b.Fatalf("%s: %v", spec.Name, err)
		}
	}
	return sess.State(), sess.Policy()
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
				bu.Decide(s, &Decider{s: s, reply: protocol.NewReply(s.Now)})
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
		j := &Job{ID: fmt.Sprintf("w0!r%d", h), Res: 1, State: protocol.StateRunning, Start: float64(r.IntN(1000)),
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
			State: protocol.StateSubmitted, Seq: s.seq}
		s.seq++
		s.enqueue(j)
		s.jobs[j.ID] = j
	}
	s.Now = t + 1
	s.reindexHosts()
	return s
}
