package sim

import (
	"errors"
	"fmt"
	"iter"
)

// The kernel reproduces the part of SimGrid 3.32's simulation kernel that
// Batsim uses: actors that run one after the other in scheduling rounds and
// block in simcalls, mailboxes where a put meets a get, communications,
// sleeps and parallel executions as L07 actions, and the clock that jumps
// from one action end to the next. Batsim's behaviour at a given instant
// depends on the exact order in which its actors run and on the exact
// floating-point dates SimGrid computes, so both are reproduced rather than
// approximated:
//
//   - An actor runs until its next simcall. Simcalls are handled once every
//     actor of the sub-round has run, in the order the actors ran; an
//     answered simcall (isend, irecv, actor creation, cancel, kill) puts the
//     actor back at the end of the run list for the next sub-round of the
//     same instant, a blocking one (wait, sleep) when its activity ends.
//   - When no actor is left to run, the max-min system is solved, the clock
//     advances to the next action end, every running action is updated
//     (SimGrid's arithmetic, precision thresholds included), and the actors
//     whose activities ended are woken in the order their actions ended.

type simcallKind uint8

const (
	scNone simcallKind = iota
	scCreate
	scIsend
	scIrecv
	scWait
	scSleep
	scExecStart
	scCancel
	scKill
	// scNop is an answered simcall that does nothing in the engine
	// (Host::set_pstate): the actor yields one sub-round, as in SimGrid.
	scNop
	// scEnergy is the energy plugin's update of machine mach on an
	// actor's read (answered).
	scEnergy
)

type simcall struct {
	kind    simcallKind
	child   *actor
	mbox    *mailbox
	payload any
	size    float64
	act     activity
	timeout float64
	dur     float64
	exec    *execAct
	victim  *actor
	mach    int
}

// errKilled unwinds the body of a killed actor.
var errKilled = errors.New("actor killed")

// actor is a SimGrid actor: a coroutine that yields at each simcall, or a
// state machine (sm) that returns at each simcall.
type actor struct {
	name string
	host int
	k    *kernel
	body func(a *actor)
	// sm, when set, runs the actor instead of body.
	sm   stepper
	w    *worker // the coroutine running the body, once started
	sc   simcall
	dead bool
	// answer of the last simcall
	comm     *comm
	timedOut bool
	canceled bool
	// waiting is the activity the actor is blocked on.
	waiting activity
	// activities are the actor's non-blocking activities (started
	// executions), cancelled when it ends.
	activities []*execAct
}

// worker is a coroutine that runs actor bodies one after the other, so
// that an actor does not cost a goroutine and its stack.
type worker struct {
	next    func() (struct{}, bool)
	stop    func()
	yield   func(struct{}) bool
	a       *actor
	done    bool
	stopped bool
}

func (k *kernel) newWorker() *worker {
	w := &worker{}
	seq := func(yield func(struct{}) bool) {
		w.yield = yield
		for {
			w.done = false
			w.runBody(k)
			w.done = true
			if w.stopped || !yield(struct{}{}) {
				return
			}
		}
	}
	w.next, w.stop = iter.Pull(seq)
	return w
}

func (w *worker) runBody(k *kernel) {
	defer func() {
		if r := recover(); r != nil {
			if r == errKilled {
				return
			}
			if err, ok := r.(*abort); ok {
				k.fail(err.err)
				return
			}
			panic(r)
		}
	}()
	w.a.body(w.a)
}

// spawn creates an actor running body (not yet scheduled).
func (k *kernel) spawn(name string, host int, body func(a *actor)) *actor {
	k.live++
	return &actor{name: name, host: host, k: k, body: body}
}

// stepper is an actor written as a state machine: step runs it from where
// it stopped to its next simcall, which it sets with issue (the simcall's
// answer is in the actor when step is called again), or to its end (false).
// It behaves as the same body run as a coroutine, without the cost of
// switching to and from one at every simcall.
type stepper interface {
	step(a *actor) bool
	// actorName is the actor's name, for messages.
	actorName() string
}

