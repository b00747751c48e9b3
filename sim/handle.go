package sim

import (
	"fmt"
	"math"
	"strings"

	json "github.com/goccy/go-json"

	"bucma/platforms"
	"bucma/protocol"
	"bucma/workloads"
)

type platformHost = platforms.Host

// handle is the server's reaction to one message, at t.
func (e *engine) handle(at stime, m *imsg) error {
	t := at.real()
	switch m.kind {
	case mHello:
	case mBye:
		e.finishedJS++
		if e.finishedJS == e.expectedJS {
			e.appendEvent(t, protocol.TypeNotify, &protocol.Notify{Kind: protocol.NotifyNoMoreStaticJobToSubmit})
		}
	case mSubmit:
		for _, j := range m.jobs {
			if err := e.submit(t, j); err != nil {
				return err
			}
		}
	case mCompleted:
		j := m.job
		e.nbRunning--
		e.nbCompleted++
		e.appendEvent(t, protocol.TypeJobCompleted, &protocol.JobCompleted{JobID: j.id, JobState: j.state, ReturnCode: j.ret, Alloc: j.allocStr})
		if err := e.writeJob(j); err != nil {
			return err
		}
		e.toDelete = append(e.toDelete, j)
	case mWaitingDone:
		e.appendEvent(t, protocol.TypeRequestedCall, &protocol.RequestedCall{})
		e.nbWaiters--
	case mKillingDone:
		kd := m.killed
		ids := make([]string, len(kd.ids))
		for i, j := range kd.ids {
			ids[i] = j.id
			if j.state == protocol.StateKilled {
				e.nbRunning--
				e.nbCompleted++
				e.appendEvent(t, protocol.TypeJobCompleted, &protocol.JobCompleted{JobID: j.id, JobState: j.state, ReturnCode: j.ret, Alloc: j.allocStr})
				if err := e.writeJob(j); err != nil {
					return err
				}
				e.toDelete = append(e.toDelete, j)
			}
		}
		e.appendEvent(t, protocol.TypeJobKilled, &protocol.JobKilled{JobIDs: ids, JobProgress: kd.progress})
		e.nbKillers--
	case mReady:
		e.schedReady = true
		if e.endSent {
			e.endAck = true
		}
	case mDecision:
		return e.decision(at, m.ev)
	}
	return nil
}

func (e *engine) appendEvent(t float64, typ string, data any) {
	e.buffer = append(e.buffer, protocol.Event{Timestamp: t, Type: typ, Data: data})
}

