package sched

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/internal/units"
)

// Observer sees the job life cycle as the framework applies it (the decision
// trace is one). Calls happen in simulation order.
type Observer interface {
	// Submitted: j joined the queue (after the policy's SubmitObserver).
	Submitted(s *State, j *Job)
	// Started: j was started by the current decision.
	Started(s *State, j *Job)
	// Ended: j finished or was rejected (j.State is final).
	Ended(s *State, j *Job)
}

// PolicyBinder is implemented by observers that need the policy (the
// decision trace queries it for per-job details). Bind is called once, at
// SIMULATION_BEGINS, right after the policy is built.
type PolicyBinder interface {
	Bind(p Policy)
}

// SessionConfig configures a Session.
type SessionConfig struct {
	Spec *Spec
	// Options from the command line; they win over Batsim's sched-config.
	Options Options
	// IgnoreSchedConfig builds the policy from Options alone, whatever
	// Batsim's sched-config holds (batsched's command line: batsched
	// ignores it).
	IgnoreSchedConfig bool
	// Validate audits the whole state after every decision (host/job
	// consistency) on top of the per-decision checks that always run.
	Validate bool
	Log      *slog.Logger
	// Observers see every submission, start and end.
	Observers []Observer
	// Passive makes the session follow Batsim's messages and decide
	// nothing: no policy call, no rejection of the jobs that cannot run, no
	// registration_finished; with compute sharing allowed, a host takes
	// any number of jobs. A Checker follows another decision process so.
	Passive bool
}

// Session is the decision process of one simulation: it applies Batsim's
// events to a State, asks the policy for decisions and returns the reply.
type Session struct {
	cfg    SessionConfig
	log    *slog.Logger
	policy Policy
	state  *State
	ended  bool
	// refused holds the jobs submitted since the last decision that were
	// refused (they can never run, or the policy does not admit them).
	refused []*Job
	// messages counts the messages handled; now is the last one's now.
	messages int
	now      float64
	// finished holds the ids of the jobs that ended or were rejected and
	// may still be named: those the policy asked to kill, and every job
	// that has more than its core fields (jobExt), as a JOB_KILLED may
	// name them after their JOB_COMPLETED; with dynamic jobs, all of
	// them, as a registration must not reuse an id. (Kept for every job,
	// it was a million-entry map on a million-job run.)
	finished map[string]struct{}
	// killedJobs holds the jobs ended COMPLETED_KILLED whose JOB_KILLED
	// has not arrived.
	killedJobs map[string]*Job
	// queries holds the message's estimate_waiting_time requests.
	queries []waitQuery
	// nrefused counts the jobs the policy refused (logRefusal).
	nrefused int
	// dec is the Decider of the message being handled.
	dec Decider
	// reply is HandleReusing's.
	reply *batsim.Reply
}

// NewSession checks the command-line options (names and values) now, so
// that a bad option fails before Batsim is contacted; the policy itself is
// built at SIMULATION_BEGINS, once Batsim's sched-config is known.
func NewSession(cfg SessionConfig) (*Session, error) {
	if cfg.Spec == nil {
		return nil, errors.New("no scheduler")
	}
	// Building the policy from the command-line options alone checks their
	// values now (policies are plain values, cheap to build); the policy
	// used is built again at SIMULATION_BEGINS with sched-config merged in.
	if _, err := cfg.Spec.Build(cfg.Options); err != nil {
		return nil, err
	}
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	return &Session{cfg: cfg, log: log}, nil
}

// NeedsJobJSON reports whether the session reads more of a submitted
// job's JSON description (JobSubmitted.Job) than its fields
// (JobSubmitted.Fields, which an engine in the session's process hands
// over as values): before the policy is built, for a policy that keeps the
// jobs' JSON (Spec.JobJSON) and for one that sees the events
// (EventObserver).
func (s *Session) NeedsJobJSON() bool {
	if s.policy == nil || s.cfg.Spec.JobJSON {
		return true
	}
	_, ok := s.policy.(EventObserver)
	return ok
}

// Ended reports whether SIMULATION_ENDS was received.
func (s *Session) Ended() bool { return s.ended }

// State is the current state (nil before SIMULATION_BEGINS).
func (s *Session) State() *State { return s.state }

// Policy is the policy in use (nil before SIMULATION_BEGINS).
func (s *Session) Policy() Policy { return s.policy }

