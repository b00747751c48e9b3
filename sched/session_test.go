package sched

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/internal/corpus"
	"github.com/bucma-sched/bucma/internal/corpus/replies"
)

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestEASYMatchesBatschedOnHetero8 replays the Batsim side of the hetero8
// run decided by batsched easy_bf: easy with hosts=first-fit takes the same
// decision at every step, including the backfill of job 17 at 62.000020 on
// host 7. (batsched plans with walltime + 5 s; on this workload that makes no
// difference. On hetero4 it rejects every job without walltime, which easy
// runs by default; TestReplayBatsched replays both transcripts with the
// options under which easy decides as easy_bf.)
func TestEASYMatchesBatschedOnHetero8(t *testing.T) {
	spec := testSpec("easy")
	sess, err := NewSession(SessionConfig{Spec: spec, Options: Options{"hosts": "first-fit"}, Validate: true, Log: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	lines := corpus.ReadTranscript(t, "hetero8_compute", "transcript.batsched_easy_bf.jsonl")
	dec := batsim.NewDecoder(quietLog())
	backfilled := false
	for i := 0; i+1 < len(lines); i += 2 {
		msg, err := dec.Decode([]byte(lines[i].Raw), batsim.FromBatsim)
		if err != nil {
			t.Fatal(err)
		}
		reply, err := sess.Handle(msg)
		if err != nil {
			t.Fatalf("seq %d: %v", lines[i].Seq, err)
		}
		got, want := replies.Events(t, reply.Encode()), replies.Events(t, []byte(lines[i+1].Raw))
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("seq %d: got\n%v\nbatsched\n%v", lines[i+1].Seq, got, want)
		}
		for _, e := range got {
			if strings.Contains(e, `"job_id":"w0!17","alloc":"7"`) && msg.Now > 62 && msg.Now < 62.0001 {
				backfilled = true
			}
		}
	}
	if !sess.Ended() {
		t.Fatal("SIMULATION_ENDS not seen")
	}
	if !backfilled {
		t.Fatal("job 17 was not backfilled on host 7 at 62.000020")
	}
}

// allocTooBig starts every waiting job on two hosts, whatever its size (the
// act of conformance case protocol_violations/alloc_too_big).
type allocTooBig struct{}

func (allocTooBig) Decide(s *State, d *Decider) {
	for _, j := range s.WaitingCopy() {
		d.Start(j, []int{0, 1})
	}
}

// TestDeciderRefusesWrongAllocationSize: Batsim aborts on an allocation
// whose size differs from the job's res; the Decider refuses it and the
// session returns an error instead of a reply.
func TestDeciderRefusesWrongAllocationSize(t *testing.T) {
	spec := &Spec{Name: "alloc-too-big", Description: "test", New: func(Options) (Policy, error) { return allocTooBig{}, nil }}
	sess, err := NewSession(SessionConfig{Spec: spec, Log: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	lines := corpus.ReadTranscript(t, "pv_alloc_too_big", "transcript.jsonl")
	dec := batsim.NewDecoder(quietLog())
	var last error
	for i := 0; i < len(lines) && last == nil; i += 2 {
		msg, err := dec.Decode([]byte(lines[i].Raw), batsim.FromBatsim)
		if err != nil {
			t.Fatal(err)
		}
		var reply *batsim.Reply
		reply, last = sess.Handle(msg)
		if last == nil && reply == nil {
			t.Fatal("nil reply without error")
		}
	}
	if last == nil || !strings.Contains(last.Error(), "2 hosts given for res=1") {
		t.Fatalf("want the allocation size refused, got %v", last)
	}
}

// TestDeciderCallMeLater: a CALL_ME_LATER at or before now (the acts of
// cml_now and cml_past) is refused; one in the future is accepted.
func TestDeciderCallMeLater(t *testing.T) {
	s := newState([]Host{{id: 0, speed: 1}})
	s.now = 0.000015
	for _, at := range []float64{s.Now(), s.Now() - 1} {
		d := &Decider{s: s, reply: batsim.NewReply(s.Now())}
		if d.CallMeLater(at) || d.Err() == nil {
			t.Fatalf("CALL_ME_LATER at %v with now=%v accepted", at, s.Now())
		}
	}
	d := &Decider{s: s, reply: batsim.NewReply(s.Now())}
	if !d.CallMeLater(s.Now()+1) || d.Err() != nil || d.Reply().Len() != 1 {
		t.Fatalf("CALL_ME_LATER in the future refused: %v", d.Err())
	}
}

// TestSessionRefusesEventsBeforeBegin: any event before SIMULATION_BEGINS
// is an error (the conversation is out of order).
func TestSessionRefusesEventsBeforeBegin(t *testing.T) {
	spec := testSpec("fcfs")
	sess, err := NewSession(SessionConfig{Spec: spec, Log: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = sess.Handle(&batsim.Message{Now: 1, Events: []batsim.Event{{Timestamp: 1, Type: batsim.TypeJobSubmitted,
		Data: &batsim.JobSubmitted{JobID: "w0!1", Job: []byte(`{"id":"w0!1","res":1,"subtime":0,"profile":"p"}`)}}}})
	if err == nil || !strings.Contains(err.Error(), "before SIMULATION_BEGINS") {
		t.Fatalf("got %v", err)
	}
}

// A start naming the same host twice is refused and changes nothing.
func TestDeciderRefusesDuplicateHosts(t *testing.T) {
	s := newState([]Host{{id: 0, speed: 1}, {id: 1, speed: 1}, {id: 2, speed: 1}})
	j := &Job{id: "w0!1", res: 2, state: batsim.StateSubmitted}
	s.enqueue(j)
	s.jobs[j.id] = j
	d := &Decider{s: s, reply: batsim.NewReply(0)}
	if d.Start(j, []int{1, 1}) || d.Err() == nil || !strings.Contains(d.Err().Error(), "twice") {
		t.Fatalf("duplicate hosts accepted: %v", d.Err())
	}
	if s.NbFree() != 3 || j.State() != batsim.StateSubmitted || d.reply.Len() != 0 {
		t.Fatal("a refused start changed the state")
	}
}

// TestSessionOrderRules: the rules that need the conversation's history.
// Each case plays the same start (two hosts, job w0!1 submitted at t=1 and
// started by FCFS on host 0), then one more message: a legal one is
// answered, an illegal one is refused with an error naming the rule and
// the event, and no reply.
func TestSessionOrderRules(t *testing.T) {
	completed := func(at float64, id, alloc string) batsim.Event {
		return batsim.Event{Timestamp: at, Type: batsim.TypeJobCompleted,
			Data: &batsim.JobCompleted{JobID: id, JobState: batsim.StateSuccess, Alloc: alloc}}
	}
	killed := func(at float64, ids ...string) batsim.Event {
		return batsim.Event{Timestamp: at, Type: batsim.TypeJobKilled, Data: &batsim.JobKilled{JobIDs: ids}}
	}
	submitted := func(at float64, id string) batsim.Event {
		return batsim.Event{Timestamp: at, Type: batsim.TypeJobSubmitted,
			Data: &batsim.JobSubmitted{JobID: id, Job: []byte(`{"id":"` + id + `","res":1,"subtime":0,"profile":"p"}`)}}
	}
	cases := []struct {
		name string
		last []*batsim.Message
		err  string
	}{
		{"completed on its allocation", []*batsim.Message{{Now: 5, Events: []batsim.Event{completed(5, "w0!1", "0")}}}, ""},
		{"same now again", []*batsim.Message{{Now: 1}}, ""},
		{"killed after its completion", []*batsim.Message{{Now: 5, Events: []batsim.Event{completed(5, "w0!1", "0"), killed(5, "w0!1")}}}, ""},
		{"killed after its completion, never asked", []*batsim.Message{{Now: 5, Events: []batsim.Event{completed(5, "w0!1", "0"), killed(5, "w0!1")}}},
			"event 1 (JOB_KILLED) at t=5: JOB_KILLED: job w0!1 was never submitted, or ended without a kill request"},
		{"killed while running", []*batsim.Message{{Now: 5, Events: []batsim.Event{killed(5, "w0!1")}}}, ""},
		{"killed while waiting", []*batsim.Message{{Now: 2, Events: []batsim.Event{submitted(2, "w0!2"), submitted(2, "w0!3")}}, {Now: 3, Events: []batsim.Event{killed(3, "w0!3")}}}, ""},
		{"now goes back", []*batsim.Message{{Now: 0.5}}, "now=0.5 is earlier than the previous message's now=1"},
		{"now goes back later", []*batsim.Message{{Now: 7}, {Now: 6.999999}}, "now=6.999999 is earlier than the previous message's now=7"},
		{"completed elsewhere", []*batsim.Message{{Now: 5, Events: []batsim.Event{completed(5, "w0!1", "1")}}},
			`event 0 (JOB_COMPLETED) at t=5: JOB_COMPLETED w0!1: alloc "1" differs from the allocation the job was started on ("0")`},
		{"completed on more hosts", []*batsim.Message{{Now: 5, Events: []batsim.Event{completed(5, "w0!1", "0-1")}}}, `alloc "0-1" differs`},
		{"completed without alloc", []*batsim.Message{{Now: 5, Events: []batsim.Event{completed(5, "w0!1", "")}}}, `alloc "" differs`},
		{"completed with a bad alloc", []*batsim.Message{{Now: 5, Events: []batsim.Event{completed(5, "w0!1", "x")}}}, `JOB_COMPLETED w0!1: interval set "x"`},
		{"killed unknown job", []*batsim.Message{{Now: 5, Events: []batsim.Event{completed(5, "w0!1", "0"), killed(5, "w0!1", "w0!9")}}},
			"event 1 (JOB_KILLED) at t=5: JOB_KILLED: job w0!9 was never submitted"},
	}
	// The cases where w0!1 is marked as Decider.Kill marks it (a kill
	// requested): only those jobs may be named by a JOB_KILLED once ended.
	asked := map[string]bool{"killed after its completion": true, "killed unknown job": true}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := testSpec("fcfs")
			sess, err := NewSession(SessionConfig{Spec: spec, Validate: true, Log: quietLog()})
			if err != nil {
				t.Fatal(err)
			}
			start := []*batsim.Message{
				{Now: 0, Events: []batsim.Event{{Type: batsim.TypeSimulationBegins, Data: &batsim.SimulationBegins{
					NbResources: 2, NbComputeResources: 2, ComputeResources: []batsim.Resource{{ID: 0, Name: "a"}, {ID: 1, Name: "b"}}}}}},
				{Now: 1, Events: []batsim.Event{submitted(1, "w0!1")}},
			}
			for _, m := range start {
				if _, err := sess.Handle(m); err != nil {
					t.Fatal(err)
				}
			}
			j := sess.State().running["w0!1"]
			if j == nil || len(j.Alloc()) != 1 || j.Alloc()[0] != 0 {
				t.Fatalf("job w0!1 not started on host 0: %+v", j)
			}
			if asked[c.name] {
				j.x().killAt = 4
			}
			var reply *batsim.Reply
			for i, m := range c.last {
				if reply, err = sess.Handle(m); err != nil && i < len(c.last)-1 {
					t.Fatal(err)
				}
			}
			if c.err == "" {
				if err != nil || reply == nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("want an error containing %q, got %v", c.err, err)
			}
			if reply != nil {
				t.Fatal("a refused message was answered")
			}
		})
	}
}

// Users are read from "user", else "user_id" (number or string), else "".
func TestBUCMAUserFields(t *testing.T) {
	for raw, want := range map[string]string{
		`{"res":1,"user":"ana","user_id":7}`: "ana",
		`{"res":1,"user_id":7}`:              "7",
		`{"res":1,"user_id":"u7"}`:           "u7",
		`{"res":1}`:                          "",
	} {
		j, err := parseJob(&batsim.JobSubmitted{JobID: "w0!1", Job: []byte(raw)}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if j.User() != want {
			t.Errorf("%s: user %q, want %q", raw, j.User(), want)
		}
	}
}

// Batsim's sched-config names options as the command line does: a key that
// is no option of the policy is an error naming it (the first in
// alphabetical order, so that the message is the same from run to run) and
// the valid ones; the command line wins over a bad value it also gives; with
// IgnoreSchedConfig (batsched's command line) none of it is read.
func TestSchedConfigKeysChecked(t *testing.T) {
	spec := testSpec("easy")
	for _, c := range []struct {
		cfg     string
		cmdline Options
		want    string
	}{
		{`{"zz": 1, "backfil": "count", "hosts": "first-fit"}`, nil, `sched-config: scheduler easy: unknown option "backfil" (valid: `},
		{`{"hosts": "slowest"}`, nil, `sched-config: scheduler easy: option hosts="slowest"`},
		{`{"hosts": "slowest"}`, Options{"hosts": "first-fit"}, ""},
		{`{"scheduler": "fcfs", "hosts": "first-fit"}`, nil, ""},
		{``, nil, ""},
	} {
		_, _, err := spec.BuildWithSchedConfig(c.cfg, c.cmdline)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: error %v, want %q", c.cfg, err, c.want)
		}
		if _, ok := err.(*OptionError); err != nil && !ok {
			t.Errorf("%s: %T is not an OptionError (a usage error)", c.cfg, err)
		}
	}
	begins := func(ignore bool) error {
		sess, err := NewSession(SessionConfig{Spec: spec, Log: quietLog(), IgnoreSchedConfig: ignore})
		if err != nil {
			t.Fatal(err)
		}
		_, err = sess.Handle(&batsim.Message{Events: []batsim.Event{{Type: batsim.TypeSimulationBegins, Data: &batsim.SimulationBegins{
			NbResources: 1, NbComputeResources: 1, ComputeResources: []batsim.Resource{{ID: 0, Name: "h0"}},
			Config: batsim.Config{SchedConfig: `{"frobnicate": 1}`}}}}})
		return err
	}
	if err := begins(false); err == nil || !strings.Contains(err.Error(), `unknown option "frobnicate"`) {
		t.Errorf("SIMULATION_BEGINS with a key of no option: %v", err)
	}
	if err := begins(true); err != nil {
		t.Errorf("SIMULATION_BEGINS ignoring the sched-config: %v", err)
	}
}

// refuseAll refuses every job, saying why.
type refuseAll struct{}

func (refuseAll) Decide(*State, *Decider)  {}
func (refuseAll) Admits(*State, *Job) bool { return false }
func (refuseAll) Refusal(j *Job) string    { return "no job is welcome" }

// A policy that refuses many jobs (a workload it cannot use) makes a few
// warnings, one per job, then one saying the rest is counted, and one at
// SIMULATION_ENDS with the count; -v (debug) still logs each.
func TestRefusalsSummedUp(t *testing.T) {
	const jobs = 40
	for _, debug := range []bool{false, true} {
		var logs strings.Builder
		level := slog.LevelInfo
		if debug {
			level = slog.LevelDebug
		}
		spec := &Spec{Name: "refuse-all", New: func(Options) (Policy, error) { return refuseAll{}, nil }}
		sess, err := NewSession(SessionConfig{Spec: spec, Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: level}))})
		if err != nil {
			t.Fatal(err)
		}
		msgs := []*batsim.Message{{Events: []batsim.Event{{Type: batsim.TypeSimulationBegins, Data: &batsim.SimulationBegins{
			NbResources: 1, NbComputeResources: 1, ComputeResources: []batsim.Resource{{ID: 0, Name: "h0"}}}}}}}
		for i := range jobs {
			id := fmt.Sprintf("w0!%d", i)
			msgs = append(msgs, &batsim.Message{Now: float64(i), Events: []batsim.Event{{Timestamp: float64(i), Type: batsim.TypeJobSubmitted,
				Data: &batsim.JobSubmitted{JobID: id, Job: []byte(`{"id":"` + id + `","res":1,"subtime":0,"profile":"p"}`)}}}})
		}
		msgs = append(msgs, &batsim.Message{Now: jobs, Events: []batsim.Event{{Timestamp: jobs, Type: batsim.TypeSimulationEnds, Data: &batsim.SimulationEnds{}}}})
		for _, m := range msgs {
			if _, err := sess.Handle(m); err != nil {
				t.Fatal(err)
			}
		}
		out := logs.String()
		warnings, each := strings.Count(out, "level=WARN"), strings.Count(out, "the scheduler refuses a job")
		wantEach := refusalsLogged
		if debug {
			wantEach = jobs
		}
		if warnings != refusalsLogged+2 || each != wantEach || !strings.Contains(out, "refused=40 logged=5") {
			t.Errorf("debug %v: %d warnings, %d refusals logged one by one (want %d and %d):\n%s", debug, warnings, each, refusalsLogged+2, wantEach, out)
		}
	}
}

