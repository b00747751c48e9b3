// Package checkfixture holds the broken decision processes bucma check is
// tested on: one Batsim 4 scheduler (first come, first served on the lowest
// free hosts, rejecting the jobs too big for the platform, closing dynamic
// registration at once) that breaks one rule of Batsim's, named, at the
// first occasion. A test binary serves one as a process (Serve) for bucma
// check to find the rule.
package checkfixture

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sort"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/batsim/zmq"
)

// Fixture is one broken process: the rule bucma check must find, the
// scenario it breaks it on, and what the process does.
type Fixture struct {
	Rule     string // the rule found ("" for none)
	Scenario string // bucma check's scenario
	What     string
}

// Env names the fixture a test binary serves (ServeIfAsked).
const Env = "BUCMA_CHECK_FIXTURE"

// ServeIfAsked makes a test binary the fixture Env names, serving on its
// last argument, and exits; it returns when Env is not set.
func ServeIfAsked() {
	if name := os.Getenv(Env); name != "" {
		os.Exit(Serve(name, os.Args[len(os.Args)-1]))
	}
}

// Argv is the command line that starts fixture name from the test binary
// self, with placeholder where the endpoint goes.
func Argv(self, name, placeholder string) []string {
	return []string{"env", Env + "=" + name, self, placeholder}
}

// Fixtures are the broken processes, by name (the name is what Serve
// takes).
var Fixtures = map[string]Fixture{
	"fcfs":                        {"", "simultaneous", "the process breaking nothing"},
	"malformed-reply":             {"malformed-reply", "simultaneous", "answers a message with a reply without events"},
	"unknown-event":               {"unknown-event", "simultaneous", "sends an event of type FROBNICATE"},
	"bad-interval-set":            {"bad-interval-set", "simultaneous", `starts a job on "0,1"`},
	"timestamp-after-now":         {"timestamp-after-now", "simultaneous", "dates a start a second after its reply's now"},
	"call-in-past":                {"call-in-past", "simultaneous", "asks for a call at its own date"},
	"unknown-job":                 {"unknown-job", "simultaneous", "starts job w0!999, never submitted"},
	"job-not-waiting":             {"job-not-waiting", "simultaneous", "starts a running job again"},
	"alloc-size":                  {"alloc-size", "simultaneous", "starts a job on one host more than it asks"},
	"unknown-host":                {"unknown-host", "simultaneous", "starts a job on host 99"},
	"host-busy":                   {"host-busy", "simultaneous", "starts a job on a host it has just given another"},
	"kill-not-running":            {"kill-not-running", "simultaneous", "kills a waiting job"},
	"timestamp-order":             {"timestamp-order", "simultaneous", "dates a start a second earlier than the one before it"},
	"decision-after-end":          {"decision-after-end", "simultaneous", "answers SIMULATION_ENDS with a CALL_ME_LATER"},
	"no-reply":                    {"no-reply", "simultaneous", "exits without answering its third message"},
	"job-never-run":               {"job-never-run", "too-big", "never rejects a job too big for the platform"},
	"registration-never-finished": {"registration-never-finished", "dynamic", "never sends NOTIFY registration_finished"},
	"never-ends":                  {"never-ends", "simultaneous", "asks for a call 10 s later in every reply, for ever"},
	"dynamic-jobs-disabled":       {"dynamic-jobs-disabled", "simultaneous", "registers a profile while Batsim runs without dynamic jobs"},
	"registration-closed":         {"registration-closed", "dynamic", "registers a profile after registration_finished"},
	"job-exists":                  {"job-exists", "dynamic", "registers job w0!1, a job of the workload"},
	"profile-exists":              {"profile-exists", "dynamic", "registers profile dyn!p twice"},
	"batsim-aborts":               {"batsim-aborts", "simultaneous", "asks for the consumed energy (QUERY) while Batsim runs without --energy"},
	"kill-twice":                  {"", "simultaneous", "kills a running job twice (Batsim leaves the second kill out: no finding)"},
	"host-unavailable":            {"host-unavailable", "unavailable", "reads no NOTIFY event_machine_unavailable: starts jobs on hosts made unavailable (the real Batsim only)"},
}

