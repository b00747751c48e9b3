package zmq

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"time"
)

// A native ZeroMQ REP endpoint for tcp:// (ZMTP 3.0, NULL security, one
// peer): Batsim's REQ socket connects, and each message is read from and
// written to the TCP connection directly, in the serving goroutine,
// without libzmq's I/O thread in between. That hop, and the calls into C
// around it, were most of the scheduler's cost per message. Other
// transports (ipc://, inproc://, an interface name as host) go through
// libzmq, in a build with cgo. The REQ side (zmtp_client.go) shares the
// wire format.
//
// The wire format (rfc.zeromq.org/spec/23): a 64-byte greeting each way
// (signature 0xFF ... 0x7F, version 3.0, mechanism "NULL", as-server 0),
// then a READY command each way (Socket-Type REP here; the peer must be
// REQ or DEALER), then frames: a flags byte (bit 0 more, bit 1 8-byte size,
// bit 2 command), the size (1 or 8 bytes, network order) and the body. A
// REQ message is an empty delimiter frame then the body; the reply is the
// same.

const (
	zmtpMore    = 0x01
	zmtpLong    = 0x02
	zmtpCommand = 0x04
	// zmtpMaxFrame bounds a frame (and a message) from the peer.
	zmtpMaxFrame = 1 << 31
	// zmtpTrusted is the largest frame read into a buffer of the size
	// announced at once (one allocation, no copy: its pages are only
	// touched as bytes arrive); a larger one grows with the bytes that
	// arrive, so that a peer announcing 2 GiB and sending nothing cannot
	// make the process reserve it.
	zmtpTrusted = 64 << 20
)

// zmtpGreeting is this side's greeting.
var zmtpGreeting = func() []byte {
	g := make([]byte, 64)
	g[0], g[9] = 0xFF, 0x7F
	g[8] = 1 // the ZMTP/1.0-compatible padding libzmq writes
	g[10], g[11] = 3, 0
	copy(g[12:32], "NULL")
	return g
}()

// zmtpReady is the READY command of a socket of type socketType.
func zmtpReady(socketType string) []byte {
	body := []byte{5}
	body = append(body, "READY"...)
	body = append(body, byte(len("Socket-Type")))
	body = append(body, "Socket-Type"...)
	body = binary.BigEndian.AppendUint32(body, uint32(len(socketType)))
	body = append(body, socketType...)
	return append([]byte{zmtpCommand, byte(len(body))}, body...)
}

// The READY commands of the server (REP) and of the client (REQ).
var zmtpReadyREP, zmtpReadyREQ = zmtpReady("REP"), zmtpReady("REQ")

// nativeEndpoint tells whether a bind endpoint is served natively, and
// the address to listen on: tcp:// with "*", an IP address or localhost
// as host, unless the transport asked for is libzmq.
func nativeEndpoint(endpoint, transport string) (network, addr string, ok bool) {
	rest, isTCP := strings.CutPrefix(endpoint, "tcp://")
	if !isTCP || transport == TransportLibzmq {
		return "", "", false
	}
	host, port, err := net.SplitHostPort(rest)
	if err != nil {
		return "", "", false
	}
	if port == "*" {
		port = "0"
	}
	switch {
	case host == "*":
		return "tcp4", net.JoinHostPort("0.0.0.0", port), true
	case host == "localhost":
		return "tcp4", net.JoinHostPort("127.0.0.1", port), true
	case net.ParseIP(host) != nil:
		return "tcp", net.JoinHostPort(host, port), true
	}
	return "", "", false
}

// zmtpConn is the connection with Batsim.
type zmtpConn struct {
	c  net.Conn
	r  *bufio.Reader
	wb []byte
}

// handshakeWait bounds the handshake of one connection: a ZeroMQ peer
// sends its greeting as soon as it connects, so a connection silent that
// long is dropped and the next one accepted, where it would otherwise hold
// the listener (and Batsim, connecting behind it) for ever when no timeout
// is set.
var handshakeWait = 30 * time.Second

