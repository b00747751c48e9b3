package schedulers

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
)

// This file holds a tiny deterministic stand-in for Batsim (delay jobs, no
// latencies) that feeds a Session typed messages, and the hand-worked
// scenarios of each policy.

// tjob is a delay job of a test workload.
type tjob struct {
	name     string
	submit   float64
	res      int
	walltime float64 // 0: no walltime field; -1: written as -1
	run      float64 // real run time
	user     string  // "" leaves the user field out
	ret      int     // return code (non-zero: COMPLETED_FAILED)
}

// outcome is what happened to a job.
type outcome struct {
	start, end float64
	alloc      batsim.IntervalSet
	state      string
	started    bool
}

type pendingEnd struct {
	at  float64
	job string
}

// driver plays Batsim's role: it sends SIMULATION_BEGINS, then one message
// per instant with that instant's completions, submissions, the
// no_more_static_job_to_submit notification and requested calls, applies the
// replies at once (a started job ends at start + min(run, walltime); as in
// Batsim, a job whose run time reaches its walltime ends
// COMPLETED_WALLTIME_REACHED), and
// checks every decision independently of the framework.
type driver struct {
	t        testing.TB
	sess     *Session
	speeds   []float64
	jobs     []tjob
	byID     map[string]*tjob
	hostJob  []string // running job per host, "" when free
	out      map[string]*outcome
	ends     []pendingEnd
	calls    []float64
	next     int // next job to submit
	notified bool
	messages int
	// after is called after each handled message (with its time).
	after func(now float64)
	// replies, when not nil, collects every reply as encoded.
	replies *[]byte
}

type scenario struct {
	policy      string
	spec        *Spec // used instead of the registry's policy when set
	options     Options
	schedConfig string
	speeds      []float64
	jobs        []tjob
	observers   []Observer
	noAudit     bool // leave the session's state audit (Validate) off
}

func newDriver(t testing.TB, sc scenario) *driver {
	t.Helper()
	spec, ok := sc.spec, sc.spec != nil
	if !ok {
		spec, ok = Builtin().Get(sc.policy)
	}
	if !ok {
		t.Fatalf("policy %s is not registered", sc.policy)
	}
	sess, err := NewSession(SessionConfig{Spec: spec, Options: sc.options, Validate: !sc.noAudit, Observers: sc.observers})
	if err != nil {
		t.Fatal(err)
	}
	jobs := slices.Clone(sc.jobs)
	// Batsim submits in time order, equal times by full id (as a string).
	slices.SortStableFunc(jobs, func(a, b tjob) int {
		switch {
		case a.submit < b.submit:
			return -1
		case a.submit > b.submit:
			return 1
		case a.name < b.name:
			return -1
		case a.name > b.name:
			return 1
		}
		return 0
	})
	d := &driver{t: t, sess: sess, speeds: sc.speeds, jobs: jobs, byID: map[string]*tjob{},
		hostJob: make([]string, len(sc.speeds)), out: map[string]*outcome{}}
	for i := range d.jobs {
		id := "w0!" + d.jobs[i].name
		if _, dup := d.byID[id]; dup {
			t.Fatalf("job %s twice in the scenario", id)
		}
		d.byID[id] = &d.jobs[i]
	}
	return d
}

func (d *driver) beginMessage(schedConfig string) *batsim.Message {
	res := make([]batsim.Resource, len(d.speeds))
	for i, sp := range d.speeds {
		res[i] = batsim.Resource{ID: i, Name: "h" + strconv.Itoa(i), State: "idle",
			Properties: map[string]string{"speed": strconv.FormatFloat(sp, 'g', -1, 64)}, ZoneProperties: map[string]string{}}
	}
	return &batsim.Message{Now: 0, Events: []batsim.Event{{Timestamp: 0, Type: batsim.TypeSimulationBegins,
		Data: &batsim.SimulationBegins{NbResources: len(res), NbComputeResources: len(res),
			Config: batsim.Config{SchedConfig: schedConfig}, ComputeResources: res,
			Workloads: map[string]string{"w0": "w0.json"}}}}}
}

