package sched

import (
	"fmt"
	"log/slog"
	"math"
	"sort"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
)

// Checker holds a decision process that is not one of bucma's policies
// (batsched, a pybatsim scheduler, any process behind a socket) to the
// rules bucma's Decider holds its policies to (rules.go): it follows
// Batsim's messages as a Session does, without deciding (SessionConfig.
// Passive), and checks each decision of the process's replies against the
// state it is applied to, then applies it as Batsim does. It is what bucma
// check runs between Batsim (or the embedded engine) and the process.
//
// Where Batsim accepts a decision the Decider refuses out of caution (an
// Accepts rule: a kill asked twice, registration_finished sent again, a
// call less than 1e-5 s ahead), the Checker reports nothing and does what
// Batsim does.
type Checker struct {
	sess *Session
}

// Finding is a decision of the process that breaks a rule.
type Finding struct {
	Rule Rule
	// Time is the now of the message the reply answers.
	Time float64
	// Event is the decision's index in the reply and Type its event type.
	Event int
	Type  string
	Msg   string
}

// String is the finding as bucma check prints it.
func (f Finding) String() string {
	return fmt.Sprintf("t=%v: %s (%s): %s", f.Time, f.Rule.Name, f.Rule.Effect, f.Msg)
}

// nopPolicy decides nothing: the Checker's session follows another
// decision process.
type nopPolicy struct{}

func (nopPolicy) Decide(*State, *Decider) {}

// NewChecker returns a Checker for one simulation; log receives the
// session's warnings (nil: slog.Default()).
func NewChecker(log *slog.Logger) (*Checker, error) {
	spec := &Spec{Name: "checker", Description: "follows another decision process",
		New: func(Options) (Policy, error) { return nopPolicy{}, nil }, Profiles: true}
	sess, err := NewSession(SessionConfig{Spec: spec, Passive: true, IgnoreSchedConfig: true, Log: log})
	if err != nil {
		return nil, err
	}
	return &Checker{sess: sess}, nil
}

// Message applies one of Batsim's messages, as the process reads it. An
// error is a message that does not follow from the previous ones (Batsim
// would not send it).
func (c *Checker) Message(m *batsim.Message) error {
	_, err := c.sess.Handle(m)
	return err
}

// State is the state the process's decisions are checked against (nil
// before SIMULATION_BEGINS).
func (c *Checker) State() *State { return c.sess.state }

// Reply checks the process's reply to the last message applied, decision
// by decision in order, each against the state the decisions before it
// left, and applies it as Batsim does. It returns the decisions that break
// a rule; a decision Batsim aborts on is the last one checked (Batsim goes
// no further).
func (c *Checker) Reply(r *batsim.Message) []Finding {
	st := c.sess.state
	if st == nil || c.sess.ended {
		return nil
	}
	var out []Finding
	var rejected []*Job
	last := math.Inf(-1)
	for i := range r.Events {
		ev := &r.Events[i]
		var fs []*RuleError
		if ev.Timestamp < last {
			fs = append(fs, broken(RuleTimestampOrder, "%s dated %v, earlier than the decision before it (%v)", ev.Type, ev.Timestamp, last))
		}
		last = max(last, ev.Timestamp)
		fs = append(fs, c.decision(ev, &rejected)...)
		stop := false
		for _, e := range fs {
			if e.Rule.Effect == Accepts {
				continue
			}
			out = append(out, Finding{Rule: e.Rule, Time: st.now, Event: i, Type: ev.Type, Msg: e.Msg})
			stop = stop || e.Rule.Effect == Aborts
		}
		if stop {
			break
		}
	}
	for _, j := range rejected {
		j.end = st.now
		delete(st.jobs, j.id)
		c.sess.jobEnded(j)
	}
	st.compactWaiting()
	return out
}

// job is the waiting or running job id, or the rule a decision naming
// another breaks.
func (c *Checker) job(what, id string) (*Job, *RuleError) {
	if j, ok := c.sess.state.jobs[id]; ok {
		return j, nil
	}
	return nil, broken(RuleUnknownJob, "%s %s: unknown job (never submitted, or ended: Batsim forgets a job once its end was sent)", what, id)
}

