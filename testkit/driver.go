// Package testkit runs a policy in tests: a small deterministic stand-in for
// Batsim that plays a list of delay jobs on hosts of given speeds and feeds
// the policy's Session typed messages (Run, NewDriver), the embedded engine
// on a platform and a workload (Simulate), and the real Batsim when it is
// installed (Batsim). A policy's own unit tests build a State by hand with
// NewState.
//
// Every decision is checked twice: by the framework (the Session audits its
// whole state after each message unless told not to) and by the stand-in
// itself, independently (a job started on a busy host, twice, or with the
// wrong number of hosts fails the test).
package testkit

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sched"
)

// Job is a delay job of a test workload (workload "w0": its id is
// "w0!"+Name).
type Job struct {
	Name   string
	Submit float64
	Res    int
	// Walltime is the job's walltime: 0 leaves the field out, -1 writes
	// -1 (both: no walltime).
	Walltime float64
	// Run is the job's real run time; a job whose run time reaches its
	// walltime ends COMPLETED_WALLTIME_REACHED at the walltime, as in
	// Batsim.
	Run float64
	// User is the job's "user" field ("" leaves it out).
	User string
	// Ret is the job's return code: non-zero ends it COMPLETED_FAILED.
	Ret int
}

// ID is the job's full id.
func (j Job) ID() string { return "w0!" + j.Name }

// Outcome is what happened to a job.
type Outcome struct {
	Start, End float64
	Alloc      batsim.IntervalSet
	// State is the job's last state: batsim.StateSubmitted, StateRunning,
	// a COMPLETED_* state or StateRejected.
	State   string
	Started bool
}

// Scenario is a simulation to play.
type Scenario struct {
	// Spec is the policy; when nil, Policy is looked up in Registry.
	Spec     *sched.Spec
	Policy   string
	Registry *sched.Registry
	// Options are the policy's options (the command line's); SchedConfig
	// is Batsim's --sched-cfg string.
	Options     sched.Options
	SchedConfig string
	// Speeds has one entry per host: its "speed" property.
	Speeds []float64
	// HostProperties, when set, adds properties to host i (owner, slots,
	// ...).
	HostProperties []map[string]string
	Jobs           []Job
	Observers      []sched.Observer
	// NoAudit leaves the Session's whole-state audit after every message
	// off (it is on by default: it is what --validate does).
	NoAudit bool
}

type pendingEnd struct {
	at  float64
	job string
}

// Driver plays Batsim's role in a Scenario: it sends SIMULATION_BEGINS,
// then one message per instant with that instant's completions, the
// submissions, the no_more_static_job_to_submit notification and the
// requested calls, and applies the replies at once (a started job ends at
// start + min(run, walltime)).
type Driver struct {
	t        testing.TB
	sess     *sched.Session
	sc       Scenario
	jobs     []Job
	byID     map[string]*Job
	hostJob  []string // running job per host, "" when free
	out      map[string]*Outcome
	ends     []pendingEnd
	calls    []float64
	next     int // next job to submit
	notified bool
	messages int
	// After, when set, is called after each message the policy answered
	// (with the message's time).
	After func(now float64)
	// Replies, when set, collects every reply as encoded, one per line.
	Replies *[]byte
}

// SpecOf returns the Scenario's policy spec.
func SpecOf(sc Scenario) (*sched.Spec, error) {
	if sc.Spec != nil {
		return sc.Spec, nil
	}
	if sc.Registry == nil {
		return nil, fmt.Errorf("scenario: no Spec, and no Registry to find policy %q in", sc.Policy)
	}
	return sc.Registry.Lookup(sc.Policy)
}

