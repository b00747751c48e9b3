package sim

import (
	"context"
	"fmt"
	"time"

	"bucma/protocol"
)

// inProcess drives a scheduler of this process directly: typed messages,
// no JSON.
type inProcess struct{ s protocol.Handler }

// InProcess returns a Scheduler that hands the engine's messages to h (a
// *schedulers.Session, typically) without encoding them.
func InProcess(h protocol.Handler) Scheduler { return inProcess{h} }

func (p inProcess) Exchange(m *protocol.Message) (*protocol.Message, error) {
	r, err := p.s.Handle(m)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return &protocol.Message{Now: m.Now}, nil
	}
	return &protocol.Message{Now: r.Now(), Events: r.Events()}, nil
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
