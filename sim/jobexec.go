package sim

import (
	"fmt"

	"bucma/protocol"
	"bucma/workloads"
)

// A job's execution, as Batsim's execute_job_process runs it on the first
// host of the allocation: the profile's task tree is executed part by part
// (a delay sleeps, a parallel task is one SimGrid parallel execution, a
// sequence runs its parts in turn), the walltime is checked part by part,
// and the server is told when the job ends.

// task is Batsim's BatTask: one node of a job's profile tree.
type task struct {
	prof *profile
	subs []*task
	// cur is current_task_index.
	cur           int
	exec          *execAct
	delayStart    float64
	delayRequired float64
}

func newTask(p *profile) *task {
	t := &task{prof: p, delayStart: -1}
	if p.typ == workloads.TypeComposed {
		for r := 0; r < int(p.repeat); r++ {
			for _, s := range p.seq() {
				t.subs = append(t.subs, newTask(s))
			}
		}
	}
	return t
}

// progress is the job_progress tree Batsim sends in JOB_KILLED.
func (t *task) progress(now float64) *protocol.JobProgress {
	if t.prof.typ == workloads.TypeComposed {
		idx := t.cur
		jp := &protocol.JobProgress{ProfileName: t.prof.name, CurrentTaskIndex: &idx}
		if t.cur < len(t.subs) {
			jp.CurrentTask = t.subs[t.cur].progress(now)
		}
		return jp
	}
	var v float64
	switch {
	case t.prof.isParallelTask():
		if t.exec != nil {
			v = 1 - t.exec.remains()
		}
	case t.prof.typ == workloads.TypeDelay:
		if t.delayRequired == 0 {
			v = 1
		} else {
			v = (now - t.delayStart) / t.delayRequired
		}
	}
	return &protocol.JobProgress{ProfileName: t.prof.name, Progress: &v}
}

// jobActor is execute_job_process.
func (e *engine) jobActor(a *actor, j *job) {
	run := j.run
	j.start = a.now()
	remaining := j.walltime
	run.task = newTask(j.prof)
	e.machinesRun(j)
	j.ret = e.execTask(a, j, run.task, &remaining)
	switch {
	case j.ret == 0:
		j.state = protocol.StateSuccess
	case j.ret > 0:
		j.state = protocol.StateFailed
	case j.ret == -1:
		j.state = protocol.StateWalltimeReached
	default:
		j.state = protocol.StateKilled
	}
	e.machinesEnd(j)
	e.setRuntime(j)
	if j.state != protocol.StateKilled {
		a.send(e.server, &imsg{kind: mCompleted, job: j}, 1)
	}
	run.actor = nil
}

// setRuntime is runtime = clock - starting_time (in long double), with
// Batsim's 1e-5 for a job that took no time.
func (e *engine) setRuntime(j *job) {
	var start ld
	j.runtimeLD.setF(e.k.now)
	start.setF(j.start)
	j.runtimeLD.sub(&j.runtimeLD, &start)
	if j.runtimeLD.isZero() {
		e.log.Warn("job computed in null time, counting 1e-5 s like Batsim", "job", j.id)
		j.runtimeLD.set(newLD(1e-5))
	}
}

// execTask is execute_task: the return code of one task.
func (e *engine) execTask(a *actor, j *job, t *task, remaining *float64) int {
	p := t.prof
	switch {
	case p.isParallelTask():
		return e.execPtask(a, j, t, remaining)
	case p.typ == workloads.TypeComposed:
		seq := p.seq()
		for it := 0; it < int(p.repeat); it++ {
			for i := range seq {
				t.cur = it*len(seq) + i
				if ret := e.execTask(a, j, t.subs[t.cur], remaining); ret != 0 {
					return ret
				}
			}
		}
		return int(p.ret)
	default: // delay
		t.delayStart = a.now()
		t.delayRequired = p.delay
		if delayTask(a, p.delay, remaining) == -1 {
			return -1
		}
		return int(p.ret)
	}
}

// delayTask is do_delay_task.
func delayTask(a *actor, d float64, remaining *float64) int {
	if *remaining < 0 || d < *remaining {
		a.sleepFor(d)
		if *remaining > 0 {
			*remaining -= d
		}
		return 0
	}
	a.sleepFor(*remaining)
	*remaining = 0
	return -1
}

// execPtask is execute_parallel_task: the task's computation and
// transfers as one parallel execution on the job's hosts. It returns the
// profile's return code, -1 (walltime reached) or -2 (killed).
func (e *engine) execPtask(a *actor, j *job, t *task, remaining *float64) int {
	p := t.prof
	hosts := j.run.hosts
	n := len(hosts)
	flops := make([]float64, 0, n)
	var bytes []float64
	switch p.typ {
	case workloads.TypeParallel:
		if len(p.cpus()) != n {
			a.Abort(e.fail("EXECUTE_JOB "+j.id, "the number of resources given by the allocation (%d) is different from the number of resources of profile %s (%d)", n, p.name, len(p.cpus())))
		}
		flops = append(flops, p.cpus()...)
		bytes = make([]float64, n*n)
		copy(bytes, p.comMat())
	case workloads.TypeParallelHomogeneous:
		for y := 0; y < n; y++ {
			flops = append(flops, p.cpu)
			if p.com > 0 {
				for x := 0; x < n; x++ {
					if x == y {
						bytes = append(bytes, 0)
					} else {
						bytes = append(bytes, p.com)
					}
				}
			}
		}
	case workloads.TypeParallelHomogeneousTotal:
		cpu := p.cpu / float64(n)
		com := p.com / float64(n)
		for y := 0; y < n; y++ {
			flops = append(flops, cpu)
			if com > 0 {
				for x := 0; x < n; x++ {
					if x == y {
						bytes = append(bytes, 0)
					} else {
						bytes = append(bytes, com)
					}
				}
			}
		}
	}
	for i, h := range hosts {
		if h >= e.nhosts && (flops[i] > 1e-10 || flops[i] < -1e-10) {
			a.Abort(e.fail("EXECUTE_JOB "+j.id, "some computation (%g) is assigned to storage node %d (%s)", flops[i], h, e.names[h]))
		}
	}
	x := &execAct{hosts: hosts, flops: flops, bytes: bytes, owner: a}
	t.exec = x
	ret := int(p.ret)
	if *remaining < 0 {
		a.startExec(x)
		if _, canceled := a.waitExec(x, -1); canceled {
			ret = -2
		}
		return ret
	}
	before := a.now()
	a.startExec(x)
	timedOut, canceled := a.waitExec(x, *remaining)
	switch {
	case timedOut:
		ret = -1
	case canceled:
		ret = -2
	}
	*remaining = *remaining - (a.now() - before)
	return ret
}

