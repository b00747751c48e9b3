package zmq_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bucma-sched/bucma/policies"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/batsim/zmq"

	"github.com/bucma-sched/bucma/internal/corpus"
	"github.com/bucma-sched/bucma/internal/corpus/replies"
	"github.com/bucma-sched/bucma/sched"
)

// guard bounds every wait of the Batsim side so that a broken server fails
// the test instead of hanging it; it is not a performance assertion.
const guard = 60 * time.Second

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// peer is the Batsim side of a conversation: a Client connected to the
// server under test.
type peer struct {
	t *testing.T
	c *zmq.Client
}

func dialBatsim(t *testing.T, endpoint string) *peer {
	t.Helper()
	return dialBatsimVia(t, endpoint, "")
}

// dialBatsimVia is dialBatsim through the client transport named ("": the
// build's default).
func dialBatsimVia(t *testing.T, endpoint, transport string) *peer {
	t.Helper()
	c, err := zmq.DialTransport(endpoint, transport)
	if err != nil {
		t.Fatal(err)
	}
	c.Timeout = guard
	t.Cleanup(func() { _ = c.Close() })
	return &peer{t: t, c: c}
}

func (b *peer) send(raw string) {
	b.t.Helper()
	if err := b.c.Send([]byte(raw)); err != nil {
		b.t.Fatal(err)
	}
}

// recv returns the next reply, or nil if none came within the guard.
func (b *peer) recv() []byte {
	b.t.Helper()
	out, err := b.c.Receive()
	if err != nil {
		return nil
	}
	return out
}

// startServe runs Serve in a goroutine on a wildcard loopback port and
// returns the bound endpoint and the channel of Serve's result.
func startServe(t *testing.T, ctx context.Context, cfg zmq.ServeConfig, h batsim.Handler) (string, <-chan error) {
	t.Helper()
	if cfg.Endpoint == "" {
		cfg.Endpoint = "tcp://127.0.0.1:*"
	}
	if cfg.Logger == nil {
		cfg.Logger = discard()
	}
	bound := make(chan string, 1)
	cfg.Bound = func(ep string) { bound <- ep }
	done := make(chan error, 1)
	go func() { done <- zmq.Serve(ctx, cfg, h) }()
	select {
	case ep := <-bound:
		return ep, done
	case err := <-done:
		t.Fatalf("Serve returned before binding: %v", err)
	case <-time.After(guard):
		t.Fatal("Serve did not bind")
	}
	return "", nil
}

// needTransports skips a test that needs libzmq in a build without it.
func needTransports(t *testing.T, transports ...string) {
	t.Helper()
	for _, tr := range transports {
		if tr == zmq.TransportLibzmq && !zmq.HasLibzmq {
			t.Skip("this build has no libzmq (built without cgo)")
		}
	}
}

func wait(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(guard):
		t.Fatal("Serve did not return")
		return nil
	}
}

