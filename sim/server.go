package sim

import (
	"fmt"
	"strings"

	json "github.com/goccy/go-json"

	"bucma/protocol"
	"bucma/workloads"
)

// Batsim's server (server_process): it receives the messages of every other
// actor, keeps the simulation's state, gathers the events for the
// scheduler, and sends them when the scheduler is ready and nothing else is
// waiting in its mailbox.

// message kinds sent to the server.
type mkind uint8

const (
	mHello mkind = iota
	mBye
	mSubmit
	mCompleted
	mWaitingDone
	mKillingDone
	mReady
	mDecision
)

// imsg is a message to the server.
type imsg struct {
	kind   mkind
	jobs   []*job // mSubmit
	job    *job   // mCompleted
	ev     *protocol.Event
	killed *killDone
}

type killDone struct {
	ids      []*job
	progress map[string]*protocol.JobProgress
}

func (e *engine) serverActor(a *actor) {
	e.appendEvent(protocol.TypeSimulationBegins, &protocol.SimulationBegins{})
	e.buffer[0].Data = e.simulationBegins()
	e.sendToScheduler(a)
	for !e.endAck {
		m := a.recv(e.server).(*imsg)
		if err := e.handle(a, m); err != nil {
			a.Abort(err)
		}
		if e.schedReady && !e.endAck && e.server.empty() {
			if len(e.buffer) > 0 {
				e.sendToScheduler(a)
				for _, j := range e.toDelete {
					j.deleted = true
				}
				e.toDelete = e.toDelete[:0]
			} else if e.finished() && !e.endSent {
				e.appendEvent(protocol.TypeSimulationEnds, &protocol.SimulationEnds{})
				e.sendToScheduler(a)
				e.endSent = true
			}
		}
	}
	e.serverDone = true
}

// sendToScheduler is generate_and_send_message: a REQ-REP actor takes the
// buffered events to the scheduler.
func (e *engine) sendToScheduler(a *actor) {
	events, now := e.buffer, e.k.now
	e.buffer = make([]protocol.Event, 0, 4)
	a.create(e.spawn("Scheduler REQ-REP", e.master, func(r *actor) { e.reqRep(r, events, now) }))
	e.schedReady = false
}

func (e *engine) finished() bool {
	return e.finishedJS == e.expectedJS &&
		(!e.cfg.DynamicJobs || e.regFinished) &&
		e.nbCompleted == e.nbSubmitted && e.nbRunning == 0 && e.nbWaiters == 0 && e.nbKillers == 0
}

func (e *engine) appendEvent(typ string, data any) {
	e.buffer = append(e.buffer, protocol.Event{Timestamp: e.k.now, Type: typ, Data: data})
}

// completed records the end of job j (completed, or killed): the
// JOB_COMPLETED event for the scheduler and the job's row.
func (e *engine) completed(j *job) error {
	e.nbRunning--
	e.nbCompleted++
	e.appendEvent(protocol.TypeJobCompleted, &protocol.JobCompleted{JobID: j.id, JobState: j.state, ReturnCode: j.ret, Alloc: j.run.allocStr})
	if err := e.writeJob(j); err != nil {
		return err
	}
	e.toDelete = append(e.toDelete, j)
	return nil
}

// handle is the server's reaction to one message.
func (e *engine) handle(a *actor, m *imsg) error {
	switch m.kind {
	case mHello:
	case mBye:
		e.finishedJS++
		if e.finishedJS == e.expectedJS {
			e.appendEvent(protocol.TypeNotify, &protocol.Notify{Kind: protocol.NotifyNoMoreStaticJobToSubmit})
		}
	case mSubmit:
		for _, j := range m.jobs {
			if err := e.submit(j); err != nil {
				return err
			}
		}
	case mCompleted:
		if err := e.completed(m.job); err != nil {
			return err
		}
	case mWaitingDone:
		e.appendEvent(protocol.TypeRequestedCall, &protocol.RequestedCall{})
		e.nbWaiters--
	case mKillingDone:
		kd := m.killed
		ids := make([]string, len(kd.ids))
		for i, j := range kd.ids {
			ids[i] = j.id
			if j.state == protocol.StateKilled {
				if err := e.completed(j); err != nil {
					return err
				}
			}
		}
		e.appendEvent(protocol.TypeJobKilled, &protocol.JobKilled{JobIDs: ids, JobProgress: kd.progress})
		e.nbKillers--
	case mReady:
		e.schedReady = true
		if e.endSent {
			e.endAck = true
		}
	case mDecision:
		return e.decision(a, m.ev)
	}
	return nil
}

