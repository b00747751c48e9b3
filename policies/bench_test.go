package policies_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/policies/bucma"
	"github.com/bucma-sched/bucma/policies/conservative"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/workloads"
)

// BenchmarkDecide times one decision of every registered policy with 10k
// and 100k waiting jobs, none of which the decision can start (so that each
// iteration is the same decision), through its Session as a message costs
// it (an empty message at the same date), on a state that fits the policy,
// built by the policy itself from Batsim's messages:
//
//   - the queue policies and gang: 1000 hosts (four speeds), 99 jobs of 10
//     hosts running, jobs of 11 to 64 hosts waiting;
//   - the SGE policies: 1000 hosts of 4 slots, every slot busy with a
//     sequential job, sequential jobs waiting;
//   - the bag-of-tasks policies: 1000 cores in nodes of 4, BoTs of 100
//     tasks whose first steps run, the later steps waiting;
//   - the OSEP policies: 1000 hosts owned by 200 users, all busy with
//     sequential jobs, sequential jobs waiting;
//   - the energy-aware backfilling policies: the queue policies' state on
//     hosts with a sleep pstate, the idle hosts asleep (as the policy
//     switched them off).
//
// killer2 is left out: while a job waits, each of its decisions kills the
// running job (batsched's test variant of kills), so that no decision
// leaves the state as it was and none can be repeated.
//
// batsched-energy is timed apart (BenchmarkBatschedEnergy): as batsched's
// energy variants, it plans every waiting job again at each decision, in
// time quadratic in the queue (65 s for one decision at 10 000 waiting
// jobs).
func BenchmarkDecide(b *testing.B) {
	reg := policies.Builtin()
	for _, n := range []int{10_000, 100_000} {
		for _, name := range reg.Names() {
			if name == "batsched-energy" || name == "killer2" {
				continue
			}
			spec, _ := reg.Get(name)
			b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				// Built here, not timed (b.Loop resets the timer), and
				// only for the benchmarks -bench selects.
				sess, now := benchSession(b, spec, n, nil)
				for b.Loop() {
					decideOnce(b, sess, now)
				}
			})
		}
	}
}

// BenchmarkBatschedEnergy times one decision of batsched-energy
// (energy_bf) on BenchmarkDecide's state of the energy policies, with 100
// and 1000 waiting jobs.
func BenchmarkBatschedEnergy(b *testing.B) {
	spec, _ := policies.Builtin().Get("batsched-energy")
	for _, n := range []int{100, 1000} {
		sess, now := benchSession(b, spec, n, nil)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				decideOnce(b, sess, now)
			}
		})
	}
}

// decideOnce has the session decide once more at now, checking that the
// decision starts, rejects and kills nothing (the state stays as it was;
// a request for a call is no change).
func decideOnce(b *testing.B, sess *sched.Session, now float64) {
	reply, err := sess.Handle(&batsim.Message{Now: now})
	if err != nil {
		b.Fatal(err)
	}
	for _, ev := range reply.Events() {
		switch ev.Data.(type) {
		case *batsim.CallMeLater:
		default:
			b.Fatalf("decision changed the state: %s", ev.Type)
		}
	}
}

// benchSession plays the messages that fit spec (see BenchmarkDecide) to a
// session of spec with its defaults and returns it with the date of its
// last message.
func benchSession(b *testing.B, spec *sched.Spec, n int, obs []sched.Observer) (*sched.Session, float64) {
	b.Helper()
	var msgs []*batsim.Message
	switch {
	case energyFamily[spec.Name]:
		return energyBenchSession(b, spec, n, obs)
	case spec.DynamicJobs:
		msgs = osepBenchMessages(n)
	case spec.Energy && !spec.ComputeSharing:
		msgs = queueBenchMessages(n)
		msgs[0].Events[0] = benchHostsBegins(false, false, true)
	case spec.Energy:
		msgs = botBenchMessages(b, n)
	case spec.ComputeSharing:
		msgs = sgeBenchMessages(n)
	default:
		msgs = queueBenchMessages(n)
	}
	sess, err := (&run.Policy{Spec: spec, Observers: obs, Log: slog.New(slog.DiscardHandler)}).NewSession()
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range msgs {
		if _, err := sess.Handle(m); err != nil {
			b.Fatalf("%s: %v", spec.Name, err)
		}
	}
	// A policy that starts one job per decision (killer, submitter) or
	// switches hosts off reaches in a few more decisions the state the
	// others reach in one: it decides again until its decision changes
	// nothing.
	now := msgs[len(msgs)-1].Now
	for range 5000 {
		reply, err := sess.Handle(&batsim.Message{Now: now})
		if err != nil {
			b.Fatalf("%s: %v", spec.Name, err)
		}
		if !slices.ContainsFunc(reply.Events(), func(ev batsim.Event) bool { return ev.Type != batsim.TypeCallMeLater }) {
			break
		}
	}
	return sess, now
}