func fcfsFirstFit(t *testing.T) *sched.Session {
	t.Helper()
	spec, err := policies.Builtin().Lookup("fcfs")
	if err != nil {
		t.Fatal(err)
	}
	// users_fields' sched-config holds BUCMA's options, which the
	// reference scheduler ignored: so does this one.
	s, err := sched.NewSession(sched.SessionConfig{Spec: spec, Options: sched.Options{"hosts": "first-fit"}, Validate: true, Log: discard(), IgnoreSchedConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestServeTranscripts plays the Batsim side of recorded conversations
// against the real REP loop serving fcfs hosts=first-fit (the policy that
// made them): every reply must carry the recorded decisions at the recorded
// now, and Serve must return nil once SIMULATION_ENDS is answered. The
// Batsim side is the build's default client, or the native or libzmq one
// named, against either server transport.
func TestServeTranscripts(t *testing.T) {
	for _, c := range []struct{ name, transport, client string }{
		{"hetero4_delays", "", ""}, {"hetero8_compute", "", ""}, {"users_fields", "", ""},
		{"hetero4_delays", zmq.TransportLibzmq, ""}, // the same through libzmq's REP socket
		{"hetero8_compute", zmq.TransportNative, zmq.TransportNative},
		{"hetero8_compute", zmq.TransportLibzmq, zmq.TransportNative},
		{"hetero8_compute", zmq.TransportNative, zmq.TransportLibzmq},
	} {
		name := c.name
		t.Run(name+"/"+c.transport+"/"+c.client, func(t *testing.T) {
			needTransports(t, c.transport, c.client)
			lines := corpus.ReadTranscript(t, name, "transcript.jsonl")
			var mu sync.Mutex
			observed := map[batsim.Direction]int{}
			cfg := zmq.ServeConfig{Transport: c.transport, Observe: func(d batsim.Direction, raw []byte) {
				mu.Lock()
				observed[d]++
				mu.Unlock()
			}}
			ep, done := startServe(t, context.Background(), cfg, fcfsFirstFit(t))
			b := dialBatsimVia(t, ep, c.client)
			exchanges := 0
			for i := 0; i+1 < len(lines); i += 2 {
				in, want := lines[i], lines[i+1]
				if in.Dir != corpus.FromBatsim || want.Dir != corpus.FromScheduler {
					t.Fatalf("seq %d: transcript does not alternate", in.Seq)
				}
				b.send(in.Raw)
				got := b.recv()
				if got == nil {
					t.Fatalf("seq %d: no reply", in.Seq)
				}
				gotNow, gotEv := replies.Decisions(t, got)
				wantNow, wantEv := replies.Decisions(t, []byte(want.Raw))
				if gotNow != wantNow || !reflect.DeepEqual(gotEv, wantEv) {
					t.Fatalf("seq %d: reply\n%s\nrecorded\n%s", want.Seq, got, want.Raw)
				}
				exchanges++
			}
			if err := wait(t, done); err != nil {
				t.Fatalf("Serve after SIMULATION_ENDS: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if observed[batsim.FromBatsim] != exchanges || observed[batsim.FromScheduler] != exchanges {
				t.Fatalf("observed %v, want %d each way", observed, exchanges)
			}
		})
	}
}

func TestServeDecodeError(t *testing.T) {
	called := false
	h := batsim.HandlerFunc(func(m *batsim.Message) (*batsim.Reply, error) {
		called = true
		return nil, nil
	})
	ep, done := startServe(t, context.Background(), zmq.ServeConfig{}, h)
	b := dialBatsim(t, ep)
	b.send(`{"now":0.000000,"events":[{"timestamp":0.0,"type":"JOB_SUBMITTED"}]}`)
	err := wait(t, done)
	if err == nil || !strings.Contains(err.Error(), "data") {
		t.Fatalf("want a decode error about the missing data, got %v", err)
	}
	if called {
		t.Fatal("handler called on an undecodable message")
	}
}

func TestServeHandlerError(t *testing.T) {
	boom := errors.New("invalid decision")
	h := batsim.HandlerFunc(func(m *batsim.Message) (*batsim.Reply, error) { return nil, boom })
	ep, done := startServe(t, context.Background(), zmq.ServeConfig{}, h)
	b := dialBatsim(t, ep)
	b.send(`{"now":1.000000,"events":[]}`)
	if err := wait(t, done); !errors.Is(err, boom) {
		t.Fatalf("want the handler's error, got %v", err)
	}
}

func TestServeNilReplyIsEmpty(t *testing.T) {
	h := batsim.HandlerFunc(func(m *batsim.Message) (*batsim.Reply, error) { return nil, nil })
	ep, done := startServe(t, context.Background(), zmq.ServeConfig{}, h)
	b := dialBatsim(t, ep)
	b.send(`{"now":2.500000,"events":[]}`)
	if got := string(b.recv()); got != `{"now":2.5,"events":[]}` {
		t.Fatalf("reply %s", got)
	}
	b.send(`{"now":3.000000,"events":[{"timestamp":3.0,"type":"SIMULATION_ENDS","data":{}}]}`)
	if got := string(b.recv()); got != `{"now":3.0,"events":[]}` {
		t.Fatalf("final reply %s", got)
	}
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
}

func TestServeTimeout(t *testing.T) {
	h := batsim.HandlerFunc(func(m *batsim.Message) (*batsim.Reply, error) { return nil, nil })
	_, done := startServe(t, context.Background(), zmq.ServeConfig{Timeout: 50 * time.Millisecond}, h)
	err := wait(t, done)
	var te *zmq.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("want a TimeoutError, got %v", err)
	}
	if !strings.Contains(err.Error(), "no message from Batsim for 50ms") {
		t.Fatalf("message %q", err)
	}
}

func TestServeInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	h := batsim.HandlerFunc(func(m *batsim.Message) (*batsim.Reply, error) { return nil, nil })
	_, done := startServe(t, ctx, zmq.ServeConfig{}, h)
	cancel()
	if err := wait(t, done); !errors.Is(err, zmq.ErrInterrupted) {
		t.Fatalf("want ErrInterrupted, got %v", err)
	}
}

// TestServeCancelledFirst: a context cancelled before Serve starts waiting
// (a signal right after the socket is bound) ends Serve at once, with or
// without a timeout, on both transports: the wait's own deadline must not
// replace the cancellation's.
func TestServeCancelledFirst(t *testing.T) {
	h := batsim.HandlerFunc(func(m *batsim.Message) (*batsim.Reply, error) { return nil, nil })
	for _, transport := range []string{zmq.TransportNative, zmq.TransportLibzmq} {
		for _, timeout := range []time.Duration{0, time.Hour} {
			t.Run(fmt.Sprintf("%s/timeout=%v", transport, timeout), func(t *testing.T) {
				needTransports(t, transport)
				l, err := zmq.Listen(zmq.ServeConfig{Endpoint: "tcp://127.0.0.1:*", Transport: transport, Timeout: timeout, Logger: discard()})
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				done := make(chan error, 1)
				go func() { done <- l.Serve(ctx, h) }()
				if err := wait(t, done); !errors.Is(err, zmq.ErrInterrupted) {
					t.Fatalf("want ErrInterrupted, got %v", err)
				}
			})
		}
	}
}

// TestServeCancelledDuringHandshake: a peer that connects and never greets
// does not keep a cancelled Serve waiting.
func TestServeCancelledDuringHandshake(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := batsim.HandlerFunc(func(m *batsim.Message) (*batsim.Reply, error) { return nil, nil })
	ep, done := startServe(t, ctx, zmq.ServeConfig{Timeout: time.Hour}, h)
	c, err := net.Dial("tcp", strings.TrimPrefix(ep, "tcp://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The server's greeting arrives once it accepted: the handshake has begun.
	if _, err := c.Read(make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := wait(t, done); !errors.Is(err, zmq.ErrInterrupted) {
		t.Fatalf("want ErrInterrupted, got %v", err)
	}
}

func TestServeBindError(t *testing.T) {
	h := batsim.HandlerFunc(func(m *batsim.Message) (*batsim.Reply, error) { return nil, nil })
	err := zmq.Serve(context.Background(), zmq.ServeConfig{Endpoint: "nonsense://x", Logger: discard()}, h)
	if err == nil || !strings.Contains(err.Error(), "nonsense://x") {
		t.Fatalf("want an error naming the endpoint, got %v", err)
	}
}

// TestServeTwice checks that Serve releases its endpoint: a second
// simulation can be served on the same address once the first ended.
func TestServeTwice(t *testing.T) {
	h := batsim.HandlerFunc(func(m *batsim.Message) (*batsim.Reply, error) { return nil, nil })
	ep, done := startServe(t, context.Background(), zmq.ServeConfig{}, h)
	b := dialBatsim(t, ep)
	b.send(`{"now":1.000000,"events":[{"timestamp":1.0,"type":"SIMULATION_ENDS","data":{}}]}`)
	if b.recv() == nil {
		t.Fatal("no final reply")
	}
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
	_, done2 := startServe(t, context.Background(), zmq.ServeConfig{Endpoint: ep, Timeout: 10 * time.Millisecond}, h)
	var te *zmq.TimeoutError
	if err := wait(t, done2); !errors.As(err, &te) {
		t.Fatalf("second Serve on %s: %v", ep, err)
	}
}

// TestListenEphemeralPort: Listen on a wildcard port returns with the port
// the system picked already bound (a second listener gets another one, and
// binding the first's endpoint again fails until it is closed); a REQ client
// connecting to Endpoint is served.
func TestListenEphemeralPort(t *testing.T) {
	cfg := zmq.ServeConfig{Endpoint: "tcp://127.0.0.1:*", Logger: discard()}
	a, err := zmq.Listen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := zmq.Listen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []*zmq.Listener{a, b} {
		if ep := l.Endpoint(); !strings.HasPrefix(ep, "tcp://127.0.0.1:") || strings.Contains(ep, "*") {
			t.Fatalf("endpoint %q", ep)
		}
	}
	if a.Endpoint() == b.Endpoint() {
		t.Fatalf("two listeners on %s", a.Endpoint())
	}
	if _, err := zmq.Listen(zmq.ServeConfig{Endpoint: b.Endpoint(), Logger: discard()}); err == nil || !strings.Contains(err.Error(), b.Endpoint()) {
		t.Fatalf("binding a bound endpoint: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := zmq.Listen(zmq.ServeConfig{Endpoint: b.Endpoint(), Logger: discard()})
	if err != nil {
		t.Fatalf("endpoint not released by Close: %v", err)
	}
	if err := again.Close(); err != nil {
		t.Fatal(err)
	}

	lines := corpus.ReadTranscript(t, "hetero4_delays", "transcript.jsonl")
	sess := fcfsFirstFit(t)
	done := make(chan error, 1)
	go func() { done <- a.Serve(context.Background(), sess) }()
	bs := dialBatsim(t, a.Endpoint())
	for i := 0; i+1 < len(lines); i += 2 {
		bs.send(lines[i].Raw)
		got := bs.recv()
		gotNow, gotEv := replies.Decisions(t, got)
		wantNow, wantEv := replies.Decisions(t, []byte(lines[i+1].Raw))
		if gotNow != wantNow || !reflect.DeepEqual(gotEv, wantEv) {
			t.Fatalf("seq %d: reply\n%s\nrecorded\n%s", lines[i+1].Seq, got, lines[i+1].Raw)
		}
	}
	if err := wait(t, done); err != nil {
		t.Fatalf("Serve after SIMULATION_ENDS: %v", err)
	}
}

// TestCheckEndpoint: a tcp port outside 1..65535 (which libzmq would take
// modulo 65536) is refused; "*" only for an endpoint to bind; an endpoint
// without a transport is refused with the tcp:// one it means.
func TestCheckEndpoint(t *testing.T) {
	cases := []struct {
		ep   string
		bind bool
		err  string
	}{
		{"tcp://*:28000", true, ""},
		{"tcp://127.0.0.1:*", true, ""},
		{"tcp://127.0.0.1:1", true, ""},
		{"tcp://127.0.0.1:65535", false, ""},
		{"tcp://[::1]:28000", false, ""},
		{"tcp://localhost:28000", false, ""},
		{"ipc:///tmp/bucma.sock", true, ""},
		{"inproc://x", false, ""},
		{"tcp://127.0.0.1:99999", true, `endpoint "tcp://127.0.0.1:99999": port "99999" is not a number in 1..65535 or *`},
		{"tcp://127.0.0.1:99999", false, `port "99999" is not a number in 1..65535`},
		{"tcp://127.0.0.1:0", true, `port "0"`},
		{"tcp://127.0.0.1:-1", true, `port "-1"`},
		{"tcp://127.0.0.1:+80", true, `port "+80"`},
		{"tcp://127.0.0.1:http", false, `port "http"`},
		{"tcp://127.0.0.1:", true, `port ""`},
		{"tcp://127.0.0.1", true, "no port"},
		{"tcp://127.0.0.1:*", false, "connect to must be a number"},
		{"127.0.0.1:28000", true, `endpoint "127.0.0.1:28000": no transport (want TRANSPORT://ADDRESS: tcp://127.0.0.1:28000?)`},
		{"localhost:28000", false, "tcp://localhost:28000?"},
		{"*:28000", true, "tcp://*:28000?"},
		{"", true, "no transport"},
	}
	for _, c := range cases {
		err := zmq.CheckEndpoint(c.ep, c.bind)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("CheckEndpoint(%q, bind=%v) = %v, want %q", c.ep, c.bind, err, c.err)
		}
	}
}