// machinesRun marks the job's hosts computing (time accounting of
// _schedule.csv).
func (e *engine) machinesRun(j *job) {
	t := e.k.now
	for _, h := range j.run.alloc {
		if h < e.nhosts {
			e.hostJob[h] = j
			e.timeIdle += t - e.hostSince[h]
			e.hostSince[h] = t
		}
	}
}

func (e *engine) machinesEnd(j *job) {
	t := e.k.now
	for _, h := range j.run.alloc {
		if h < e.nhosts && e.hostJob[h] == j {
			e.hostJob[h] = nil
			e.timeComp += t - e.hostSince[h]
			e.hostSince[h] = t
		}
	}
}

// killer is killer_process: it stops each running job (cancelling its
// parallel task, or killing its actor), then tells the server.
func (e *engine) killer(a *actor, kd *killDone) {
	for _, j := range kd.ids {
		if j.state != protocol.StateRunning {
			continue
		}
		if j.run.task != nil {
			kd.progress[j.id] = j.run.task.progress(a.now())
		}
		if !e.cancelPtask(a, j.run.task) {
			if j.run.actor != nil {
				a.kill(j.run.actor)
				j.run.actor = nil
			}
			j.state = protocol.StateKilled
			e.machinesEnd(j)
			e.setRuntime(j)
		}
	}
	a.send(e.server, &imsg{kind: mKillingDone, killed: kd}, 1)
}

// cancelPtask is cancel_ptask: whether a running parallel task was asked
// to stop (the job's actor then ends the job itself).
func (e *engine) cancelPtask(a *actor, t *task) bool {
	if t == nil {
		return false
	}
	cancelled := false
	if t.exec != nil {
		a.cancelExec(t.exec)
		cancelled = true
	}
	if len(t.subs) > 0 && !cancelled {
		cancelled = e.cancelPtask(a, t.subs[t.cur])
	}
	return cancelled
}

// waiter is waiter_process (CALL_ME_LATER).
func (e *engine) waiter(a *actor, target float64) {
	if cur := a.now(); cur < target {
		d := target - cur
		if d < 1e-5 {
			d = 1e-5
		}
		a.sleepFor(d)
	}
	if !e.endSent && !e.endAck {
		a.send(e.server, &imsg{kind: mWaitingDone}, 1)
	}
}

// submitter is static_job_submitter_process: the jobs of one workload file
// are sent to the server in batches of equal submission times, sleeping
// from one submission time to the next.
func (e *engine) submitter(a *actor, wl *workload) {
	a.send(e.server, &imsg{kind: mHello}, 1)
	cur := a.now()
	var batch []*job
	for _, j := range wl.static {
		if j.subtime > cur {
			if len(batch) > 0 {
				a.send(e.server, &imsg{kind: mSubmit, jobs: batch}, 1)
				batch = nil
			}
			a.sleepFor(ldSub(j.subtime, cur))
			cur = a.now()
		}
		batch = append(batch, j)
	}
	if len(batch) > 0 {
		a.send(e.server, &imsg{kind: mSubmit, jobs: batch}, 1)
	}
	a.send(e.server, &imsg{kind: mBye}, 1)
}

// reqRep is Batsim's "Scheduler REQ-REP" actor: it sends one message to
// the scheduler, then sends each event of the reply to the server at the
// event's timestamp (or at once if it is past), then the ready signal at
// the reply's now.
func (e *engine) reqRep(a *actor, events []protocol.Event, now float64) {
	reply, err := e.exchange(events, now)
	if err != nil {
		a.Abort(err)
	}
	for i := range reply.Events {
		ev := &reply.Events[i]
		var err error
		switch d := ev.Data.(type) {
		case *protocol.RegisterProfile:
			err = e.registerProfile(d)
		case *protocol.RegisterJob:
			err = e.registerJob(d)
		}
		if err != nil {
			a.Abort(err)
		}
		if ev.Type == protocol.TypeAnswer {
			// Batsim only logs a warning for an ANSWER: nothing is sent.
			e.log.Warn("ignoring ANSWER from the scheduler")
			continue
		}
		e.sendAt(a, ev.Timestamp, &imsg{kind: mDecision, ev: ev})
	}
	e.sendAt(a, reply.Now, &imsg{kind: mReady})
}

// sendAt is send_message_at_time.
func (e *engine) sendAt(a *actor, when float64, m *imsg) {
	if cur := a.now(); when > cur {
		a.sleepFor(when - cur)
	}
	a.send(e.server, m, 1)
}

// String names a job for logs.
func (j *job) String() string { return fmt.Sprintf("%s(%s)", j.id, j.state) }