// zmtpAccept waits for Batsim's connection and the handshake, until
// deadline (zero: none) or the cancellation of ctx.
func zmtpAccept(ctx context.Context, ln *net.TCPListener, deadline time.Time) (*zmtpConn, error) {
	if err := ln.SetDeadline(deadline); err != nil {
		return nil, err
	}
	// Registered after the deadline is set, so a cancellation (even one
	// that came first) always wins over it.
	stop := context.AfterFunc(ctx, func() { _ = ln.SetDeadline(time.Now()) })
	defer stop()
	for {
		c, err := ln.AcceptTCP()
		if err != nil {
			return nil, err
		}
		_ = c.SetNoDelay(true)
		z := &zmtpConn{c: c, r: bufio.NewReaderSize(c, 64<<10)}
		hs := time.Now().Add(handshakeWait)
		overall := !deadline.IsZero() && !deadline.After(hs)
		if overall {
			hs = deadline
		}
		_ = c.SetDeadline(hs)
		stopConn := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Now()) })
		err = z.handshake(zmtpReadyREP, "REQ", "DEALER")
		stopConn()
		if err == nil {
			err = ctx.Err() // cancelled during or right after the handshake
		}
		if err != nil {
			_ = c.Close()
			var ne net.Error
			if ctx.Err() != nil || overall && errors.As(err, &ne) && ne.Timeout() {
				return nil, err
			}
			// Not a ZeroMQ peer (a port scanner, a stray client, a
			// connection silent for handshakeWait): wait for the next
			// connection.
			continue
		}
		_ = c.SetDeadline(time.Time{})
		return z, nil
	}
}

// handshake exchanges greetings and READY commands: this side's, ready,
// and the peer's, whose socket type must be one of peers.
func (z *zmtpConn) handshake(ready []byte, peers ...string) error {
	if _, err := z.c.Write(zmtpGreeting); err != nil {
		return err
	}
	var g [64]byte
	if _, err := io.ReadFull(z.r, g[:]); err != nil {
		return err
	}
	if g[0] != 0xFF || g[9] != 0x7F {
		return errors.New("not a ZMTP greeting")
	}
	if g[10] < 3 {
		return fmt.Errorf("ZMTP version %d.%d: want 3 or later (libzmq 4)", g[10], g[11])
	}
	if mech := strings.TrimRight(string(g[12:32]), "\x00"); mech != "NULL" {
		return fmt.Errorf("ZMTP security mechanism %q: only NULL is served", mech)
	}
	if _, err := z.c.Write(ready); err != nil {
		return err
	}
	flags, body, err := z.frame()
	if err != nil {
		return err
	}
	if flags&zmtpCommand == 0 {
		return errors.New("expected the peer's READY command")
	}
	name, props, err := zmtpCommandBody(body)
	if err != nil {
		return err
	}
	if name != "READY" {
		return fmt.Errorf("expected READY, got %s", name)
	}
	if st := props["Socket-Type"]; !slices.Contains(peers, st) {
		return fmt.Errorf("peer socket type %q: want %s", st, strings.Join(peers, " or "))
	}
	return nil
}

// zmtpCommandBody splits a command into its name and properties.
func zmtpCommandBody(b []byte) (string, map[string]string, error) {
	if len(b) < 1 || len(b) < 1+int(b[0]) {
		return "", nil, errors.New("truncated command")
	}
	name := string(b[1 : 1+b[0]])
	b = b[1+b[0]:]
	props := map[string]string{}
	if name != "READY" {
		return name, props, nil
	}
	for len(b) > 0 {
		n := int(b[0])
		if len(b) < 1+n+4 {
			return "", nil, errors.New("truncated READY property")
		}
		key := string(b[1 : 1+n])
		vl := binary.BigEndian.Uint32(b[1+n:])
		b = b[1+n+4:]
		if uint64(len(b)) < uint64(vl) {
			return "", nil, errors.New("truncated READY property value")
		}
		props[key] = string(b[:vl])
		b = b[vl:]
	}
	return name, props, nil
}