// Handle applies one Batsim message and returns the reply. An error means
// the conversation cannot go on (bad message order, invalid decision, bad
// sched-config): the caller must stop, as answering would make Batsim abort.
func (s *Session) Handle(msg *batsim.Message) (*batsim.Reply, error) {
	return s.handle(msg, batsim.NewReply(msg.Now))
}

// HandleReusing is Handle with the session's own reply, reset and reused
// by the next call: the reply and its events' data are valid until then
// (an engine in the session's process, which applies a reply before it
// sends the next message, need not allocate one a message).
func (s *Session) HandleReusing(msg *batsim.Message) (*batsim.Reply, error) {
	if s.reply == nil {
		s.reply = batsim.NewReply(msg.Now)
	}
	s.reply.Reset(msg.Now)
	return s.handle(msg, s.reply)
}

func (s *Session) handle(msg *batsim.Message, reply *batsim.Reply) (*batsim.Reply, error) {
	if s.messages > 0 && msg.Now < s.now {
		return nil, fmt.Errorf("now=%v is earlier than the previous message's now=%v (Batsim's time never goes back)", msg.Now, s.now)
	}
	s.messages++
	s.now = msg.Now
	if s.state != nil {
		s.state.killed = s.state.killed[:0]
	}
	if s.state != nil && len(s.state.jobs) == 0 && len(msg.Events) > 1024 {
		// Many jobs at once (a whole workload submitted at time 0):
		// the map is made at their number, not grown to it.
		n := 0
		for i := range msg.Events {
			if msg.Events[i].Type == batsim.TypeJobSubmitted {
				n++
			}
		}
		s.state.jobs = make(map[string]*Job, n)
	}
	var d *Decider
	for i := range msg.Events {
		ev := &msg.Events[i]
		if s.state == nil && ev.Type != batsim.TypeSimulationBegins {
			return nil, fmt.Errorf("event %d (%s) at t=%v: before SIMULATION_BEGINS", i, ev.Type, ev.Timestamp)
		}
		if err := s.apply(ev, reply); err != nil {
			return nil, fmt.Errorf("event %d (%s) at t=%v: %w", i, ev.Type, ev.Timestamp, err)
		}
		if eo, ok := s.policy.(EventObserver); ok && !s.ended {
			s.state.now, s.state.lastEvent = msg.Now, ev.Timestamp
			if d == nil {
				d = s.decider(reply)
			}
			eo.Event(s.state, d, ev)
			if d.err != nil {
				return nil, d.err
			}
		}
	}
	if s.ended || s.state == nil {
		return reply, nil
	}
	s.state.now = msg.Now
	s.state.lastEvent = msg.Now
	if n := len(msg.Events); n > 0 {
		s.state.lastEvent = msg.Events[n-1].Timestamp
	}
	if s.cfg.Passive {
		return reply, nil
	}
	if d == nil {
		d = s.decider(reply)
	}
	// Refused jobs are rejected before the policy decides, unless the
	// policy places their rejections itself; those it leaves are rejected
	// after its decisions.
	inPlace := false
	if r, ok := s.policy.(InPlaceRejecter); ok {
		inPlace = r.RejectsInPlace()
	}
	if !inPlace {
		s.rejectRefused(d)
	}
	s.policy.Decide(s.state, d)
	if d.err != nil {
		return nil, d.err
	}
	s.rejectRefused(d)
	if d.err != nil {
		return nil, d.err
	}
	s.refused = s.refused[:0]
	if err := s.answerQueries(reply); err != nil {
		return nil, err
	}
	s.finishRegistration(reply)
	for _, j := range d.started {
		for _, o := range s.cfg.Observers {
			o.Started(s.state, j)
		}
	}
	for _, j := range d.rejected {
		j.end = s.state.now
		delete(s.state.jobs, j.id)
		s.jobEnded(j)
	}
	s.state.compactWaiting()
	if s.cfg.Validate {
		if err := s.audit(); err != nil {
			return nil, fmt.Errorf("state audit after the decision at t=%v: %w", msg.Now, err)
		}
	}
	return reply, nil
}

// decider is the message's Decider: one per session, reset for each
// message (a policy does not keep it beyond its call).
func (s *Session) decider(reply *batsim.Reply) *Decider {
	d := &s.dec
	*d = Decider{s: s.state, sess: s, reply: reply, submitted: d.submitted[:0], started: d.started[:0], rejected: d.rejected[:0]}
	return d
}