// Names are the fixtures' names, sorted.
func Names() []string {
	out := make([]string, 0, len(Fixtures))
	for n := range Fixtures {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

type job struct {
	id  string
	res int
}

// event is a reply's event as written (any type, any data).
type event struct {
	Timestamp float64 `json:"timestamp"`
	Type      string  `json:"type"`
	Data      any     `json:"data"`
}

// process is the scheduler of a fixture.
type process struct {
	brk      string
	broke    bool
	messages int
	hosts    []bool // free
	queue    []job
	running  map[string][]int
	dynamic  bool
	started  []string
}

// Serve serves fixture name on endpoint until SIMULATION_ENDS; it returns
// the process's exit status.
func Serve(name, endpoint string) int {
	if _, ok := Fixtures[name]; !ok {
		fmt.Fprintf(os.Stderr, "checkfixture: no fixture %q\n", name)
		return 2
	}
	l, err := zmq.Listen(zmq.ServeConfig{Endpoint: endpoint, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Fprintln(os.Stderr, "checkfixture:", err)
		return 1
	}
	p := &process{brk: name, running: map[string][]int{}}
	dec := batsim.NewDecoder(slog.New(slog.DiscardHandler))
	err = l.ServeRaw(context.Background(), func(raw []byte) ([]byte, bool, error) {
		m, err := dec.Decode(raw, batsim.FromBatsim)
		if err != nil {
			return nil, false, err
		}
		out, done := p.answer(m)
		return out, done, nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "checkfixture:", err)
		return 1
	}
	return 0
}

// once reports whether the break b is due: the fixture's, not done yet
// (when cond holds).
func (p *process) once(b string, cond bool) bool {
	if p.brk != b || p.broke || !cond {
		return false
	}
	p.broke = true
	return true
}

func encode(now float64, evs []event) []byte {
	if evs == nil {
		evs = []event{}
	}
	b, err := json.Marshal(struct {
		Now    float64 `json:"now"`
		Events []event `json:"events"`
	}{now, evs})
	if err != nil {
		panic(err)
	}
	return b
}

func alloc(hosts []int) string { return batsim.NewIntervalSet(hosts...).String() }

func (p *process) answer(m *batsim.Message) ([]byte, bool) {
	p.messages++
	now := m.Now
	var evs []event
	add := func(typ string, data any) { evs = append(evs, event{now, typ, data}) }
	for _, e := range m.Events {
		switch d := e.Data.(type) {
		case *batsim.SimulationBegins:
			p.hosts = make([]bool, d.NbComputeResources)
			for i := range p.hosts {
				p.hosts[i] = true
			}
			p.dynamic = d.Config.DynamicJobsEnabled
			if p.dynamic && p.brk != "registration-never-finished" && p.brk != "job-exists" && p.brk != "profile-exists" {
				add(batsim.TypeNotify, map[string]string{"type": batsim.NotifyRegistrationFinished})
			}
		case *batsim.JobSubmitted:
			var j struct {
				Res int `json:"res"`
			}
			_ = json.Unmarshal(d.Job, &j)
			p.queue = append(p.queue, job{d.JobID, j.Res})
		case *batsim.JobCompleted:
			for _, h := range p.running[d.JobID] {
				p.hosts[h] = true
			}
			delete(p.running, d.JobID)
		case *batsim.SimulationEnds:
			if p.brk == "decision-after-end" {
				add(batsim.TypeCallMeLater, map[string]float64{"timestamp": now + 10})
			}
			return encode(now, evs), true
		}
	}
	if p.brk == "no-reply" && p.messages == 3 {
		os.Exit(3)
	}
	if p.once("malformed-reply", p.messages == 2) {
		return []byte(fmt.Sprintf(`{"now":%v}`, now)), false
	}
	p.breakBefore(now, add)
	p.schedule(now, add, &evs)
	p.breakAfter(now, add, &evs)
	return encode(now, evs), false
}

// schedule starts the jobs of the queue in order on the lowest free hosts
// until one does not fit, rejecting those too big for the platform.
func (p *process) schedule(now float64, add func(string, any), evs *[]event) {
	var left []job
	blocked := false
	for _, j := range p.queue {
		if j.res > len(p.hosts) || j.res <= 0 {
			if p.brk != "job-never-run" {
				add(batsim.TypeRejectJob, map[string]string{"job_id": j.id})
				continue
			}
		}
		var free []int
		for h, ok := range p.hosts {
			if ok && len(free) < j.res {
				free = append(free, h)
			}
		}
		if blocked || len(free) < j.res {
			blocked = true
			left = append(left, j)
			continue
		}
		for _, h := range free {
			p.hosts[h] = false
		}
		p.running[j.id] = free
		p.started = append(p.started, j.id)
		a := alloc(free)
		switch {
		case p.once("bad-interval-set", true):
			a = fmt.Sprint(free[0], ",", free[0]+1)
		case p.once("unknown-host", true):
			a = "99"
		case p.once("alloc-size", len(p.free()) > 0):
			a = alloc(append(free, p.free()[0]))
		case p.once("host-busy", len(p.running) > 1):
			// The first host of the first job started, instead of its own.
			a = alloc(append([]int{p.running[p.started[0]][0]}, free[1:]...))
		}
		*evs = append(*evs, event{now, batsim.TypeExecuteJob, map[string]string{"job_id": j.id, "alloc": a}})
		if p.once("timestamp-after-now", true) {
			(*evs)[len(*evs)-1].Timestamp = now + 1
		}
		if n := len(*evs); n > 1 && now > 1 && p.once("timestamp-order", (*evs)[n-2].Type == batsim.TypeExecuteJob) {
			(*evs)[n-1].Timestamp = now - 1
		}
	}
	p.queue = left
}

// runningJob is the first job started that still runs ("" when none).
func (p *process) runningJob() string {
	for _, id := range p.started {
		if _, ok := p.running[id]; ok {
			return id
		}
	}
	return ""
}

// free lists the free hosts.
func (p *process) free() []int {
	var out []int
	for h, ok := range p.hosts {
		if ok {
			out = append(out, h)
		}
	}
	return out
}

// breakBefore adds the breaks that come before the reply's starts.
func (p *process) breakBefore(now float64, add func(string, any)) {
	switch {
	case p.once("unknown-event", p.messages == 2):
		add("FROBNICATE", map[string]any{})
	case p.once("unknown-job", p.messages == 2):
		add(batsim.TypeExecuteJob, map[string]string{"job_id": "w0!999", "alloc": "0"})
	case p.once("job-not-waiting", p.runningJob() != "" && len(p.free()) > 0):
		add(batsim.TypeExecuteJob, map[string]string{"job_id": p.runningJob(), "alloc": alloc(p.free()[:1])})
	case p.once("dynamic-jobs-disabled", p.messages == 2), p.once("registration-closed", p.messages == 2):
		add(batsim.TypeRegisterProfile, map[string]any{"workload_name": "dyn", "profile_name": "p", "profile": map[string]any{"type": "delay", "delay": 1}})
	case p.once("profile-exists", p.messages == 2):
		for range 2 {
			add(batsim.TypeRegisterProfile, map[string]any{"workload_name": "dyn", "profile_name": "p", "profile": map[string]any{"type": "delay", "delay": 1}})
		}
	case p.once("job-exists", p.messages == 2):
		add(batsim.TypeRegisterJob, map[string]any{"job_id": "w0!1", "job": map[string]any{"id": "w0!1", "subtime": now, "res": 1, "profile": "d10"}})
	case p.once("batsim-aborts", p.messages == 2):
		add(batsim.TypeQuery, map[string]any{"requests": map[string]any{"consumed_energy": map[string]any{}}})
	case p.once("call-in-past", p.messages == 2):
		add(batsim.TypeCallMeLater, map[string]float64{"timestamp": now})
	}
}

// breakAfter adds the breaks that come after the reply's starts.
func (p *process) breakAfter(now float64, add func(string, any), evs *[]event) {
	switch {
	case p.once("kill-not-running", len(p.queue) > 0):
		add(batsim.TypeKillJob, map[string]any{"job_ids": []string{p.queue[0].id}})
	case p.once("kill-twice", p.runningJob() != ""):
		// Batsim leaves out a job already named, and a kill already
		// asked.
		id := p.runningJob()
		add(batsim.TypeKillJob, map[string]any{"job_ids": []string{id, id}})
		add(batsim.TypeKillJob, map[string]any{"job_ids": []string{id}})
	case p.brk == "never-ends":
		add(batsim.TypeCallMeLater, map[string]float64{"timestamp": now + 10})
	}
}
