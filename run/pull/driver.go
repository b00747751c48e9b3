package pull

import (
	"iter"
	"time"
)

// A driver steps the body of a run (a function that runs the whole
// simulation and calls yield at each point): resume runs it until its next
// yield or its end; stop ends it, every later yield returning false, and
// waits for it to return.
type driver interface {
	resume() step
	stop()
}

// step is what resume saw.
type step int

const (
	stepYield step = iota // the body waits at a yield
	stepEnd               // the body returned
	stepBusy              // the body still runs (a threaded driver's wait ran out)
)

// coDriver runs the body in a coroutine (iter.Pull): resume and stop
// switch to it and back on the calling thread, which must be the thread
// that built the driver.
type coDriver struct {
	next func() (struct{}, bool)
	end  func()
}

func newCoDriver(body func(yield func() bool)) *coDriver {
	next, end := iter.Pull(func(y func(struct{}) bool) {
		body(func() bool { return y(struct{}{}) })
	})
	return &coDriver{next: next, end: end}
}

func (c *coDriver) resume() step {
	if _, ok := c.next(); ok {
		return stepYield
	}
	return stepEnd
}

func (c *coDriver) stop() { c.end() }

// threadDriver runs the body in a goroutine of its own; resume waits for
// it at most wait (0: until it yields or ends).
type threadDriver struct {
	body    func(yield func() bool)
	wait    time.Duration
	started bool
	parked  bool // the body waits at a yield for resumeC
	ended   bool
	yieldC  chan struct{}
	resumeC chan struct{}
	stopC   chan struct{}
	doneC   chan struct{}
}

func newThreadDriver(body func(yield func() bool), wait time.Duration) *threadDriver {
	return &threadDriver{body: body, wait: wait, yieldC: make(chan struct{}), resumeC: make(chan struct{}),
		stopC: make(chan struct{}), doneC: make(chan struct{})}
}

// yield is the body's: it parks the body until resume or stop.
func (t *threadDriver) yield() bool {
	select {
	case t.yieldC <- struct{}{}:
	case <-t.stopC:
		return false
	}
	select {
	case <-t.resumeC:
		return true
	case <-t.stopC:
		return false
	}
}

func (t *threadDriver) resume() step {
	if t.ended {
		return stepEnd
	}
	switch {
	case !t.started:
		t.started = true
		go func() {
			defer close(t.doneC)
			t.body(t.yield)
		}()
	case t.parked:
		t.parked = false
		t.resumeC <- struct{}{}
	}
	var timeout <-chan time.Time
	if t.wait > 0 {
		timer := time.NewTimer(t.wait)
		defer timer.Stop()
		timeout = timer.C
	}
	select {
	case <-t.yieldC:
		t.parked = true
		return stepYield
	case <-t.doneC:
		t.ended = true
		return stepEnd
	case <-timeout:
		return stepBusy
	}
}

func (t *threadDriver) stop() {
	if t.ended {
		return
	}
	close(t.stopC)
	if t.started {
		<-t.doneC
	}
	t.ended = true
}
