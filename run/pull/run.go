package pull

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sched"
)

// Kind is what Next hands the caller.
type Kind int32

const (
	// Done: the run is over; Next's error is its outcome.
	Done Kind = iota
	// Decide: the caller's policy decides (Start, Reject, Kill,
	// CallMeLater), then calls Next.
	Decide
	// Keys: the caller gives the keys of Point.Keys (SetKeys), then calls
	// Next.
	Keys
	// Running: no point; the run goes on at the next call of Next (a
	// chance to stop it).
	Running
)

// String names the kind: done, decide, keys or running (a number for an
// unknown kind).
func (k Kind) String() string {
	switch k {
	case Done:
		return "done"
	case Decide:
		return "decide"
	case Keys:
		return "keys"
	case Running:
		return "running"
	}
	return fmt.Sprintf("kind %d", int32(k))
}

// ErrClosed is the outcome of a run closed before its end (Close without a cause).
var ErrClosed = errors.New("the run was closed before its end")

// UsageError is a call the run's state does not allow (a decision outside
// a decision point, a job that is not one of the run's, keys not given),
// refused without any effect on the run.
type UsageError struct{ Msg string }

// Error returns the message naming the call refused and why.
func (e *UsageError) Error() string { return e.Msg }

func usage(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// Run is a run stepped by its caller (New, Next, Close). Its methods are
// called from one goroutine (the coroutine driver: the goroutine and
// thread that built it).
type Run struct {
	drv    driver
	ctx    context.Context
	cancel context.CancelFunc

	// body's outcome, and what it leaves: the embedded run's result.
	err    error
	result *run.Result
	output []byte // a Task's output
	ended  bool

	// at is the point the caller is at (Running between points): the
	// caller's, while kind and the fields below are the body's, which the
	// caller reads and clears only while the body waits at a point (a
	// threaded body may run on after Next returned Running).
	at Kind
	// The point: its kind, the decider and state of a Decide point, the
	// jobs of a Keys point and their keys once given.
	kind     Kind
	state    *sched.State
	decider  *sched.Decider
	keyJobs  []*sched.Job
	keysGot  bool
	stopped  bool  // a yield returned false: the run is being stopped
	cause    error // why it is stopped (Close's), nil for ErrClosed
	lastStep time.Time

	yieldFn func() bool        // the driver's yield
	hosts   sched.HostSelector // the hosts option's selector (Start without hosts)
	track   *tracker
	pol     policyKind
	keyed   *keyTable
	point   []byte // the encoded point (Point)
	runWait time.Duration
}

// policyKind is who decides.
type policyKind int

const (
	registryPolicy policyKind = iota // a policy of the registry: no point but Running
	decidePolicy                     // the caller decides at each message
	keyPolicy                        // the caller gives keys, a start rule decides
)

// progressEvery is how long the embedded engine runs without a point
// before it hands the caller a Running (to stop the run on a signal).
var progressEvery = 50 * time.Millisecond

// start builds the driver over body, which runs the whole run (with the
// run's context) and returns its outcome; threaded runs body in a
// goroutine of its own, waiting wait at most at each Next.
func (r *Run) start(body func(ctx context.Context) error, threaded bool, wait time.Duration) {
	r.ctx, r.cancel = context.WithCancel(context.Background())
	r.at, r.kind = Running, Running
	wrapped := func(yield func() bool) {
		defer func() {
			if p := recover(); p != nil {
				r.err = fmt.Errorf("internal error: %v\n%s", p, debug.Stack())
			}
		}()
		r.yieldFn = yield
		r.err = body(r.ctx)
	}
	if threaded {
		r.drv = newThreadDriver(wrapped, wait)
	} else {
		r.drv = newCoDriver(wrapped)
	}
	r.lastStep = time.Now()
}

// Next runs until the next point and returns its kind; Done once the run
// is over, with the run's outcome as error (then every later call returns
// the same). Leaving a Keys point without SetKeys is a *UsageError, and
// the run stays at the point.
func (r *Run) Next() (Kind, error) {
	if r.ended {
		return Done, r.outcome()
	}
	if r.at == Keys && !r.keysGot {
		return r.at, usage("the keys of the %d jobs of this point were not given (SetKeys)", len(r.keyJobs))
	}
	if r.at != Running {
		r.leavePoint()
	}
	switch r.drv.resume() {
	case stepYield:
		r.at = r.kind
		return r.at, nil
	case stepBusy:
		return Running, nil
	}
	r.finish()
	return Done, r.outcome()
}

// leavePoint forgets the point's decider and jobs, while the body waits.
func (r *Run) leavePoint() {
	r.at, r.kind, r.decider, r.keyJobs, r.keysGot = Running, Running, nil, nil, false
}

// finish records the end, once the body returned.
func (r *Run) finish() {
	r.ended = true
	r.leavePoint()
	r.at, r.kind = Done, Done
	r.cancel()
}

// outcome is the run's error: the cause it was stopped for, with the
// partial outputs of the run's own error.
func (r *Run) outcome() error {
	if r.cause == nil || errors.Is(r.err, r.cause) {
		return r.err
	}
	var re *run.Error
	if errors.As(r.err, &re) {
		return &run.Error{Err: r.cause, Partial: re.Partial}
	}
	return r.cause
}

// Close stops a run that has not ended (cause, when not nil, is its
// outcome: a failure of the caller's policy; else the run was closed) and
// returns the outcome. Outputs written so far are kept as PATH.partial.
func (r *Run) Close(cause error) error {
	if !r.ended {
		if cause == nil {
			cause = ErrClosed
		}
		r.cause = cause
		r.cancel()
		r.drv.stop()
		r.finish()
	}
	return r.outcome()
}

// yield hands the caller a point of kind k (encoded first) and reports
// whether the run goes on: false once it is being stopped. A Running is
// not encoded: the caller reads nothing of it, and what changed since the
// last point stays for the next one.
func (r *Run) yield(k Kind) bool {
	if r.stopped {
		return false
	}
	r.kind = k
	r.point = r.point[:0]
	if k != Running {
		r.point = r.track.encode(r.point, r, k)
	}
	ok := r.yieldFn()
	r.lastStep = time.Now()
	if !ok {
		r.stopped = true
	}
	return ok
}

// stopCause is the error a policy stops its decider with when the run is
// stopped.
func (r *Run) stopCause() error {
	if r.cause != nil {
		return r.cause
	}
	return ErrClosed
}

// progress yields a Running point when the run went long without one.
func (r *Run) progress() {
	if !r.stopped && time.Since(r.lastStep) >= progressEvery {
		r.yield(Running)
	}
}

// Kind is the current point's kind (Running between points).
func (r *Run) Kind() Kind { return r.at }

// Point is the current point, encoded (see the package's wire format,
// Encoding): valid until the next call of Next or Close.
func (r *Run) Point() []byte { return r.point }

// Result is the embedded run's result, once it ended without error (nil
// otherwise, and for a server).
func (r *Run) Result() *run.Result { return r.result }