// CheckJobFields refuses a workload none of whose jobs has any field the
// policy reads, and stops at the first job that has one.
func TestCheckJobFields(t *testing.T) {
	spec := &Spec{Name: "bags", JobFields: []string{"bot", "vms"}}
	seq := func(descs ...string) func(func([]byte) bool) {
		return func(yield func([]byte) bool) {
			for _, d := range descs {
				if !yield([]byte(d)) {
					return
				}
			}
		}
	}
	for _, c := range []struct {
		descs []string
		want  string
	}{
		{[]string{`{"id":1,"res":1}`, `{"id":2,"user":"a"}`}, "scheduler bags reads the job fields bot, vms, and none of the 2 jobs has any of them: it would reject every job (see 'bucma list bags')"},
		{[]string{`{"id":1}`, `{"id":2,"vms":3}`}, ""},
		{[]string{`{"id":1,"bot":"background"}`, `not json`}, ""},
		{[]string{`not json`}, "none of the 1 jobs"},
		{nil, ""},
	} {
		err := spec.CheckJobFields(seq(c.descs...))
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%q: %v, want %q", c.descs, err, c.want)
		}
	}
	if err := (&Spec{Name: "any"}).CheckJobFields(seq(`{}`)); err != nil {
		t.Errorf("a policy that reads no field of its own: %v", err)
	}
}
