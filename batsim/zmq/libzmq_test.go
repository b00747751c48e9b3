//go:build cgo

package zmq_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	zmq4 "github.com/pebbe/zmq4"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/batsim/zmq"
)

// A build with cgo links libzmq: --version says so, with its version.
func TestTransportsWithLibzmq(t *testing.T) {
	major, minor, patch := zmq4.Version()
	want := fmt.Sprintf("libzmq %d.%d.%d", major, minor, patch)
	if !zmq.HasLibzmq || !strings.Contains(zmq.Transports(), want) || !strings.Contains(zmq.Transports(), "native") {
		t.Fatalf("HasLibzmq %v, Transports %q: want both transports, %s", zmq.HasLibzmq, zmq.Transports(), want)
	}
}

// TestZMTPHeartbeats: a REQ socket that sends ZMTP PINGs (heartbeats)
// between its requests is answered with PONGs (else it drops the
// connection) and served. Batsim sets no heartbeat; PINGs are read while
// waiting for a message, so a peer's heartbeat timeout must exceed the
// longest decision (--transport libzmq answers them meanwhile too).
func TestZMTPHeartbeats(t *testing.T) {
	h := batsim.HandlerFunc(func(m *batsim.Message) (*batsim.Reply, error) { return nil, nil })
	ep, done := startServe(t, context.Background(), zmq.ServeConfig{}, h)
	zc, err := zmq4.NewContext()
	if err != nil {
		t.Fatal(err)
	}
	defer zc.Term()
	s, err := zc.NewSocket(zmq4.REQ)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_ = s.SetLinger(0)
	_ = s.SetHeartbeatIvl(2 * time.Millisecond)
	_ = s.SetHeartbeatTimeout(300 * time.Millisecond) // generous: a loaded machine delays the PONGs
	_ = s.SetRcvtimeo(guard)
	if err := s.Connect(ep); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		msg := `{"now":0.5,"events":[]}`
		if i == 2 {
			msg = endMsg
		}
		if _, err := s.Send(msg, 0); err != nil {
			t.Fatal(err)
		}
		if r, err := s.Recv(0); err != nil || !strings.HasPrefix(r, `{"now":`) {
			t.Fatalf("reply %d: %q, %v (a missing PONG makes the REQ socket drop the connection)", i, r, err)
		}
		time.Sleep(600 * time.Millisecond) // PINGs, and PONGs, meanwhile: longer than the timeout
	}
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
}