// NewDriver prepares sc; the test fails at once when the policy is unknown
// or its options are refused.
func NewDriver(t testing.TB, sc Scenario) *Driver {
	t.Helper()
	spec, err := SpecOf(sc)
	if err != nil {
		t.Fatal(err)
	}
	pol := run.Policy{Spec: spec, Options: sc.Options, Validate: !sc.NoAudit, Observers: sc.Observers}
	sess, err := pol.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	jobs := slices.Clone(sc.Jobs)
	// Batsim submits in time order, equal times by full id (as a string).
	slices.SortStableFunc(jobs, func(a, b Job) int {
		switch {
		case a.Submit < b.Submit:
			return -1
		case a.Submit > b.Submit:
			return 1
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	d := &Driver{t: t, sess: sess, sc: sc, jobs: jobs, byID: map[string]*Job{},
		hostJob: make([]string, len(sc.Speeds)), out: map[string]*Outcome{}}
	for i := range d.jobs {
		id := d.jobs[i].ID()
		if _, dup := d.byID[id]; dup {
			t.Fatalf("job %s twice in the scenario", id)
		}
		d.byID[id] = &d.jobs[i]
	}
	return d
}

// Session is the Session the driver feeds.
func (d *Driver) Session() *sched.Session { return d.sess }

// Messages is the number of messages handled so far.
func (d *Driver) Messages() int { return d.messages }

// BeginMessage is the SIMULATION_BEGINS message of hosts of the given
// speeds (and properties), with Batsim's sched-config string.
func BeginMessage(speeds []float64, props []map[string]string, schedConfig string) *batsim.Message {
	res := make([]batsim.Resource, len(speeds))
	for i, sp := range speeds {
		p := map[string]string{"speed": strconv.FormatFloat(sp, 'g', -1, 64)}
		if i < len(props) {
			for k, v := range props[i] {
				p[k] = v
			}
		}
		res[i] = batsim.Resource{ID: i, Name: "h" + strconv.Itoa(i), State: "idle", Properties: p, ZoneProperties: map[string]string{}}
	}
	return &batsim.Message{Now: 0, Events: []batsim.Event{{Timestamp: 0, Type: batsim.TypeSimulationBegins,
		Data: &batsim.SimulationBegins{NbResources: len(res), NbComputeResources: len(res),
			Config: batsim.Config{SchedConfig: schedConfig}, ComputeResources: res,
			Workloads: map[string]string{"w0": "w0.json"}}}}}
}

// JobJSON is the JSON object Batsim sends for j.
func JobJSON(j Job) json.RawMessage {
	m := map[string]any{"id": j.ID(), "subtime": j.Submit, "res": j.Res, "profile": "delay"}
	if j.Walltime != 0 {
		m["walltime"] = j.Walltime
	}
	if j.User != "" {
		m["user"] = j.User
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

// SubmitEvent is the JOB_SUBMITTED event of j at t.
func SubmitEvent(j Job, t float64) batsim.Event {
	return batsim.Event{Timestamp: t, Type: batsim.TypeJobSubmitted, Data: &batsim.JobSubmitted{JobID: j.ID(), Job: JobJSON(j)}}
}

// Run plays the whole simulation and returns each job's outcome by full
// id. The test fails when the policy errs, a decision is invalid, or the
// simulation stalls (jobs left waiting with nothing more to come).
func (d *Driver) Run() map[string]*Outcome {
	d.t.Helper()
	d.handle(BeginMessage(d.sc.Speeds, d.sc.HostProperties, d.sc.SchedConfig))
	for {
		now, ok := d.nextTime()
		if !ok {
			break
		}
		msg := &batsim.Message{Now: now}
		// Completions first (in end time then job order), then submissions,
		// then the end-of-static-jobs notification, then requested calls.
		slices.SortFunc(d.ends, func(a, b pendingEnd) int {
			if a.at != b.at {
				if a.at < b.at {
					return -1
				}
				return 1
			}
			if a.job < b.job {
				return -1
			}
			if a.job > b.job {
				return 1
			}
			return 0
		})
		for len(d.ends) > 0 && d.ends[0].at == now {
			id := d.ends[0].job
			d.ends = d.ends[1:]
			msg.Events = append(msg.Events, d.complete(id, now))
		}
		for d.next < len(d.jobs) && d.jobs[d.next].Submit == now {
			j := d.jobs[d.next]
			d.next++
			d.out[j.ID()] = &Outcome{State: batsim.StateSubmitted}
			msg.Events = append(msg.Events, SubmitEvent(j, now))
		}
		if d.next == len(d.jobs) && !d.notified {
			d.notified = true
			msg.Events = append(msg.Events, batsim.Event{Timestamp: now, Type: batsim.TypeNotify,
				Data: &batsim.Notify{Kind: batsim.NotifyNoMoreStaticJobToSubmit}})
		}
		calls := d.calls[:0]
		for _, c := range d.calls {
			if c == now {
				msg.Events = append(msg.Events, batsim.Event{Timestamp: now, Type: batsim.TypeRequestedCall, Data: &batsim.RequestedCall{}})
			} else {
				calls = append(calls, c)
			}
		}
		d.calls = calls
		d.handle(msg)
	}
	for id, o := range d.out {
		if o.State == batsim.StateSubmitted || o.State == batsim.StateRunning {
			d.t.Fatalf("simulation stalled: job %s is %s and no event is left to come", id, o.State)
		}
	}
	if d.next != len(d.jobs) {
		d.t.Fatalf("simulation stalled with %d jobs never submitted", len(d.jobs)-d.next)
	}
	end := d.lastTime()
	d.handle(&batsim.Message{Now: end, Events: []batsim.Event{{Timestamp: end, Type: batsim.TypeSimulationEnds, Data: &batsim.SimulationEnds{}}}})
	if !d.sess.Ended() {
		d.t.Fatal("session did not see SIMULATION_ENDS")
	}
	return d.out
}

func (d *Driver) lastTime() float64 {
	t := 0.0
	for _, o := range d.out {
		t = math.Max(t, o.End)
	}
	return t
}

// nextTime is the time of the next message: the earliest pending end,
// submission or requested call.
func (d *Driver) nextTime() (float64, bool) {
	t, ok := math.Inf(1), false
	for _, e := range d.ends {
		t, ok = math.Min(t, e.at), true
	}
	if d.next < len(d.jobs) {
		t, ok = math.Min(t, d.jobs[d.next].Submit), true
	}
	for _, c := range d.calls {
		t, ok = math.Min(t, c), true
	}
	return t, ok
}

func (d *Driver) complete(id string, now float64) batsim.Event {
	o, j := d.out[id], d.byID[id]
	o.End = now
	switch {
	case j.Walltime > 0 && j.Run >= j.Walltime: // Batsim: delay == walltime is killed too
		o.State = batsim.StateWalltimeReached
	case j.Ret != 0:
		o.State = batsim.StateFailed
	default:
		o.State = batsim.StateSuccess
	}
	for _, h := range o.Alloc {
		d.hostJob[h] = ""
	}
	ret := j.Ret
	if o.State == batsim.StateWalltimeReached {
		ret = -1
	}
	return batsim.Event{Timestamp: now, Type: batsim.TypeJobCompleted,
		Data: &batsim.JobCompleted{JobID: id, JobState: o.State, ReturnCode: ret, Alloc: o.Alloc.String()}}
}

func (d *Driver) handle(msg *batsim.Message) {
	d.t.Helper()
	d.messages++
	reply, err := d.sess.Handle(msg)
	if err != nil {
		d.t.Fatalf("t=%v: %v", msg.Now, err)
	}
	if reply.Now() != msg.Now {
		d.t.Fatalf("t=%v: reply stamped %v", msg.Now, reply.Now())
	}
	if d.Replies != nil {
		*d.Replies = append(append(*d.Replies, reply.Encode()...), '\n')
	}
	for _, ev := range reply.Events() {
		switch e := ev.Data.(type) {
		case *batsim.ExecuteJob:
			o, ok := d.out[e.JobID]
			if !ok || o.State != batsim.StateSubmitted {
				d.t.Fatalf("t=%v: EXECUTE_JOB %s: job is not waiting", msg.Now, e.JobID)
			}
			j := d.byID[e.JobID]
			if len(e.Alloc) != j.Res {
				d.t.Fatalf("t=%v: EXECUTE_JOB %s: %d hosts for res=%d", msg.Now, e.JobID, len(e.Alloc), j.Res)
			}
			for _, h := range e.Alloc {
				if h < 0 || h >= len(d.hostJob) || d.hostJob[h] != "" {
					d.t.Fatalf("t=%v: EXECUTE_JOB %s: host %d is not free", msg.Now, e.JobID, h)
				}
				d.hostJob[h] = e.JobID
			}
			o.State, o.Start, o.Alloc, o.Started = batsim.StateRunning, msg.Now, e.Alloc, true
			dur := j.Run
			if j.Walltime > 0 {
				dur = math.Min(dur, j.Walltime)
			}
			d.ends = append(d.ends, pendingEnd{at: msg.Now + dur, job: e.JobID})
		case *batsim.RejectJob:
			o, ok := d.out[e.JobID]
			if !ok || o.State != batsim.StateSubmitted {
				d.t.Fatalf("t=%v: REJECT_JOB %s: job is not waiting", msg.Now, e.JobID)
			}
			o.State, o.End = batsim.StateRejected, msg.Now
		case *batsim.CallMeLater:
			d.calls = append(d.calls, e.At)
		case *batsim.Notify:
			// registration_finished and the like change nothing here.
		default:
			d.t.Fatalf("t=%v: the test driver does not support %s (use Simulate: the embedded engine runs every event)", msg.Now, ev.Type)
		}
	}
	if d.After != nil {
		d.After(msg.Now)
	}
}

// Run plays sc and returns the outcomes by job name.
func Run(t testing.TB, sc Scenario) map[string]*Outcome {
	t.Helper()
	res := NewDriver(t, sc).Run()
	out := make(map[string]*Outcome, len(res))
	for id, o := range res {
		out[id[len("w0!"):]] = o
	}
	return out
}

// Start is an expected start time and allocation ("0-1 3").
type Start struct {
	At    float64
	Alloc string
}

// CheckStarts fails the test for every job of want that did not start at
// the time and on the hosts given, and when got holds another number of
// jobs than want.
func CheckStarts(t testing.TB, got map[string]*Outcome, want map[string]Start) {
	t.Helper()
	for name, w := range want {
		o, ok := got[name]
		if !ok || !o.Started {
			t.Errorf("job %s never started", name)
			continue
		}
		if o.Start != w.At || o.Alloc.String() != w.Alloc {
			t.Errorf("job %s: started at %v on %q, want %v on %q", name, o.Start, o.Alloc.String(), w.At, w.Alloc)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d jobs, want %d", len(got), len(want))
	}
}

// String gives an outcome as "state start end alloc", for messages.
func (o *Outcome) String() string {
	return fmt.Sprintf("%s start=%v end=%v alloc=%q", o.State, o.Start, o.End, o.Alloc.String())
}
