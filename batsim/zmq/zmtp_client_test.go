package zmq_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/batsim/zmq"
)

// freePort returns a loopback endpoint nothing listens on (a port the
// system gave and took back).
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ep := "tcp://" + ln.Addr().String()
	_ = ln.Close()
	return ep
}

// zmtpHello is what a ZMTP 3.0 peer of type socketType sends first: its
// greeting and its READY command.
func zmtpHello(socketType string) []byte {
	g := make([]byte, 64)
	g[0], g[9], g[10] = 0xFF, 0x7F, 3
	copy(g[12:], "NULL")
	ready := []byte{5, 'R', 'E', 'A', 'D', 'Y', 11}
	ready = append(ready, "Socket-Type"...)
	ready = binary.BigEndian.AppendUint32(ready, uint32(len(socketType)))
	ready = append(ready, socketType...)
	return append(append(g, 0x04, byte(len(ready))), ready...)
}

// TestNativeClientConnectsLater: like libzmq's REQ socket, the native
// client may be dialled before the scheduler binds: its first message
// waits for the connection.
func TestNativeClientConnectsLater(t *testing.T) {
	ep := freePort(t)
	b := dialBatsimVia(t, ep, zmq.TransportNative)
	sent := make(chan error, 1)
	go func() { sent <- b.c.Send([]byte(endMsg)) }()
	h := batsim.HandlerFunc(func(m *batsim.Message) (*batsim.Reply, error) { return nil, nil })
	_, done := startServe(t, context.Background(), zmq.ServeConfig{Endpoint: ep}, h)
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	if r := b.recv(); !strings.HasPrefix(string(r), `{"now":1`) {
		t.Fatalf("reply %q", r)
	}
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
}

// TestNativeClientErrors: every way the conversation can fail ends in an
// error naming the endpoint and what happened, never a wait past the
// timeout or the cancellation.
func TestNativeClientErrors(t *testing.T) {
	dial := func(t *testing.T, ep string, timeout time.Duration) *zmq.Client {
		t.Helper()
		c, err := zmq.DialTransport(ep, zmq.TransportNative)
		if err != nil {
			t.Fatal(err)
		}
		c.Timeout = timeout
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	// silent accepts connections and reads whatever comes, answering
	// with greeting (nil: nothing), then closes each after reading
	// closeAfter bytes (0: never).
	silent := func(t *testing.T, greeting []byte, closeAfter int) string {
		t.Helper()
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ln.Close() })
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go func() {
					defer c.Close()
					_, _ = c.Write(greeting)
					if closeAfter > 0 {
						_, _ = io.CopyN(io.Discard, c, int64(closeAfter))
						return
					}
					_, _ = io.Copy(io.Discard, c)
				}()
			}
		}()
		return "tcp://" + ln.Addr().String()
	}
	t.Run("nothing listens", func(t *testing.T) {
		ep := freePort(t)
		err := dial(t, ep, 300*time.Millisecond).Send([]byte(endMsg))
		if err == nil || !strings.Contains(err.Error(), "no connection to "+ep+" within 300ms") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("cancelled while connecting", func(t *testing.T) {
		c := dial(t, freePort(t), 0)
		ctx, cancel := context.WithCancel(context.Background())
		c.Context = ctx
		sent := make(chan error, 1)
		go func() { sent <- c.Send([]byte(endMsg)) }()
		cancel()
		if err := <-sent; !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("not a ZeroMQ peer", func(t *testing.T) {
		ep := silent(t, []byte("HTTP/1.0 400 Bad Request\r\n\r\n"+strings.Repeat("x", 64)), 0)
		err := dial(t, ep, guard).Send([]byte(endMsg))
		if err == nil || !strings.Contains(err.Error(), "connecting to "+ep+": not a ZMTP greeting") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("no reply", func(t *testing.T) {
		stop := make(chan struct{})
		defer close(stop)
		h := batsim.HandlerFunc(func(m *batsim.Message) (*batsim.Reply, error) { <-stop; return nil, nil })
		ep, _ := startServe(t, context.Background(), zmq.ServeConfig{}, h)
		c := dial(t, ep, 50*time.Millisecond)
		if err := c.Send([]byte(endMsg)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Receive(); err == nil || err.Error() != "no reply from "+ep+" within 50ms" {
			t.Fatalf("got %v", err)
		}
		if err := c.Send([]byte(endMsg)); err == nil || !strings.Contains(err.Error(), "the connection ended: no reply") {
			t.Fatalf("a send after the failure: %v", err)
		}
	})
	t.Run("the scheduler closes", func(t *testing.T) {
		// A REP peer that closes once the request is read: the client's
		// greeting, READY (as long as the peer's) and request.
		hello := zmtpHello("REP")
		ep := silent(t, hello, len(hello)+2+2+len(endMsg))
		c := dial(t, ep, guard)
		if err := c.Send([]byte(endMsg)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Receive(); err == nil || err.Error() != "receiving from "+ep+": the scheduler closed the connection" {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("a peer that is not REP", func(t *testing.T) {
		ep := silent(t, zmtpHello("PUB"), 0)
		err := dial(t, ep, guard).Send([]byte(endMsg))
		if err == nil || !strings.Contains(err.Error(), `peer socket type "PUB": want REP or ROUTER`) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("two sends", func(t *testing.T) {
		h := batsim.HandlerFunc(func(m *batsim.Message) (*batsim.Reply, error) { return nil, nil })
		ep, _ := startServe(t, context.Background(), zmq.ServeConfig{}, h)
		c := dial(t, ep, guard)
		if err := c.Send([]byte(`{"now":0.5,"events":[]}`)); err != nil {
			t.Fatal(err)
		}
		if err := c.Send([]byte(endMsg)); err == nil || !strings.Contains(err.Error(), "reply to the previous message was not received") {
			t.Fatalf("got %v", err)
		}
		if _, err := c.Receive(); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Receive(); err == nil || !strings.Contains(err.Error(), "no message was sent") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("endpoints", func(t *testing.T) {
		for ep, want := range map[string]string{
			"tcp://*:28000":         "a host name or address to connect to",
			"tcp://127.0.0.1":       "no port",
			"tcp://127.0.0.1:70000": `port "70000"`,
			"ipc:///tmp/x.sock":     "ipc:///tmp/x.sock",
		} {
			if _, err := zmq.DialTransport(ep, zmq.TransportNative); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: got %v, want %q", ep, err, want)
			}
		}
		if _, err := zmq.DialTransport("tcp://127.0.0.1:1", "carrier-pigeon"); err == nil || !strings.Contains(err.Error(), `transport "carrier-pigeon"`) {
			t.Errorf("unknown transport: %v", err)
		}
	})
}
