package testkit

import (
	"fmt"
	"strconv"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sched"
)

// Host is a host of a hand-built state.
type Host struct {
	// Speed is the host's "speed" property (flop/s); 0 leaves it out
	// (every such host counts as speed 1).
	Speed float64
	// Properties are the host's other platform properties (owner, ...).
	Properties map[string]string
}

// Running is a job running in a hand-built state: started at Start on
// Hosts (len(Hosts) == Job.Res).
type Running struct {
	Job   Job
	Start float64
	Hosts []int
}

// StateSpec describes a hand-built state at time Now: hosts, running jobs
// and waiting jobs (Job.Submit <= Now for both).
type StateSpec struct {
	Now     float64
	Hosts   []Host
	Running []Running
	Waiting []Job
	// Spec, when set, is the policy whose needs the state follows (slots
	// for compute sharing, dynamic jobs, kept profiles, JSON): Batsim's
	// configuration says what the spec asks, as bucma's runners start
	// Batsim; nil: a policy that asks for nothing.
	Spec *sched.Spec
	// Policy, when set, sees the state being built as in a run: its
	// SimulationBegins (Starter), Admits, JobSubmitted and JobEnded hooks
	// are called; the decisions that build the state are the hand-made
	// ones, not its own (a job it does not admit cannot be running). Pass
	// the same policy to Hand.Decide.
	Policy sched.Policy
}

// Hand is a hand-built state and a way to ask a policy for its decision
// on it.
type Hand struct {
	sess *sched.Session
	pl   *placer
	now  float64
}

// NewState builds the framework's State as a policy sees it at a decision:
// the hosts, the running jobs on their hosts and the waiting queue in
// submission order. It goes through Batsim's messages (SIMULATION_BEGINS,
// JOB_SUBMITTED, the starts), so the State is exactly what the framework
// builds in a run.
func NewState(sp StateSpec) (*Hand, error) {
	var starts []Running
	for _, r := range sp.Running {
		if r.Start > sp.Now || r.Job.Submit > r.Start {
			return nil, fmt.Errorf("running job %s: submitted at %v, started at %v, now %v", r.Job.Name, r.Job.Submit, r.Start, sp.Now)
		}
		if len(r.Hosts) != r.Job.Res {
			return nil, fmt.Errorf("running job %s: %d hosts for res=%d", r.Job.Name, len(r.Hosts), r.Job.Res)
		}
		starts = append(starts, r)
	}
	for _, j := range sp.Waiting {
		if j.Submit > sp.Now {
			return nil, fmt.Errorf("waiting job %s: submitted at %v, after now (%v)", j.Name, j.Submit, sp.Now)
		}
	}
	base := sched.Spec{Name: "testkit-state"}
	if sp.Spec != nil {
		base = *sp.Spec
	}
	pl := &placer{watch: sp.Policy}
	spec := base
	spec.Options = nil
	spec.New = func(sched.Options) (sched.Policy, error) { return pl, nil }
	pol := run.Policy{Spec: &spec}
	sess, err := pol.NewSession()
	if err != nil {
		return nil, err
	}
	speeds := make([]float64, len(sp.Hosts))
	props := make([]map[string]string, len(sp.Hosts))
	for i, h := range sp.Hosts {
		props[i] = map[string]string{}
		for k, v := range h.Properties {
			props[i][k] = v
		}
		speeds[i] = h.Speed
	}
	begin := BeginMessage(speeds, props, "")
	sb := begin.Events[0].Data.(*batsim.SimulationBegins)
	if base.DynamicJobs {
		sb.Config.DynamicJobsEnabled, sb.Config.DynamicJobsAcknowledged = true, true
	}
	sb.AllowComputeSharing = base.ComputeSharing
	for i, h := range sp.Hosts {
		if h.Speed == 0 {
			delete(sb.ComputeResources[i].Properties, "speed")
		}
	}
	if _, err := sess.Handle(begin); err != nil {
		return nil, err
	}
	// Every job in one message per submission date, in Batsim's order;
	// the running ones are started in the message of their start date.
	type event struct {
		at    float64
		job   *Job
		start *Running
	}
	var evs []event
	for i := range starts {
		evs = append(evs, event{at: starts[i].Job.Submit, job: &starts[i].Job})
	}
	for i := range sp.Waiting {
		evs = append(evs, event{at: sp.Waiting[i].Submit, job: &sp.Waiting[i]})
	}
	for i := range starts {
		evs = append(evs, event{at: starts[i].Start, start: &starts[i]})
	}
	sortEvents(evs, func(e event) (float64, bool, string) {
		if e.start != nil {
			return e.at, true, e.start.Job.ID()
		}
		return e.at, false, e.job.ID()
	})
	for k := 0; k < len(evs); {
		now := evs[k].at
		msg := &batsim.Message{Now: now}
		pl.starts = pl.starts[:0]
		for ; k < len(evs) && evs[k].at == now; k++ {
			if e := evs[k]; e.start != nil {
				pl.starts = append(pl.starts, *e.start)
			} else {
				msg.Events = append(msg.Events, SubmitEvent(*e.job, now))
			}
		}
		if _, err := sess.Handle(msg); err != nil {
			return nil, err
		}
		if pl.err != nil {
			return nil, pl.err
		}
	}
	pl.starts = pl.starts[:0]
	if _, err := sess.Handle(&batsim.Message{Now: sp.Now}); err != nil {
		return nil, err
	}
	return &Hand{sess: sess, pl: pl, now: sp.Now}, nil
}

