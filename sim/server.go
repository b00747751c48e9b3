package sim

import (
	"fmt"
	"slices"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/workloads"
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
	mSwitched
)

// imsg is a message to the server.
type imsg struct {
	kind   mkind
	jobs   []*job // mSubmit
	job    *job   // mCompleted
	ev     *batsim.Event
	killed *killDone
	// mSwitched: the machine and the pstate it reached
	host, pstate int
}

// msg returns a message to the server, reusing one the server has
// handled if there is one.
func (e *engine) msg(kind mkind) *imsg {
	m := popFree(&e.freeMsgs)
	if m == nil {
		return &imsg{kind: kind}
	}
	m.kind = kind
	return m
}

// freeMsg gives back a message the server has handled (nothing refers to
// it any more).
func (e *engine) freeMsg(m *imsg) {
	*m = imsg{}
	e.freeMsgs = append(e.freeMsgs, m)
}

type killDone struct {
	ids      []*job
	progress map[string]*batsim.JobProgress
}

// server is Batsim's server_process as a state machine: each phase runs to
// the next simcall, as the loop below would as a coroutine.
//
//	send SIMULATION_BEGINS
//	while the end is not acknowledged:
//	    m = receive()
//	    handle(m)                 (may create one actor: a job, a waiter, a killer)
//	    if the scheduler is ready and nothing waits in the mailbox:
//	        send the buffered events, or SIMULATION_ENDS once everything is over
type server struct {
	e     *engine
	phase uint8
}

const (
	srvStart      uint8 = iota
	srvLoop             // receive the next message
	srvWait             // wait for it
	srvHandle           // handle it
	srvAfterChild       // the actor it created is created
	srvSent             // a message went to the scheduler
	srvSentEnd          // SIMULATION_ENDS went to the scheduler
)

func (s *server) actorName() string { return "server" }

func (s *server) step(a *actor) bool {
	e := s.e
	for {
		switch s.phase {
		case srvStart:
			e.appendEvent(batsim.TypeSimulationBegins, &batsim.SimulationBegins{})
			e.buffer[0].Data = e.simulationBegins()
			e.sendToScheduler(a)
			s.phase = srvSent
			return true
		case srvLoop:
			if e.endAck {
				e.serverDone = true
				return false
			}
			a.issueRecv(e.server)
			s.phase = srvWait
			return true
		case srvWait:
			a.issueWait()
			s.phase = srvHandle
			return true
		case srvHandle:
			m := a.comm.payload.(*imsg)
			e.k.reuse(a.comm)
			child, err := e.handle(m)
			if err != nil {
				e.k.fail(err)
				return false
			}
			e.freeMsg(m)
			s.phase = srvAfterChild
			if child != nil {
				a.issue(simcall{kind: scCreate, child: child})
				return true
			}
		case srvAfterChild:
			if len(e.srvSteps) > 0 {
				st := &e.srvSteps[0]
				switch {
				case st.walk:
					if i := e.nextRead(&st.w); i >= 0 {
						a.issue(readSimcall(i))
						return true
					}
					e.srvSteps = e.srvSteps[1:]
					continue
				case st.nop:
					a.issue(simcall{kind: scNop})
				default:
					a.issue(simcall{kind: scCreate, child: st.child})
				}
				e.srvSteps = e.srvSteps[1:]
				return true
			}
			s.phase = srvLoop
			if e.schedReady && !e.endAck && e.server.empty() {
				if len(e.buffer) > 0 {
					e.sendToScheduler(a)
					s.phase = srvSent
					return true
				} else if e.finished() && !e.endSent {
					e.appendEvent(batsim.TypeSimulationEnds, &batsim.SimulationEnds{})
					e.sendToScheduler(a)
					s.phase = srvSentEnd
					return true
				}
			}
		case srvSent:
			e.schedReady = false
			for _, j := range e.toDelete {
				j.deleted = true
			}
			e.toDelete = e.toDelete[:0]
			s.phase = srvLoop
		case srvSentEnd:
			e.schedReady = false
			e.endSent = true
			s.phase = srvLoop
		}
	}
}

