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
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/run"
)

func edcStarter(b []byte) (*v5.EDC, error) {
	e, _, err := run.New(b, policies.Builtin(), "test", discard())
	if err != nil {
		return run.Refused("test", err), err
	}
	return e, err
}

// initFrame is Batsim 5's initialization message for an init string.
func initFrame(init string) string {
	return string(append(binary.NativeEndian.AppendUint32(nil, uint32(len(init))), init...))
}

// simulationBegins is a Batsim 5 SimulationBeginsEvent of one host.
const simulationBegins = `{"now":0.0000010008,"events":[{"timestamp":0.0,"event_type":"SimulationBeginsEvent","event":{"host_number":1,"computation_host_number":1,"computation_hosts":[{"id":0,"name":"h","pstate":0,"pstate_count":1,"state":"IDLE","properties":[],"zone_properties":[],"core_count":1,"computation_speed":[1e9]}],"storage_host_number":0,"storage_hosts":[],"workloads":[{"name":"w0","filename":"w.json"}],"profiles":[],"external_event_lists":[],"batsim_version":"5.0.0-rc2"}}]}` + "\x00"

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

// TestServeV5Errors: whatever stops the conversation, Batsim gets an
// answer that makes it end rather than wait forever. A Batsim 4 peer when
// Batsim 5 is required gets Batsim 4's stop (batsim.StopReply); a refused
// init string a hello, then ForceSimulationStopEvent, then the answer to
// SimulationEndsEvent, the error returned at the end; so does a message the
// decision component cannot go on from.
func TestServeV5Errors(t *testing.T) {
	serve := func() (*peer, <-chan error) {
		ep, done := startListener(t, "", func(l *zmq.Listener) error { return l.ServeV5(context.Background(), edcStarter) })
		return dialBatsim(t, ep), done
	}
	b, done := serve()
	b.send(`{"now":2.5,"events":[]}`)
	if got := string(b.recv()); got != string(batsim.StopReply(2.5)) {
		t.Errorf("Batsim 4 peer: reply %s, want Batsim 4's stop", got)
	}
	if err := wait(t, done); err == nil || !strings.Contains(err.Error(), "not Batsim 5's initialization") {
		t.Fatalf("want a refusal of the Batsim 4 message, got %v", err)
	}
	const stop = `{"now":1.0007995e-06,"events":[{"timestamp":1.0007995e-06,"event_type":"ForceSimulationStopEvent","event":{}}]}` + "\x00"
	const ends = `{"now":3.0000010008,"events":[{"timestamp":3.0000010008,"event_type":"SimulationEndsEvent","event":{}}]}` + "\x00"
	for _, c := range []struct {
		name, init, want string
		msgs             []string // Batsim's messages before the stop
	}{
		{"unknown policy", `{"policy":"nope"}`, `unknown scheduler "nope"`, nil},
		{"unknown option", `{"policy":"fcfs","options":{"nope":1}}`, `unknown option "nope"`, nil},
		{"bad option value", `{"policy":"fcfs","options":{"hosts":"slowest"}}`, "slowest", nil},
		{"no policy", ``, "no policy", nil},
		{"not JSON", `fcfs`, "not a JSON object", nil},
		{"a job completed that never started", `{"policy":"fcfs"}`, "never started",
			[]string{`{"now":0.0000010008,"events":[{"timestamp":0.0000010008,"event_type":"JobCompletedEvent","event":{"job_id":"w0!1","state":"COMPLETED_SUCCESSFULLY","return_code":0}}]}` + "\x00"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, done := serve()
			b.send(initFrame(c.init))
			if hello := b.recv(); len(hello) < 5 || binary.NativeEndian.Uint32(hello) != v5.FormatJSON || !strings.Contains(string(hello), `"EDCHelloEvent"`) {
				t.Fatalf("hello %q", hello)
			}
			b.send(simulationBegins)
			got := string(b.recv())
			for _, m := range c.msgs {
				b.send(m)
				got = string(b.recv())
			}
			if got != stop {
				t.Errorf("reply %q, want ForceSimulationStopEvent", got)
			}
			b.send(ends)
			if got := string(b.recv()); got != `{"now":3.0000010007994997,"events":[]}`+"\x00" {
				t.Errorf("answer to SimulationEndsEvent %q", got)
			}
			if err := wait(t, done); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want an error with %q, got %v", c.want, err)
			}
		})
	}
	// A message that does not decode after the hello: nothing to date an
	// answer with.
	b, done = serve()
	b.send(initFrame(`{"policy":"fcfs"}`))
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
