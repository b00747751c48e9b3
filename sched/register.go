package sched

import (
	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
)

// RegistrationCloser is implemented by Registrars that say themselves when
// no job will be registered any more (Decider.FinishRegistration): the
// framework then never sends NOTIFY registration_finished on their behalf,
// and the simulation cannot end before they do.
type RegistrationCloser interface {
	ClosesRegistration() bool
}

// closesRegistration reports whether the policy sends registration_finished
// itself.
func closesRegistration(p Policy) bool {
	c, ok := p.(RegistrationCloser)
	return ok && c.ClosesRegistration()
}

// Register registers a new dynamic job of the policy's own (not a piece of
// a killed job: see Resubmit): id is its full id "W!N", job its JSON object
// as Batsim reads it (id, subtime, res, profile, and walltime if any).
// When profile is not nil, the profile profileName of workload W is
// registered first (REGISTER_PROFILE; Batsim aborts on a name registered
// twice in a workload, which Register refuses). Batsim must run with
// --enable-dynamic-jobs and registration_finished must not have been sent.
//
// Without --acknowledge-dynamic-jobs the job joins the waiting queue at
// once, submitted now (the policy may start it in the same decision) and
// Register returns it; with, it joins when its JOB_SUBMITTED arrives and
// Register returns nil.
func (d *Decider) Register(id string, job json.RawMessage, profileName string, profile json.RawMessage) (*Job, bool) {
	if d.err != nil {
		return nil, false
	}
	s := d.s
	if d.sess == nil {
		return nil, d.fail("register %s: no session", id)
	}
	if err := d.sess.checkRegisterJob(id); err != nil {
		return nil, d.broke(err)
	}
	pid, err := batsim.ParseJobID(id)
	if err != nil {
		return nil, d.fail("register: %v", err)
	}
	dyn := s.dyn()
	if profile != nil {
		if err := s.checkRegisterProfile(id, pid.Workload, profileName); err != nil {
			return nil, d.broke(err)
		}
		if err := d.reply.RegisterProfile(pid.Workload, profileName, profile); err != nil {
			return nil, d.fail("register %s: %v", id, err)
		}
		s.applyRegisterProfile(pid.Workload, profileName, profile)
	}
	nj, err := parseJob(&batsim.JobSubmitted{JobID: id, Job: job}, d.reply.Now())
	if err != nil {
		return nil, d.fail("register %s: %v", id, err)
	}
	if err := d.reply.RegisterJob(id, job); err != nil {
		return nil, d.fail("register %s: %v", id, err)
	}
	if dyn.registered == nil {
		dyn.registered = map[string]bool{}
	}
	dyn.registered[id] = true
	if s.config.DynamicJobsAcknowledged {
		return nil, true
	}
	if d.sess.cfg.Spec.JobJSON {
		nj.setRaw(job)
	}
	nj.state = batsim.StateSubmitted
	d.submitted = append(d.submitted, nj)
	d.sess.submit(nj, nil)
	return nj, true
}

// FinishRegistration sends NOTIFY registration_finished: no job will be
// registered any more (a RegistrationCloser says so itself). It refuses a
// second one.
func (d *Decider) FinishRegistration() bool {
	if d.err != nil {
		return false
	}
	if err := d.s.checkFinishRegistration(); err != nil {
		return d.broke(err)
	}
	d.reply.RegistrationFinished()
	d.s.dyn().finished = true
	return true
}
