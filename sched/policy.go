package sched

import (
	"fmt"

	"github.com/bucma-sched/bucma/batsim"
)

// Policy decides, at each decision point, which waiting jobs start where.
// Decide is called once per Batsim message (after the message's events have
// been applied to the state) unless the message was SIMULATION_ENDS.
// Implementations must be deterministic functions of what they are given.
type Policy interface {
	Decide(s *State, d *Decider)
}

// SubmitObserver is implemented by policies that track submissions (called
// once per JOB_SUBMITTED, after the job joined the waiting queue).
type SubmitObserver interface {
	JobSubmitted(s *State, j *Job)
}

// EndObserver is implemented by policies that learn from job ends (called
// once per finished or rejected job, with j.State final and j.End set).
type EndObserver interface {
	JobEnded(s *State, j *Job)
}

// EventObserver is implemented by policies that follow a message's events
// one by one, as batsched's callbacks do (its energy-aware variants change
// their plans and decide at a REQUESTED_CALL or a RESOURCE_STATE_CHANGED
// before the later events of the same message). Event is called after the
// framework applied each event of a message, from SIMULATION_BEGINS on
// (not for SIMULATION_ENDS), with the State's Now at the message's now and
// its LastEvent at the event's timestamp, and a Decider whose decisions
// come first in the reply; Decide is called after the last event as
// usual, with the same Decider.
type EventObserver interface {
	Event(s *State, d *Decider, ev *batsim.Event)
}

// Starter is implemented by policies that need to set up once the platform
// is known (SIMULATION_BEGINS).
type Starter interface {
	SimulationBegins(s *State) error
}

// Admitter is implemented by policies that refuse some jobs at submission,
// on top of the jobs that can never run. Admits is called once per
// JOB_SUBMITTED; a job it refuses is Refused and is rejected like a job that
// can never run.
type Admitter interface {
	Admits(s *State, j *Job) bool
}

// InPlaceRejecter is implemented by policies that place the rejections of
// refused jobs in their reply themselves. By default the framework rejects
// the refused jobs of a message, in arrival order, before the policy
// decides; when RejectsInPlace is true they stay in the waiting queue
// during Decide, the policy rejects them (Decider.Reject) where its walk of
// the queue reaches them, and the framework rejects those it left, in
// arrival order, after its decisions. A refused job can never be started.
type InPlaceRejecter interface {
	RejectsInPlace() bool
}

// Registrar is implemented by policies that register dynamic jobs
// themselves (Decider.Resubmit). For other policies, when Batsim runs with
// dynamic jobs enabled, the framework sends NOTIFY registration_finished at
// once so that the simulation can end. For a Registrar, it sends it after
// the first decision at which no registration can come any more: Batsim
// submitted every static job, no job is waiting, no kill is under way and
// every registered job was acknowledged (a policy resubmits the work of
// jobs it killed, and kills only to serve waiting jobs).
type Registrar interface {
	RegistersDynamicJobs() bool
}

// RefusalExplainer is implemented by Admitters that say why they refuse a
// job; the framework logs the reason (warning level).
type RefusalExplainer interface {
	Refusal(j *Job) string
}

// Decider collects a policy's decisions for one message, checks each against
// the known state and applies it to the state at once (so the policy sees the
// effect of its own earlier decisions within the same call).
type Decider struct {
	s     *State
	sess  *Session
	reply *batsim.Reply
	err   error
	// submitted holds the pieces registered and queued in this decision
	// (dynamic jobs without acknowledgment).
	submitted []*Job
	// started and rejected in this decision, in order.
	started  []*Job
	rejected []*Job
}

// Err is the first invalid decision, if any.
func (d *Decider) Err() error { return d.err }

// Fail stops the run with err, as an invalid decision does (Err): for a
// policy that finds it cannot go on, such as a twin of batsched where
// batsched itself stops on an assertion. The first error is kept.
func (d *Decider) Fail(err error) {
	if d.err == nil && err != nil {
		d.err = err
	}
}

