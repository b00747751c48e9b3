//go:build cgo

package zmq

import (
	"context"
	"fmt"
	"time"

	zmq "github.com/pebbe/zmq4"
)

// HasLibzmq tells whether this build links libzmq (through cgo): then
// every endpoint libzmq knows (ipc://, inproc://, tcp:// with an
// interface name) can be served, and TransportLibzmq chosen.
const HasLibzmq = true

// Transports describes the transports of this build, for --version.
func Transports() string {
	major, minor, patch := zmq.Version()
	return fmt.Sprintf("native ZMTP 3.0 (tcp://, the default) and libzmq %d.%d.%d (every endpoint; --transport libzmq)", major, minor, patch)
}

// libzmqRep is a REP socket of libzmq, bound to its endpoint.
type libzmqRep struct {
	zctx *zmq.Context
	sock *zmq.Socket
}

// listenLibzmq binds a REP socket to endpoint and returns it with the
// endpoint bound (wildcard port resolved).
func listenLibzmq(endpoint, _ string) (*libzmqRep, string, error) {
	zctx, err := zmq.NewContext()
	if err != nil {
		return nil, "", fmt.Errorf("zeromq context: %w", err)
	}
	r := &libzmqRep{zctx: zctx}
	if r.sock, err = zctx.NewSocket(zmq.REP); err != nil {
		_ = zctx.Term()
		return nil, "", fmt.Errorf("zeromq socket: %w", err)
	}
	// Until the final reply is sent, closing drops anything pending.
	if err := r.sock.SetLinger(0); err != nil {
		_ = r.close(0)
		return nil, "", fmt.Errorf("zeromq socket: %w", err)
	}
	if err := r.sock.Bind(endpoint); err != nil {
		_ = r.close(0)
		return nil, "", fmt.Errorf("cannot listen on %s: %w", endpoint, err)
	}
	if last, lerr := r.sock.GetLastEndpoint(); lerr == nil && last != "" {
		endpoint = last
	}
	return r, endpoint, nil
}

// close closes the socket, letting pending messages leave for up to
// linger, and the ZeroMQ context.
func (r *libzmqRep) close(linger time.Duration) (err error) {
	_ = r.sock.SetLinger(linger)
	if cerr := r.sock.Close(); cerr != nil {
		err = fmt.Errorf("closing the socket: %w", cerr)
	}
	if terr := r.zctx.Term(); terr != nil && err == nil {
		err = fmt.Errorf("closing the zeromq context: %w", terr)
	}
	return err
}

// serve is Listener.ServeRaw's loop on a libzmq socket; flush tells
// whether a final reply was sent that the socket's closing must let leave.
func (r *libzmqRep) serve(ctx context.Context, l *Listener, step func(raw []byte) (reply []byte, done bool, err error)) (flush bool, err error) {
	received := 0
	poller := zmq.NewPoller()
	poller.Add(r.sock, zmq.POLLIN)
	for {
		if err := waitReadable(ctx, poller, l.cfg.Timeout); err != nil {
			if te, ok := err.(*TimeoutError); ok {
				te.Endpoint, te.Messages = l.endpoint, received
			}
			return false, err
		}
		frames, err := r.sock.RecvMessageBytes(0)
		if err != nil {
			return false, fmt.Errorf("receiving from Batsim: %w", err)
		}
		if len(frames) != 1 {
			return false, fmt.Errorf("message %d from Batsim has %d frames, expected one", received+1, len(frames))
		}
		received++
		out, done, err := step(frames[0])
		if err != nil && out == nil {
			return false, err
		}
		if _, serr := r.sock.SendBytes(out, 0); serr != nil && err == nil {
			return false, fmt.Errorf("replying to Batsim: %w", serr)
		}
		if done || err != nil {
			return true, err
		}
	}
}

// waitReadable waits until the socket has a message, ctx is cancelled
// (ErrInterrupted) or timeout (if > 0) elapses (*TimeoutError).
func waitReadable(ctx context.Context, p *zmq.Poller, timeout time.Duration) error {
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	for {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		wait := pollSlice
		if timeout > 0 {
			left := time.Until(deadline)
			if left <= 0 {
				return &TimeoutError{Timeout: timeout}
			}
			if left < wait {
				wait = left
			}
		}
		polled, err := p.Poll(wait)
		if err != nil {
			if ctx.Err() != nil {
				return ErrInterrupted
			}
			return fmt.Errorf("waiting for Batsim: %w", err)
		}
		if len(polled) > 0 {
			return nil
		}
	}
}

// libzmqReq is a REQ socket of libzmq, connected to its endpoint.
type libzmqReq struct {
	zctx *zmq.Context
	sock *zmq.Socket
}

// dialLibzmq connects a REQ socket to endpoint, in the background.
func dialLibzmq(endpoint string) (reqConn, error) {
	zctx, err := zmq.NewContext()
	if err != nil {
		return nil, fmt.Errorf("zeromq context: %w", err)
	}
	sock, err := zctx.NewSocket(zmq.REQ)
	if err != nil {
		_ = zctx.Term()
		return nil, fmt.Errorf("zeromq socket: %w", err)
	}
	if err := sock.Connect(endpoint); err != nil {
		_ = sock.Close()
		_ = zctx.Term()
		return nil, fmt.Errorf("connecting to %s: %w", endpoint, err)
	}
	return &libzmqReq{zctx: zctx, sock: sock}, nil
}

func (r *libzmqReq) send(c *Client, msg []byte) error {
	if _, err := r.sock.SendBytes(msg, 0); err != nil {
		return fmt.Errorf("sending to %s: %w", c.Endpoint, err)
	}
	return nil
}

func (r *libzmqReq) recv(c *Client) ([]byte, error) {
	if c.Timeout > 0 || c.Context != nil {
		if err := r.wait(c); err != nil {
			return nil, err
		}
	}
	raw, err := r.sock.RecvBytes(0)
	if err != nil {
		return nil, fmt.Errorf("receiving from %s: %w", c.Endpoint, err)
	}
	return raw, nil
}

// wait polls for the reply in short slices, so that a cancelled context or
// the timeout is noticed promptly.
func (r *libzmqReq) wait(c *Client) error {
	p := zmq.NewPoller()
	p.Add(r.sock, zmq.POLLIN)
	var deadline time.Time
	if c.Timeout > 0 {
		deadline = time.Now().Add(c.Timeout)
	}
	for {
		if c.Context != nil && c.Context.Err() != nil {
			return c.Context.Err()
		}
		slice := pollSlice
		if c.Timeout > 0 {
			left := time.Until(deadline)
			if left <= 0 {
				return c.errNoReply()
			}
			if left < slice {
				slice = left
			}
		}
		ready, err := p.Poll(slice)
		if err != nil {
			if c.Context != nil && c.Context.Err() != nil {
				return c.Context.Err()
			}
			return fmt.Errorf("waiting for %s: %w", c.Endpoint, err)
		}
		if len(ready) > 0 {
			return nil
		}
	}
}

func (r *libzmqReq) close() error {
	_ = r.sock.SetLinger(0)
	err := r.sock.Close()
	if terr := r.zctx.Term(); terr != nil && err == nil {
		err = terr
	}
	return err
}