// rejectRefused rejects the refused jobs still waiting, in arrival order.
func (s *Session) rejectRefused(d *Decider) {
	for _, j := range s.refused {
		if j.state == batsim.StateSubmitted {
			s.log.Debug("rejecting a refused job", "job", j.id, "res", j.res, "hosts", len(s.state.hosts), "walltime", j.walltime)
			d.Reject(j)
		}
	}
}

// finishRegistration sends NOTIFY registration_finished, for a policy
// that registers dynamic jobs, once none can come any more (see Registrar).
func (s *Session) finishRegistration(reply *batsim.Reply) {
	st := s.state
	if !st.config.DynamicJobsEnabled || st.RegistrationFinished() || !st.noMoreStatic {
		return
	}
	if r, ok := s.policy.(Registrar); !ok || !r.RegistersDynamicJobs() || closesRegistration(s.policy) {
		return
	}
	if st.NbWaiting() > 0 || st.nkilling > 0 || len(s.killedJobs) > 0 || (st.dynamic != nil && len(st.dynamic.pending) > 0) {
		return
	}
	reply.RegistrationFinished()
	st.dyn().finished = true
}

// submit adds a job to the queue: a JOB_SUBMITTED, or a piece registered
// without acknowledgment (info links a piece to its original).
func (s *Session) submit(j *Job, info *pendingPiece) {
	if info != nil {
		j.x().original, j.ext.piece = info.original, info.piece
		if j.user == "" {
			j.user = info.user
		}
	}
	j.seq = s.state.seq
	s.state.seq++
	s.state.jobs[j.id] = j
	s.state.enqueue(j)
	j.refused = !s.cfg.Passive && (j.res <= 0 || j.res > len(s.state.hosts))
	if a, ok := s.policy.(Admitter); ok && !j.refused {
		j.refused = !a.Admits(s.state, j)
		if e, ok := s.policy.(RefusalExplainer); ok && j.refused {
			s.logRefusal(j, e.Refusal(j))
		}
	}
	if j.refused {
		s.refused = append(s.refused, j)
	}
	if o, ok := s.policy.(SubmitObserver); ok {
		o.JobSubmitted(s.state, j)
	}
	for _, o := range s.cfg.Observers {
		o.Submitted(s.state, j)
	}
}

// refusalsLogged is how many of the policy's refusals a session logs as
// warnings, each with its job and reason; the others, logged at debug
// level, are summed up in one warning at SIMULATION_ENDS (a workload the
// policy cannot use made a warning per job, thousands of them).
const refusalsLogged = 5

// logRefusal logs the policy's refusal of j.
func (s *Session) logRefusal(j *Job, reason string) {
	s.nrefused++
	level := slog.LevelWarn
	if s.nrefused > refusalsLogged {
		level = slog.LevelDebug
	}
	s.log.Log(context.Background(), level, "the scheduler refuses a job: it will be rejected", "job", j.id, "reason", reason)
	if s.nrefused == refusalsLogged+1 {
		s.log.Warn("the scheduler refuses more jobs: counted, not logged one by one (-v logs each)")
	}
}

func (s *Session) jobEnded(j *Job) {
	if j.ext != nil || s.state.config.DynamicJobsEnabled {
		if s.finished == nil {
			s.finished = map[string]struct{}{}
		}
		s.finished[j.id] = struct{}{}
	}
	if o, ok := s.policy.(EndObserver); ok {
		o.JobEnded(s.state, j)
	}
	for _, o := range s.cfg.Observers {
		o.Ended(s.state, j)
	}
}

