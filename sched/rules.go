package sched

import (
	"fmt"

	"github.com/bucma-sched/bucma/batsim"
)

// The rules of a decision: what Batsim holds a decision process to. The
// Decider refuses a decision of a policy that breaks one (Decider.Err, a
// *DecisionError naming the rule), and a Checker finds the decisions of
// another decision process that break one (bucma check): both call the
// checks of this file, so that they hold a decision process to the same
// rules.

// Effect is what Batsim 4.2.1 does with a decision that breaks a rule.
type Effect uint8

const (
	// Aborts: Batsim stops the simulation on the decision (an assertion
	// or a runtime error, after writing its output files).
	Aborts Effect = iota
	// Misreads: Batsim goes on, but not as the decision says or means.
	Misreads
	// Hangs: the simulation cannot end (Batsim waits for ever, or
	// SimGrid stops it as a deadlock).
	Hangs
	// Accepts: Batsim goes on as if the decision were right; the rule is
	// the Decider's own caution (bucma's policies never break it), which a
	// Checker does not report.
	Accepts
)

// String names the effect as bucma check prints it.
func (e Effect) String() string {
	switch e {
	case Aborts:
		return "Batsim aborts"
	case Misreads:
		return "Batsim misreads"
	case Hangs:
		return "the simulation never ends"
	}
	return "Batsim accepts"
}

// Rule is one rule a decision process must follow.
type Rule struct {
	// Name is the rule's name, as bucma check reports it.
	Name string
	// Effect is what Batsim does when a decision breaks it.
	Effect Effect
	// What says the rule in a sentence.
	What string
}

// The rules of the decisions themselves, checked by the Decider and the
// Checker alike.
var (
	RuleUnknownJob     = Rule{"unknown-job", Aborts, "a decision names a job Batsim does not know: never submitted, or ended (Batsim forgets a job once its end was sent)"}
	RuleJobNotWaiting  = Rule{"job-not-waiting", Aborts, "EXECUTE_JOB or REJECT_JOB of a job that is not waiting: running (a double start), rejected or ended"}
	RuleAllocSize      = Rule{"alloc-size", Aborts, "EXECUTE_JOB gives a number of hosts (or of executors, with a mapping) other than the job's res (only a parallel_homogeneous_total job may take another number)"}
	RuleUnknownHost    = Rule{"unknown-host", Aborts, "a host id that is not one of the platform's compute hosts"}
	RuleDuplicateHost  = Rule{"duplicate-host", Misreads, "an allocation that names a host twice (Batsim reads the set of its hosts)"}
	RuleHostBusy       = Rule{"host-busy", Aborts, "EXECUTE_JOB on a host that runs a job, without compute sharing (or with no free slot)"}
	RuleHostOff        = Rule{"host-off", Aborts, "EXECUTE_JOB on a host that sleeps or is switching on or off"}
	RuleHostUnavail    = Rule{"host-unavailable", Aborts, "EXECUTE_JOB on a host an external event made unavailable (NOTIFY event_machine_unavailable)"}
	RuleRefusedJob     = Rule{"refused-job", Accepts, "a start of a job the policy refused at its submission (bucma's own rule)"}
	RuleKillNotRunning = Rule{"kill-not-running", Aborts, "KILL_JOB of a job that is waiting (not running)"}
	RuleKillUnderWay   = Rule{"kill-under-way", Accepts, "KILL_JOB of a job whose kill was already asked (Batsim leaves it out)"}
	RuleKillTwice      = Rule{"kill-twice", Accepts, "a job given twice in one KILL_JOB (Batsim leaves the second out)"}
	RuleCallTooSoon    = Rule{"call-too-soon", Accepts, "CALL_ME_LATER less than 1e-5 s after now (bucma's margin: the now a decision process reads is rounded, and Batsim aborts on a call that is not in its future)"}
	RuleNoHost         = Rule{"no-host", Aborts, "SET_RESOURCE_STATE with no host"}
	RulePStateUnknown  = Rule{"pstate-unknown", Aborts, "SET_RESOURCE_STATE to a pstate the host does not have"}
	RulePStateVirtual  = Rule{"pstate-virtual", Aborts, "SET_RESOURCE_STATE to one of the host's switching (virtual) pstates"}
	RulePStateSwitch   = Rule{"pstate-switching-host", Aborts, "SET_RESOURCE_STATE of a host that is switching on or off"}
	RulePStateSleep    = Rule{"pstate-sleep-to-sleep", Aborts, "SET_RESOURCE_STATE from a sleep pstate to another"}
	RulePStateBusy     = Rule{"pstate-busy-host", Aborts, "SET_RESOURCE_STATE switching off a host that runs jobs"}
	RuleNoDynamicJobs  = Rule{"dynamic-jobs-disabled", Aborts, "REGISTER_JOB, REGISTER_PROFILE or NOTIFY registration_finished while Batsim runs without --enable-dynamic-jobs"}
	RuleRegClosed      = Rule{"registration-closed", Aborts, "REGISTER_JOB or REGISTER_PROFILE after NOTIFY registration_finished"}
	RuleRegTwice       = Rule{"registration-finished-twice", Accepts, "NOTIFY registration_finished sent again (Batsim ignores it)"}
	RuleJobExists      = Rule{"job-exists", Aborts, "REGISTER_JOB of a job id Batsim knows (or knew)"}
	RuleProfileExists  = Rule{"profile-exists", Aborts, "REGISTER_PROFILE of a profile name already registered in its workload"}
	RuleTimestampOrder = Rule{"timestamp-order", Misreads, "a decision dated earlier than the one before it in the reply (Batsim applies the decisions in order, each at the later of its date and the clock: this one later than its date)"}
)