// benchHostsBegins is SIMULATION_BEGINS on 1000 hosts of four speeds, each
// with the properties the policies read: slots (4), node (4 cores each),
// cluster (two of 500) and owner (200 users); with energy, a sleep pstate
// (2, switching through 3 and 4).
func benchHostsBegins(sharing, dynamic bool, energy ...bool) batsim.Event {
	res := make([]batsim.Resource, 1000)
	for i := range res {
		sp := strconv.FormatFloat(float64(1+i%4)*1e9, 'g', -1, 64)
		res[i] = batsim.Resource{ID: i, Name: "h" + strconv.Itoa(i), State: "idle", Properties: map[string]string{
			"speed": sp, "slots": "4", "node": "n" + strconv.Itoa(i/4), "cluster": "c" + strconv.Itoa(i/500),
			"owner": "u" + strconv.Itoa(i%200)}}
		if len(energy) > 0 && energy[0] {
			res[i].Properties["wattage_per_state"] = "95:190, 95:130, 9:9, 100:100, 125:125"
			res[i].Properties["sleep_pstates"] = "2:3:4"
		}
	}
	return batsim.Event{Type: batsim.TypeSimulationBegins, Data: &batsim.SimulationBegins{
		NbResources: len(res), NbComputeResources: len(res), AllowComputeSharing: sharing, ComputeResources: res,
		Config:   batsim.Config{DynamicJobsEnabled: dynamic, DynamicJobsAcknowledged: dynamic},
		Profiles: map[string]map[string]json.RawMessage{"w0": {"d": json.RawMessage(`{"type":"delay","delay":3600}`)}}}}
}

// submitted is JOB_SUBMITTED of job id with the members of its description
// after its id.
func submitted(at float64, id, rest string) batsim.Event {
	full := "w0!" + id
	return batsim.Event{Timestamp: at, Type: batsim.TypeJobSubmitted,
		Data: &batsim.JobSubmitted{JobID: full, Job: json.RawMessage(`{"id":"` + full + `",` + rest + `}`)}}
}

// queueBenchMessages: 99 jobs of 10 hosts start, then n jobs of 11 to 64
// hosts wait.
func queueBenchMessages(n int) []*batsim.Message {
	r := rand.New(rand.NewPCG(uint64(n), 42))
	first := &batsim.Message{Events: []batsim.Event{benchHostsBegins(false, false)}}
	for k := 0; k < 99; k++ {
		first.Events = append(first.Events, submitted(0, fmt.Sprintf("r%d", k), fmt.Sprintf(`"subtime":0,"res":10,"walltime":%d,"profile":"d","user":"u%d"`, 600+r.IntN(86400), r.IntN(200))))
	}
	next := &batsim.Message{Now: 1000}
	for i := 0; i < n; i++ {
		wall := ""
		if r.IntN(20) > 0 {
			wall = fmt.Sprintf(`"walltime":%d,`, 60+r.IntN(86400))
		}
		next.Events = append(next.Events, submitted(1000, strconv.Itoa(i), fmt.Sprintf(`"subtime":1000,"res":%d,%s"profile":"d","user":"u%d"`, 11+r.IntN(54), wall, r.IntN(200))))
	}
	return []*batsim.Message{first, next}
}

// withWalltimes gives a walltime of an hour to the jobs m submits without
// one.
func withWalltimes(m *batsim.Message) {
	for i, ev := range m.Events {
		d := ev.Data.(*batsim.JobSubmitted)
		if !bytes.Contains(d.Job, []byte(`"walltime"`)) {
			raw := bytes.Replace(d.Job, []byte(`"profile"`), []byte(`"walltime":3600,"profile"`), 1)
			m.Events[i].Data = &batsim.JobSubmitted{JobID: d.JobID, Job: raw}
		}
	}
}