// sendToScheduler is generate_and_send_message: a REQ-REP actor takes the
// buffered events to the scheduler (the server's simcall is its creation;
// the server goes on with srvSent or srvSentEnd).
func (e *engine) sendToScheduler(a *actor) {
	events, now := e.buffer, e.k.now
	e.buffer = make([]batsim.Event, 0, 4)
	a.issue(simcall{kind: scCreate, child: e.newReqRep(events, now)})
}

func (e *engine) finished() bool {
	return e.finishedJS == e.expectedJS &&
		(!e.cfg.DynamicJobs || e.regFinished) &&
		e.nbCompleted == e.nbSubmitted && e.nbRunning == 0 && e.nbWaiters == 0 && e.nbKillers == 0 &&
		(e.en == nil || e.en.nbSwitching == 0)
}

func (e *engine) appendEvent(typ string, data any) {
	e.buffer = append(e.buffer, batsim.Event{Timestamp: e.k.now, Type: typ, Data: data})
}

// completed records the end of job j (completed, or killed): the
// JOB_COMPLETED event for the scheduler and the job's row.
func (e *engine) completed(j *job) error {
	e.nbRunning--
	e.nbCompleted++
	e.appendEvent(batsim.TypeJobCompleted, &batsim.JobCompleted{JobID: j.id, JobState: j.state.String(), ReturnCode: int(j.ret), Alloc: j.run.allocStr, AllocSet: j.run.alloc})
	if err := e.writeJob(j); err != nil {
		return err
	}
	e.toDelete = append(e.toDelete, j)
	return nil
}

// handle is the server's reaction to one message; child is the actor it
// creates, if any (its creation is the server's next simcall).
func (e *engine) handle(m *imsg) (child *actor, err error) {
	switch m.kind {
	case mHello:
	case mBye:
		e.finishedJS++
		if e.finishedJS == e.expectedJS {
			e.appendEvent(batsim.TypeNotify, &batsim.Notify{Kind: batsim.NotifyNoMoreStaticJobToSubmit})
		}
	case mSubmit:
		// One block for the batch's events (a workload submitted at once
		// is one batch of every job).
		e.buffer = slices.Grow(e.buffer, len(m.jobs))
		events := make([]batsim.JobSubmitted, len(m.jobs))
		// An in-process scheduler takes the jobs' fields as values, and
		// their descriptions only if it reads them (see typed.go).
		typed := e.typed
		desc := !typed || e.cfg.Observe != nil || e.sched.(typedScheduler).jobJSON()
		var fields []batsim.JobFields
		for i, j := range m.jobs {
			var f *batsim.JobFields
			if typed && j.typed {
				if fields == nil {
					fields = make([]batsim.JobFields, len(m.jobs))
				}
				f = &fields[i]
				j.setFields(f)
			}
			if err := e.submit(j, &events[i], f, desc || f == nil); err != nil {
				return nil, err
			}
		}
	case mCompleted:
		if err := e.completed(m.job); err != nil {
			return nil, err
		}
	case mWaitingDone:
		e.appendEvent(batsim.TypeRequestedCall, &batsim.RequestedCall{})
		e.nbWaiters--
	case mKillingDone:
		kd := m.killed
		ids := make([]string, len(kd.ids))
		for i, j := range kd.ids {
			ids[i] = j.id
			if j.state == stKilled {
				if err := e.completed(j); err != nil {
					return nil, err
				}
			}
		}
		e.appendEvent(batsim.TypeJobKilled, &batsim.JobKilled{JobIDs: ids, JobProgress: kd.progress})
		e.nbKillers--
	case mReady:
		e.schedReady = true
		if e.endSent {
			e.endAck = true
		}
	case mDecision:
		return e.decision(m.ev)
	case mSwitched:
		if e.switchDone(m.host, m.pstate) {
			e.srvSteps = append(e.srvSteps, srvStep{walk: true})
		}
		e.en.nbSwitching--
	}
	return nil, nil
}