func (d *Decider) fail(format string, args ...any) bool {
	if d.err == nil {
		d.err = fmt.Errorf("invalid decision at t=%v: "+format, append([]any{d.s.now}, args...)...)
	}
	return false
}

// broke records a decision that breaks a rule.
func (d *Decider) broke(e *RuleError) bool {
	if d.err == nil {
		d.err = &DecisionError{Time: d.s.now, Rule: e.Rule, Msg: e.Msg}
	}
	return false
}

// Start starts waiting job j on hosts (len(hosts) must equal j.Res, every host
// free). It returns false, records an error and changes nothing when the
// decision is invalid.
func (d *Decider) Start(j *Job, hosts []int) bool { return d.StartAt(j, hosts, d.reply.Now()) }

// StartAt is Start with the EXECUTE_JOB dated at: at most the reply's now,
// which is the message's unless the policy moved it (batsim.Reply.AdvanceTo:
// Batsim then applies the start at that later date). A date earlier than
// the reply's previous decision is moved to that decision's: Batsim
// applies a reply's events in order.
//
// A host is free, or handed over: every job on it is being killed by a
// KILL_JOB dated strictly before at, so that Batsim has freed it when the
// start comes (the host holds both jobs until the killed one's
// JOB_COMPLETED arrives).
func (d *Decider) StartAt(j *Job, hosts []int, at float64) bool {
	if d.err != nil {
		return false
	}
	if err := d.s.checkStart(j, hosts, len(hosts), at); err != nil {
		return d.broke(err)
	}
	alloc := batsim.NewIntervalSet(hosts...) // sorted
	if d.reply.Len() > 0 {
		at = max(at, d.reply.LastDate())
	}
	if err := d.reply.ExecuteJobSetAt(j.id, alloc, at); err != nil {
		return d.fail("%v", err)
	}
	d.s.applyStart(j, alloc, at)
	d.started = append(d.started, j)
	return true
}

// handedOver reports whether a job may start on h at date at although h
// is not free: h is on and available, and every job on it is being killed
// by a KILL_JOB dated before at.
func (h *Host) handedOver(at float64) bool {
	if h.unavailable || h.power != PowerOn || len(h.jobs) == 0 {
		return false
	}
	for _, k := range h.jobs {
		if !k.killing || !(k.ext.killAt < at) {
			return false
		}
	}
	return true
}

// Reject rejects waiting job j.
func (d *Decider) Reject(j *Job) bool {
	if d.err != nil {
		return false
	}
	if err := checkReject(j); err != nil {
		return d.broke(err)
	}
	if err := d.reply.RejectJob(j.id); err != nil {
		return d.fail("%v", err)
	}
	d.s.applyReject(j)
	d.rejected = append(d.rejected, j)
	return true
}

// Kill asks Batsim to kill running jobs. Their hosts are freed when
// JOB_COMPLETED(COMPLETED_KILLED) arrives.
func (d *Decider) Kill(jobs ...*Job) bool {
	if d.err != nil || len(jobs) == 0 {
		return false
	}
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		if err := d.s.checkKill(j, jobs[:i]); err != nil {
			return d.broke(err)
		}
		ids[i] = j.id
	}
	if err := d.reply.KillJobs(ids...); err != nil {
		return d.fail("%v", err)
	}
	d.s.applyKill(jobs, d.reply.Now())
	return true
}

// CallMeLater asks Batsim for a REQUESTED_CALL at t (strictly in the future:
// at least batsim.MinCallMeLaterDelay after now).
func (d *Decider) CallMeLater(t float64) bool {
	if d.err != nil {
		return false
	}
	if err := d.reply.CallMeLater(t); err != nil {
		return d.broke(&RuleError{Rule: RuleCallTooSoon, Msg: err.Error()})
	}
	return true
}

// Reply gives access to the protocol reply for decisions the Decider has no
// method for (dynamic job registration, metadata). Such events are checked
// by the protocol encoder only.
func (d *Decider) Reply() *batsim.Reply { return d.reply }

// Started lists the jobs started so far in this decision.
func (d *Decider) Started() []*Job { return d.started }
