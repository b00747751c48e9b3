package sim

import "fmt"

// Activities of the kernel: communications through mailboxes, sleeps and
// parallel executions (SimGrid's CommImpl, SleepImpl, ExecImpl and the
// timeout of ActivityImpl::wait_for).

type activity interface {
	// waitFor registers a as waiting for the activity (at most timeout
	// seconds when timeout >= 0); a is answered when it ends.
	waitFor(k *kernel, a *actor, timeout float64)
	// post is called once the activity's action ended (finished or
	// failed).
	post(k *kernel, act *action, finished bool)
	// abandon is the activity's part in killing a, which waits for it.
	abandon(k *kernel, a *actor)
}

type commState uint8

const (
	commWaiting commState = iota // in a mailbox, waiting for its peer
	commRunning
	commDone
	commCanceled
	commFailed
)

// comm is a communication from src to dst.
type comm struct {
	state    commState
	isSend   bool // the kind of request that waits in the mailbox
	src, dst *actor
	payload  any
	size     float64
	act      *action
	waiters  [2]*actor // the sender and the receiver, in the order they wait
	nwait    int
	mbox     *mailbox
}

// mailbox is a rendez-vous point: requests wait in arrival order.
type mailbox struct {
	name  string
	queue []*comm
	// net gives a message's size and whether it travels on the network
	// (false: instantaneous, the engine's latency "none").
	instant bool
}

func (m *mailbox) empty() bool { return len(m.queue) == 0 }

func (m *mailbox) take(send bool) *comm {
	for i, c := range m.queue {
		if c.isSend == send {
			copy(m.queue[i:], m.queue[i+1:])
			m.queue[len(m.queue)-1] = nil
			m.queue = m.queue[:len(m.queue)-1]
			c.mbox = nil
			return c
		}
	}
	return nil
}

func (m *mailbox) remove(c *comm) {
	for i, x := range m.queue {
		if x == c {
			copy(m.queue[i:], m.queue[i+1:])
			m.queue[len(m.queue)-1] = nil
			m.queue = m.queue[:len(m.queue)-1]
			break
		}
	}
	c.mbox = nil
}

// getComm returns a new communication, reusing a finished one if there
// is one.
func (k *kernel) getComm(isSend bool, m *mailbox) *comm {
	c := popFree(&k.freeComms)
	if c == nil {
		return &comm{isSend: isSend, mbox: m}
	}
	*c = comm{isSend: isSend, mbox: m}
	return c
}

// reuse gives back a communication once its receiver has read the
// payload: nothing refers to it any more (its sender stopped waiting for
// it when it ended, and does not look at it again).
func (k *kernel) reuse(c *comm) {
	if c.state == commDone && c.nwait == 0 && c.mbox == nil && c.act == nil {
		c.payload, c.src, c.dst = nil, nil, nil
		k.freeComms = append(k.freeComms, c)
	}
}

// isend is CommImpl::isend: match a waiting receive or queue the send.
func (m *mailbox) isend(k *kernel, a *actor, payload any, size float64) *comm {
	c := m.take(false)
	if c == nil {
		c = k.getComm(true, m)
		m.queue = append(m.queue, c)
	}
	c.src, c.payload, c.size = a, payload, size
	c.start(k, m)
	return c
}

// irecv is CommImpl::irecv: match a waiting send or queue the receive.
func (m *mailbox) irecv(k *kernel, a *actor) *comm {
	c := m.take(true)
	if c == nil {
		c = k.getComm(false, m)
		m.queue = append(m.queue, c)
	}
	c.dst = a
	c.start(k, m)
	return c
}

// start begins the transfer once both ends are known: a 1-host-pair L07
// action of size bytes from the sender's host to the receiver's.
func (c *comm) start(k *kernel, m *mailbox) {
	if c.src == nil || c.dst == nil || c.state != commWaiting {
		return
	}
	size := c.size
	if m.instant {
		size = 0
	}
	act, err := k.newComm(c.src.host, c.dst.host, size)
	if err != nil {
		k.fail(fmt.Errorf("message from %s to %s: %w", nameOf(c.src), nameOf(c.dst), err))
		return
	}
	act.owner = c
	c.act = act
	c.state = commRunning
}

func (c *comm) waitFor(k *kernel, a *actor, timeout float64) {
	if c.nwait == len(c.waiters) {
		k.fail(fmt.Errorf("t=%.6f: more than two actors wait for one message", k.now))
		return
	}
	c.waiters[c.nwait] = a
	c.nwait++
	a.waiting = c
	if c.state != commWaiting && c.state != commRunning {
		c.finish(k)
	}
}

func (c *comm) post(k *kernel, act *action, finished bool) {
	if finished {
		c.state = commDone
	} else if c.state != commCanceled {
		c.state = commFailed
	}
	c.act = nil
	c.finish(k)
}