func (s *Session) apply(ev *batsim.Event, reply *batsim.Reply) error {
	switch d := ev.Data.(type) {
	case *batsim.SimulationBegins:
		return s.begin(d, reply)
	case *batsim.SimulationEnds:
		s.ended = true
		if s.nrefused > refusalsLogged {
			s.log.Warn("the scheduler refused jobs, which were rejected", "refused", s.nrefused, "logged", refusalsLogged)
		}
	case *batsim.JobSubmitted:
		if s.cfg.Passive && s.state.dynamic != nil && s.state.dynamic.registered[d.JobID] {
			break // the acknowledgment of a job the Checker queued at its registration
		}
		j, err := parseJob(d, ev.Timestamp)
		if err != nil {
			return fmt.Errorf("JOB_SUBMITTED %s: %w", d.JobID, err)
		}
		if s.cfg.Spec.JobJSON {
			j.setRaw(d.Job)
		}
		if _, dup := s.state.jobs[j.id]; dup {
			return fmt.Errorf("JOB_SUBMITTED %s: job already known", j.id)
		}
		if len(d.Profile) > 0 && j.profile != "" && s.cfg.Spec.keepsProfiles() {
			s.state.addProfile(j.Workload(), j.profile, d.Profile)
		}
		var info *pendingPiece
		if dyn := s.state.dynamic; dyn != nil {
			if info = dyn.pending[j.id]; info != nil {
				delete(dyn.pending, j.id)
			}
		}
		s.submit(j, info)
	case *batsim.JobCompleted:
		j, ok := s.state.running[d.JobID]
		if !ok {
			return fmt.Errorf("JOB_COMPLETED %s: job is not running", d.JobID)
		}
		if err := checkCompletedAlloc(j, d); err != nil {
			return fmt.Errorf("JOB_COMPLETED %s: %w", d.JobID, err)
		}
		for _, h := range j.alloc {
			host := &s.state.hosts[h]
			was := host.Free()
			if host.removeJob(j) && !was && host.Free() {
				s.state.nfree++
			}
		}
		s.state.runEnded(j)
		delete(s.state.jobs, j.id)
		if j.killing {
			j.killing = false
			s.state.nkilling--
		}
		if d.JobState == batsim.StateKilled {
			if s.killedJobs == nil {
				s.killedJobs = map[string]*Job{}
			}
			s.killedJobs[j.id] = j
		}
		j.state = d.JobState
		j.returnCode = int32(d.ReturnCode)
		j.end = ev.Timestamp
		s.jobEnded(j)
	case *batsim.Notify:
		switch d.Kind {
		case batsim.NotifyNoMoreStaticJobToSubmit:
			s.state.noMoreStatic = true
		case batsim.NotifyMachineUnavailable, batsim.NotifyMachineAvailable:
			set, err := batsim.ParseIntervalSet(d.Resources)
			if err != nil {
				return fmt.Errorf("NOTIFY %s: %w", d.Kind, err)
			}
			for _, id := range set {
				if id < 0 || id >= len(s.state.hosts) {
					continue
				}
				h := &s.state.hosts[id]
				was := h.Free()
				h.unavailable = d.Kind == batsim.NotifyMachineUnavailable
				s.state.unavailableSeen = s.state.unavailableSeen || h.unavailable
				if was && !h.Free() {
					s.state.nfree--
				} else if !was && h.Free() {
					s.state.nfree++
				}
			}
		default:
			s.log.Debug("ignoring NOTIFY", "kind", d.Kind)
		}
	case *batsim.JobKilled:
		// Hosts of killed jobs are freed by their JOB_COMPLETED, which
		// comes first; a killed job may still be running when it had
		// already been asked to stop (Batsim lists every id of the request).
		for _, id := range d.JobIDs {
			_, known := s.state.jobs[id]
			_, done := s.finished[id]
			if !known && !done {
				return fmt.Errorf("JOB_KILLED: job %s was never submitted, or ended without a kill request", id)
			}
			if j, ok := s.killedJobs[id]; ok {
				delete(s.killedJobs, id)
				s.state.killed = append(s.state.killed, Killed{Job: j, Progress: killedProgress(d, id)})
			}
		}
	case *batsim.ResourceStateChanged:
		if err := s.state.resourceStateChanged(d); err != nil {
			return fmt.Errorf("RESOURCE_STATE_CHANGED: %w", err)
		}
	case *batsim.BatsimQuery:
		return s.addQuery(d, ev.Timestamp)
	case *batsim.RequestedCall,
		*batsim.BatsimAnswer, *batsim.FromJobMsg, *batsim.Unknown:
		// Nothing the framework tracks.
	default:
		s.log.Debug("ignoring event", "type", ev.Type)
	}
	return nil
}

