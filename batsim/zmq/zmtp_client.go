package zmq

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// The native REQ side of ZMTP 3.0 over tcp://: what a bucma built without
// cgo connects to schedulers with (and, with TransportNative, any build).
// Like libzmq's, the connection is made when needed and retried until the
// scheduler listens; unlike it, a connection that breaks ends the
// conversation with an error (libzmq's REQ socket would wait forever for
// the reply lost with it).

// reconnectInterval is how long to wait between two attempts to connect
// (libzmq's ZMQ_RECONNECT_IVL default).
const reconnectInterval = 100 * time.Millisecond

// nativeReq is a native REQ socket.
type nativeReq struct {
	endpoint, addr string
	z              *zmtpConn
	pending        bool  // a request was sent, its reply not yet read
	broken         error // the error that ended the connection
}

// dialNative checks a tcp:// endpoint and returns a REQ socket that will
// connect to it.
func dialNative(endpoint string) (reqConn, error) {
	rest, ok := strings.CutPrefix(endpoint, "tcp://")
	if !ok {
		if !HasLibzmq {
			return nil, errNoLibzmq(endpoint, "")
		}
		return nil, fmt.Errorf("endpoint %q: the %s transport connects to tcp:// endpoints only", endpoint, TransportNative)
	}
	if err := CheckEndpoint(endpoint, false); err != nil {
		return nil, err
	}
	host, port, err := net.SplitHostPort(rest)
	if err != nil || host == "" || host == "*" {
		return nil, fmt.Errorf("endpoint %q: want tcp://HOST:PORT with a host name or address to connect to", endpoint)
	}
	return &nativeReq{endpoint: endpoint, addr: net.JoinHostPort(host, port)}, nil
}

// errNoLibzmq is the error of an endpoint, or of the transport libzmq,
// asked of a build without libzmq.
func errNoLibzmq(endpoint, transport string) error {
	if transport == TransportLibzmq {
		return fmt.Errorf("transport %q (for %s): this bucma was built without cgo (CGO_ENABLED=0), so without libzmq; its own ZeroMQ (transport %q) serves and reaches tcp:// endpoints", transport, endpoint, TransportNative)
	}
	return fmt.Errorf("endpoint %q needs libzmq, which this bucma was built without (CGO_ENABLED=0): use a tcp:// endpoint (an IP address, localhost or * as host), or a bucma built with cgo and libzmq", endpoint)
}

// clientContext is c's Context, or one never cancelled.
func clientContext(c *Client) context.Context {
	if c.Context != nil {
		return c.Context
	}
	return context.Background()
}

// clientDeadline is when a wait of c that starts now ends (zero: never).
func clientDeadline(c *Client) time.Time {
	if c.Timeout > 0 {
		return time.Now().Add(c.Timeout)
	}
	return time.Time{}
}

// connect connects and exchanges the handshake, retrying while nothing
// listens, until c's deadline or the cancellation of its context.
func (r *nativeReq) connect(c *Client) error {
	ctx, deadline := clientContext(c), clientDeadline(c)
	for {
		dctx, cancel := ctx, context.CancelFunc(func() {})
		if !deadline.IsZero() {
			dctx, cancel = context.WithDeadline(ctx, deadline)
		}
		conn, err := (&net.Dialer{}).DialContext(dctx, "tcp", r.addr)
		cancel()
		if err == nil {
			return r.handshake(ctx, conn.(*net.TCPConn), deadline)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if dns := (*net.DNSError)(nil); errors.As(err, &dns) {
			return fmt.Errorf("connecting to %s: %w", r.endpoint, err)
		}
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			return fmt.Errorf("no connection to %s within %v (is the scheduler listening?): %w", r.endpoint, c.Timeout, err)
		}
		t := time.NewTimer(reconnectInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// handshake greets the scheduler on conn.
func (r *nativeReq) handshake(ctx context.Context, conn *net.TCPConn, deadline time.Time) error {
	_ = conn.SetNoDelay(true)
	z := &zmtpConn{c: conn, r: bufio.NewReaderSize(conn, 64<<10)}
	_ = conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	err := z.handshake(zmtpReadyREQ, "REP", "ROUTER")
	stop()
	if err != nil {
		_ = conn.Close()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("connecting to %s: %w", r.endpoint, err)
	}
	_ = conn.SetDeadline(time.Time{})
	r.z = z
	return nil
}

// guard bounds the next read or write on the connection by c's Timeout and
// Context; call the function returned once it is done.
func (r *nativeReq) guard(c *Client) func() {
	_ = r.z.c.SetDeadline(clientDeadline(c))
	stop := context.AfterFunc(clientContext(c), func() { _ = r.z.c.SetDeadline(time.Now()) })
	return func() { stop() }
}

// fail ends the connection with err, returned then by every later call.
func (r *nativeReq) fail(err error) error {
	r.broken = err
	if r.z != nil {
		_ = r.z.c.Close()
	}
	return err
}

func (r *nativeReq) send(c *Client, msg []byte) error {
	if r.broken != nil {
		return fmt.Errorf("sending to %s: the connection ended: %w", r.endpoint, r.broken)
	}
	if r.pending {
		return fmt.Errorf("sending to %s: the reply to the previous message was not received", r.endpoint)
	}
	if r.z == nil {
		if err := r.connect(c); err != nil {
			return err
		}
	}
	stop := r.guard(c)
	err := r.z.send(msg)
	stop()
	if err != nil {
		return r.fail(r.waitError(c, "sending to", err))
	}
	r.pending = true
	return nil
}

func (r *nativeReq) recv(c *Client) ([]byte, error) {
	if r.broken != nil {
		return nil, fmt.Errorf("receiving from %s: the connection ended: %w", r.endpoint, r.broken)
	}
	if !r.pending {
		return nil, fmt.Errorf("receiving from %s: no message was sent", r.endpoint)
	}
	stop := r.guard(c)
	raw, err := r.z.recv()
	stop()
	if err != nil {
		return nil, r.fail(r.waitError(c, "receiving from", err))
	}
	r.pending = false
	return raw, nil
}

// waitError turns an error of the connection into the Client's.
func (r *nativeReq) waitError(c *Client, doing string, err error) error {
	if c.Context != nil && c.Context.Err() != nil {
		return c.Context.Err()
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return c.errNoReply()
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s %s: the scheduler closed the connection", doing, r.endpoint)
	}
	return fmt.Errorf("%s %s: %w", doing, r.endpoint, err)
}

func (r *nativeReq) close() error {
	if r.z == nil {
		return nil
	}
	return r.z.c.Close()
}
