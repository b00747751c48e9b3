package sim

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/bucma-sched/bucma/internal/batsimfmt"
	"github.com/bucma-sched/bucma/protocol"
)

// inProcess drives a scheduler of this process directly: typed messages,
// no JSON.
type inProcess struct{ s protocol.Handler }

// InProcess returns a Scheduler that hands the engine's messages to h (a
// *schedulers.Session, typically) without encoding them. The engine gets
// the reply's numbers as Batsim reads them from the reply's JSON (see
// asRead), so that in-process and over ZeroMQ give the same simulation.
func InProcess(h protocol.Handler) Scheduler { return inProcess{h} }

func (p inProcess) Exchange(m *protocol.Message) (*protocol.Message, error) {
	r, err := p.s.Handle(m)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return &protocol.Message{Now: batsimfmt.RereadDouble(m.Now)}, nil
	}
	return asRead(r.Now(), r.Events()), nil
}

// asRead returns a reply as Batsim holds it once the scheduler has written
// it as batsched does (rapidjson's Writer, what protocol.Reply encodes)
// and Batsim has read it (rapidjson's reader): now, the events' timestamps,
// CALL_ME_LATER targets and waiting-time estimates go through
// batsimfmt.RereadDouble, which changes some of them by a unit in the last
// place (from about 1e10 s with microseconds on). The scheduler's events
// are copied before any change; their other data are shared.
func asRead(now float64, events []protocol.Event) *protocol.Message {
	readNow := batsimfmt.RereadDouble(now)
	out := events
	copied := false
	set := func(i int, ev protocol.Event) {
		if !copied {
			out = append([]protocol.Event(nil), events...)
			copied = true
		}
		out[i] = ev
	}
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	for i, ev := range events {
		ts := readNow
		if !same(ev.Timestamp, now) {
			ts = batsimfmt.RereadDouble(ev.Timestamp)
		}
		changed := !same(ts, ev.Timestamp)
		ev.Timestamp = ts
		switch d := ev.Data.(type) {
		case *protocol.CallMeLater:
			if at := batsimfmt.RereadDouble(d.At); !same(at, d.At) {
				ev.Data, changed = &protocol.CallMeLater{At: at}, true
			}
		case *protocol.SchedulerAnswer:
			if w := batsimfmt.RereadDouble(d.EstimatedWaitingTime); !same(w, d.EstimatedWaitingTime) {
				ev.Data, changed = &protocol.SchedulerAnswer{JobID: d.JobID, EstimatedWaitingTime: w}, true
			}
		}
		if changed {
			set(i, ev)
		}
	}
	return &protocol.Message{Now: readNow, Events: out}
}

// RemoteScheduler drives a scheduler over ZeroMQ exactly as Batsim does: it
// sends Batsim's bytes and decodes each reply with Batsim's reader rules.
type RemoteScheduler struct {
	c *protocol.Client
	// Observe, when set, sees every raw message sent and received.
	Observe func(dir protocol.Direction, raw []byte)
	dec     *protocol.Decoder
}

// Remote connects to a scheduler listening on endpoint (e.g.
// "tcp://127.0.0.1:28000"); timeout bounds the wait for each reply (0:
// forever, like Batsim) and ctx, when not nil, interrupts it. Close it when
// done.
func Remote(ctx context.Context, endpoint string, timeout time.Duration) (*RemoteScheduler, error) {
	c, err := protocol.Dial(endpoint)
	if err != nil {
		return nil, err
	}
	c.Timeout, c.Context = timeout, ctx
	return &RemoteScheduler{c: c, dec: protocol.NewDecoder(nil)}, nil
}

// Exchange sends m and returns the decoded reply.
func (r *RemoteScheduler) Exchange(m *protocol.Message) (*protocol.Message, error) {
	out := protocol.EncodeBatsim(m)
	if r.Observe != nil {
		r.Observe(protocol.FromBatsim, out)
	}
	raw, err := r.c.Exchange(out)
	if err != nil {
		return nil, err
	}
	if r.Observe != nil {
		r.Observe(protocol.FromScheduler, raw)
	}
	msg, err := r.dec.Decode(raw, protocol.FromScheduler)
	if err != nil {
		return nil, fmt.Errorf("reply violates Batsim's protocol (Batsim would abort): %w", err)
	}
	return msg, nil
}

// Close closes the connection.
func (r *RemoteScheduler) Close() error { return r.c.Close() }