// checkCompletedAlloc checks that the allocation a JOB_COMPLETED reports
// is the one the job was started on.
func checkCompletedAlloc(j *Job, d *batsim.JobCompleted) error {
	if d.AllocSet != nil && slices.Equal(d.AllocSet, j.alloc) {
		return nil // handed over as a value
	}
	alloc := d.Alloc
	var buf [64]byte
	if string(batsim.IntervalSet(j.alloc).Append(buf[:0])) == alloc {
		return nil // the canonical form, as Batsim writes it
	}
	set, err := batsim.ParseIntervalSet(alloc)
	if err != nil {
		return err
	}
	if !slices.Equal(set, batsim.NewIntervalSet(j.alloc...)) {
		return fmt.Errorf("alloc %q differs from the allocation the job was started on (%q)", alloc, batsim.NewIntervalSet(j.alloc...).String())
	}
	return nil
}

func (s *Session) begin(d *batsim.SimulationBegins, reply *batsim.Reply) error {
	if s.state != nil {
		return errors.New("SIMULATION_BEGINS received twice")
	}
	hosts := make([]Host, len(d.ComputeResources))
	for _, r := range d.ComputeResources {
		if r.ID < 0 || r.ID >= len(hosts) || hosts[r.ID].props != nil {
			return fmt.Errorf("SIMULATION_BEGINS: compute resource ids must be 0..%d, got %d", len(hosts)-1, r.ID)
		}
		props := r.Properties
		if props == nil {
			props = map[string]string{}
		}
		hosts[r.ID] = Host{id: r.ID, name: r.Name, speed: hostSpeed(props), props: props, zoneProps: r.ZoneProperties}
		hosts[r.ID].unavailable = r.State == "unavailable"
		pw, err := parseHostPstates(props)
		if err != nil {
			return fmt.Errorf("SIMULATION_BEGINS: host %d (%s): %w", r.ID, r.Name, err)
		}
		hosts[r.ID].pstates = pw
	}
	s.state = newState(hosts)
	// The State takes the message's profile maps over rather than copying
	// them (a million-job workload has a million profiles), and only for
	// policies that read them.
	for wl, ps := range d.Profiles {
		if ps != nil && s.cfg.Spec.keepsProfiles() {
			s.state.dyn().profiles[wl] = ps
		}
	}
	s.state.config = d.Config
	s.state.schedConfig = d.Config.SchedConfig
	var p Policy
	var err error
	if s.cfg.IgnoreSchedConfig {
		p, err = s.cfg.Spec.Build(s.cfg.Options)
	} else {
		var reserved map[string]string
		p, reserved, err = s.cfg.Spec.BuildWithSchedConfig(d.Config.SchedConfig, s.cfg.Options)
		for k, v := range reserved {
			if v != s.cfg.Spec.Name {
				s.log.Warn("sched-config names another scheduler; using the one given on the command line", "key", k, "value", v, "scheduler", s.cfg.Spec.Name)
			}
		}
	}
	if err != nil {
		return err
	}
	s.policy = p
	for _, o := range s.cfg.Observers {
		if b, ok := o.(PolicyBinder); ok {
			b.Bind(p)
		}
	}
	if s.cfg.Spec.ComputeSharing {
		for i := range s.state.hosts {
			h := &s.state.hosts[i]
			n, err := HostSlots(h.props)
			if err != nil {
				return fmt.Errorf("SIMULATION_BEGINS: host %d (%s): %w", h.id, h.name, err)
			}
			h.slots = n
		}
		s.state.reindexHosts()
	}
	if s.cfg.Passive && d.AllowComputeSharing {
		for i := range s.state.hosts {
			s.state.hosts[i].slots = math.MaxInt32
		}
		s.state.reindexHosts()
	}
	if st, ok := p.(Starter); ok {
		if err := st.SimulationBegins(s.state); err != nil {
			return err
		}
	}
	if !d.AllowComputeSharing {
		for _, h := range s.state.hosts {
			if h.Capacity() > 1 {
				return fmt.Errorf("scheduler %s: host %d (%s) has %d slots but Batsim runs without compute sharing (it aborts when two jobs share a host): run Batsim with --enable-compute-sharing, or give every host one slot", s.cfg.Spec.Name, h.id, h.name, h.Capacity())
			}
		}
	}
	if d.Config.DynamicJobsEnabled && !s.cfg.Passive {
		if r, ok := p.(Registrar); !ok || !r.RegistersDynamicJobs() {
			reply.RegistrationFinished()
		}
	}
	return nil
}

