package v5

import (
	"fmt"

	"github.com/bucma-sched/bucma/batsim"
)

// EDC serves a Batsim 4 decision process (any batsim.Handler, such as a
// policy's session) to Batsim 5 in batprotocol's JSON form: each message
// is decoded, translated (Adapter.ToV4), handled, and the reply translated
// back (Adapter.FromV4) and encoded. The transports (ZeroMQ, the shared
// library) move bytes; the EDC decides what they are.
type EDC struct {
	Adapter *Adapter
	Handler batsim.Handler
	// Observe, when set, sees every raw message: Batsim's (FromBatsim) and
	// the replies (FromScheduler), without their final NUL.
	Observe func(dir batsim.Direction, raw []byte)
	// StopOnError, when set, answers a message the decision component
	// cannot go on from as Fail does, instead of returning the error at
	// once: for a transport whose Batsim waits for an answer whatever
	// happens (ZeroMQ). The shared library leaves it unset: its failure
	// status makes Batsim stop.
	StopOnError bool
	messages    int
	failed      error
	killed      bool // the stop killed the running jobs
}

// NewEDC serves h to Batsim 5 with an adapter configured by cfg.
func NewEDC(cfg Config, h batsim.Handler) *EDC {
	return &EDC{Adapter: NewAdapter(cfg), Handler: h}
}

// Hello is the answer to the initialization, in JSON (no final NUL).
func (e *EDC) Hello() []byte {
	b, err := e.Adapter.Hello().Encode()
	if err != nil {
		panic("v5: the hello does not encode: " + err.Error()) // only finite constants
	}
	if e.Observe != nil {
		e.Observe(batsim.FromScheduler, b)
	}
	return b
}

// Fail makes the decision component stop the simulation because of err
// (its init string was refused, or it cannot go on): from then on, Take
// answers every message with ForceSimulationStopEvent, after which Batsim
// drops the rest of the simulation and sends SimulationEndsEvent alone,
// and answers SimulationEndsEvent with an empty message, done, and err.
// Batsim then ends as it does at the end of a simulation, writing its
// output files (the jobs done so far). The first such answer kills the
// jobs still running first (KillJobsEvent): Batsim 5.0.0-rc2 aborts on an
// inconsistency of its machines ("marking machine 0 on job 'w0!1' end,
// while no job is being computed on the machine") when
// ForceSimulationStop finds a job running.
func (e *EDC) Fail(err error) { e.failed = err }

// stop answers m as Fail says.
func (e *EDC) stop(m *Message) ([]byte, bool, error) {
	now := NotAfter(m.Now)
	out := &Message{Now: now}
	ends := false
	for _, ev := range m.Events {
		ends = ends || ev.Type == TypeSimulationEnds
	}
	if !ends {
		if ids := e.Adapter.Running(); len(ids) > 0 && !e.killed {
			out.Events = append(out.Events, Event{Timestamp: now, Type: TypeKillJobs, Data: &KillJobs{JobIDs: ids}})
		}
		e.killed = true
		out.Events = append(out.Events, Event{Timestamp: now, Type: TypeForceSimulationStop, Data: &ForceSimulationStop{}})
	}
	b, err := out.Encode()
	if err != nil {
		return nil, false, fmt.Errorf("reply to message %d (now=%v): %w", e.messages, m.Now, err)
	}
	if e.Observe != nil {
		e.Observe(batsim.FromScheduler, b)
	}
	if ends {
		return b, true, e.failed
	}
	return b, false, nil
}

// Take answers one message from Batsim (JSON, a final NUL allowed) with the
// reply (JSON, without the final NUL); done is set once the reply answers
// SimulationEndsEvent. An error means the conversation cannot go on:
// answering would make Batsim abort or run on wrong decisions (with
// StopOnError, such an error stops the simulation, as Fail says, and Take
// returns it with the answer to SimulationEndsEvent).
func (e *EDC) Take(raw []byte) (reply []byte, done bool, err error) {
	e.messages++
	raw = TrimNUL(raw)
	if e.Observe != nil {
		e.Observe(batsim.FromBatsim, raw)
	}
	m, err := Decode(raw)
	if err != nil {
		return nil, false, fmt.Errorf("message %d from Batsim: %w", e.messages, err)
	}
	if e.failed != nil {
		return e.stop(m)
	}
	reply, done, err = e.take(m)
	if err != nil && e.StopOnError {
		e.Adapter.log.Error("the decision component cannot go on: it asks Batsim to stop the simulation", "error", err)
		e.failed = err
		return e.stop(m)
	}
	return reply, done, err
}

// take answers a message that decoded.
func (e *EDC) take(m *Message) (reply []byte, done bool, err error) {
	v4, err := e.Adapter.ToV4(m)
	if err != nil {
		return nil, false, fmt.Errorf("message %d from Batsim (now=%v): %w", e.messages, m.Now, err)
	}
	r, err := e.Handler.Handle(v4)
	if err != nil {
		return nil, false, fmt.Errorf("message %d from Batsim (now=%v): %w", e.messages, m.Now, err)
	}
	if r == nil {
		r = batsim.NewReply(m.Now)
	}
	out, err := e.Adapter.FromV4(r)
	if err != nil {
		return nil, false, fmt.Errorf("reply to message %d (now=%v): %w", e.messages, m.Now, err)
	}
	b, err := out.Encode()
	if err != nil {
		return nil, false, fmt.Errorf("reply to message %d (now=%v): %w", e.messages, m.Now, err)
	}
	if e.Observe != nil {
		e.Observe(batsim.FromScheduler, b)
	}
	return b, e.Adapter.Ended(), nil
}

// Messages is the number of messages taken so far.
func (e *EDC) Messages() int { return e.messages }
