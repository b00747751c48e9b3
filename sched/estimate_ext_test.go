package sched_test

import (
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit"
)

// queryEvent is Batsim's QUERY estimate_waiting_time for job w0!name.
func queryEvent(t *testing.T, at float64, name string, res int, walltime float64) batsim.Event {
	t.Helper()
	req, err := json.Marshal(map[string]any{"job_id": "w0!" + name, "job": map[string]any{"id": name, "res": res, "walltime": walltime, "subtime": at, "profile": "p"}})
	if err != nil {
		t.Fatal(err)
	}
	return batsim.Event{Timestamp: at, Type: batsim.TypeQuery, Data: &batsim.BatsimQuery{Requests: map[string]json.RawMessage{"estimate_waiting_time": req}}}
}

// answers are the estimate_waiting_time answers of a reply, by job id.
func answers(t *testing.T, r *batsim.Reply) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, ev := range r.Events() {
		if a, ok := ev.Data.(*batsim.SchedulerAnswer); ok {
			out[a.JobID] = a.EstimatedWaitingTime
		}
	}
	return out
}

// TestEstimateIsTheStartForecast: jobs submitted together, each running
// for exactly its walltime; the waiting time a policy estimates for a
// potential job queried with them is when that job starts once submitted
// right after them, for the rules whose forecast is exact on host counts
// (fcfs, easy with backfill=count, minmin, maxmin).
func TestEstimateIsTheStartForecast(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, policy := range []string{"fcfs", "easy", "minmin", "maxmin"} {
		for seed := uint64(0); seed < 40; seed++ {
			r := rand.New(rand.NewPCG(seed, 0x657374))
			nh := 1 + r.IntN(8)
			speeds := make([]float64, nh)
			for i := range speeds {
				speeds[i] = 1e9
			}
			var jobs []testkit.Job
			for i := 0; i < 3+r.IntN(13); i++ {
				w := float64(1 + r.IntN(50))
				jobs = append(jobs, testkit.Job{Name: fmt.Sprintf("%03d", i), Res: 1 + r.IntN(nh), Walltime: w, Run: w})
			}
			q := testkit.Job{Name: "zzz", Res: 1 + r.IntN(nh), Walltime: float64(1 + r.IntN(50))}
			q.Run = q.Walltime

			sess, err := sched.NewSession(sched.SessionConfig{Spec: baseSpec(policy), Validate: true, Log: log})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := sess.Handle(testkit.BeginMessage(speeds, nil, "")); err != nil {
				t.Fatal(err)
			}
			msg := &batsim.Message{Now: 0}
			for _, j := range jobs {
				msg.Events = append(msg.Events, testkit.Submit(j.Name, j.Res, j.Walltime))
			}
			msg.Events = append(msg.Events, queryEvent(t, 0, q.Name, q.Res, q.Walltime))
			reply, err := sess.Handle(msg)
			if err != nil {
				t.Fatal(err)
			}
			est, ok := answers(t, reply)[q.ID()]
			if !ok {
				t.Fatalf("%s seed %d: no answer in %v", policy, seed, reply.Events())
			}
			// The query is answered after the decisions of its message: the
			// potential job is the one submitted right after (at 0.5, before
			// any job ends).
			q.Submit = 0.5
			run := testkit.Run(t, testkit.Scenario{Spec: baseSpec(policy), Speeds: speeds, Jobs: append(jobs, q)})
			got := run[q.Name]
			if got == nil || !got.Started {
				t.Fatalf("%s seed %d: the job never starts: %+v", policy, seed, got)
			}
			want := got.Start
			if want == q.Submit {
				want = 0
			}
			if est != want {
				t.Fatalf("%s seed %d: estimate %v, the job starts at %+v", policy, seed, est, got)
			}
		}
	}
}

// TestEstimateHandComputed: 4 hosts, jobs of 2 hosts running until 10 and
// until 20, a job of 3 hosts (walltime 5) waiting; a potential job of one
// host and walltime 1 starts at 20 behind it under fcfs, and at 10 under
// easy, where it ends before the waiting job's reservation (20); the
// rejecter's jobs never start. A job larger than the platform never starts
// (-1).
func TestEstimateHandComputed(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, c := range []struct {
		policy string
		want   string
	}{
		{"fcfs", "map[w0!big:-1 w0!q:20]"},
		{"easy", "map[w0!big:-1 w0!q:10]"},
	} {
		sess, err := sched.NewSession(sched.SessionConfig{Spec: baseSpec(c.policy), Validate: true, Log: log})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sess.Handle(testkit.BeginMessage([]float64{1e9, 1e9, 1e9, 1e9}, nil, "")); err != nil {
			t.Fatal(err)
		}
		reply, err := sess.Handle(&batsim.Message{Now: 0, Events: []batsim.Event{
			testkit.Submit("r1", 2, 10), testkit.Submit("r2", 2, 20), testkit.Submit("a", 3, 5),
			queryEvent(t, 0, "q", 1, 1), queryEvent(t, 0, "big", 5, 1)}})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(answers(t, reply)); got != c.want {
			t.Errorf("%s: estimates %v, want %v", c.policy, got, c.want)
		}
	}
}

