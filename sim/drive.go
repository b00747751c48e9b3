package sim

import (
	"context"
	"errors"
	"fmt"
	"time"

	zmq "github.com/pebbe/zmq4"

	"bucma/protocol"
	"bucma/schedulers"
)

// inProcess drives a Session directly: typed messages, no JSON.
type inProcess struct{ s *schedulers.Session }

// InProcess returns a Scheduler that hands the engine's messages to s
// without encoding them.
func InProcess(s *schedulers.Session) Scheduler { return inProcess{s} }

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

// RemoteScheduler drives a scheduler over ZeroMQ exactly as Batsim does: a
// REQ socket that connects to the scheduler's endpoint, sends Batsim's
// bytes and decodes each reply with Batsim's reader rules.
type RemoteScheduler struct {
	Endpoint string
	// Timeout bounds the wait for each reply (0: wait forever, like Batsim).
	Timeout time.Duration
	// Observe, when set, sees every raw message sent and received.
	Observe func(dir protocol.Direction, raw []byte)
	// Context, when set, interrupts the wait for a reply once cancelled.
	Context context.Context

	zctx *zmq.Context
	sock *zmq.Socket
	dec  *protocol.Decoder
}

// Remote connects to a scheduler listening on endpoint (e.g.
// "tcp://127.0.0.1:28000"). Close it when done.
func Remote(endpoint string) (*RemoteScheduler, error) {
	zctx, err := zmq.NewContext()
	if err != nil {
		return nil, fmt.Errorf("zeromq context: %w", err)
	}
	sock, err := zctx.NewSocket(zmq.REQ)
	if err != nil {
		zctx.Term()
		return nil, fmt.Errorf("zeromq socket: %w", err)
	}
	if err := sock.Connect(endpoint); err != nil {
		sock.Close()
		zctx.Term()
		return nil, fmt.Errorf("connecting to %s: %w", endpoint, err)
	}
	return &RemoteScheduler{Endpoint: endpoint, zctx: zctx, sock: sock, dec: protocol.NewDecoder(nil)}, nil
}

// Exchange sends m and returns the decoded reply.
func (r *RemoteScheduler) Exchange(m *protocol.Message) (*protocol.Message, error) {
	if r.sock == nil {
		return nil, errors.New("connection closed")
	}
	out := protocol.EncodeBatsim(m)
	if r.Observe != nil {
		r.Observe(protocol.FromBatsim, out)
	}
	if _, err := r.sock.SendBytes(out, 0); err != nil {
		return nil, fmt.Errorf("sending to %s: %w", r.Endpoint, err)
	}
	if r.Timeout > 0 || r.Context != nil {
		if err := r.wait(); err != nil {
			return nil, err
		}
	}
	raw, err := r.sock.RecvBytes(0)
	if err != nil {
		return nil, fmt.Errorf("receiving from %s: %w", r.Endpoint, err)
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

// wait polls for the reply in short slices, so that a cancelled context or
// the timeout is noticed promptly.
func (r *RemoteScheduler) wait() error {
	p := zmq.NewPoller()
	p.Add(r.sock, zmq.POLLIN)
	var deadline time.Time
	if r.Timeout > 0 {
		deadline = time.Now().Add(r.Timeout)
	}
	for {
		if r.Context != nil && r.Context.Err() != nil {
			return r.Context.Err()
		}
		slice := 100 * time.Millisecond
		if r.Timeout > 0 {
			left := time.Until(deadline)
			if left <= 0 {
				return fmt.Errorf("no reply from %s within %v", r.Endpoint, r.Timeout)
			}
			if left < slice {
				slice = left
			}
		}
		ready, err := p.Poll(slice)
		if err != nil {
			if r.Context != nil && r.Context.Err() != nil {
				return r.Context.Err()
			}
			return fmt.Errorf("waiting for %s: %w", r.Endpoint, err)
		}
		if len(ready) > 0 {
			return nil
		}
	}
}

// Close closes the socket.
func (r *RemoteScheduler) Close() error {
	if r.sock == nil {
		return nil
	}
	r.sock.SetLinger(0)
	err := r.sock.Close()
	r.sock = nil
	r.zctx.Term()
	return err
}