// energyFamily are the energy-aware backfilling policies (the Energy specs
// that are not bag-of-tasks policies).
var energyFamily = map[string]bool{"energy": true, "batsched-energy": true}

// energyBenchSession is benchSession for the energy-aware backfilling
// policies: queueBenchMessages on hosts with a sleep pstate, Batsim
// switching off at 1 what the policy asked to switch off at 0.
func energyBenchSession(b *testing.B, spec *sched.Spec, n int, obs []sched.Observer) (*sched.Session, float64) {
	b.Helper()
	msgs := queueBenchMessages(n)
	begins := msgs[0].Events[0].Data.(*batsim.SimulationBegins)
	for i := range begins.ComputeResources {
		p := begins.ComputeResources[i].Properties
		p["wattage_per_state"], p["sleep_pstates"] = "95:190, 9.75:9.75, 100:100, 120:120", "1:2:3"
	}
	var opts sched.Options
	if spec.Name == "batsched-energy" {
		// batsched's energy variants stop on a job without walltime
		// that cannot be placed: every job gets one.
		withWalltimes(msgs[1])
		opts = sched.Options{"power-compute": "190", "power-idle": "95", "power-sleep": "9.75", "pstate-compute": "0", "pstate-sleep": "1",
			"time-switch-on": "10", "time-switch-off": "5", "energy-switch-on": "1200", "energy-switch-off": "500"}
	}
	sess, err := (&run.Policy{Spec: spec, Options: opts, Observers: obs, Log: slog.New(slog.DiscardHandler)}).NewSession()
	if err != nil {
		b.Fatal(err)
	}
	reply, err := sess.Handle(msgs[0])
	if err != nil {
		b.Fatalf("%s: %v", spec.Name, err)
	}
	changed := &batsim.Message{Now: 1}
	for _, ev := range reply.Events() {
		if d, ok := ev.Data.(*batsim.SetResourceState); ok {
			changed.Events = append(changed.Events, batsim.Event{Timestamp: 1, Type: batsim.TypeResourceStateChanged,
				Data: &batsim.ResourceStateChanged{Resources: d.Resources.String(), State: strconv.Itoa(d.PState)}})
		}
	}
	for _, m := range []*batsim.Message{changed, msgs[1]} {
		if _, err := sess.Handle(m); err != nil {
			b.Fatalf("%s: %v", spec.Name, err)
		}
	}
	return sess, msgs[1].Now
}

// sgeBenchMessages: 4000 sequential jobs fill every slot, then n more
// wait.
func sgeBenchMessages(n int) []*batsim.Message {
	first := &batsim.Message{Events: []batsim.Event{benchHostsBegins(true, false)}}
	for k := 0; k < 4000; k++ {
		first.Events = append(first.Events, submitted(0, fmt.Sprintf("r%d", k), `"subtime":0,"res":1,"profile":"d"`))
	}
	next := &batsim.Message{Now: 1000}
	for i := 0; i < n; i++ {
		next.Events = append(next.Events, submitted(1000, strconv.Itoa(i), `"subtime":1000,"res":1,"profile":"d"`))
	}
	return []*batsim.Message{first, next}
}

// osepBenchMessages: 1000 sequential jobs of users take every (owned)
// host, then n more wait.
func osepBenchMessages(n int) []*batsim.Message {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	first := &batsim.Message{Events: []batsim.Event{benchHostsBegins(false, true)}}
	for k := 0; k < 1000; k++ {
		first.Events = append(first.Events, submitted(0, fmt.Sprintf("r%d", k), fmt.Sprintf(`"subtime":0,"res":1,"profile":"d","user":"u%d"`, r.IntN(200))))
	}
	next := &batsim.Message{Now: 1000}
	for i := 0; i < n; i++ {
		next.Events = append(next.Events, submitted(1000, strconv.Itoa(i), fmt.Sprintf(`"subtime":1000,"res":1,"profile":"d","user":"u%d"`, r.IntN(200))))
	}
	return []*batsim.Message{first, next}
}