// DecisionRules are the rules above, in order.
func DecisionRules() []Rule {
	return []Rule{RuleUnknownJob, RuleJobNotWaiting, RuleAllocSize, RuleUnknownHost, RuleDuplicateHost, RuleHostBusy, RuleHostOff,
		RuleHostUnavail, RuleRefusedJob, RuleKillNotRunning, RuleKillUnderWay, RuleKillTwice, RuleCallTooSoon, RuleNoHost,
		RulePStateUnknown, RulePStateVirtual, RulePStateSwitch, RulePStateSleep, RulePStateBusy, RuleNoDynamicJobs,
		RuleRegClosed, RuleRegTwice, RuleJobExists, RuleProfileExists, RuleTimestampOrder}
}

// RuleError is a decision that breaks a rule.
type RuleError struct {
	Rule Rule
	Msg  string
}

// Error implements error.
func (e *RuleError) Error() string { return e.Msg }

func broken(r Rule, format string, args ...any) *RuleError {
	return &RuleError{Rule: r, Msg: fmt.Sprintf(format, args...)}
}

// DecisionError is the Decider's record of an invalid decision (Err): the
// rule it breaks and when.
type DecisionError struct {
	Time float64
	Rule Rule
	Msg  string
}

// Error implements error.
func (e *DecisionError) Error() string {
	return fmt.Sprintf("invalid decision at t=%v: %s", e.Time, e.Msg)
}