// spawnSM creates an actor run by sm (not yet scheduled).
func (k *kernel) spawnSM(host int, sm stepper) *actor {
	a := &actor{}
	k.initSM(a, host, sm)
	return a
}

// initSM makes a (held by its caller, a state machine usually) a new actor
// run by sm.
func (k *kernel) initSM(a *actor, host int, sm stepper) {
	k.live++
	*a = actor{host: host, k: k, sm: sm}
}

// recycler is a state machine to reuse once its actor has ended.
type recycler interface {
	// recycle is called at the end of the scheduling sub-round in which
	// the actor ended: nothing refers to the actor any more.
	recycle()
}

// issue sets the simcall a state machine stops at.
func (a *actor) issue(sc simcall) { a.sc = sc }

// issueSend is the isend half of send (Mailbox::put); the wait follows with
// issueWait once it is answered.
func (a *actor) issueSend(m *mailbox, payload any, size float64) {
	a.sc = simcall{kind: scIsend, mbox: m, payload: payload, size: size}
}

// issueRecv is the irecv half of recv.
func (a *actor) issueRecv(m *mailbox) { a.sc = simcall{kind: scIrecv, mbox: m} }

// issueWait waits for the communication of the last isend or irecv.
func (a *actor) issueWait() { a.sc = simcall{kind: scWait, act: a.comm, timeout: -1} }

// issueSleep is sleepFor's simcall; it reports false (no simcall) for a
// non-positive duration.
func (a *actor) issueSleep(d float64) bool {
	if d <= 0 {
		return false
	}
	a.sc = simcall{kind: scSleep, dur: d}
	return true
}

// abort carries an error out of an actor's body.
type abort struct{ err error }

// Abort stops the simulation with err (Batsim would abort).
func (a *actor) Abort(err error) {
	panic(&abort{err})
}

// call issues a simcall and returns once it is answered.
func (a *actor) call(sc simcall) {
	a.sc = sc
	w := a.w
	if !w.yield(struct{}{}) {
		w.stopped = true
		panic(errKilled)
	}
	if a.dead {
		panic(errKilled)
	}
}

func (a *actor) now() float64 { return a.k.now }

// create starts a new actor (Actor::create from an actor).
func (a *actor) create(child *actor) { a.call(simcall{kind: scCreate, child: child}) }

// send is Mailbox::put: isend, then wait for the end of the transfer.
func (a *actor) send(m *mailbox, payload any, size float64) {
	a.call(simcall{kind: scIsend, mbox: m, payload: payload, size: size})
	c := a.comm
	a.call(simcall{kind: scWait, act: c, timeout: -1})
}

// recv is Mailbox::get: irecv, then wait.
func (a *actor) recv(m *mailbox) any {
	a.call(simcall{kind: scIrecv, mbox: m})
	c := a.comm
	a.call(simcall{kind: scWait, act: c, timeout: -1})
	return c.payload
}

// sleepFor is this_actor::sleep_for (a no-op for a non-positive duration).
func (a *actor) sleepFor(d float64) {
	if d <= 0 {
		return
	}
	a.call(simcall{kind: scSleep, dur: d})
}

// startExec starts a parallel execution owned by the actor.
func (a *actor) startExec(e *execAct) {
	a.activities = append(a.activities, e)
	a.call(simcall{kind: scExecStart, exec: e})
}

// waitExec waits for e, at most timeout seconds (-1: no limit). It reports
// whether the wait timed out and whether the execution was cancelled.
func (a *actor) waitExec(e *execAct, timeout float64) (timedOut, canceled bool) {
	a.timedOut, a.canceled = false, false
	a.call(simcall{kind: scWait, act: e, timeout: timeout})
	return a.timedOut, a.canceled
}

// cancelExec is Exec::cancel.
func (a *actor) cancelExec(e *execAct) { a.call(simcall{kind: scCancel, exec: e}) }

// kill is Actor::kill.
func (a *actor) kill(victim *actor) { a.call(simcall{kind: scKill, victim: victim}) }