// botBenchMessages: n/10000 BoTs of 100 tasks of 100 steps at 50 % arrive
// at once, with 250 VMs each; their first steps run.
func botBenchMessages(b *testing.B, n int) []*batsim.Message {
	b.Helper()
	var bots []workloads.BotSpec
	for i := 0; i < n/10_000; i++ {
		bots = append(bots, workloads.BotSpec{Name: fmt.Sprintf("b%d", i), VMs: 250, Quads: []workloads.BotQuad{{A: 0, D: 100, B: 100, C: 50}}})
	}
	w, err := workloads.BotWorkload(bots, workloads.BotWorkloadOptions{Hosts: 1000})
	if err != nil {
		b.Fatal(err)
	}
	m := &batsim.Message{Events: []batsim.Event{benchHostsBegins(true, false)}}
	for _, j := range w.Jobs {
		full := "w0!" + j.ID
		raw, err := workloads.AppendForwardedJob(nil, j.Raw, full)
		if err != nil {
			b.Fatal(err)
		}
		m.Events = append(m.Events, batsim.Event{Type: batsim.TypeJobSubmitted, Data: &batsim.JobSubmitted{JobID: full, Job: raw}})
	}
	return []*batsim.Message{m}
}

// BenchmarkBUCMASubmission times BUCMA's work when a job arrives on a full
// platform: no start is possible, but the queue is re-ranked to record the
// job's position (BUCMA records it for a decision trace).
func BenchmarkBUCMASubmission(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		spec, _ := policies.Builtin().Get("bucma")
		sess, now := benchSession(b, spec, n, []sched.Observer{sched.NewTrace(io.Discard)}) // a trace has BUCMA record submissions
		bu := sess.Policy().(*bucma.BUCMA)
		w := sess.State().Waiting()
		last := w[len(w)-1]
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				bu.JobSubmitted(sess.State(), last)
				decideOnce(b, sess, now)
			}
		})
	}
}

// BenchmarkConservativeEnd times conservative's decision when a running
// job ends early: the decision that compresses the schedule, walking the
// whole queue (a decision at which no job ended, BenchmarkDecide's, only
// places the jobs that arrived). The worst case: every waiting job holds
// a reservation and every reservation moves. On 1000 hosts, 99 jobs of 10
// hosts run, each planned to end 1 to 25 hours after its start, and n
// jobs of 501 to 1000 hosts wait, each with a walltime of 1 minute to 24
// hours: no two of them fit side by side, so the reservations follow one
// another, the first from the date enough running jobs have ended. Each
// iteration is one message, a second after the last, in which the
// running job planned to end last ends (early) and a job like it
// arrives: the first reservation begins at the previous end of a running
// job, and every later one as much earlier. The metrics say so of the
// decision after the timed ones: "reserved" waiting jobs, "moved" the
// reservations it moved; "cpu-ns/op" is the process's CPU time per timed
// decision. backfill=batsched (conservative_bf's twin, which
// places every job again, on hosts) runs at 10k only; prio-wfp3 is the
// same rule compressing in the order of WFP3, which changes with the time
// (a sched.TimeOrder).
func BenchmarkConservativeEnd(b *testing.B) {
	for _, c := range []struct {
		name, policy string
		opts         sched.Options
		ns           []int
	}{
		{"count", "conservative", nil, []int{10_000, 100_000}},
		{"batsched", "conservative", sched.Options{"hosts": "first-fit", "backfill": "batsched", "no-walltime": "reject"}, []int{10_000}},
		{"prio-wfp3", "prio-wfp3", sched.Options{"backfill": "conservative"}, []int{10_000, 100_000}},
	} {
		spec, err := policies.Builtin().Lookup(c.policy)
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range c.ns {
			b.Run(fmt.Sprintf("%s/%d", c.name, n), func(b *testing.B) {
				sess, err := (&run.Policy{Spec: spec, Options: c.opts, Log: slog.New(slog.DiscardHandler)}).NewSession()
				if err != nil {
					b.Fatal(err)
				}
				msgs := chainBenchMessages(n)
				for _, m := range msgs {
					if _, err := sess.Handle(m); err != nil {
						b.Fatal(err)
					}
				}
				now := msgs[len(msgs)-1].Now
				k := 0
				endOne := func() {
					now++
					last := lastToEnd(sess.State())
					if last == nil {
						b.Fatal("no job runs")
					}
					k++
					wall := strconv.FormatFloat(last.Walltime(), 'f', -1, 64)
					m := &batsim.Message{Now: now, Events: []batsim.Event{
						{Timestamp: now, Type: batsim.TypeJobCompleted, Data: &batsim.JobCompleted{JobID: last.ID(), JobState: batsim.StateSuccess,
							Alloc: batsim.NewIntervalSet(last.Alloc()...).String()}},
						submitted(now, fmt.Sprintf("again%d", k), fmt.Sprintf(`"subtime":%g,"res":%d,"walltime":%s,"profile":"d"`, now, last.Res(), wall)),
					}}
					if _, err := sess.Handle(m); err != nil {
						b.Fatal(err)
					}
				}
				cpu0, cpuOK := processCPU()
				for b.Loop() {
					endOne()
				}
				// CPU time per decision: on a shared machine, steadier than
				// the wall time (ns/op), which counts the waits for a core.
				if cpu1, ok := processCPU(); ok && cpuOK {
					b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
				}
				before := reservations(b, sess)
				endOne()
				after := reservations(b, sess)
				moved := 0
				for j, at := range after {
					if old, ok := before[j]; ok && at < old {
						moved++
					}
				}
				b.ReportMetric(float64(len(before)), "reserved")
				b.ReportMetric(float64(moved), "moved")
			})
		}
	}
}