// decision checks and applies one decision: the rules it breaks (a
// decision Batsim aborts on is not applied).
func (c *Checker) decision(ev *batsim.Event, rejected *[]*Job) []*RuleError {
	st := c.sess.state
	one := func(e *RuleError) []*RuleError {
		if e == nil {
			return nil
		}
		return []*RuleError{e}
	}
	switch d := ev.Data.(type) {
	case *batsim.ExecuteJob:
		j, err := c.job("start", d.JobID)
		if err != nil {
			return one(err)
		}
		n := len(d.Alloc)
		if d.Mapping != nil {
			n = len(d.Mapping)
		} else if st.homogeneousTotal(j) {
			n = j.res // its number of hosts is free
		}
		if err := st.checkStart(j, d.Alloc, n, ev.Timestamp); err != nil && err.Rule.Effect != Accepts {
			return one(err)
		}
		st.applyStart(j, d.Alloc, ev.Timestamp)
	case *batsim.RejectJob:
		j, err := c.job("reject", d.JobID)
		if err == nil {
			err = checkReject(j)
		}
		if err != nil {
			return one(err)
		}
		st.applyReject(j)
		*rejected = append(*rejected, j)
	case *batsim.KillJob:
		var kill []*Job
		for _, id := range d.JobIDs {
			j, err := c.job("kill", id)
			if err == nil {
				err = st.checkKill(j, kill)
			}
			if err != nil && err.Rule.Effect != Accepts {
				return one(err)
			}
			if err == nil {
				kill = append(kill, j) // Batsim leaves out a kill under way
			}
		}
		st.applyKill(kill, ev.Timestamp)
	case *batsim.SetResourceState:
		if err := st.checkPState(d.Resources, d.PState); err != nil {
			return one(err)
		}
		st.applyPState(d.Resources, d.PState)
	case *batsim.RegisterProfile:
		if err := st.checkRegisterProfile("", d.WorkloadName, d.ProfileName); err != nil {
			return one(err)
		}
		st.applyRegisterProfile(d.WorkloadName, d.ProfileName, d.Profile)
	case *batsim.RegisterJob:
		if err := c.sess.checkRegisterJob(d.JobID); err != nil {
			return one(err)
		}
		dyn := st.dyn()
		if dyn.registered == nil {
			dyn.registered = map[string]bool{}
		}
		dyn.registered[d.JobID] = true
		// Batsim knows the job at once: it may start before its
		// JOB_SUBMITTED (with --acknowledge-dynamic-jobs), which then
		// changes nothing.
		// (Batsim's reader checked the job object.)
		if nj, err := parseJob(&batsim.JobSubmitted{JobID: d.JobID, Job: d.Job}, ev.Timestamp); err == nil {
			nj.state = batsim.StateSubmitted
			c.sess.submit(nj, nil)
		}
	case *batsim.Notify:
		switch d.Kind {
		case batsim.NotifyRegistrationFinished:
			if err := st.checkFinishRegistration(); err != nil && err.Rule.Effect != Accepts {
				return one(err)
			}
			st.dyn().finished = true
		case batsim.NotifyContinueRegistration:
			if !st.config.DynamicJobsEnabled {
				return one(broken(RuleNoDynamicJobs, "continue_registration: Batsim runs without dynamic jobs (--enable-dynamic-jobs)"))
			}
			st.dyn().finished = false
		}
	case *batsim.SetJobMetadata:
		if _, err := c.job("SET_JOB_METADATA", d.JobID); err != nil {
			return one(err)
		}
	}
	return nil
}

// homogeneousTotal reports whether j's profile is parallel_homogeneous_total,
// the one profile whose job may run on another number of hosts than it
// asks.
func (s *State) homogeneousTotal(j *Job) bool {
	raw, ok := s.Profile(j.Workload(), j.profile)
	if !ok {
		return false
	}
	var p struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(raw, &p) == nil && p.Type == "parallel_homogeneous_total"
}

// Idle reports whether nothing is left to happen but what the process
// asks for itself: every static job was submitted (NOTIFY
// no_more_static_job_to_submit), no job waits or runs, and registration is
// closed or disabled. Batsim then ends the simulation as soon as no call
// it was asked for is pending.
func (c *Checker) Idle() bool {
	st := c.sess.state
	return st != nil && st.noMoreStatic && st.NbWaiting() == 0 && len(st.running) == 0 &&
		(!st.config.DynamicJobsEnabled || st.RegistrationFinished())
}

// Stuck is what keeps the simulation from ending, as the process's
// decisions left it: the jobs still waiting (sorted), and whether dynamic
// jobs are enabled with registration still open.
func (c *Checker) Stuck() (waiting []string, registrationOpen bool) {
	st := c.sess.state
	if st == nil {
		return nil, false
	}
	for _, j := range st.WaitingCopy() {
		waiting = append(waiting, j.id)
	}
	sort.Strings(waiting)
	return waiting, st.config.DynamicJobsEnabled && !st.RegistrationFinished()
}