func (e *engine) submit(t float64, j *job) error {
	j.state = protocol.StateSubmitted
	e.nbSubmitted++
	fwd := j.fwd
	if fwd == nil {
		var err error
		if fwd, err = forwardedJob(j.raw, j.id); err != nil {
			return e.fail(t, "JOB_SUBMITTED "+j.id, "%v", err)
		}
	}
	js := &protocol.JobSubmitted{JobID: j.id, Job: fwd}
	if e.cfg.ForwardProfiles {
		js.Profile = j.prof.batsim
	}
	e.appendEvent(t, protocol.TypeJobSubmitted, js)
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

// decision applies one scheduler event at t with Batsim 4.2.1's rules.
func (e *engine) decision(at stime, ev *protocol.Event) error {
	t := at.real()
	switch d := ev.Data.(type) {
	case *protocol.ExecuteJob:
		return e.execute(at, d)
	case *protocol.RejectJob:
		name := "REJECT_JOB " + d.JobID
		j, ok := e.lookup(d.JobID)
		if !ok {
			return e.fail(t, name, "job does not exist")
		}
		if j.state != protocol.StateSubmitted {
			return e.fail(t, name, "invalid rejection: the job is %s; to be rejected, a job must be submitted and not allocated yet", j.state)
		}
		j.state = protocol.StateRejected
		e.nbCompleted++
		if err := e.writeJob(j); err != nil {
			return err
		}
		e.toDelete = append(e.toDelete, j)
	case *protocol.KillJob:
		name := "KILL_JOB"
		var kill []*job
		for _, id := range d.JobIDs {
			j, ok := e.lookup(id)
			if !ok {
				return e.fail(t, name+" "+id, "trying to kill a job that does not exist (a job is forgotten once its completion was sent)")
			}
			if j.killReq {
				continue
			}
			if j.state != protocol.StateRunning && !isComplete(j.state) {
				return e.fail(t, name+" "+id, "invalid KILL_JOB: the job is %s, neither being executed nor completed", j.state)
			}
			j.killReq = true
			kill = append(kill, j)
		}
		if len(kill) > 0 {
			e.nbKillers++
			e.schedule(at, evWake, nil, &killer{kd: &killDone{ids: kill, progress: map[string]*protocol.JobProgress{}}}, nil)
		}
	case *protocol.CallMeLater:
		if !later(d.At, at) {
			return e.fail(t, "CALL_ME_LATER", "you asked to be awaken in the past (you ask: %f, it is: %f); the k-th event of a reply is applied k master-loopback latencies after the reply's time", d.At, t)
		}
		e.nbWaiters++
		wake := stime{t: d.At}
		if d.At-t < 1e-5 {
			wake = stime{at.t + 1e-5, at.e}
		}
		e.schedule(wake, evWake, nil, &waiter{}, nil)
	case *protocol.RegisterProfile:
		return e.registerProfile(t, d)
	case *protocol.RegisterJob:
		return e.registerJob(t, d)
	case *protocol.Notify:
		switch d.Kind {
		case protocol.NotifyRegistrationFinished, protocol.NotifyContinueRegistration:
			if !e.cfg.DynamicJobs {
				return e.fail(t, "NOTIFY "+d.Kind, "dynamic jobs are not enabled (--enable-dynamic-jobs)")
			}
			e.regFinished = d.Kind == protocol.NotifyRegistrationFinished
		default:
			return e.fail(t, "NOTIFY "+d.Kind, "a scheduler may only send %s or %s", protocol.NotifyRegistrationFinished, protocol.NotifyContinueRegistration)
		}
	case *protocol.SetJobMetadata:
		j, ok := e.lookup(d.JobID)
		if !ok {
			return e.fail(t, "SET_JOB_METADATA "+d.JobID, "the job does not exist, cannot set its metadata")
		}
		if strings.Contains(d.Metadata, `"`) {
			return e.fail(t, "SET_JOB_METADATA "+d.JobID, "metadata must not contain a double quote")
		}
		j.metadata = d.Metadata
	case *protocol.SetResourceState:
		return e.fail(t, "SET_RESOURCE_STATE", "pstate changes need Batsim's energy support (-E), which the engine does not model")
	case *protocol.SchedulerQuery:
		return e.fail(t, "QUERY", "consumed_energy needs Batsim's energy support (-E), which the engine does not model")
	case *protocol.ToJobMsg:
		if _, ok := e.lookup(d.JobID); !ok {
			return e.fail(t, "TO_JOB_MSG "+d.JobID, "the job does not exist, cannot send a message to it")
		}
		e.log.Warn("TO_JOB_MSG ignored: the engine has no recv profile", "job", d.JobID)
	case *protocol.ChangeJobState:
		return e.fail(t, "CHANGE_JOB_STATE "+d.JobID, "not supported by the engine")
	default:
		return e.fail(t, ev.Type, "unknown or unsupported event type (Batsim aborts on it)")
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

func (e *engine) execute(at stime, d *protocol.ExecuteJob) error {
	t := at.real()
	name := "EXECUTE_JOB " + d.JobID
	j, ok := e.lookup(d.JobID)
	if !ok {
		if _, known := e.jobs[d.JobID]; known {
			return e.fail(t, name, "the job is not registered in Batsim anymore (it ended and its end was sent)")
		}
		return e.fail(t, name, "trying to execute a job which is not registered in the workload")
	}
	if j.state != protocol.StateSubmitted {
		return e.fail(t, name, "cannot execute the job: its state (%s) is not SUBMITTED", j.state)
	}
	if d.StorageMapping != nil || d.AdditionalIOJob != nil {
		return e.fail(t, name, "storage_mapping and additional_io_job are not supported by the engine")
	}
	if len(d.Alloc) == 0 {
		return e.fail(t, name, "empty allocation")
	}
	for _, h := range d.Alloc {
		if h < 0 || h >= e.nhosts+e.nstore {
			return e.fail(t, name, "cannot get machine %d: it does not exist", h)
		}
		if h >= e.nhosts {
			return e.fail(t, name, "machine %d is a storage resource: the engine runs jobs on compute resources only", h)
		}
		if o := e.hostJob[h]; o != nil {
			return e.fail(t, name, "invalid allocation: machine %d (%s) is currently computing job %s whereas time-sharing on compute machines is disabled", h, e.cfg.Platform.Hosts[h].Name, o.id)
		}
	}
	if !j.prof.onlyHomogeneousTotal() {
		if d.Mapping != nil {
			if len(d.Mapping) != j.res {
				return e.fail(t, name, "allocation is invalid: the custom mapping size (%d) does not match the job requested number of machines (%d)", len(d.Mapping), j.res)
			}
		} else if len(d.Alloc) != j.res {
			return e.fail(t, name, "allocation (%q) is invalid: the job requires %d machines but %d were given (only parallel_homogeneous_total jobs may get a different number)", d.Alloc.String(), j.res, len(d.Alloc))
		}
	}
	j.state = protocol.StateRunning
	e.nbRunning++
	j.start = t
	j.alloc = d.Alloc
	j.allocStr = d.Alloc.String()
	if d.Mapping != nil {
		j.mapped = true
		j.hosts = make([]int, len(d.Mapping))
		for i := range j.hosts {
			j.hosts[i] = d.Alloc[d.Mapping[i]]
		}
	} else {
		j.hosts = d.Alloc
	}
	if !e.comWarned && j.prof.hasCom() {
		e.comWarned = true
		e.log.Warn("communications (com > 0) are not modelled by the engine: parallel tasks run as if com were 0", "job", j.id, "profile", j.profName)
	}
	for _, h := range d.Alloc {
		e.hostJob[h] = j
		e.timeIdle += t - e.hostSince[h]
		e.hostSince[h] = t
	}
	w, err := e.walk(j, inf)
	if err != nil {
		return e.fail(t, name, "%v", err)
	}
	j.ret = w.ret
	e.schedule(stime{at.t + (w.end - j.start), at.e}, evJobEnd, nil, nil, j)
	return nil
}

var inf = math.Inf(1)

func (e *engine) registerProfile(t float64, d *protocol.RegisterProfile) error {
	name := fmt.Sprintf("REGISTER_PROFILE %s/%s", d.WorkloadName, d.ProfileName)
	if !e.cfg.DynamicJobs {
		return e.fail(t, name, "dynamic jobs are not enabled (--enable-dynamic-jobs)")
	}
	if e.regFinished {
		return e.fail(t, name, "registration already finished (NOTIFY registration_finished was sent)")
	}
	wl, ok := e.workloads[d.WorkloadName]
	if !ok {
		wl = &workload{name: d.WorkloadName, profiles: map[string]*profile{}}
		e.workloads[d.WorkloadName] = wl
	}
	if _, dup := wl.profiles[d.ProfileName]; dup {
		return e.fail(t, name, "invalid profile registration: the profile has already been registered in this workload")
	}
	doc := append([]byte(`{"nb_res":1,"jobs":[],"profiles":{`), mustQuote(d.ProfileName)...)
	doc = append(doc, ':')
	doc = append(doc, d.Profile...)
	doc = append(doc, "}}"...)
	pw, err := workloads.Parse(doc, "REGISTER_PROFILE")
	if err != nil {
		return e.fail(t, name, "invalid JSON profile received from the scheduler: %v", err)
	}
	pr, ok := pw.Profiles[d.ProfileName]
	if !ok {
		return e.fail(t, name, "invalid JSON profile received from the scheduler")
	}
	p, err := newProfile(d.ProfileName, pr)
	if err != nil {
		return e.fail(t, name, "%v", err)
	}
	if p.typ == workloads.TypeComposed {
		for _, n := range p.seqNames {
			s, ok := wl.profiles[n]
			if !ok {
				return e.fail(t, name, "composed profile uses unknown profile %q", n)
			}
			p.seq = append(p.seq, s)
		}
	}
	wl.profiles[d.ProfileName] = p
	return nil
}

func mustQuote(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

func (e *engine) registerJob(t float64, d *protocol.RegisterJob) error {
	name := "REGISTER_JOB " + d.JobID
	if !e.cfg.DynamicJobs {
		return e.fail(t, name, "dynamic jobs are not enabled (--enable-dynamic-jobs)")
	}
	if e.regFinished {
		return e.fail(t, name, "registration already finished (NOTIFY registration_finished was sent)")
	}
	id, err := protocol.ParseJobID(d.JobID)
	if err != nil {
		return e.fail(t, name, "%v", err)
	}
	wl, ok := e.workloads[id.Workload]
	if !ok {
		return e.fail(t, name, "workload %q does not exist (register a profile in it first)", id.Workload)
	}
	if j, exists := e.jobs[d.JobID]; exists && !j.deleted {
		return e.fail(t, name, "cannot register the job: it already exists in the workload")
	}
	if err := protocol.CheckRegisteredJob(d.Job); err != nil {
		return e.fail(t, name, "invalid JSON job submitted by the scheduler: %v", err)
	}
	var f struct {
		Subtime  float64  `json:"subtime"`
		Res      float64  `json:"res"`
		Profile  string   `json:"profile"`
		Walltime *float64 `json:"walltime"`
	}
	if err := json.Unmarshal(d.Job, &f); err != nil {
		return e.fail(t, name, "invalid JSON job submitted by the scheduler: %v", err)
	}
	p, ok := wl.profiles[f.Profile]
	if !ok {
		return e.fail(t, name, "workload %s has no profile named %q (register it before the job)", wl.name, f.Profile)
	}
	wt := -1.0
	if f.Walltime != nil && *f.Walltime > 0 {
		wt = *f.Walltime
	}
	j := &job{id: d.JobID, name: id.Name, wl: wl, raw: append(json.RawMessage(nil), d.Job...), subtime: f.Subtime,
		res: int(f.Res), walltime: wt, prof: p, profName: f.Profile, state: protocol.StateSubmitted, ret: -1}
	e.jobs[d.JobID] = j
	e.nbSubmitted++
	if e.cfg.AcknowledgeDynamicJob {
		fwd, err := forwardedJob(j.raw, j.id)
		if err != nil {
			return e.fail(t, name, "%v", err)
		}
		js := &protocol.JobSubmitted{JobID: j.id, Job: fwd}
		if e.cfg.ForwardProfiles {
			js.Profile = p.batsim
		}
		e.appendEvent(t, protocol.TypeJobSubmitted, js)
	}
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