// submit submits j, whose JOB_SUBMITTED is js: with its fields as values
// when f is set, its description when desc is.
func (e *engine) submit(j *job, js *batsim.JobSubmitted, f *batsim.JobFields, desc bool) error {
	j.state = stSubmitted
	e.nbSubmitted++
	fwd := j.desc
	if j.registered {
		var err error
		if fwd, err = forwardedJob(j.desc, j.id); err != nil {
			return e.fail("JOB_SUBMITTED "+j.id, "%v", err)
		}
	}
	*js = batsim.JobSubmitted{JobID: j.id, Fields: f}
	if desc {
		js.Job = fwd
	}
	if e.cfg.ForwardProfiles {
		js.Profile = j.prof.batsim
	}
	e.appendEvent(batsim.TypeJobSubmitted, js)
	if !j.registered {
		j.desc = nil // forwarded: not needed any more
	}
	return nil
}

// lookup finds a job Batsim still knows (it forgets a job once its end has
// been sent to the scheduler).
func (e *engine) lookup(id string) (*job, bool) {
	j, ok := e.jobs[id]
	if !ok || j.deleted || j.state == stNotSubmitted {
		return nil, false
	}
	return j, true
}

// decision applies one scheduler event with Batsim 4.2.1's rules; child
// is the actor it creates, if any.
func (e *engine) decision(ev *batsim.Event) (child *actor, err error) {
	switch d := ev.Data.(type) {
	case *batsim.ExecuteJob:
		return e.execute(d)
	case *batsim.RejectJob:
		name := "REJECT_JOB " + d.JobID
		j, ok := e.lookup(d.JobID)
		if !ok {
			return nil, e.fail(name, "job does not exist")
		}
		if j.state != stSubmitted {
			return nil, e.fail(name, "invalid rejection: the job is %s; to be rejected, a job must be submitted and not allocated yet", j.state)
		}
		j.state = stRejected
		e.nbCompleted++
		if err := e.writeJob(j); err != nil {
			return nil, err
		}
		e.toDelete = append(e.toDelete, j)
	case *batsim.KillJob:
		var kill []*job
		for _, id := range d.JobIDs {
			j, ok := e.lookup(id)
			if !ok {
				return nil, e.fail("KILL_JOB "+id, "trying to kill a job that does not exist (a job is forgotten once its completion was sent)")
			}
			if j.killReq {
				continue
			}
			if j.state != stRunning && !isComplete(j.state) {
				return nil, e.fail("KILL_JOB "+id, "invalid KILL_JOB: the job is %s, neither being executed nor completed", j.state)
			}
			j.killReq = true
			kill = append(kill, j)
		}
		if len(kill) > 0 {
			kd := &killDone{ids: kill, progress: map[string]*batsim.JobProgress{}}
			// Counted before the creation Batsim counts it after: only
			// the server reads the count.
			e.nbKillers++
			return e.spawn("killer_process", e.master, func(k *actor) { e.killer(k, kd) }), nil
		}
	case *batsim.CallMeLater:
		if !(d.At > e.k.now) {
			return nil, e.fail("CALL_ME_LATER", "you asked to be awaken in the past (you ask: %f, it is: %f); the k-th event of a reply is applied k master-loopback latencies after the reply's time", d.At, e.k.now)
		}
		// Counted before the creation Batsim counts it after: only the
		// server reads the count.
		e.nbWaiters++
		return e.k.spawnSM(e.master, &waiter{e: e, target: d.At}), nil
	case *batsim.RegisterProfile:
		// registered by the REQ-REP actor when it read the reply
	case *batsim.RegisterJob:
		e.nbSubmitted++
		if e.cfg.AcknowledgeDynamicJob {
			j := e.jobs[d.JobID]
			fwd, err := forwardedJob(j.desc, j.id)
			if err != nil {
				return nil, e.fail("REGISTER_JOB "+d.JobID, "%v", err)
			}
			js := &batsim.JobSubmitted{JobID: j.id, Job: fwd}
			if e.cfg.ForwardProfiles {
				js.Profile = j.prof.batsim
			}
			e.appendEvent(batsim.TypeJobSubmitted, js)
		}
	case *batsim.Notify:
		switch d.Kind {
		case batsim.NotifyRegistrationFinished, batsim.NotifyContinueRegistration:
			if !e.cfg.DynamicJobs {
				return nil, e.fail("NOTIFY "+d.Kind, "dynamic jobs are not enabled (--enable-dynamic-jobs)")
			}
			e.regFinished = d.Kind == batsim.NotifyRegistrationFinished
		default:
			return nil, e.fail("NOTIFY "+d.Kind, "a scheduler may only send %s or %s", batsim.NotifyRegistrationFinished, batsim.NotifyContinueRegistration)
		}
	case *batsim.SetJobMetadata:
		j, ok := e.lookup(d.JobID)
		if !ok {
			return nil, e.fail("SET_JOB_METADATA "+d.JobID, "the job does not exist, cannot set its metadata")
		}
		if strings.Contains(d.Metadata, `"`) {
			return nil, e.fail("SET_JOB_METADATA "+d.JobID, "metadata must not contain a double quote")
		}
		if e.metadata == nil {
			e.metadata = map[*job]string{}
		}
		e.metadata[j] = d.Metadata
		j.hasMetadata = true
	case *batsim.SetResourceState:
		steps, err := e.setResourceState(d)
		if err != nil {
			return nil, err
		}
		e.srvSteps = append(e.srvSteps, steps...)
	case *batsim.SchedulerQuery:
		if e.en == nil {
			return nil, e.fail("QUERY", "received a request about the energy consumption of the machines but energy simulation is not enabled (-E, --energy)")
		}
		total := e.totalEnergy()
		e.srvSteps = append(e.srvSteps, srvStep{walk: true})
		e.appendEvent(batsim.TypeAnswer, &batsim.BatsimAnswer{ConsumedEnergy: total.float64()})
	case *batsim.ToJobMsg:
		if _, ok := e.lookup(d.JobID); !ok {
			return nil, e.fail("TO_JOB_MSG "+d.JobID, "the job does not exist, cannot send a message to it")
		}
		e.log.Warn("TO_JOB_MSG ignored: the engine has no recv profile", "job", d.JobID)
	case *batsim.ChangeJobState:
		return nil, e.fail("CHANGE_JOB_STATE "+d.JobID, "not supported by the engine")
	default:
		return nil, e.fail(ev.Type, "unknown or unsupported event type (Batsim aborts on it)")
	}
	return nil, nil
}

