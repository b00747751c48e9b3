package zmq_test

import (
	"context"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
	v5 "github.com/bucma-sched/bucma/batsim/v5"
	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/internal/corpus"
	"github.com/bucma-sched/bucma/internal/edc"
)

func edcStarter(b []byte) (*v5.EDC, error) {
	e, _, err := edc.New(b, "test", discard())
	return e, err
}

// startListener binds a wildcard loopback port and serves with serve.
func startListener(t *testing.T, transport string, serve func(l *zmq.Listener) error) (string, <-chan error) {
	t.Helper()
	l, err := zmq.Listen(zmq.ServeConfig{Endpoint: "tcp://127.0.0.1:*", Logger: discard(), Transport: transport, Timeout: guard})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- serve(l) }()
	return l.Endpoint(), done
}

// TestServeV5Transcripts plays Batsim 5's side of recorded sessions
// (initialization included) against the REP loop, natively and through
// libzmq, detecting the protocol (ServeAuto) and requiring it (ServeV5):
// every reply must be the recorded one, NUL-terminated, the first preceded
// by the JSON flag.
func TestServeV5Transcripts(t *testing.T) {
	for _, c := range []struct {
		name, transport string
		auto            bool
	}{
		{"easy.jsonl", "", true}, {"osep.jsonl", "", false}, {"killer.jsonl", zmq.TransportLibzmq, true},
	} {
		t.Run(c.name+"/"+c.transport, func(t *testing.T) {
			needTransports(t, c.transport)
			lines := corpus.ReadBatsim5Session(t, c.name)
			ep, done := startListener(t, c.transport, func(l *zmq.Listener) error {
				if c.auto {
					h := batsim.HandlerFunc(func(*batsim.Message) (*batsim.Reply, error) {
						t.Error("the Batsim 4 handler was called")
						return nil, nil
					})
					return l.ServeAuto(context.Background(), h, edcStarter)
				}
				return l.ServeV5(context.Background(), edcStarter)
			})
			b := dialBatsim(t, ep)
			b.send(lines[0].Raw)
			hello := b.recv()
			if len(hello) < 5 || binary.NativeEndian.Uint32(hello) != v5.FormatJSON || string(hello[4:]) != lines[1].Raw+"\x00" {
				t.Fatalf("hello %q", hello)
			}
			for i := 2; i+1 < len(lines); i += 2 {
				b.send(lines[i].Raw + "\x00")
				if got := string(b.recv()); got != lines[i+1].Raw+"\x00" {
					t.Fatalf("line %d: reply\n%q\nrecorded\n%q", i+2, got, lines[i+1].Raw)
				}
			}
			if err := wait(t, done); err != nil {
				t.Fatalf("after SimulationEndsEvent: %v", err)
			}
		})
	}
}

func TestServeAutoBatsim4(t *testing.T) {
	ep, done := startListener(t, "", func(l *zmq.Listener) error {
		return l.ServeAuto(context.Background(), fcfsFirstFit(t), func([]byte) (*v5.EDC, error) {
			t.Error("a Batsim 4 peer started a Batsim 5 decision component")
			return nil, nil
		})
	})
	b := dialBatsim(t, ep)
	b.send(`{"now":0.000000,"events":[{"timestamp":0.000000,"type":"SIMULATION_BEGINS","data":{"nb_resources":1,"nb_compute_resources":1,"nb_storage_resources":0,"allow_compute_sharing":false,"allow_storage_sharing":true,"config":{},"compute_resources":[{"id":0,"name":"h","state":"idle","properties":{}}],"storage_resources":[],"workloads":{"w0":"w.json"}}}]}`)
	if got := string(b.recv()); got != `{"now":0.0,"events":[]}` {
		t.Fatalf("reply %s", got)
	}
	b.send(`{"now":1.000000,"events":[{"timestamp":1.000000,"type":"SIMULATION_ENDS","data":{}}]}`)
	if got := string(b.recv()); got != `{"now":1.0,"events":[]}` {
		t.Fatalf("reply %s", got)
	}
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
}

func TestServeV5Errors(t *testing.T) {
	// A Batsim 4 peer, when Batsim 5 is required.
	ep, done := startListener(t, "", func(l *zmq.Listener) error { return l.ServeV5(context.Background(), edcStarter) })
	b := dialBatsim(t, ep)
	b.send(`{"now":0.000000,"events":[]}`)
	if err := wait(t, done); err == nil || !strings.Contains(err.Error(), "not Batsim 5's initialization") {
		t.Fatalf("want a refusal of the Batsim 4 message, got %v", err)
	}
	// A bad init string: the error names it; nothing is answered.
	ep, done = startListener(t, "", func(l *zmq.Listener) error { return l.ServeV5(context.Background(), edcStarter) })
	b = dialBatsim(t, ep)
	init := []byte(`{"policy":"nope"}`)
	frame := binary.NativeEndian.AppendUint32(nil, uint32(len(init)))
	b.send(string(append(frame, init...)))
	if err := wait(t, done); err == nil || !strings.Contains(err.Error(), `unknown scheduler "nope"`) {
		t.Fatalf("want the unknown policy named, got %v", err)
	}
	// A message that does not decode after the hello.
	ep, done = startListener(t, "", func(l *zmq.Listener) error { return l.ServeV5(context.Background(), edcStarter) })
	b = dialBatsim(t, ep)
	init = []byte(`{"policy":"fcfs"}`)
	b.send(string(append(binary.NativeEndian.AppendUint32(nil, uint32(len(init))), init...)))
	if hello := b.recv(); len(hello) < 4 {
		t.Fatalf("hello %q", hello)
	}
	b.send("{\"now\":1,\"events\":[{\"timestamp\":1}]}\x00")
	if err := wait(t, done); err == nil || !strings.Contains(err.Error(), "event_type") {
		t.Fatalf("want a decode error, got %v", err)
	}
}

func TestIsV5Init(t *testing.T) {
	for _, c := range []struct {
		frame string
		want  bool
	}{
		{"\x00\x00\x00\x00", true}, {"\x02\x00\x00\x00{}", true}, {"\x03\x00\x00\x00{}", false},
		{`{"now":0.0,"events":[]}`, false}, {"", false}, {"\x01\x00", false},
	} {
		if got := zmq.IsV5Init([]byte(c.frame)); got != c.want {
			t.Errorf("IsV5Init(%q) = %v", c.frame, got)
		}
	}
}
