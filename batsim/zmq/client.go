package zmq

import (
	"context"
	"errors"
	"fmt"
	"time"
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

	conn reqConn
}

// reqConn is the REQ socket of one transport.
type reqConn interface {
	// send sends msg; a connection made on the way is bounded by c's
	// Timeout and Context.
	send(c *Client, msg []byte) error
	// recv waits for the reply (within c's Timeout, until c's Context is
	// cancelled) and returns it.
	recv(c *Client) ([]byte, error)
	close() error
}

// Dial connects a Client to endpoint (e.g. "tcp://127.0.0.1:28000")
// through the build's default transport: libzmq where the build has it
// (HasLibzmq), bucma's own ZMTP (tcp:// only) otherwise. Like Batsim's,
// the connection is made in the background: the scheduler may bind after
// Dial. Close it when done.
func Dial(endpoint string) (*Client, error) { return DialTransport(endpoint, "") }

// DialTransport is Dial through the transport named: TransportNative
// (bucma's own ZMTP 3.0, tcp:// endpoints), TransportLibzmq (libzmq's
// REQ socket, every endpoint; only where HasLibzmq) or "" (the build's
// default, as Dial).
func DialTransport(endpoint, transport string) (*Client, error) {
	if transport == "" {
		transport = TransportNative
		if HasLibzmq {
			transport = TransportLibzmq
		}
	}
	var (
		conn reqConn
		err  error
	)
	switch transport {
	case TransportNative:
		conn, err = dialNative(endpoint)
	case TransportLibzmq:
		conn, err = dialLibzmq(endpoint)
	default:
		err = fmt.Errorf("transport %q: want %s or %s", transport, TransportNative, TransportLibzmq)
	}
	if err != nil {
		return nil, err
	}
	return &Client{Endpoint: endpoint, conn: conn}, nil
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
	if c.conn == nil {
		return errors.New("connection closed")
	}
	return c.conn.send(c, msg)
}

// Receive waits for the reply to the message sent (at most Timeout, when
// set) and returns it.
func (c *Client) Receive() ([]byte, error) {
	if c.conn == nil {
		return nil, errors.New("connection closed")
	}
	return c.conn.recv(c)
}

// Close closes the socket.
func (c *Client) Close() error {
	if c.conn == nil {
		return nil
	}
	err := c.conn.close()
	c.conn = nil
	return err
}

// errNoReply is the error of a reply that did not come within c.Timeout.
func (c *Client) errNoReply() error {
	return fmt.Errorf("no reply from %s within %v", c.Endpoint, c.Timeout)
}