func isComplete(state jobState) bool {
	switch state {
	case stSuccess, stFailed, stWalltimeReached, stKilled:
		return true
	}
	return false
}

// execute is server_on_execute_job: the checks, then the job's actor on
// the first host of the allocation (child, which the server creates).
func (e *engine) execute(d *batsim.ExecuteJob) (child *actor, err error) {
	// The event's name is only built for an error.
	fail := func(format string, args ...any) *Error { return e.fail("EXECUTE_JOB "+d.JobID, format, args...) }
	j, ok := e.lookup(d.JobID)
	if !ok {
		if _, known := e.jobs[d.JobID]; known {
			return nil, fail("the job is not registered in Batsim anymore (it ended and its end was sent)")
		}
		return nil, fail("trying to execute a job which is not registered in the workload")
	}
	if j.state != stSubmitted {
		return nil, fail("cannot execute the job: its state (%s) is not SUBMITTED", j.state)
	}
	if d.StorageMapping != nil || d.AdditionalIOJob != nil {
		return nil, fail("storage_mapping and additional_io_job are not supported by the engine")
	}
	if len(d.Alloc) == 0 {
		return nil, fail("empty allocation")
	}
	for _, h := range d.Alloc {
		if h < 0 || h >= e.nhosts+e.nstore {
			return nil, fail("cannot get machine %d: it does not exist", h)
		}
		if h < e.nhosts && !e.cfg.ComputeSharing {
			if o := e.hostJob[h]; o != nil {
				return nil, fail("invalid allocation: machine %d (%s) is currently computing job %s whereas time-sharing on compute machines is disabled", h, e.names[h], o.id)
			}
		}
		if e.en != nil && h < e.nhosts {
			if st := e.en.state[h]; st != msOn {
				return nil, fail("invalid job allocation (%s): machine %d (hostname='%s') cannot compute jobs now (the machine is not computing nor idle, its state is '%s')", d.Alloc, h, e.names[h], machineStateName(st))
			}
		}
	}
	if !j.prof.onlyHomogeneousTotal() {
		if d.Mapping != nil {
			if len(d.Mapping) != j.res {
				return nil, fail("allocation is invalid: the custom mapping size (%d) does not match the job requested number of machines (%d)", len(d.Mapping), j.res)
			}
		} else if len(d.Alloc) != j.res {
			return nil, fail("allocation (%q) is invalid: the job requires %d machines but %d were given (only parallel_homogeneous_total jobs may get a different number)", d.Alloc.String(), j.res, len(d.Alloc))
		}
	}
	j.state = stRunning
	e.nbRunning++
	run := &jobRun{alloc: d.Alloc, allocStr: d.Alloc.String()}
	j.run = run
	if d.Mapping != nil {
		run.hosts = make([]int, len(d.Mapping))
		for i := range run.hosts {
			if m := d.Mapping[i]; m < 0 || m >= len(d.Alloc) {
				return nil, fail("mapping of executor %d: %d is not a position in the allocation (0..%d)", i, m, len(d.Alloc)-1)
			}
			run.hosts[i] = d.Alloc[d.Mapping[i]]
		}
	} else {
		run.hosts = d.Alloc
	}
	run.actor = e.newJobActor(j, d.Alloc[0])
	return run.actor, nil
}