func (c *comm) finish(k *kernel) {
	if c.mbox != nil {
		c.mbox.remove(c)
	}
	w := c.waiters
	n := c.nwait
	c.waiters, c.nwait = [2]*actor{}, 0
	for _, a := range w[:n] {
		if a.dead {
			continue
		}
		a.waiting = nil
		if c.state != commDone {
			k.fail(fmt.Errorf("t=%.6f: the message between %s and %s was lost (its sender or receiver was killed): Batsim would crash", k.now, nameOf(c.src), nameOf(c.dst)))
			continue
		}
		k.answer(a)
	}
}

func nameOf(a *actor) string {
	if a == nil {
		return "nobody"
	}
	if a.sm != nil {
		return a.sm.actorName()
	}
	return a.name
}

// abandon: the comm is cancelled (CommImpl::cancel, then failed).
func (c *comm) abandon(k *kernel, a *actor) {
	for i := 0; i < c.nwait; i++ {
		if c.waiters[i] == a {
			copy(c.waiters[i:], c.waiters[i+1:c.nwait])
			c.nwait--
			c.waiters[c.nwait] = nil
			break
		}
	}
	switch c.state {
	case commWaiting:
		if c.mbox != nil {
			c.mbox.remove(c)
		}
		c.state = commCanceled
	case commRunning:
		c.state = commCanceled
		k.cancelAction(c.act)
	}
}

// sleep is a SleepImpl.
type sleep struct {
	act    *action
	waiter *actor
}

func (s *sleep) waitFor(k *kernel, a *actor, timeout float64) {}

func (s *sleep) post(k *kernel, act *action, finished bool) {
	a := s.waiter
	s.waiter = nil
	if a != nil && !a.dead {
		a.waiting = nil
		k.answer(a)
	}
}

func (s *sleep) abandon(k *kernel, a *actor) {
	s.waiter = nil
	k.freeAction(s.act)
}

type execState uint8

const (
	execInited execState = iota
	execRunning
	execDone
	execCanceled
)

// exec is a parallel execution (ExecImpl).
type execAct struct {
	hosts        []int
	flops, bytes []float64
	act          *action
	state        execState
	waiter       *actor
	timeout      *execTimeout
	owner        *actor
}

// execTimeout is the synchro of a wait with a timeout: a sleep that, if
// it ends first, answers the waiter with a timeout.
type execTimeout struct {
	e   *execAct
	act *action
}

func (t *execTimeout) waitFor(k *kernel, a *actor, timeout float64) {}

func (t *execTimeout) post(k *kernel, act *action, finished bool) {
	e := t.e
	e.timeout = nil
	a := e.waiter
	e.waiter = nil
	if a != nil && !a.dead {
		a.waiting = nil
		a.timedOut = true
		k.answer(a)
	}
}

func (t *execTimeout) abandon(k *kernel, a *actor) {}

func (e *execAct) start(k *kernel) error {
	e.state = execRunning
	var err error
	if len(e.hosts) == 1 {
		// A sequential execution: no transfer.
		e.act, err = k.newPtask(e.hosts, e.flops[:1], nil)
	} else {
		e.act, err = k.newPtask(e.hosts, e.flops, e.bytes)
	}
	if err != nil {
		return err
	}
	e.act.owner = e
	return nil
}

// remains is the part of the execution left to do, from 1 to 0.
func (e *execAct) remains() float64 {
	if e.state == execInited {
		return 1
	}
	if e.act == nil {
		return 0
	}
	return e.act.remains
}

func (e *execAct) waitFor(k *kernel, a *actor, timeout float64) {
	e.waiter = a
	a.waiting = e
	if e.state != execRunning {
		e.finish(k)
		return
	}
	if timeout >= 0 {
		t := &execTimeout{e: e}
		t.act = k.newSleep(timeout)
		t.act.ends, t.act.nends = [2]int32{int32(a.host)}, 1
		t.act.owner = t
		e.timeout = t
	}
}

func (e *execAct) post(k *kernel, act *action, finished bool) {
	if !finished {
		e.state = execCanceled
	} else {
		e.state = execDone
	}
	e.act = nil
	if o := e.owner; o != nil {
		for i, x := range o.activities {
			if x == e {
				o.activities = append(o.activities[:i], o.activities[i+1:]...)
				break
			}
		}
	}
	e.finish(k)
}

func (e *execAct) finish(k *kernel) {
	if t := e.timeout; t != nil {
		e.timeout = nil
		k.dropAction(t.act)
		t.act = nil
	}
	a := e.waiter
	e.waiter = nil
	if a != nil && !a.dead {
		a.waiting = nil
		a.canceled = e.state == execCanceled
		k.answer(a)
	}
}

func (e *execAct) cancel(k *kernel) {
	if e.state == execRunning && e.act != nil {
		k.cancelAction(e.act)
	}
	if e.state != execDone {
		e.state = execCanceled
	}
}

func (e *execAct) abandon(k *kernel, a *actor) {
	e.waiter = nil
	if t := e.timeout; t != nil {
		e.timeout = nil
		k.dropAction(t.act)
		t.act = nil
	}
}