// frame reads one frame.
func (z *zmtpConn) frame() (flags byte, body []byte, err error) {
	flags, err = z.r.ReadByte()
	if err != nil {
		return 0, nil, err
	}
	var size uint64
	if flags&zmtpLong != 0 {
		var b [8]byte
		if _, err := io.ReadFull(z.r, b[:]); err != nil {
			return 0, nil, err
		}
		size = binary.BigEndian.Uint64(b[:])
	} else {
		s, err := z.r.ReadByte()
		if err != nil {
			return 0, nil, err
		}
		size = uint64(s)
	}
	if size > zmtpMaxFrame {
		return 0, nil, fmt.Errorf("frame of %d bytes", size)
	}
	if size <= zmtpTrusted {
		body = make([]byte, size)
		_, err = io.ReadFull(z.r, body)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return flags, body, err
	}
	// Beyond zmtpTrusted the frame grows with the bytes that arrive, not
	// with the size announced, each step to at most twice the last.
	body = make([]byte, zmtpTrusted)
	n, err := io.ReadFull(z.r, body)
	for err == nil && uint64(n) < size {
		grown := make([]byte, min(size, 2*uint64(n)))
		copy(grown, body)
		body = nil
		var m int
		m, err = io.ReadFull(z.r, grown[n:])
		body, n = grown, n+m
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return flags, body[:n], err
}

// recv reads one message (a request, or a reply on the REQ side): the
// envelope up to the empty delimiter, then exactly one body frame
// (Batsim's messages have one).
func (z *zmtpConn) recv() ([]byte, error) {
	delimited := false
	var parts [][]byte
	for {
		flags, body, err := z.frame()
		if err != nil {
			return nil, err
		}
		if flags&zmtpCommand != 0 {
			if err := z.command(body); err != nil {
				return nil, err
			}
			continue
		}
		if !delimited {
			if len(body) == 0 {
				delimited = true
			}
			if flags&zmtpMore == 0 {
				return nil, errors.New("a message without its empty delimiter frame")
			}
			continue
		}
		parts = append(parts, body)
		if flags&zmtpMore == 0 {
			break
		}
	}
	if len(parts) != 1 {
		return nil, fmt.Errorf("%d frames, expected one", len(parts))
	}
	return parts[0], nil
}

// command answers a command received between messages (PING).
func (z *zmtpConn) command(body []byte) error {
	name, _, err := zmtpCommandBody(body)
	if err != nil {
		return err
	}
	switch name {
	case "PING":
		// PING: 2-byte TTL, then a context echoed in the PONG.
		ctx := body[1+len(name):]
		if len(ctx) >= 2 {
			ctx = ctx[2:]
		}
		pong := append([]byte{4}, "PONG"...)
		pong = append(pong, ctx...)
		return z.write(zmtpCommand, pong)
	case "ERROR":
		return fmt.Errorf("the peer reported an error: %q", body[1+len(name):])
	}
	return nil // other commands are not for REQ/REP
}

// write sends one frame.
func (z *zmtpConn) write(flags byte, body []byte) error {
	z.wb = z.appendFrame(z.wb[:0], flags, body)
	_, err := z.c.Write(z.wb)
	return err
}

func (z *zmtpConn) appendFrame(b []byte, flags byte, body []byte) []byte {
	if len(body) > 255 {
		b = append(b, flags|zmtpLong)
		b = binary.BigEndian.AppendUint64(b, uint64(len(body)))
	} else {
		b = append(b, flags, byte(len(body)))
	}
	return append(b, body...)
}

// send writes the reply: the empty delimiter, then the body, in one write.
func (z *zmtpConn) send(body []byte) error {
	z.wb = append(z.wb[:0], zmtpMore, 0)
	z.wb = z.appendFrame(z.wb, 0, body)
	_, err := z.c.Write(z.wb)
	return err
}

// zmtpServe is Listener.Serve's loop on a native endpoint.
func (l *Listener) zmtpServe(ctx context.Context, step func(raw []byte) (out []byte, done bool, err error)) error {
	deadline := func() time.Time {
		if l.cfg.Timeout > 0 {
			return time.Now().Add(l.cfg.Timeout)
		}
		return time.Time{}
	}
	z, err := zmtpAccept(ctx, l.ln, deadline())
	if err != nil {
		return l.waitError(ctx, err, 0)
	}
	defer z.c.Close()
	stopConn := context.AfterFunc(ctx, func() { _ = z.c.SetReadDeadline(time.Now()) })
	defer stopConn()
	for received := 0; ; {
		if l.cfg.Timeout > 0 {
			_ = z.c.SetReadDeadline(deadline())
			// A cancellation that set its deadline before this one
			// would be overwritten: look at the context again.
			if ctx.Err() != nil {
				return ErrInterrupted
			}
		}
		raw, err := z.recv()
		if err != nil {
			return l.waitError(ctx, err, received)
		}
		received++
		out, done, err := step(raw)
		if err != nil && out == nil {
			return err
		}
		if serr := z.send(out); serr != nil && err == nil {
			return fmt.Errorf("replying to Batsim: %w", serr)
		}
		if done || err != nil {
			return err
		}
	}
}

// waitError turns an error met while waiting for Batsim into Serve's.
func (l *Listener) waitError(ctx context.Context, err error, received int) error {
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &TimeoutError{Timeout: l.cfg.Timeout, Endpoint: l.endpoint, Messages: received}
	}
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("receiving from Batsim: the connection closed after %d messages", received)
	}
	return fmt.Errorf("receiving from Batsim: %w", err)
}
