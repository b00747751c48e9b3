//go:build !cgo

package zmq_test

import (
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/batsim/zmq"
)

// A build without cgo serves and reaches tcp:// endpoints natively and
// refuses, naming the endpoint and what to do, whatever needs libzmq.
func TestWithoutLibzmq(t *testing.T) {
	if zmq.HasLibzmq || !strings.Contains(zmq.Transports(), "without cgo") {
		t.Fatalf("HasLibzmq %v, Transports %q", zmq.HasLibzmq, zmq.Transports())
	}
	for _, c := range []struct{ ep, transport, want string }{
		{"ipc:///tmp/bucma.sock", "", `endpoint "ipc:///tmp/bucma.sock" needs libzmq, which this bucma was built without (CGO_ENABLED=0)`},
		{"tcp://lo:28000", "", `endpoint "tcp://lo:28000" needs libzmq`},
		{"tcp://127.0.0.1:*", zmq.TransportLibzmq, `transport "libzmq" (for tcp://127.0.0.1:*): this bucma was built without cgo`},
	} {
		_, err := zmq.Listen(zmq.ServeConfig{Endpoint: c.ep, Transport: c.transport, Logger: discard()})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Listen %s %s: got %v, want %q", c.ep, c.transport, err, c.want)
		}
	}
	for _, c := range []struct{ ep, transport, want string }{
		{"ipc:///tmp/bucma.sock", "", `endpoint "ipc:///tmp/bucma.sock" needs libzmq`},
		{"tcp://127.0.0.1:28000", zmq.TransportLibzmq, `transport "libzmq" (for tcp://127.0.0.1:28000): this bucma was built without cgo`},
	} {
		_, err := zmq.DialTransport(c.ep, c.transport)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Dial %s %s: got %v, want %q", c.ep, c.transport, err, c.want)
		}
	}
}
