package zmq_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/batsim/zmq"
)

const endMsg = `{"now":1.000000,"events":[{"timestamp":1.0,"type":"SIMULATION_ENDS","data":{}}]}`

// TestZMTPStrayConnection: a connection that is not a ZeroMQ peer (a port
// scanner, an HTTP client) is dropped and Batsim, connecting next, is
// served.
func TestZMTPStrayConnection(t *testing.T) {
	h := batsim.HandlerFunc(func(m *batsim.Message) (*batsim.Reply, error) { return nil, nil })
	ep, done := startServe(t, context.Background(), zmq.ServeConfig{}, h)
	c, err := net.Dial("tcp", strings.TrimPrefix(ep, "tcp://"))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = c.Write([]byte("GET / HTTP/1.0\r\n\r\n" + strings.Repeat("x", 64)))
	_, _ = io.Copy(io.Discard, c) // the server closes it
	_ = c.Close()
	b := dialBatsim(t, ep)
	b.send(endMsg)
	if b.recv() == nil {
		t.Fatal("no reply after a stray connection")
	}
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
}

// TestZMTPSilentConnection: a connection that never greets (no timeout
// set) is dropped after the handshake's wait, and Batsim, connected behind
// it, is served.
func TestZMTPSilentConnection(t *testing.T) {
	defer zmq.SetHandshakeWait(200 * time.Millisecond)()
	h := batsim.HandlerFunc(func(m *batsim.Message) (*batsim.Reply, error) { return nil, nil })
	ep, done := startServe(t, context.Background(), zmq.ServeConfig{}, h)
	c, err := net.Dial("tcp", strings.TrimPrefix(ep, "tcp://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b := dialBatsim(t, ep)
	b.send(endMsg)
	if b.recv() == nil {
		t.Fatal("no reply behind a silent connection")
	}
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
}

// rawPeer is a hand-driven ZMTP peer.
type rawPeer struct {
	t *testing.T
	c net.Conn
}

func dialRaw(t *testing.T, ep string) *rawPeer {
	c, err := net.Dial("tcp", strings.TrimPrefix(ep, "tcp://"))
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(guard))
	t.Cleanup(func() { _ = c.Close() })
	p := &rawPeer{t, c}
	p.write(zmtpHello("REQ"))
	got := make([]byte, 64)
	if _, err := io.ReadFull(c, got); err != nil || got[0] != 0xFF || got[9] != 0x7F || got[10] != 3 {
		t.Fatalf("greeting %x, %v", got, err)
	}
	return p
}

func (p *rawPeer) write(b []byte) {
	if _, err := p.c.Write(b); err != nil {
		p.t.Fatal(err)
	}
}

// TestZMTPFrames: a long frame (8-byte size) is read, the reply comes
// as delimiter + body, and a request of two body frames ends the
// conversation with an error naming it.
func TestZMTPFrames(t *testing.T) {
	h := batsim.HandlerFunc(func(m *batsim.Message) (*batsim.Reply, error) { return nil, nil })
	ep, done := startServe(t, context.Background(), zmq.ServeConfig{}, h)
	p := dialRaw(t, ep)
	// The server's READY first.
	var hdr [2]byte
	if _, err := io.ReadFull(p.c, hdr[:]); err != nil || hdr[0] != 0x04 {
		t.Fatalf("READY header %x, %v", hdr, err)
	}
	if _, err := io.CopyN(io.Discard, p.c, int64(hdr[1])); err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"now":2.0,"events":[]` + strings.Repeat(" ", 300) + `}`)
	msg := []byte{0x01, 0x00, 0x02}
	msg = binary.BigEndian.AppendUint64(msg, uint64(len(body)))
	p.write(append(msg, body...))
	reply := make([]byte, 4)
	if _, err := io.ReadFull(p.c, reply); err != nil || !bytes.Equal(reply[:3], []byte{0x01, 0x00, 0x00}) {
		t.Fatalf("reply header %x, %v", reply, err)
	}
	rest := make([]byte, reply[3])
	if _, err := io.ReadFull(p.c, rest); err != nil || !strings.HasPrefix(string(rest), `{"now":2`) {
		t.Fatalf("reply %q, %v", rest, err)
	}
	p.write([]byte{0x01, 0x00, 0x01, 0x01, 'a', 0x00, 0x01, 'b'})
	if err := wait(t, done); err == nil || !strings.Contains(err.Error(), "2 frames") {
		t.Fatalf("two body frames: %v", err)
	}
}