func (e *engine) submit(j *job) error {
	j.state = protocol.StateSubmitted
	e.nbSubmitted++
	fwd := j.desc
	if j.registered {
		var err error
		if fwd, err = forwardedJob(j.desc, j.id); err != nil {
			return e.fail("JOB_SUBMITTED "+j.id, "%v", err)
		}
	}
	js := &protocol.JobSubmitted{JobID: j.id, Job: fwd}
	if e.cfg.ForwardProfiles {
		js.Profile = j.prof.batsim
	}
	e.appendEvent(protocol.TypeJobSubmitted, js)
	return nil
}

// lookup finds a job Batsim still knows (it forgets a job once its end has
// been sent to the scheduler).
func (e *engine) lookup(id string) (*job, bool) {
	j, ok := e.jobs[id]
	if !ok || j.deleted || j.state == protocol.StateNotSubmitted {
		return nil, false
	}
	return j, true
}

// decision applies one scheduler event with Batsim 4.2.1's rules.
func (e *engine) decision(a *actor, ev *protocol.Event) error {
	switch d := ev.Data.(type) {
	case *protocol.ExecuteJob:
		return e.execute(a, d)
	case *protocol.RejectJob:
		name := "REJECT_JOB " + d.JobID
		j, ok := e.lookup(d.JobID)
		if !ok {
			return e.fail(name, "job does not exist")
		}
		if j.state != protocol.StateSubmitted {
			return e.fail(name, "invalid rejection: the job is %s; to be rejected, a job must be submitted and not allocated yet", j.state)
		}
		j.state = protocol.StateRejected
		e.nbCompleted++
		if err := e.writeJob(j); err != nil {
			return err
		}
		e.toDelete = append(e.toDelete, j)
	case *protocol.KillJob:
		var kill []*job
		for _, id := range d.JobIDs {
			j, ok := e.lookup(id)
			if !ok {
				return e.fail("KILL_JOB "+id, "trying to kill a job that does not exist (a job is forgotten once its completion was sent)")
			}
			if j.killReq {
				continue
			}
			if j.state != protocol.StateRunning && !isComplete(j.state) {
				return e.fail("KILL_JOB "+id, "invalid KILL_JOB: the job is %s, neither being executed nor completed", j.state)
			}
			j.killReq = true
			kill = append(kill, j)
		}
		if len(kill) > 0 {
			kd := &killDone{ids: kill, progress: map[string]*protocol.JobProgress{}}
			a.create(e.spawn("killer_process", e.master, func(k *actor) { e.killer(k, kd) }))
			e.nbKillers++
		}
	case *protocol.CallMeLater:
		if !(d.At > e.k.now) {
			return e.fail("CALL_ME_LATER", "you asked to be awaken in the past (you ask: %f, it is: %f); the k-th event of a reply is applied k master-loopback latencies after the reply's time", d.At, e.k.now)
		}
		target := d.At
		a.create(e.spawn(fmt.Sprintf("waiter %f", target), e.master, func(w *actor) { e.waiter(w, target) }))
		e.nbWaiters++
	case *protocol.RegisterProfile:
		// registered by the REQ-REP actor when it read the reply
	case *protocol.RegisterJob:
		e.nbSubmitted++
		if e.cfg.AcknowledgeDynamicJob {
			j := e.jobs[d.JobID]
			fwd, err := forwardedJob(j.desc, j.id)
			if err != nil {
				return e.fail("REGISTER_JOB "+d.JobID, "%v", err)
			}
			js := &protocol.JobSubmitted{JobID: j.id, Job: fwd}
			if e.cfg.ForwardProfiles {
				js.Profile = j.prof.batsim
			}
			e.appendEvent(protocol.TypeJobSubmitted, js)
		}
	case *protocol.Notify:
		switch d.Kind {
		case protocol.NotifyRegistrationFinished, protocol.NotifyContinueRegistration:
			if !e.cfg.DynamicJobs {
				return e.fail("NOTIFY "+d.Kind, "dynamic jobs are not enabled (--enable-dynamic-jobs)")
			}
			e.regFinished = d.Kind == protocol.NotifyRegistrationFinished
		default:
			return e.fail("NOTIFY "+d.Kind, "a scheduler may only send %s or %s", protocol.NotifyRegistrationFinished, protocol.NotifyContinueRegistration)
		}
	case *protocol.SetJobMetadata:
		j, ok := e.lookup(d.JobID)
		if !ok {
			return e.fail("SET_JOB_METADATA "+d.JobID, "the job does not exist, cannot set its metadata")
		}
		if strings.Contains(d.Metadata, `"`) {
			return e.fail("SET_JOB_METADATA "+d.JobID, "metadata must not contain a double quote")
		}
		j.metadata = d.Metadata
	case *protocol.SetResourceState:
		return e.fail("SET_RESOURCE_STATE", "pstate changes need Batsim's energy support (-E), which the engine does not model")
	case *protocol.SchedulerQuery:
		return e.fail("QUERY", "consumed_energy needs Batsim's energy support (-E), which the engine does not model")
	case *protocol.ToJobMsg:
		if _, ok := e.lookup(d.JobID); !ok {
			return e.fail("TO_JOB_MSG "+d.JobID, "the job does not exist, cannot send a message to it")
		}
		e.log.Warn("TO_JOB_MSG ignored: the engine has no recv profile", "job", d.JobID)
	case *protocol.ChangeJobState:
		return e.fail("CHANGE_JOB_STATE "+d.JobID, "not supported by the engine")
	default:
		return e.fail(ev.Type, "unknown or unsupported event type (Batsim aborts on it)")
	}
	return nil
}