// TestQueryAnsweredAfterDecisions: Batsim's QUERY, as it is written on the
// wire, is answered after the message's decisions; a policy that makes no
// estimate gets no answer sent.
func TestQueryAnsweredAfterDecisions(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	dec := batsim.NewDecoder(log)
	for _, c := range []struct {
		spec *sched.Spec
		want string
	}{
		{baseSpec("fcfs"), `EXECUTE_JOB ANSWER`},
		{&sched.Spec{Name: "no-estimate", New: func(sched.Options) (sched.Policy, error) {
			return noEstimate{&sched.Composite{Order: sched.FCFSOrder{}, Rule: sched.Blocking{}, Hosts: sched.FirstFit{}}}, nil
		}}, `EXECUTE_JOB`},
	} {
		sess, err := sched.NewSession(sched.SessionConfig{Spec: c.spec, Log: log})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sess.Handle(testkit.BeginMessage([]float64{1e9}, nil, "")); err != nil {
			t.Fatal(err)
		}
		raw := `{"now":5,"events":[` +
			`{"timestamp":5,"type":"JOB_SUBMITTED","data":{"job_id":"w0!1","job":{"id":"w0!1","subtime":5,"res":1,"walltime":30,"profile":"p"}}},` +
			`{"timestamp":5,"type":"QUERY","data":{"requests":{"estimate_waiting_time":{"job_id":"w0!potential","job":{"id":"potential","res":1,"walltime":12.0}}}}}]}`
		msg, err := dec.Decode([]byte(raw), batsim.FromBatsim)
		if err != nil {
			t.Fatal(err)
		}
		reply, err := sess.Handle(msg)
		if err != nil {
			t.Fatal(err)
		}
		var types []string
		for _, ev := range reply.Events() {
			types = append(types, ev.Type)
		}
		if got := strings.Join(types, " "); got != c.want {
			t.Fatalf("%s: reply %s, want %s", c.spec.Name, got, c.want)
		}
		if c.want == `EXECUTE_JOB ANSWER` && !strings.Contains(string(reply.Encode()), `"estimate_waiting_time":{"job_id":"w0!potential","estimated_waiting_time":30.0}`) {
			t.Fatalf("answer: %s", reply.Encode())
		}
	}
}

// noEstimate hides the Composite's estimate.
type noEstimate struct{ c *sched.Composite }

func (p noEstimate) Decide(s *sched.State, d *sched.Decider) { p.c.Decide(s, d) }

// handover kills the job on host 0 and starts the waiting job there, delay
// seconds later (0: at once).
type handover struct{ delay float64 }

func (p handover) Decide(s *sched.State, d *sched.Decider) {
	for _, r := range s.Running() {
		d.Kill(r)
	}
	if p.delay > 0 {
		if err := d.Reply().AdvanceTo(d.Reply().Now() + p.delay); err != nil {
			panic(err)
		}
	}
	for _, j := range s.WaitingCopy() {
		d.Start(j, []int{0})
	}
}

// A job may start on the host of a job being killed only when its start
// is dated after the kill (Batsim has freed the host then); it starts at
// that date.
func TestStartOnHostHandedOver(t *testing.T) {
	for _, c := range []struct {
		delay float64
		want  string
	}{
		{0, "host 0 is not free"},
		{5, "[K r X j 0]"},
	} {
		h, err := testkit.NewState(testkit.StateSpec{Now: 10, Hosts: testkit.Hosts(1),
			Running: []testkit.Running{{Job: testkit.Job{Name: "r", Res: 1, Walltime: 100}, Hosts: []int{0}}},
			Waiting: []testkit.Job{{Name: "j", Submit: 2, Res: 1, Walltime: 10}}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := h.Decide(handover{c.delay})
		if j := h.State().Running()["w0!j"]; err == nil && (j == nil || j.Start() != 15) {
			t.Errorf("delay %v: j is %v", c.delay, j)
		}
		if msg := fmt.Sprint(got, err); !strings.Contains(msg, c.want) {
			t.Errorf("delay %v: %s, want %s", c.delay, msg, c.want)
		}
	}
}
