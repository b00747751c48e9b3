package sim

import (
	"fmt"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/workloads"
)

// A job's execution, as Batsim's execute_job_process runs it on the first
// host of the allocation: the profile's task tree is executed part by part
// (a delay sleeps, a parallel task is one SimGrid parallel execution, a
// sequence runs its parts in turn), the walltime is checked part by part,
// and the server is told when the job ends.

// task is Batsim's BatTask: one node of a job's profile tree.
//
// Batsim builds a sequence's whole tree when the job starts (one BatTask per
// part and repetition, recursively); the engine makes a sequence's parts as
// it reaches them and keeps only the one running, which is all that Batsim
// ever reads of the others (the progress of a killed job and the task to
// cancel are those of sub_tasks[current_task_index]): a sequence repeated
// a billion times costs one task per level of nesting, not a billion.
type task struct {
	prof *profile
	// sub is, for a sequence, its part at index cur (Batsim's
	// sub_tasks[current_task_index]); nil for a leaf.
	sub *task
	// cur is current_task_index: repetition × parts + part.
	cur           int
	exec          *execAct
	delayStart    float64
	delayRequired float64
}

// newTask is the task of profile p before it starts: a sequence holds its
// first part (as Batsim's tree does before the sequence runs).
func newTask(p *profile) *task {
	t := &task{prof: p, delayStart: -1}
	if p.typ == workloads.TypeComposed {
		if seq := p.seq(); p.repeat > 0 && len(seq) > 0 {
			t.sub = newTask(seq[0])
		}
	}
	return t
}