// kernel is the simulation kernel.
type kernel struct {
	// onActionEnd and onExecStart, when set, are the energy plugin's
	// hooks: an action that finished or failed (CpuAction::on_state_change),
	// a one-host execution that started (Exec::on_start).
	onActionEnd func(a *action)
	onExecStart func(host int)
	onEnergy    func(mach int)
	now         float64
	sys         lmmSystem
	started     actionList
	// sleeps are the started sleeps (apart from started), sleepDur their
	// maximum durations; actionSeq numbers new actions.
	sleeps       []*action
	sleepDur     []float64
	actionSeq    uint64
	endedScratch []*action
	done         []*action
	failed       []*action
	toRun        []*actor
	ran          []*actor
	live         int
	cpus         []cpu
	links        []link
	route        func(src, dst int) ([]int, float64, error)
	err          error
	// linkStamp numbers the distinct-link counts of new actions;
	// linkOrder is expandLinks' scratch.
	linkStamp     uint64
	linkOrder     []int
	workers, idle []*worker
	// steps counts the clock advances (for tests and statistics).
	steps int
	// interrupted, when set, is asked every interruptEvery rounds whether
	// to stop (a signal): a job of a billion tasks, which never waits on
	// the scheduler, must not hold the process.
	interrupted func() error
	rounds      uint32
	// Ended actions and finished communications, for reuse: the engine
	// creates and ends several of each per job.
	freeActions []*action
	posted      []*action
	freeComms   []*comm
	// ended are the state machines whose actors ended in the current
	// sub-round, reused at its end.
	ended []recycler
}

func (k *kernel) fail(err error) {
	if k.err == nil {
		k.err = err
	}
}

// start schedules an actor created outside of any actor (maestro).
func (k *kernel) start(a *actor) { k.toRun = append(k.toRun, a) }

func (k *kernel) answer(a *actor) {
	if !a.dead {
		k.toRun = append(k.toRun, a)
	}
}

// resume runs a until its next simcall or its end.
func (k *kernel) resume(a *actor) {
	a.sc = simcall{}
	if a.sm != nil {
		if !a.sm.step(a) {
			a.sc = simcall{}
			k.exit(a)
			if r, ok := a.sm.(recycler); ok {
				k.ended = append(k.ended, r)
			}
		}
		return
	}
	if a.w == nil {
		if n := len(k.idle); n > 0 {
			a.w = k.idle[n-1]
			k.idle = k.idle[:n-1]
		} else {
			a.w = k.newWorker()
			k.workers = append(k.workers, a.w)
		}
		a.w.a = a
	}
	a.w.next()
	if a.w.done {
		k.release(a)
		k.exit(a)
	}
}

// release gives a finished actor's coroutine back.
func (k *kernel) release(a *actor) {
	if w := a.w; w != nil {
		a.w = nil
		w.a = nil
		if !w.stopped {
			k.idle = append(k.idle, w)
		}
	}
}

// exit is the end of an actor: its remaining executions are cancelled.
func (k *kernel) exit(a *actor) {
	if a.dead {
		return
	}
	a.dead = true
	a.sc = simcall{}
	for _, e := range a.activities {
		e.cancel(k)
	}
	a.activities = nil
	k.live--
}

// killActor is ActorImpl::kill: the actor's blocking activity is cancelled
// and failed, its executions cancelled, and it dies.
func (k *kernel) killActor(v *actor) {
	if v.dead {
		return
	}
	if w := v.waiting; w != nil {
		v.waiting = nil
		w.abandon(k, v)
	}
	for _, e := range v.activities {
		e.cancel(k)
	}
	v.activities = nil
	v.dead = true
	v.sc = simcall{}
	k.live--
	// A state machine just stops; a coroutine unwinds.
	if v.w != nil {
		// The body unwinds at once.
		v.w.next()
		k.release(v)
	}
}

// stopAll ends every coroutine.
func (k *kernel) stopAll() {
	for _, w := range k.workers {
		w.stopped = true
		w.stop()
	}
	k.workers, k.idle = nil, nil
}

