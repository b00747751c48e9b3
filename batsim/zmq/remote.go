package zmq

import (
	"context"
	"fmt"
	"time"

	"github.com/bucma-sched/bucma/batsim"
)

// RemoteScheduler drives a scheduler over ZeroMQ exactly as Batsim does: it
// sends Batsim's bytes and decodes each reply with Batsim's reader rules.
type RemoteScheduler struct {
	c *Client
	// Observe, when set, sees every raw message sent and received.
	Observe func(dir batsim.Direction, raw []byte)
	dec     *batsim.Decoder
}

// Remote connects to a scheduler listening on endpoint (e.g.
// "tcp://127.0.0.1:28000"); timeout bounds the wait for each reply (0:
// forever, like Batsim) and ctx, when not nil, interrupts it. Close it when
// done.
func Remote(ctx context.Context, endpoint string, timeout time.Duration) (*RemoteScheduler, error) {
	return RemoteTransport(ctx, endpoint, "", timeout)
}

// RemoteTransport is Remote through the transport named (see
// DialTransport): TransportNative sees the scheduler's connection close at
// once, where libzmq's REQ socket waits for the reply lost with it.
func RemoteTransport(ctx context.Context, endpoint, transport string, timeout time.Duration) (*RemoteScheduler, error) {
	c, err := DialTransport(endpoint, transport)
	if err != nil {
		return nil, err
	}
	c.Timeout, c.Context = timeout, ctx
	return &RemoteScheduler{c: c, dec: batsim.NewDecoder(nil)}, nil
}

// Exchange sends m and returns the decoded reply.
func (r *RemoteScheduler) Exchange(m *batsim.Message) (*batsim.Message, error) {
	out := batsim.EncodeBatsim(m)
	if r.Observe != nil {
		r.Observe(batsim.FromBatsim, out)
	}
	raw, err := r.c.Exchange(out)
	if err != nil {
		return nil, err
	}
	if r.Observe != nil {
		r.Observe(batsim.FromScheduler, raw)
	}
	msg, err := r.dec.Decode(raw, batsim.FromScheduler)
	if err != nil {
		return nil, fmt.Errorf("reply violates Batsim's protocol (Batsim would abort): %w", err)
	}
	return msg, nil
}

// SetTimeout bounds the wait for each later reply (0: forever).
func (r *RemoteScheduler) SetTimeout(d time.Duration) { r.c.Timeout = d }

// Close closes the connection.
func (r *RemoteScheduler) Close() error { return r.c.Close() }