// State is the hand-built state.
func (h *Hand) State() *sched.State { return h.sess.State() }

// Decide asks p for its decision on the state, at its date, as the
// framework would (the Decider checks every decision), and returns the
// decisions in Stepper's compact form ("X name alloc", "R name", ...). The
// decisions are applied: the state shows their effect afterwards. Only
// p.Decide is called: a policy that learns from submissions or ends
// (SubmitObserver, EndObserver) has seen none of the state's history, and
// one that sets up at the start (Starter) must be set up by the test.
func (h *Hand) Decide(p sched.Policy) ([]string, error) {
	h.pl.delegate = p
	defer func() { h.pl.delegate = nil }()
	reply, err := h.sess.Handle(&batsim.Message{Now: h.now})
	if err != nil {
		return nil, err
	}
	return compact(reply)
}

// placer starts the jobs it is told to, where it is told to, or hands the
// decision to delegate; watch, when set, sees the hooks of a run.
type placer struct {
	starts   []Running
	err      error
	delegate sched.Policy
	watch    sched.Policy
}

func (p *placer) SimulationBegins(s *sched.State) error {
	if st, ok := p.watch.(sched.Starter); ok {
		return st.SimulationBegins(s)
	}
	return nil
}

func (p *placer) Admits(s *sched.State, j *sched.Job) bool {
	if a, ok := p.watch.(sched.Admitter); ok {
		return a.Admits(s, j)
	}
	return true
}

func (p *placer) JobSubmitted(s *sched.State, j *sched.Job) {
	if o, ok := p.watch.(sched.SubmitObserver); ok {
		o.JobSubmitted(s, j)
	}
}

func (p *placer) JobEnded(s *sched.State, j *sched.Job) {
	if o, ok := p.watch.(sched.EndObserver); ok {
		o.JobEnded(s, j)
	}
}

func (p *placer) Decide(s *sched.State, d *sched.Decider) {
	if p.delegate != nil {
		p.delegate.Decide(s, d)
		return
	}
	for _, r := range p.starts {
		j, ok := s.Job(r.Job.ID())
		if !ok || !d.Start(j, r.Hosts) {
			p.err = fmt.Errorf("running job %s cannot start at %v on hosts %v: %v", r.Job.Name, s.Now(), r.Hosts, d.Err())
			return
		}
	}
}

func sortEvents[E any](evs []E, key func(E) (float64, bool, string)) {
	less := func(a, b E) bool {
		ta, sa, ia := key(a)
		tb, sb, ib := key(b)
		if ta != tb {
			return ta < tb
		}
		if sa != sb {
			return !sa // submissions before starts
		}
		return ia < ib
	}
	for i := 1; i < len(evs); i++ {
		for k := i; k > 0 && less(evs[k], evs[k-1]); k-- {
			evs[k], evs[k-1] = evs[k-1], evs[k]
		}
	}
}

// Hosts returns n hosts of the given speeds (n = len(speeds)).
func Hosts(speeds ...float64) []Host {
	out := make([]Host, len(speeds))
	for i, sp := range speeds {
		out[i] = Host{Speed: sp}
	}
	return out
}

// HostName is the name NewState and the Driver give host i.
func HostName(i int) string { return "h" + strconv.Itoa(i) }