func (k *kernel) handleSimcall(a *actor) {
	sc := a.sc
	a.sc = simcall{}
	switch sc.kind {
	case scCreate:
		k.toRun = append(k.toRun, sc.child)
		k.answer(a)
	case scIsend:
		a.comm = sc.mbox.isend(k, a, sc.payload, sc.size)
		k.answer(a)
	case scIrecv:
		a.comm = sc.mbox.irecv(k, a)
		k.answer(a)
	case scWait:
		sc.act.waitFor(k, a, sc.timeout)
	case scSleep:
		s := &sleep{waiter: a}
		s.act = k.newSleep(sc.dur)
		s.act.ends, s.act.nends = [2]int32{int32(a.host)}, 1
		s.act.owner = s
		a.waiting = s
	case scExecStart:
		if err := sc.exec.start(k); err != nil {
			k.fail(err)
			return
		}
		if k.onExecStart != nil && len(sc.exec.hosts) == 1 {
			k.onExecStart(sc.exec.hosts[0])
		}
		k.answer(a)
	case scCancel:
		sc.exec.cancel(k)
		k.answer(a)
	case scKill:
		k.killActor(sc.victim)
		k.answer(a)
	case scNop:
		k.answer(a)
	case scEnergy:
		if k.onEnergy != nil {
			k.onEnergy(sc.mach)
		}
		k.answer(a)
	}
}

// handleEnded is EngineImpl::handle_ended_actions: the failed actions,
// then the finished ones, each in the order they ended.
func (k *kernel) handleEnded() {
	// An action cancelled or freed meanwhile has changed state: it is
	// skipped where it no longer belongs.
	for i := 0; i < len(k.failed); i++ {
		a := k.failed[i]
		k.failed[i] = nil
		if a.state == actFailed {
			k.post(a, false)
		}
	}
	k.failed = k.failed[:0]
	for i := 0; i < len(k.done); i++ {
		a := k.done[i]
		k.done[i] = nil
		if a.state == actFinished {
			k.post(a, true)
		}
	}
	k.done = k.done[:0]
	// Posted actions are referenced by nothing any more (their owners
	// dropped them): they are reused once out of both lists.
	k.freeActions = append(k.freeActions, k.posted...)
	clear(k.posted)
	k.posted = k.posted[:0]
}

func (k *kernel) post(a *action, finished bool) {
	a.state = actGone
	if a.v != nil {
		k.sys.freeVariable(a.v)
		a.v = nil
	}
	if a.owner != nil {
		a.owner.post(k, a, finished)
		a.owner = nil
	}
	k.posted = append(k.posted, a)
}

// run is EngineImpl::run: rounds until nothing is left to do, the
// simulation ends (stop returns true) or an actor aborts.
// interruptEvery is how many rounds of the kernel run between two looks at
// kernel.interrupted (a round takes well under a microsecond).
const interruptEvery = 4096

func (k *kernel) run(stop func() bool) error {
	for {
		for len(k.toRun) > 0 {
			k.ran, k.toRun = k.toRun, k.ran[:0]
			for _, a := range k.ran {
				if a.dead {
					continue
				}
				k.resume(a)
				if k.err != nil {
					return k.err
				}
			}
			for _, a := range k.ran {
				if a.sc.kind != scNone && !a.dead {
					k.handleSimcall(a)
					if k.err != nil {
						return k.err
					}
				}
			}
			for i, r := range k.ended {
				r.recycle()
				k.ended[i] = nil
			}
			k.ended = k.ended[:0]
			k.handleEnded()
			if stop() {
				return nil
			}
		}
		if k.rounds++; k.rounds%interruptEvery == 0 && k.interrupted != nil {
			if err := k.interrupted(); err != nil {
				return err
			}
		}
		delta := k.nextEvent()
		if delta < 0 {
			return nil
		}
		k.now += delta
		k.steps++
		k.updateActions(delta)
		k.handleEnded()
	}
}

func (k *kernel) String() string {
	return fmt.Sprintf("kernel(t=%g, %d actions, %d actors to run)", k.now, k.started.n+len(k.sleeps), len(k.toRun))
}
