package zmq

import (
	"context"
	"errors"
	"fmt"
	"time"

	zmq "github.com/pebbe/zmq4"
)

// Client plays Batsim's side of the conversation: a REQ socket that
// connects to a scheduler's endpoint, sends one message and waits for its
// reply. bucma's engine drives external schedulers with it, and tests use
// it to stand in for Batsim.
type Client struct {
	Endpoint string
	// Timeout bounds the wait for each reply (0: wait forever, like Batsim).
	Timeout time.Duration
	// Context, when set, interrupts the wait for a reply once cancelled.
	Context context.Context

	zctx *zmq.Context
	sock *zmq.Socket
}

// Dial connects a Client to endpoint (e.g. "tcp://127.0.0.1:28000"). Like
// Batsim's, the connection is made in the background: the scheduler may
// bind after Dial. Close it when done.
func Dial(endpoint string) (*Client, error) {
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
	return &Client{Endpoint: endpoint, zctx: zctx, sock: sock}, nil
}

// Exchange sends one message and returns the raw reply.
func (c *Client) Exchange(msg []byte) ([]byte, error) {
	if err := c.Send(msg); err != nil {
		return nil, err
	}
	return c.Receive()
}

// Send sends one message (a REQ socket then waits for its reply: call
// Receive before the next Send).
func (c *Client) Send(msg []byte) error {
	if c.sock == nil {
		return errors.New("connection closed")
	}
	if _, err := c.sock.SendBytes(msg, 0); err != nil {
		return fmt.Errorf("sending to %s: %w", c.Endpoint, err)
	}
	return nil
}

// Receive waits for the reply to the message sent (at most Timeout, when
// set) and returns it.
func (c *Client) Receive() ([]byte, error) {
	if c.sock == nil {
		return nil, errors.New("connection closed")
	}
	if c.Timeout > 0 || c.Context != nil {
		if err := c.wait(); err != nil {
			return nil, err
		}
	}
	raw, err := c.sock.RecvBytes(0)
	if err != nil {
		return nil, fmt.Errorf("receiving from %s: %w", c.Endpoint, err)
	}
	return raw, nil
}

// wait polls for the reply in short slices, so that a cancelled context or
// the timeout is noticed promptly.
func (c *Client) wait() error {
	p := zmq.NewPoller()
	p.Add(c.sock, zmq.POLLIN)
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
				return fmt.Errorf("no reply from %s within %v", c.Endpoint, c.Timeout)
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

// Close closes the socket.
func (c *Client) Close() error {
	if c.sock == nil {
		return nil
	}
	_ = c.sock.SetLinger(0)
	err := c.sock.Close()
	c.sock = nil
	if terr := c.zctx.Term(); terr != nil && err == nil {
		err = terr
	}
	return err
}
