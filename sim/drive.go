package sim

import (
	"math"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/internal/batsimfmt"
)

// inProcess drives a scheduler of this process directly: typed messages,
// no JSON.
type inProcess struct{ s batsim.Handler }

// InProcess returns a Scheduler that hands the engine's messages to h (a
// *schedulers.Session, typically) without encoding them. The engine gets
// the reply's numbers as Batsim reads them from the reply's JSON (see
// asRead), so that in-process and over ZeroMQ give the same simulation.
func InProcess(h batsim.Handler) Scheduler { return inProcess{h} }

func (p inProcess) Exchange(m *batsim.Message) (*batsim.Message, error) { return p.exchange(m, false) }

// reusingHandler is a Handler that can reuse its reply from one message
// to the next (sched.Session).
type reusingHandler interface {
	HandleReusing(*batsim.Message) (*batsim.Reply, error)
}

// exchange is Exchange; with reuse, the handler may reuse its reply (and
// the events' data) at the next message: the engine applies a reply
// before it sends the next message, and keeps it only for an observer.
func (p inProcess) exchange(m *batsim.Message, reuse bool) (*batsim.Message, error) {
	var r *batsim.Reply
	var err error
	if h, ok := p.s.(reusingHandler); ok && reuse {
		r, err = h.HandleReusing(m)
	} else {
		r, err = p.s.Handle(m)
	}
	if err != nil {
		return nil, err
	}
	if r == nil {
		return &batsim.Message{Now: batsimfmt.RereadDouble(m.Now)}, nil
	}
	return asRead(r.Now(), r.Events()), nil
}

// asRead returns a reply as Batsim holds it once the scheduler has written
// it as batsched does (rapidjson's Writer, what batsim.Reply encodes)
// and Batsim has read it (rapidjson's reader): now, the events' timestamps,
// CALL_ME_LATER targets and waiting-time estimates go through
// batsimfmt.RereadDouble, which changes some of them by a unit in the last
// place (from about 1e10 s with microseconds on). The scheduler's events
// are copied before any change; their other data are shared.
func asRead(now float64, events []batsim.Event) *batsim.Message {
	readNow := batsimfmt.RereadDouble(now)
	out := events
	copied := false
	set := func(i int, ev batsim.Event) {
		if !copied {
			out = append([]batsim.Event(nil), events...)
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
		case *batsim.CallMeLater:
			if at := batsimfmt.RereadDouble(d.At); !same(at, d.At) {
				ev.Data, changed = &batsim.CallMeLater{At: at}, true
			}
		case *batsim.SchedulerAnswer:
			if w := batsimfmt.RereadDouble(d.EstimatedWaitingTime); !same(w, d.EstimatedWaitingTime) {
				ev.Data, changed = &batsim.SchedulerAnswer{JobID: d.JobID, EstimatedWaitingTime: w}, true
			}
		}
		if changed {
			set(i, ev)
		}
	}
	return &batsim.Message{Now: readNow, Events: out}
}