// progress is the job_progress tree Batsim sends in JOB_KILLED.
func (t *task) progress(now float64) *batsim.JobProgress {
	if t.prof.typ == workloads.TypeComposed {
		idx := t.cur
		jp := &batsim.JobProgress{ProfileName: t.prof.name, CurrentTaskIndex: &idx}
		if t.sub != nil {
			jp.CurrentTask = t.sub.progress(now)
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
	return &batsim.JobProgress{ProfileName: t.prof.name, Progress: &v}
}

// jobActor is execute_job_process.
func (e *engine) jobActor(a *actor, j *job) {
	run := j.run
	j.start = a.now()
	remaining := j.walltime
	run.task = newTask(j.prof)
	e.energyAtStart(j)
	e.walkReads(a, energyWalk{alloc: j.run.alloc})
	e.machinesRun(j)
	j.ret = int32(e.execTask(a, j, run.task, &remaining))
	switch {
	case j.ret == 0:
		j.state = stSuccess
	case j.ret > 0:
		j.state = stFailed
	case j.ret == -1:
		j.state = stWalltimeReached
	default:
		j.state = stKilled
	}
	e.machinesEnd(j)
	e.setRuntime(j)
	e.energyAtEnd(j)
	e.walkReads(a, energyWalk{alloc: j.run.alloc})
	if j.state != stKilled {
		a.send(e.server, &imsg{kind: mCompleted, job: j}, 1)
	}
	run.actor = nil
}

// newJobActor creates the actor that executes j on host: a state machine
// (jobSM) for a delay or a parallel task, the coroutine jobActor for a
// sequence.
func (e *engine) newJobActor(j *job, host int) *actor {
	if j.prof.typ == workloads.TypeComposed {
		return e.spawn("job_"+j.id, host, func(x *actor) { e.jobActor(x, j) })
	}
	s := popFree(&e.freeJobSMs)
	if s == nil {
		s = &jobSM{}
	}
	*s = jobSM{e: e, j: j}
	e.k.initSM(&s.act, host, s)
	return &s.act
}

// jobSM is jobActor for a job whose profile is one task (a delay or a
// parallel task), as a state machine: the same simcalls in the same order.
type jobSM struct {
	act       actor
	e         *engine
	j         *job
	run       *jobRun
	phase     uint8
	remaining float64
	ret       int // the task's return code, once it is over
	exec      *execAct
	// walk replays the actor's energy reads (with -E).
	walk energyWalk
}

const (
	jobStart     uint8 = iota
	jobRunTask         // the energy is read: run the task
	jobWaitExec        // the execution is started: wait for it
	jobExecEnded       // the wait is over
	jobEnd             // the task is over
	jobSend            // the energy is read: send the completion
	jobSent            // the completion is sent: wait for it
	jobDone
)

func (s *jobSM) actorName() string { return "job_" + s.j.id }

func (s *jobSM) recycle() {
	e := s.e
	*s = jobSM{}
	e.freeJobSMs = append(e.freeJobSMs, s)
}

func (s *jobSM) step(a *actor) bool {
	e, j := s.e, s.j
	for {
		switch s.phase {
		case jobStart:
			s.run = j.run
			j.start = a.now()
			s.remaining = j.walltime
			t := newTask(j.prof)
			s.run.task = t
			e.energyAtStart(j)
			s.walk = energyWalk{alloc: j.run.alloc}
			s.phase = jobRunTask
		case jobRunTask:
			if i := e.nextRead(&s.walk); i >= 0 {
				a.issue(readSimcall(i))
				return true
			}
			t := s.run.task
			e.machinesRun(j)
			p := j.prof
			if p.isParallelTask() {
				x, err := e.newPtaskExec(a, j, t)
				if err != nil {
					e.k.fail(err)
					return false
				}
				s.exec = x
				a.activities = append(a.activities, x)
				a.issue(simcall{kind: scExecStart, exec: x})
				s.phase = jobWaitExec
				return true
			}
			// A delay (delayTask).
			t.delayStart = a.now()
			t.delayRequired = p.delay
			d := p.delay
			s.ret = int(p.ret)
			if s.remaining >= 0 && !(d < s.remaining) {
				d = s.remaining
				s.ret = -1
			}
			s.phase = jobEnd
			if a.issueSleep(d) {
				return true
			}
		case jobWaitExec:
			a.timedOut, a.canceled = false, false
			timeout := -1.0
			if s.remaining >= 0 {
				timeout = s.remaining
			}
			a.issue(simcall{kind: scWait, act: s.exec, timeout: timeout})
			s.phase = jobExecEnded
			return true
		case jobExecEnded:
			s.ret = int(j.prof.ret)
			switch {
			case a.timedOut && s.remaining >= 0:
				s.ret = -1
			case a.canceled:
				s.ret = -2
			}
			s.phase = jobEnd
		case jobEnd:
			// A killed job's actor never gets here: its return code
			// stays as it was.
			j.ret = int32(s.ret)
			switch {
			case j.ret == 0:
				j.state = stSuccess
			case j.ret > 0:
				j.state = stFailed
			case j.ret == -1:
				j.state = stWalltimeReached
			default:
				j.state = stKilled
			}
			e.machinesEnd(j)
			e.setRuntime(j)
			e.energyAtEnd(j)
			s.walk = energyWalk{alloc: j.run.alloc}
			if j.state == stKilled {
				s.run.actor = nil
				return false
			}
			s.phase = jobSend
		case jobSend:
			if i := e.nextRead(&s.walk); i >= 0 {
				a.issue(readSimcall(i))
				return true
			}
			m := e.msg(mCompleted)
			m.job = j
			a.issueSend(e.server, m, 1)
			s.phase = jobSent
			return true
		case jobSent:
			a.issueWait()
			s.phase = jobDone
			return true
		default:
			s.run.actor = nil
			return false
		}
	}
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
			for i, part := range seq {
				if it > 0 || i > 0 {
					// The part at index 0 is the one newTask made.
					t.sub = newTask(part)
				}
				t.cur = it*len(seq) + i
				if ret := e.execTask(a, j, t.sub, remaining); ret != 0 {
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
	x, err := e.newPtaskExec(a, j, t)
	if err != nil {
		a.Abort(err)
	}
	ret := int(t.prof.ret)
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

// newPtaskExec is the parallel execution of task t of job j (run by a).
func (e *engine) newPtaskExec(a *actor, j *job, t *task) (*execAct, error) {
	p := t.prof
	hosts := j.run.hosts
	n := len(hosts)
	flops := make([]float64, 0, n)
	var bytes []float64
	switch p.typ {
	case workloads.TypeParallel:
		if len(p.cpus()) != n {
			return nil, e.fail("EXECUTE_JOB "+j.id, "the number of resources given by the allocation (%d) is different from the number of resources of profile %s (%d)", n, p.name, len(p.cpus()))
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
			return nil, e.fail("EXECUTE_JOB "+j.id, "some computation (%g) is assigned to storage node %d (%s)", flops[i], h, e.names[h])
		}
	}
	x := &execAct{hosts: hosts, flops: flops, bytes: bytes, owner: a}
	t.exec = x
	return x, nil
}

// machinesRun marks the job's hosts computing (time accounting of
// _schedule.csv, as Batsim's Machine::update_machine_state: a host that
// was already computing another job closes a computing period and opens
// the next).
func (e *engine) machinesRun(j *job) {
	t := e.k.now
	j.run.computing = true
	for _, h := range j.run.alloc {
		if h < e.nhosts {
			if e.hostJobs[h] == 0 {
				e.spend(&e.hostIdle[h], h, t)
			} else {
				e.spend(&e.hostComp[h], h, t)
			}
			e.hostJob[h] = j
			e.hostJobs[h]++
		}
	}
}

// spend is Machine::update_machine_state: host h spent the time since its
// last change in the state of acc, and changes state at t.
func (e *engine) spend(acc *ld, h int, t float64) {
	if since := e.hostSince[h]; t != since {
		var a, b, d ld
		d.sub(a.setF(t), b.setF(since))
		acc.add(acc, &d)
	}
	e.hostSince[h] = t
}

// machinesEnd is update_machines_on_job_end: a host becomes idle when its
// last job ends.
func (e *engine) machinesEnd(j *job) {
	if !j.run.computing {
		return
	}
	j.run.computing = false
	t := e.k.now
	for _, h := range j.run.alloc {
		if h < e.nhosts {
			e.hostJobs[h]--
			if e.hostJobs[h] == 0 {
				e.hostJob[h] = nil
				e.spend(&e.hostComp[h], h, t)
			}
		}
	}
}

// killer is killer_process: it stops each running job (cancelling its
// parallel task, or killing its actor), then tells the server.
func (e *engine) killer(a *actor, kd *killDone) {
	for _, j := range kd.ids {
		if j.state != stRunning {
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
			j.state = stKilled
			e.machinesEnd(j)
			e.setRuntime(j)
			e.energyAtEnd(j)
			e.walkReads(a, energyWalk{alloc: j.run.alloc})
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
	if t.sub != nil && !cancelled {
		cancelled = e.cancelPtask(a, t.sub)
	}
	return cancelled
}

// waiter is waiter_process (CALL_ME_LATER), as a state machine.
type waiter struct {
	e      *engine
	target float64
	phase  uint8
}

func (w *waiter) actorName() string { return fmt.Sprintf("waiter %f", w.target) }

func (w *waiter) step(a *actor) bool {
	e := w.e
	switch w.phase {
	case 0:
		w.phase = 1
		if cur := a.now(); cur < w.target {
			a.issueSleep(max(w.target-cur, 1e-5))
			return true
		}
		fallthrough
	case 1:
		if !e.endSent && !e.endAck {
			a.issueSend(e.server, e.msg(mWaitingDone), 1)
			w.phase = 2
			return true
		}
		return false
	case 2:
		a.issueWait()
		w.phase = 3
		return true
	}
	return false
}

// submitter is static_job_submitter_process, as a state machine: the jobs
// of one workload file are sent to the server in batches of equal
// submission times, sleeping from one submission time to the next.
//
//	send hello
//	for each job j (by subtime):
//	    if j.subtime > cur: send the batch (if any), sleep until j.subtime, cur = now
//	    add j to the batch
//	send the last batch (if any), then bye
type submitter struct {
	e     *engine
	wl    *workload
	phase uint8
	// the batch is wl.static[start:i]
	start, i int
	cur      float64
	// walk replays the first submission's energy reads (with -E).
	walk    energyWalk
	reading bool
}

const (
	subHello     uint8 = iota
	subHelloWait       // wait for hello to arrive
	subStart           // hello arrived
	subScan            // look at job i
	subBatchWait       // wait for a batch sent before sleeping
	subSleep           // sleep until job i's subtime
	subSlept           // job i joins the batch
	subLastWait        // wait for the last batch
	subSend            // the jobs due are scanned: send them
	subBye             // send bye
	subByeWait         // wait for it
	subDone
)

func (s *submitter) actorName() string { return "workload_submitter_" + s.wl.name }

func (s *submitter) step(a *actor) bool {
	e, static := s.e, s.wl.static
	for {
		switch s.phase {
		case subHello:
			a.issueSend(e.server, e.msg(mHello), 1)
			s.phase = subHelloWait
			return true
		case subHelloWait:
			a.issueWait()
			s.phase = subStart
			return true
		case subStart:
			s.cur = a.now()
			s.phase = subScan
		case subScan:
			for s.i < len(static) && !(static[s.i].subtime > s.cur) {
				s.i++
			}
			if s.i > s.start && e.en != nil && !e.en.firstSet {
				e.en.firstSet = true
				e.en.firstSubmit = e.totalEnergy()
				s.reading = true
			}
			s.phase = subSend
		case subSend:
			if s.reading {
				if i := e.nextRead(&s.walk); i >= 0 {
					a.issue(readSimcall(i))
					return true
				}
				s.reading = false
			}
			if s.i == len(static) {
				if s.i > s.start {
					m := e.msg(mSubmit)
					m.jobs = static[s.start:s.i:s.i]
					a.issueSend(e.server, m, 1)
					s.phase = subLastWait
					return true
				}
				s.phase = subBye
				continue
			}
			s.phase = subSleep
			if s.i > s.start {
				m := e.msg(mSubmit)
				m.jobs = static[s.start:s.i:s.i]
				a.issueSend(e.server, m, 1)
				s.phase = subBatchWait
				return true
			}
		case subBatchWait:
			a.issueWait()
			s.phase = subSleep
			return true
		case subSleep:
			s.phase = subSlept
			if a.issueSleep(ldSub(static[s.i].subtime, s.cur)) {
				return true
			}
		case subSlept:
			s.cur = a.now()
			s.start = s.i
			s.i++
			s.phase = subScan
		case subLastWait:
			a.issueWait()
			s.phase = subBye
			return true
		case subBye:
			a.issueSend(e.server, e.msg(mBye), 1)
			s.phase = subByeWait
			return true
		case subByeWait:
			a.issueWait()
			s.phase = subDone
			return true
		default:
			return false
		}
	}
}

// reqRep is Batsim's "Scheduler REQ-REP" actor, as a state machine: it
// sends one message to the scheduler, then sends each event of the reply
// to the server at the event's timestamp (or at once if it is past), then
// the ready signal at the reply's now.
type reqRep struct {
	act    actor
	e      *engine
	events []batsim.Event
	now    float64
	reply  *batsim.Message
	next   int  // the next event of the reply
	ready  bool // the ready signal is the message in flight
	msg    *imsg
	phase  uint8
}

const (
	rrExchange uint8 = iota
	rrNext           // the next event (or the ready signal) to send
	rrSend           // send it (any sleep is over)
	rrWait           // wait for it to arrive
	rrDone
)

func (r *reqRep) actorName() string { return "Scheduler REQ-REP" }

// newReqRep returns the actor of a new REQ-REP taking events to the
// scheduler, reusing an ended one if there is one.
func (e *engine) newReqRep(events []batsim.Event, now float64) *actor {
	r := popFree(&e.freeReqReps)
	if r == nil {
		r = &reqRep{}
	}
	*r = reqRep{e: e, events: events, now: now}
	e.k.initSM(&r.act, e.master, r)
	return &r.act
}

func (r *reqRep) recycle() {
	e := r.e
	*r = reqRep{}
	e.freeReqReps = append(e.freeReqReps, r)
}

func (r *reqRep) step(a *actor) bool {
	e := r.e
	for {
		switch r.phase {
		case rrExchange:
			reply, err := e.exchange(r.events, r.now)
			if err != nil {
				e.k.fail(err)
				return false
			}
			r.reply, r.events = reply, nil
			r.phase = rrNext
		case rrNext:
			var when float64
			if r.next < len(r.reply.Events) {
				ev := &r.reply.Events[r.next]
				r.next++
				var err error
				switch d := ev.Data.(type) {
				case *batsim.RegisterProfile:
					err = e.registerProfile(d)
				case *batsim.RegisterJob:
					err = e.registerJob(d)
				}
				if err != nil {
					e.k.fail(err)
					return false
				}
				if ev.Type == batsim.TypeAnswer {
					// Batsim only logs a warning for an ANSWER: nothing is sent.
					e.log.Warn("ignoring ANSWER from the scheduler")
					continue
				}
				r.msg, when = e.msg(mDecision), ev.Timestamp
				r.msg.ev = ev
			} else if !r.ready {
				r.ready = true
				r.msg, when = e.msg(mReady), r.reply.Now
			} else {
				r.phase = rrDone
				continue
			}
			// send_message_at_time
			r.phase = rrSend
			if cur := a.now(); when > cur && a.issueSleep(when-cur) {
				return true
			}
		case rrSend:
			a.issueSend(e.server, r.msg, 1)
			r.msg = nil
			r.phase = rrWait
			return true
		case rrWait:
			a.issueWait()
			r.phase = rrNext
			return true
		default:
			return false
		}
	}
}

// String names a job for logs.
func (j *job) String() string { return fmt.Sprintf("%s(%s)", j.id, j.state) }