// checkStart is the rules of a start of waiting job j on hosts (as given:
// a host given twice is one of the rules) with n executors (len(hosts), or
// the executor mapping's size), dated at.
func (s *State) checkStart(j *Job, hosts []int, n int, at float64) *RuleError {
	if j.state != batsim.StateSubmitted {
		return broken(RuleJobNotWaiting, "start %s: job is %s, not waiting", j.id, j.state)
	}
	if !s.queued(j) {
		return broken(RuleUnknownJob, "start %s: unknown job", j.id)
	}
	if j.refused {
		return broken(RuleRefusedJob, "start %s: the job was refused at submission", j.id)
	}
	if n != j.res {
		return broken(RuleAllocSize, "start %s: %d hosts given for res=%d", j.id, n, j.res)
	}
	for _, id := range hosts {
		if id < 0 || id >= len(s.hosts) {
			return broken(RuleUnknownHost, "start %s: host %d does not exist", j.id, id)
		}
		h := &s.hosts[id]
		switch {
		case h.Free() || h.handedOver(at):
		case h.unavailable:
			return broken(RuleHostUnavail, "start %s: host %d is not free (unavailable)", j.id, id)
		case h.power != PowerOn:
			return broken(RuleHostOff, "start %s: host %d is not free (%s)", j.id, id, h.power)
		case h.Capacity() > 1:
			return broken(RuleHostBusy, "start %s: host %d has no free slot (%d jobs for %d slots)", j.id, id, len(h.jobs), h.Capacity())
		default:
			return broken(RuleHostBusy, "start %s: host %d is not free", j.id, id)
		}
	}
	if len(batsim.NewIntervalSet(hosts...)) != len(hosts) {
		return broken(RuleDuplicateHost, "start %s: a host is given twice in %v", j.id, hosts)
	}
	return nil
}

// applyStart starts j on alloc (sorted, each host once) at date at.
func (s *State) applyStart(j *Job, alloc batsim.IntervalSet, at float64) {
	for _, h := range alloc {
		host := &s.hosts[h]
		was := host.Free()
		host.jobs = append(host.jobs, j)
		if was && !host.Free() {
			s.nfree--
		}
	}
	s.dequeued(j)
	j.state = batsim.StateRunning
	j.start = max(s.now, at)
	j.alloc = alloc
	s.runStarted(j)
}

// checkReject is the rule of a rejection of j.
func checkReject(j *Job) *RuleError {
	if j.state != batsim.StateSubmitted {
		return broken(RuleJobNotWaiting, "reject %s: job is %s, not waiting", j.id, j.state)
	}
	return nil
}

// applyReject rejects waiting job j.
func (s *State) applyReject(j *Job) {
	s.dequeued(j)
	j.state = batsim.StateRejected
}

// checkKill is the rules of a kill of j, given the jobs before it in the
// same KILL_JOB.
func (s *State) checkKill(j *Job, before []*Job) *RuleError {
	if j.state != batsim.StateRunning {
		return broken(RuleKillNotRunning, "kill %s: job is %s, not running", j.id, j.state)
	}
	if cur, ok := s.running[j.id]; !ok || cur != j {
		return broken(RuleUnknownJob, "kill %s: unknown job", j.id)
	}
	if j.killing {
		return broken(RuleKillUnderWay, "kill %s: a kill of this job is already under way", j.id)
	}
	for _, k := range before {
		if k == j {
			return broken(RuleKillTwice, "kill %s: job given twice", j.id)
		}
	}
	return nil
}

// applyKill records the kills of jobs asked at date at: their hosts are
// freed by their JOB_COMPLETED.
func (s *State) applyKill(jobs []*Job, at float64) {
	for _, j := range jobs {
		j.killing = true
		j.x().killAt = at
	}
	s.nkilling += len(jobs)
}