// registerProfile is handle_register_profile, applied when the REQ-REP
// actor reads the reply.
func (e *engine) registerProfile(d *batsim.RegisterProfile) error {
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
		if e.seqTasks == nil {
			e.seqTasks = newSequenceCounter()
		}
		if n := e.seqTasks.Tasks(p); n > workloads.MaxSequenceTasks {
			return e.fail(name, "composed profile runs %d tasks per execution (repeat × parts, nested sequences multiplied out), more than the %d the engine accepts (Batsim builds every task when the job starts)", n, workloads.MaxSequenceTasks)
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
func (e *engine) registerJob(d *batsim.RegisterJob) error {
	name := "REGISTER_JOB " + d.JobID
	if !e.cfg.DynamicJobs {
		return e.fail(name, "dynamic jobs are not enabled (--enable-dynamic-jobs)")
	}
	if e.regFinished {
		return e.fail(name, "registration already finished (NOTIFY registration_finished was sent)")
	}
	id, err := batsim.ParseJobID(d.JobID)
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
	if err := batsim.CheckRegisteredJob(d.Job); err != nil {
		return e.fail(name, "invalid JSON job submitted by the scheduler: %v", err)
	}
	// Numbers as Batsim reads them (rapidjson).
	var f struct {
		Subtime  batsim.Double  `json:"subtime"`
		Res      batsim.Double  `json:"res"`
		Profile  string         `json:"profile"`
		Walltime *batsim.Double `json:"walltime"`
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
		res: int(f.Res), walltime: wt, prof: p, state: stSubmitted, ret: -1, registered: true}

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