func jobJSON(j *tjob) json.RawMessage {
	m := map[string]any{"id": "w0!" + j.name, "subtime": j.submit, "res": j.res, "profile": "delay"}
	if j.walltime != 0 {
		m["walltime"] = j.walltime
	}
	if j.user != "" {
		m["user"] = j.user
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

// run plays the whole simulation and returns each job's outcome.
func (d *driver) run(schedConfig string) map[string]*outcome {
	d.t.Helper()
	d.handle(d.beginMessage(schedConfig))
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
		for d.next < len(d.jobs) && d.jobs[d.next].submit == now {
			j := &d.jobs[d.next]
			d.next++
			id := "w0!" + j.name
			d.out[id] = &outcome{state: batsim.StateSubmitted}
			msg.Events = append(msg.Events, batsim.Event{Timestamp: now, Type: batsim.TypeJobSubmitted,
				Data: &batsim.JobSubmitted{JobID: id, Job: jobJSON(j)}})
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
		if o.state == batsim.StateSubmitted || o.state == batsim.StateRunning {
			d.t.Fatalf("simulation stalled: job %s is %s and no event is left to come", id, o.state)
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

func (d *driver) lastTime() float64 {
	t := 0.0
	for _, o := range d.out {
		t = math.Max(t, o.end)
	}
	return t
}

// nextTime is the time of the next message: the earliest pending end,
// submission or requested call.
func (d *driver) nextTime() (float64, bool) {
	t, ok := math.Inf(1), false
	for _, e := range d.ends {
		t, ok = math.Min(t, e.at), true
	}
	if d.next < len(d.jobs) {
		t, ok = math.Min(t, d.jobs[d.next].submit), true
	}
	for _, c := range d.calls {
		t, ok = math.Min(t, c), true
	}
	return t, ok
}

func (d *driver) complete(id string, now float64) batsim.Event {
	o, j := d.out[id], d.byID[id]
	o.end = now
	switch {
	case j.walltime > 0 && j.run >= j.walltime: // Batsim: delay == walltime is killed too
		o.state = batsim.StateWalltimeReached
	case j.ret != 0:
		o.state = batsim.StateFailed
	default:
		o.state = batsim.StateSuccess
	}
	for _, h := range o.alloc {
		d.hostJob[h] = ""
	}
	ret := j.ret
	if o.state == batsim.StateWalltimeReached {
		ret = -1
	}
	return batsim.Event{Timestamp: now, Type: batsim.TypeJobCompleted,
		Data: &batsim.JobCompleted{JobID: id, JobState: o.state, ReturnCode: ret, Alloc: o.alloc.String()}}
}

func (d *driver) handle(msg *batsim.Message) {
	d.t.Helper()
	d.messages++
	reply, err := d.sess.Handle(msg)
	if err != nil {
		d.t.Fatalf("t=%v: %v", msg.Now, err)
	}
	if reply.Now() != msg.Now {
		d.t.Fatalf("t=%v: reply stamped %v", msg.Now, reply.Now())
	}
	if d.replies != nil {
		*d.replies = append(append(*d.replies, reply.Encode()...), '\n')
	}
	for _, ev := range reply.Events() {
		switch e := ev.Data.(type) {
		case *batsim.ExecuteJob:
			o, ok := d.out[e.JobID]
			if !ok || o.state != batsim.StateSubmitted {
				d.t.Fatalf("t=%v: EXECUTE_JOB %s: job is not waiting", msg.Now, e.JobID)
			}
			j := d.byID[e.JobID]
			if len(e.Alloc) != j.res {
				d.t.Fatalf("t=%v: EXECUTE_JOB %s: %d hosts for res=%d", msg.Now, e.JobID, len(e.Alloc), j.res)
			}
			for _, h := range e.Alloc {
				if h < 0 || h >= len(d.hostJob) || d.hostJob[h] != "" {
					d.t.Fatalf("t=%v: EXECUTE_JOB %s: host %d is not free", msg.Now, e.JobID, h)
				}
				d.hostJob[h] = e.JobID
			}
			o.state, o.start, o.alloc, o.started = batsim.StateRunning, msg.Now, e.Alloc, true
			dur := j.run
			if j.walltime > 0 {
				dur = math.Min(dur, j.walltime)
			}
			d.ends = append(d.ends, pendingEnd{at: msg.Now + dur, job: e.JobID})
		case *batsim.RejectJob:
			o, ok := d.out[e.JobID]
			if !ok || o.state != batsim.StateSubmitted {
				d.t.Fatalf("t=%v: REJECT_JOB %s: job is not waiting", msg.Now, e.JobID)
			}
			o.state, o.end = batsim.StateRejected, msg.Now
		case *batsim.CallMeLater:
			d.calls = append(d.calls, e.At)
		case *batsim.Notify:
			// registration_finished and the like change nothing here.
		default:
			d.t.Fatalf("t=%v: the test driver does not support %s", msg.Now, ev.Type)
		}
	}
	if d.after != nil {
		d.after(msg.Now)
	}
}

// runScenario plays sc and returns the outcomes by job name.
func runScenario(t testing.TB, sc scenario) map[string]*outcome {
	t.Helper()
	d := newDriver(t, sc)
	res := d.run(sc.schedConfig)
	out := map[string]*outcome{}
	for id, o := range res {
		out[id[len("w0!"):]] = o
	}
	return out
}

// want is an expected start time and allocation.
type want struct {
	start float64
	alloc string
}

func checkStarts(t *testing.T, got map[string]*outcome, exp map[string]want) {
	t.Helper()
	for name, w := range exp {
		o, ok := got[name]
		if !ok || !o.started {
			t.Errorf("job %s never started", name)
			continue
		}
		if o.start != w.start || o.alloc.String() != w.alloc {
			t.Errorf("job %s: started at %v on %q, want %v on %q", name, o.start, o.alloc.String(), w.start, w.alloc)
		}
	}
	if len(got) != len(exp) {
		t.Errorf("%d jobs, want %d", len(got), len(exp))
	}
}

// ---------------------------------------------------------------- EASY vs FCFS

// Four equal hosts. j1 (2 hosts, 100 s) runs from 0. j2 (4 hosts) must wait
// for j1: head of the queue, shadow time 100, no extra host.
//   - j3 (2 hosts, 50 s, submitted at 2) fits now on hosts 2-3 and ends at
//     52 <= 100: EASY backfills it; FCFS keeps it behind j2 (starts at 150
//     after j2's 100-150).
//   - j4 (2 hosts, walltime 60, submitted at 60) fits on hosts 2-3 (j3 is
//     gone) but would end at 120 > 100 and there is no extra host: EASY does
//     not backfill it; it starts with j2's end at 150 on the lowest free hosts
//     0-1. Under FCFS, at 150 j3 takes 0-1 and j4 takes 2-3.
var easyJobs = []tjob{
	{name: "j1", submit: 0, res: 2, walltime: 100, run: 100},
	{name: "j2", submit: 1, res: 4, walltime: 50, run: 50},
	{name: "j3", submit: 2, res: 2, walltime: 50, run: 50},
	{name: "j4", submit: 60, res: 2, walltime: 60, run: 60},
}

func TestEASYBackfillsWhereFCFSDoesNot(t *testing.T) {
	speeds := []float64{1, 1, 1, 1}
	got := runScenario(t, scenario{policy: "easy", speeds: speeds, jobs: easyJobs})
	checkStarts(t, got, map[string]want{
		"j1": {0, "0-1"}, "j2": {100, "0-3"}, "j3": {2, "2-3"}, "j4": {150, "0-1"},
	})
	got = runScenario(t, scenario{policy: "fcfs", speeds: speeds, jobs: easyJobs})
	checkStarts(t, got, map[string]want{
		"j1": {0, "0-1"}, "j2": {100, "0-3"}, "j3": {150, "0-1"}, "j4": {150, "2-3"},
	})
}

// ---------------------------------------------------------------- MIN-MIN vs MAX-MIN

// Two equal hosts. At 0: s1, s2 (1 host, 10 s) and big (2 hosts, 100 s);
// then one more 10 s job every 5 s from 5 to 40 (s3..s10).
//
// MIN-MIN (shortest first, greedy): at 0 s1 and s2 take both hosts. At every
// multiple of 10 both hosts free up together and the two oldest small jobs
// (always shorter than big) take them: s3,s4 at 10, s5,s6 at 20, s7,s8 at
// 30, s9,s10 at 40 (s10 arrives in that very message). big, starved all
// along, starts at 50 only when no small job is left.
//
// MAX-MIN (longest first, greedy): big goes first at 0 on both hosts; the
// small jobs then run two by two in submission order from 100.
func minmaxJobs() []tjob {
	jobs := []tjob{
		{name: "s1", submit: 0, res: 1, walltime: 10, run: 10},
		{name: "s2", submit: 0, res: 1, walltime: 10, run: 10},
		{name: "big", submit: 0, res: 2, walltime: 100, run: 100},
	}
	for k := 3; k <= 10; k++ {
		jobs = append(jobs, tjob{name: fmt.Sprintf("s%d", k), submit: float64(5 * (k - 2)), res: 1, walltime: 10, run: 10})
	}
	return jobs
}

func TestMinMinStarvesBigJobMaxMinDoesNot(t *testing.T) {
	speeds := []float64{1, 1}
	got := runScenario(t, scenario{policy: "minmin", speeds: speeds, jobs: minmaxJobs()})
	checkStarts(t, got, map[string]want{
		"s1": {0, "0"}, "s2": {0, "1"},
		"s3": {10, "0"}, "s4": {10, "1"}, "s5": {20, "0"}, "s6": {20, "1"},
		"s7": {30, "0"}, "s8": {30, "1"}, "s9": {40, "0"}, "s10": {40, "1"},
		"big": {50, "0-1"},
	})
	got = runScenario(t, scenario{policy: "maxmin", speeds: speeds, jobs: minmaxJobs()})
	checkStarts(t, got, map[string]want{
		"big": {0, "0-1"},
		"s1":  {100, "0"}, "s2": {100, "1"}, "s3": {110, "0"}, "s4": {110, "1"},
		"s5": {120, "0"}, "s6": {120, "1"}, "s7": {130, "0"}, "s8": {130, "1"},
		"s9": {140, "0"}, "s10": {140, "1"},
	})
}

// MIN-MIN gives the fastest free hosts; first-fit gives the lowest ids.
// Hosts 0..2 have speeds 1, 3, 2. At 0, a (1 host, W 10) and b (1 host, W
// 20): MIN-MIN takes a first.
//   - fastest: a gets host 1 (speed 3), b host 2 (speed 2).
//   - first-fit: a gets host 0, b host 1.
//
// MAX-MIN takes b first: fastest gives b host 1 and a host 2. A job without
// walltime (c, W unlimited) sorts last under MIN-MIN and first under
// MAX-MIN.
func TestMinMaxHostSelectionAndUnlimitedWalltime(t *testing.T) {
	speeds := []float64{1, 3, 2}
	jobs := []tjob{
		{name: "a", submit: 0, res: 1, walltime: 10, run: 10},
		{name: "b", submit: 0, res: 1, walltime: 20, run: 20},
	}
	checkStarts(t, runScenario(t, scenario{policy: "minmin", speeds: speeds, jobs: jobs}),
		map[string]want{"a": {0, "1"}, "b": {0, "2"}})
	checkStarts(t, runScenario(t, scenario{policy: "minmin", options: Options{"hosts": "first-fit"}, speeds: speeds, jobs: jobs}),
		map[string]want{"a": {0, "0"}, "b": {0, "1"}})
	checkStarts(t, runScenario(t, scenario{policy: "maxmin", speeds: speeds, jobs: jobs}),
		map[string]want{"b": {0, "1"}, "a": {0, "2"}})

	// One host: the order is the start order. c has no walltime (runs 5 s),
	// d has walltime -1 (unlimited too, runs 5 s).
	one := []float64{1}
	jobs = []tjob{
		{name: "c", submit: 0, res: 1, run: 5},
		{name: "a", submit: 0, res: 1, walltime: 10, run: 10},
		{name: "d", submit: 0, res: 1, walltime: -1, run: 5},
		{name: "b", submit: 0, res: 1, walltime: 20, run: 20},
	}
	// MIN-MIN: a (10) 0-10, b (20) 10-30, then the unlimited ones by id:
	// c 30-35, d 35-40.
	checkStarts(t, runScenario(t, scenario{policy: "minmin", speeds: one, jobs: jobs}),
		map[string]want{"a": {0, "0"}, "b": {10, "0"}, "c": {30, "0"}, "d": {35, "0"}})
	// MAX-MIN: c 0-5, d 5-10, b 10-30, a 30-40.
	checkStarts(t, runScenario(t, scenario{policy: "maxmin", speeds: one, jobs: jobs}),
		map[string]want{"c": {0, "0"}, "d": {5, "0"}, "b": {10, "0"}, "a": {30, "0"}})
}

// Jobs that can never run are rejected at submission, for every policy
// (those that preempt are checked through the engine in osep_test.go).
func TestImpossibleJobsRejected(t *testing.T) {
	reg := Builtin()
	for _, name := range reg.Names() {
		// The bag-of-tasks policies reject every job without BoT fields
		// (bot_test.go).
		if spec, _ := reg.Get(name); spec.DynamicJobs || spec.Energy {
			continue
		}
		got := runScenario(t, scenario{policy: name, speeds: []float64{1, 1}, jobs: []tjob{
			{name: "toobig", submit: 0, res: 3, walltime: 10, run: 10},
			{name: "ok", submit: 0, res: 2, walltime: 10, run: 5},
		}})
		if got["toobig"].state != batsim.StateRejected || got["ok"].state != batsim.StateSuccess {
			t.Errorf("%s: toobig %s, ok %s", name, got["toobig"].state, got["ok"].state)
		}
	}
}

// Every policy's options are accepted at their defaults, every spec has a
// description and help texts, and bad values are refused with the option
// named.
func TestRegistryEntries(t *testing.T) {
	reg := Builtin()
	for _, name := range []string{"fcfs", "easy", "minmin", "maxmin", "bucma", "bucma5302", "bucma4303", "wtrust"} {
		spec, ok := reg.Get(name)
		if !ok {
			t.Errorf("%s is not registered", name)
			continue
		}
		if spec.Description == "" {
			t.Errorf("%s: no description", name)
		}
		for _, o := range spec.Options {
			if o.Help == "" {
				t.Errorf("%s: option %s has no help", name, o.Name)
			}
		}
		if _, err := spec.Build(nil); err != nil {
			t.Errorf("%s with default options: %v", name, err)
		}
	}
	bad := []struct {
		policy string
		opts   Options
		inErr  string
	}{
		{"bucma", Options{"weights": "0.5,0.3,0.2"}, "4 numbers"},
		{"bucma", Options{"weights": "0.5,0.3,0.3,0.2"}, "sum"},
		{"bucma", Options{"weights": "1.5,-0.5,0,0"}, "outside [0, 1]"},
		{"bucma", Options{"weights": "a,0.3,0,0.2"}, "not a number"},
		{"bucma", Options{"base": "sjf"}, "valid values"},
		{"bucma", Options{"initial-score": "101"}, "initial-score"},
		{"bucma", Options{"initial-score": "49.5"}, "whole number"},
		{"bucma", Options{"pinned-scores": "alice"}, "user:score"},
		{"bucma", Options{"pinned-scores": "alice:150"}, "0..100"},
		{"bucma", Options{"pinned-scores": "alice:1,alice:2"}, "twice"},
		{"bucma5302", Options{"weights": "0.5,0.3,0,0.2"}, "unknown option"},
		{"wtrust", Options{"threshold": "1.2"}, "outside [0, 1]"},
		{"wtrust", Options{"threshold": "x"}, "not a number"},
		{"minmin", Options{"hosts": "slowest"}, "valid values"},
	}
	for _, c := range bad {
		spec, _ := reg.Get(c.policy)
		_, err := spec.Build(c.opts)
		if err == nil {
			t.Errorf("%s %v: accepted", c.policy, c.opts)
			continue
		}
		if _, ok := err.(*OptionError); !ok {
			t.Errorf("%s %v: %T is not an OptionError", c.policy, c.opts, err)
		}
		if !strings.Contains(err.Error(), c.inErr) {
			t.Errorf("%s %v: error %q does not mention %q", c.policy, c.opts, err, c.inErr)
		}
	}
}