func isComplete(state string) bool {
	switch state {
	case protocol.StateSuccess, protocol.StateFailed, protocol.StateWalltimeReached, protocol.StateKilled:
		return true
	}
	return false
}

// execute is server_on_execute_job: the checks, then the job's actor on
// the first host of the allocation.
func (e *engine) execute(a *actor, d *protocol.ExecuteJob) error {
	name := "EXECUTE_JOB " + d.JobID
	j, ok := e.lookup(d.JobID)
	if !ok {
		if _, known := e.jobs[d.JobID]; known {
			return e.fail(name, "the job is not registered in Batsim anymore (it ended and its end was sent)")
		}
		return e.fail(name, "trying to execute a job which is not registered in the workload")
	}
	if j.state != protocol.StateSubmitted {
		return e.fail(name, "cannot execute the job: its state (%s) is not SUBMITTED", j.state)
	}
	if d.StorageMapping != nil || d.AdditionalIOJob != nil {
		return e.fail(name, "storage_mapping and additional_io_job are not supported by the engine")
	}
	if len(d.Alloc) == 0 {
		return e.fail(name, "empty allocation")
	}
	for _, h := range d.Alloc {
		if h < 0 || h >= e.nhosts+e.nstore {
			return e.fail(name, "cannot get machine %d: it does not exist", h)
		}
		if h < e.nhosts {
			if o := e.hostJob[h]; o != nil {
				return e.fail(name, "invalid allocation: machine %d (%s) is currently computing job %s whereas time-sharing on compute machines is disabled", h, e.names[h], o.id)
			}
		}
	}
	if !j.prof.onlyHomogeneousTotal() {
		if d.Mapping != nil {
			if len(d.Mapping) != j.res {
				return e.fail(name, "allocation is invalid: the custom mapping size (%d) does not match the job requested number of machines (%d)", len(d.Mapping), j.res)
			}
		} else if len(d.Alloc) != j.res {
			return e.fail(name, "allocation (%q) is invalid: the job requires %d machines but %d were given (only parallel_homogeneous_total jobs may get a different number)", d.Alloc.String(), j.res, len(d.Alloc))
		}
	}
	j.state = protocol.StateRunning
	e.nbRunning++
	run := &jobRun{alloc: d.Alloc, allocStr: d.Alloc.String()}
	j.run = run
	if d.Mapping != nil {
		run.hosts = make([]int, len(d.Mapping))
		for i := range run.hosts {
			if m := d.Mapping[i]; m < 0 || m >= len(d.Alloc) {
				return e.fail(name, "mapping of executor %d: %d is not a position in the allocation (0..%d)", i, m, len(d.Alloc)-1)
			}
			run.hosts[i] = d.Alloc[d.Mapping[i]]
		}
	} else {
		run.hosts = d.Alloc
	}
	run.actor = e.spawn("job_"+j.id, d.Alloc[0], func(x *actor) { e.jobActor(x, j) })
	a.create(run.actor)
	return nil
}