// checkPState is the rules of putting hosts in pstate ps.
func (s *State) checkPState(hosts []int, ps int) *RuleError {
	if len(hosts) == 0 {
		return broken(RuleNoHost, "SET_RESOURCE_STATE: no host")
	}
	set := batsim.NewIntervalSet(hosts...)
	if len(set) != len(hosts) {
		return broken(RuleDuplicateHost, "SET_RESOURCE_STATE: a host is given twice in %v", hosts)
	}
	for _, id := range set {
		if id < 0 || id >= len(s.hosts) {
			return broken(RuleUnknownHost, "SET_RESOURCE_STATE: host %d does not exist", id)
		}
		h := &s.hosts[id]
		switch {
		case ps < 0 || (h.pstates != nil && h.pstates.n > 0 && ps >= h.pstates.n):
			return broken(RulePStateUnknown, "SET_RESOURCE_STATE: host %d (%s) has no pstate %d", id, h.name, ps)
		case h.pstates != nil && h.pstates.virt[ps]:
			return broken(RulePStateVirtual, "SET_RESOURCE_STATE: pstate %d of host %d (%s) is a switching pstate, which cannot be requested", ps, id, h.name)
		case h.power == PowerSwitchingOff || h.power == PowerSwitchingOn:
			return broken(RulePStateSwitch, "SET_RESOURCE_STATE: host %d (%s) is %s", id, h.name, h.power)
		case h.isSleep(ps) && h.power == PowerSleeping:
			return broken(RulePStateSleep, "SET_RESOURCE_STATE: host %d (%s) sleeps: it cannot go to another sleep pstate", id, h.name)
		case h.isSleep(ps) && len(h.jobs) > 0:
			return broken(RulePStateBusy, "SET_RESOURCE_STATE: host %d (%s) runs %d job(s): it cannot be switched off", id, h.name, len(h.jobs))
		}
	}
	return nil
}

// applyPState puts the hosts of set in pstate ps: a sleep pstate switches
// them off, another pstate wakes a sleeping host up or changes the pstate
// of a host that is on.
func (s *State) applyPState(set batsim.IntervalSet, ps int) {
	for _, id := range set {
		h := &s.hosts[id]
		was := h.Free()
		switch {
		case h.isSleep(ps):
			h.power = PowerSwitchingOff
		case h.power == PowerSleeping:
			h.power = PowerSwitchingOn
		default:
			h.pstate = ps
		}
		if was && !h.Free() {
			s.nfree--
		}
	}
}

// checkRegistering is the rules of any registration (a job or a
// profile), named what.
func (s *State) checkRegistering(what string) *RuleError {
	if !s.config.DynamicJobsEnabled {
		return broken(RuleNoDynamicJobs, "%s: Batsim runs without dynamic jobs (--enable-dynamic-jobs)", what)
	}
	if s.RegistrationFinished() {
		return broken(RuleRegClosed, "%s: registration_finished was already sent", what)
	}
	return nil
}

// checkRegisterJob is the rules of a registration of job id.
func (s *Session) checkRegisterJob(id string) *RuleError {
	if err := s.state.checkRegistering("register " + id); err != nil {
		return err
	}
	_, done := s.finished[id]
	if _, known := s.state.jobs[id]; known || done {
		return broken(RuleJobExists, "register %s: the job already exists", id)
	}
	if s.state.dynamic != nil && s.state.dynamic.registered[id] {
		return broken(RuleJobExists, "register %s: the job was already registered", id)
	}
	return nil
}

// checkRegisterProfile is the rules of a registration of profile name in
// workload wl (for job, when it comes with one).
func (s *State) checkRegisterProfile(job, wl, name string) *RuleError {
	what := "register " + job
	if job == "" {
		what = "register profile " + wl + "!" + name
	}
	if err := s.checkRegistering(what); err != nil {
		return err
	}
	if s.dynamic != nil && s.dynamic.used[wl+"!"+name] {
		return broken(RuleProfileExists, "%s: profile %q of workload %q was already registered (Batsim aborts on a second registration)", what, name, wl)
	}
	return nil
}

// applyRegisterProfile records the registration of profile name of
// workload wl.
func (s *State) applyRegisterProfile(wl, name string, profile []byte) {
	s.dyn().used[wl+"!"+name] = true
	s.addProfile(wl, name, profile)
}

// checkFinishRegistration is the rules of NOTIFY registration_finished.
func (s *State) checkFinishRegistration() *RuleError {
	if !s.config.DynamicJobsEnabled {
		return broken(RuleNoDynamicJobs, "registration_finished: Batsim runs without dynamic jobs (--enable-dynamic-jobs)")
	}
	if s.RegistrationFinished() {
		return broken(RuleRegTwice, "registration_finished was already sent")
	}
	return nil
}
