package simple

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/bucma-sched/bucma/sched"
)

func submitterSpec() sched.Spec {
	return sched.Spec{
		Name: "submitter",
		Description: "submitter: at most one start per decision (the first job of the queue, when it fits); when no job waits and a host is free, " +
			"register a dynamic delay job (1 s, then 11, 21, ... with increase=true), jobs of the workload \"dynamic\" (batsched's submitter with queue=batsched hosts=first-fit)",
		Options: append(queueOptions(),
			sched.OptionSpec{Name: "jobs", Default: "10", Help: "dynamic jobs to register (an integer >= 0; batsched's nb_jobs_to_submit); registration_finished follows the last"},
			sched.OptionSpec{Name: "increase", Default: "true", Values: []string{"true", "false"}, Help: "true: job k lasts 1 + 10k s (one profile each); false: every job lasts 1 s (one profile, registered once)"},
			metadataOption),
		DynamicJobs: true,
		New: func(opts sched.Options) (sched.Policy, error) {
			qd, err := newQueued(opts)
			if err != nil {
				return nil, err
			}
			n, err := strconv.Atoi(opts["jobs"])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("submitter: jobs=%q: want an integer >= 0", opts["jobs"])
			}
			return &Submitter{queued: qd, toSubmit: n, increase: opts["increase"] == "true",
				metadata: opts["metadata"] == "true", profiles: map[string]bool{}}, nil
		},
	}
}

// Submitter registers dynamic jobs while the platform has room: at each
// decision it starts the first job of the queue if it fits, then, when no
// job waits and a host is free, registers the next delay job of the
// workload "dynamic" (job k: "dynamic!k", one host, delay 1 s or 1 + 10k s,
// walltime delay + 5). Without --acknowledge-dynamic-jobs it starts the new
// job itself 10 s later (the reply's now moves that far), on the first free
// host. It sends registration_finished after the last job. The job objects
// are written as batsched's submitter writes them (C's %g: six significant
// digits), so that Batsim reads the same submission times.
type Submitter struct {
	queued
	toSubmit int
	increase bool
	metadata bool

	submitted int
	finished  bool
	profiles  map[string]bool
	released  []*sched.Job // submitted since the last decision
}

// RegistersDynamicJobs implements sched.Registrar.
func (p *Submitter) RegistersDynamicJobs() bool { return true }

// ClosesRegistration implements sched.RegistrationCloser.
func (p *Submitter) ClosesRegistration() bool { return true }

// RejectsInPlace implements sched.InPlaceRejecter: a job too large for the
// platform is rejected after its metadata, in arrival order.
func (p *Submitter) RejectsInPlace() bool { return true }

// SimulationBegins implements sched.Starter.
func (p *Submitter) SimulationBegins(s *sched.State) error {
	if !s.Config().DynamicJobsEnabled {
		return errors.New("submitter registers dynamic jobs: run Batsim with --enable-dynamic-jobs")
	}
	if !p.increase && p.toSubmit > 1 && !s.Config().ProfileReuseEnabled {
		return errors.New("submitter with increase=false registers every job with one profile: run Batsim with --enable-profile-reuse " +
			"(without it Batsim forgets a profile once its jobs have ended, and aborts when a later job uses it)")
	}
	return nil
}

// JobSubmitted implements sched.SubmitObserver.
func (p *Submitter) JobSubmitted(_ *sched.State, j *sched.Job) {
	p.q.submitted(j)
	p.released = append(p.released, j)
}

// Decide implements sched.Policy.
func (p *Submitter) Decide(s *sched.State, d *sched.Decider) {
	for _, j := range p.released {
		if p.metadata {
			setMetadata(d, j.ID())
		}
		if j.Refused() && j.Waiting() {
			d.Reject(j)
		}
	}
	clear(p.released)
	p.released = p.released[:0]
	p.q.update(s)
	if j := p.q.first(s); j != nil {
		if hosts, ok := p.place.fit(s, j); ok {
			d.Start(j, hosts)
		}
	}
	if p.q.first(s) == nil && s.NbFree() >= 1 && p.submitted < p.toSubmit {
		p.register(s, d)
	}
	if p.submitted >= p.toSubmit && !p.finished && d.Err() == nil {
		p.finished = d.FinishRegistration()
	}
}

// register registers the next dynamic job, and starts it 10 s later when
// Batsim does not acknowledge registrations.
func (p *Submitter) register(s *sched.State, d *sched.Decider) {
	delay := 1.0
	if p.increase {
		delay += float64(p.submitted) * 10
	}
	name := strconv.Itoa(p.submitted)
	id := "dynamic!" + name
	profName := "delay_" + strconv.FormatFloat(delay, 'f', 6, 64)
	job := fmt.Sprintf(`{"id":%q, "subtime":%s, "walltime":%s, "res":1, "profile":%q}`, name, cG(d.Reply().Now()), cG(delay+5), profName)
	var prof []byte
	if !p.profiles[profName] {
		prof = []byte(`{"type": "delay", "delay": ` + cG(delay) + `}`)
	}
	nj, ok := d.Register(id, []byte(job), profName, prof)
	if !ok {
		return
	}
	p.profiles[profName] = true
	if p.metadata {
		setMetadata(d, id)
	}
	p.submitted++
	if nj == nil {
		return
	}
	// Registered without acknowledgment, the job joined the queue at once
	// (JobSubmitted): batsched starts it without ever queueing it.
	p.released = p.released[:len(p.released)-1]
	r := d.Reply()
	if err := r.AdvanceTo(r.Now() + 10); err != nil {
		return
	}
	for h := range s.NbHosts() {
		if s.Host(h).Free() {
			d.Start(nj, []int{h})
			return
		}
	}
}

// cG formats x as C's printf("%g") does: six significant digits, trailing
// zeros dropped, an exponent (two digits at least) below 1e-4 and from
// 1e6 on.
func cG(x float64) string {
	if x == 0 {
		return "0"
	}
	e := strconv.FormatFloat(x, 'e', 5, 64) // d.ddddde±XX, rounded as %g rounds
	mant, exp, _ := strings.Cut(e, "e")
	x10, _ := strconv.Atoi(exp)
	if x10 >= -4 && x10 < 6 {
		f := strconv.FormatFloat(x, 'f', 5-x10, 64)
		if strings.Contains(f, ".") {
			f = strings.TrimRight(strings.TrimRight(f, "0"), ".")
		}
		return f
	}
	if strings.Contains(mant, ".") {
		mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
	}
	return mant + "e" + exp
}