// BenchmarkConservativeArrivals times conservative's decision when n
// jobs arrive at once, each placed at its earliest fit after the others:
// BenchmarkDecide's queue (1000 hosts, 99 jobs of 10 hosts running, jobs
// of 11 to 64 hosts arriving) but every job with a walltime, so that each
// gets a reservation, in a profile where many holes are too short for it.
func BenchmarkConservativeArrivals(b *testing.B) {
	spec, err := policies.Builtin().Lookup("conservative")
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1000, 10_000} {
		msgs := queueBenchMessages(n)
		withWalltimes(msgs[1])
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			var sess *sched.Session
			for b.Loop() {
				b.StopTimer()
				sess, err = (&run.Policy{Spec: spec, Log: slog.New(slog.DiscardHandler)}).NewSession()
				if err != nil {
					b.Fatal(err)
				}
				if _, err := sess.Handle(msgs[0]); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := sess.Handle(msgs[1]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(reservations(b, sess))), "reserved")
		})
	}
}

// chainBenchMessages: 99 jobs of 10 hosts start on 1000 hosts, then n
// jobs of 501 to 1000 hosts wait (BenchmarkConservativeEnd).
func chainBenchMessages(n int) []*batsim.Message {
	r := rand.New(rand.NewPCG(uint64(n), 43))
	first := &batsim.Message{Events: []batsim.Event{benchHostsBegins(false, false)}}
	for k := 0; k < 99; k++ {
		first.Events = append(first.Events, submitted(0, fmt.Sprintf("r%d", k), fmt.Sprintf(`"subtime":0,"res":10,"walltime":%d,"profile":"d"`, 3600+r.IntN(86400))))
	}
	next := &batsim.Message{Now: 1000}
	for i := 0; i < n; i++ {
		next.Events = append(next.Events, submitted(1000, strconv.Itoa(i), fmt.Sprintf(`"subtime":1000,"res":%d,"walltime":%d,"profile":"d"`, 501+r.IntN(500), 60+r.IntN(86400))))
	}
	return []*batsim.Message{first, next}
}

// reservations are the planned starts of the waiting jobs that have one,
// under conservative (either backfill).
func reservations(b *testing.B, sess *sched.Session) map[*sched.Job]float64 {
	out := map[*sched.Job]float64{}
	for _, j := range sess.State().Waiting() {
		var at float64
		var ok bool
		switch p := sess.Policy().(type) {
		case *sched.Composite:
			at, ok = p.Rule.(*sched.Conservative).Reservation(j)
		case *conservative.BatschedConservative:
			at, ok = p.Planned(j)
		default:
			b.Fatalf("policy %T", p)
		}
		if ok {
			out[j] = at
		}
	}
	return out
}

// lastToEnd is the running job planned to end last (ties by id).
func lastToEnd(s *sched.State) *sched.Job {
	var last *sched.Job
	for _, j := range s.Running() {
		if last == nil || j.ExpectedEnd() > last.ExpectedEnd() || (j.ExpectedEnd() == last.ExpectedEnd() && j.ID() < last.ID()) {
			last = j
		}
	}
	return last
}