// hostSpeed reads the "speed" property ("8e9", "1.0752e12", "1Gf", a pstate
// list); 1 when absent or unreadable, so that every host counts as equal.
func hostSpeed(props map[string]string) float64 {
	v, ok := props["speed"]
	if !ok {
		return 1
	}
	if f, err := units.ParseSpeed(v); err == nil && f > 0 {
		return f
	}
	return 1
}

// policyAuditor is implemented by policies that keep their own view of the
// state: the audit checks it against the state.
type policyAuditor interface {
	auditState(s *State) error
}

// audit checks the state's invariants: host/job links agree, the free count
// is right, waiting jobs are SUBMITTED and running jobs RUNNING, and the
// order of the running jobs by expected end holds exactly the running jobs.
func (s *Session) audit() error {
	st := s.state
	free := 0
	for i := range st.hosts {
		h := &st.hosts[i]
		if h.Free() {
			free++
		}
		if n := h.liveJobs(); n > h.Capacity() {
			return fmt.Errorf("host %d holds %d jobs for %d slots", i, n, h.Capacity())
		}
		for k, j := range h.jobs {
			if !slices.Contains(j.alloc, i) {
				return fmt.Errorf("host %d holds job %s, allocated %v", i, j.id, j.alloc)
			}
			if j.state != batsim.StateRunning {
				return fmt.Errorf("host %d holds job %s in state %s", i, j.id, j.state)
			}
			if _, ok := st.running[j.id]; !ok {
				return fmt.Errorf("host %d holds job %s which is not running", i, j.id)
			}
			for _, o := range h.jobs[:k] {
				if o == j {
					return fmt.Errorf("host %d holds job %s twice", i, j.id)
				}
			}
		}
	}
	if free != st.nfree {
		return fmt.Errorf("free host count %d, expected %d", st.nfree, free)
	}
	for id, j := range st.running {
		if len(j.alloc) != j.res {
			return fmt.Errorf("running job %s has %d hosts for res=%d", id, len(j.alloc), j.res)
		}
		for _, h := range j.alloc {
			if !slices.Contains(st.hosts[h].jobs, j) {
				return fmt.Errorf("running job %s: host %d does not hold it", id, h)
			}
		}
	}
	if len(st.byEnd) != len(st.running) {
		return fmt.Errorf("%d running jobs by end, %d running", len(st.byEnd), len(st.running))
	}
	for i, j := range st.byEnd {
		if st.running[j.id] != j {
			return fmt.Errorf("job %s is in the order by end but not running", j.id)
		}
		if i > 0 && st.byEnd[i-1].ExpectedEnd() > j.ExpectedEnd() {
			return fmt.Errorf("running jobs out of order by end: %s (%v) before %s (%v)", st.byEnd[i-1].id, st.byEnd[i-1].ExpectedEnd(), j.id, j.ExpectedEnd())
		}
	}
	nwait, ndead := 0, 0
	for _, j := range st.waiting {
		if j.state == batsim.StateSubmitted {
			nwait++
		} else {
			ndead++
		}
	}
	if ndead != st.dead {
		return fmt.Errorf("%d finished entries in the queue, expected %d", ndead, st.dead)
	}
	if st.cands != nil {
		counts := newCandidateIndex(len(st.hosts))
		inBuckets := 0
		for _, j := range st.waiting {
			if j.state == batsim.StateSubmitted {
				counts.add(st.resIndex(j.res), walltimeClass(j.walltime), 1)
				if b := st.cands.byClass[j.wcls]; int(j.cpos) >= len(b) || b[j.cpos] != j {
					return fmt.Errorf("waiting job %s is not in the candidate index", j.id)
				}
			}
		}
		for _, b := range st.cands.byClass {
			inBuckets += len(b)
		}
		if inBuckets != nwait {
			return fmt.Errorf("the candidate index holds %d jobs, %d are waiting", inBuckets, nwait)
		}
		for i := range counts.tree {
			if counts.tree[i] != st.cands.tree[i] {
				return fmt.Errorf("the candidate index disagrees with the queue")
			}
		}
	}
	if err := st.checkSeqs(); err != nil {
		return err
	}
	if err := st.checkTimed(); err != nil {
		return err
	}
	if a, ok := s.policy.(policyAuditor); ok {
		if err := a.auditState(st); err != nil {
			return err
		}
	}
	if len(st.jobs) != nwait+len(st.running) {
		return fmt.Errorf("%d known jobs, but %d waiting and %d running", len(st.jobs), nwait, len(st.running))
	}
	return nil
}