// registerProfile is handle_register_profile, applied when the REQ-REP
// actor reads the reply.
func (e *engine) registerProfile(d *protocol.RegisterProfile) error {
	name := fmt.Sprintf("REGISTER_PROFILE %s/%s", d.WorkloadName, d.ProfileName)
	if !e.cfg.DynamicJobs {
		return e.fail(name, "dynamic jobs are not enabled (--enable-dynamic-jobs)")
	}
	if e.regFinished {
		return e.fail(name, "registration already finished (NOTIFY registration_finished was sent)")
	}
	wl, ok := e.workloads[d.WorkloadName]
	if !ok {
		wl = &workload{name: d.WorkloadName, profiles: map[string]*profile{}}
		e.workloads[d.WorkloadName] = wl
	}
	if _, dup := wl.profiles[d.ProfileName]; dup {
		return e.fail(name, "invalid profile registration: the profile has already been registered in this workload")
	}
	doc := append([]byte(`{"nb_res":1,"jobs":[],"profiles":{`), mustQuote(d.ProfileName)...)
	doc = append(doc, ':')
	doc = append(doc, d.Profile...)
	doc = append(doc, "}}"...)
	pw, err := workloads.Parse(doc, "REGISTER_PROFILE")
	if err != nil {
		return e.fail(name, "invalid JSON profile received from the scheduler: %v", err)
	}
	pr, ok := pw.Profiles[d.ProfileName]
	if !ok {
		return e.fail(name, "invalid JSON profile received from the scheduler")
	}
	p, err := newProfile(d.ProfileName, pr, &e.registered)
	if err != nil {
		return e.fail(name, "%v", err)
	}
	if p.typ == workloads.TypeComposed && p.ext != nil {
		for _, n := range p.ext.seqNames {
			s, ok := wl.profiles[n]
			if !ok {
				return e.fail(name, "composed profile uses unknown profile %q", n)
			}
			p.ext.seq = append(p.ext.seq, s)
		}
	}
	wl.profiles[d.ProfileName] = p
	return nil
}

func mustQuote(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// registerJob is handle_register_job, applied when the REQ-REP actor
// reads the reply: the job exists from then on.
func (e *engine) registerJob(d *protocol.RegisterJob) error {
	name := "REGISTER_JOB " + d.JobID
	if !e.cfg.DynamicJobs {
		return e.fail(name, "dynamic jobs are not enabled (--enable-dynamic-jobs)")
	}
	if e.regFinished {
		return e.fail(name, "registration already finished (NOTIFY registration_finished was sent)")
	}
	id, err := protocol.ParseJobID(d.JobID)
	if err != nil {
		return e.fail(name, "%v", err)
	}
	wl, ok := e.workloads[id.Workload]
	if !ok {
		return e.fail(name, "workload %q does not exist (register a profile in it first)", id.Workload)
	}
	if j, exists := e.jobs[d.JobID]; exists && !j.deleted {
		return e.fail(name, "cannot register the job: it already exists in the workload")
	}
	if err := protocol.CheckRegisteredJob(d.Job); err != nil {
		return e.fail(name, "invalid JSON job submitted by the scheduler: %v", err)
	}
	// Numbers as Batsim reads them (rapidjson).
	var f struct {
		Subtime  protocol.Double  `json:"subtime"`
		Res      protocol.Double  `json:"res"`
		Profile  string           `json:"profile"`
		Walltime *protocol.Double `json:"walltime"`
	}
	if err := json.Unmarshal(d.Job, &f); err != nil {
		return e.fail(name, "invalid JSON job submitted by the scheduler: %v", err)
	}
	p, ok := wl.profiles[f.Profile]
	if !ok {
		return e.fail(name, "workload %s has no profile named %q (register it before the job)", wl.name, f.Profile)
	}
	wt := -1.0
	if f.Walltime != nil && *f.Walltime > 0 {
		wt = float64(*f.Walltime)
	}
	j := &job{id: d.JobID, wl: wl, desc: append(json.RawMessage(nil), d.Job...), subtime: float64(f.Subtime),
		res: int(f.Res), walltime: wt, prof: p, state: protocol.StateSubmitted, ret: -1, registered: true}

	e.jobs[d.JobID] = j
	return nil
}

// forwardedJob is the job object as Batsim 4.2.1 sends it in JOB_SUBMITTED:
// re-spelled like Batsim, every "id" rewritten to the full id.
func forwardedJob(raw []byte, fullID string) ([]byte, error) {
	c, err := workloads.BatsimJSON(raw)
	if err != nil {
		return nil, err
	}
	out := workloads.JobIDRewrite(c, fullID)
	if !json.Valid(out) {
		return nil, fmt.Errorf("replacing the job id by %q gives invalid JSON (Batsim aborts): %s", fullID, out)
	}
	return out, nil
}
