package zmq

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/bucma-sched/bucma/batsim"
)

// DefaultEndpoint is where a scheduler listens unless told otherwise: every
// interface, port 28000 (batsched's and pybatsim's default; Batsim connects
// to tcp://localhost:28000 by default).
const DefaultEndpoint = "tcp://*:28000"

// ServeConfig configures Serve.
type ServeConfig struct {
	// Endpoint is the ZeroMQ endpoint the REP socket binds (Batsim's
	// --socket-endpoint connects to it). "" means DefaultEndpoint. A
	// wildcard port ("tcp://127.0.0.1:*") is allowed; Listener.Endpoint
	// and Bound report the port the system chose.
	Endpoint string
	// Timeout is how long to wait for each message from Batsim, including
	// the first; 0 waits forever. Over TCP (the native transport) a
	// connection that has not sent ZeroMQ's greeting within 30 s is
	// dropped whatever Timeout is, and the next one accepted.
	Timeout time.Duration
	// Linger is how long the final reply (to SIMULATION_ENDS) may take to
	// leave the process once the socket is closed; 0 means 3 s.
	Linger time.Duration
	// Logger receives warnings and errors; nil means slog.Default().
	Logger *slog.Logger
	// Observe, when set, sees every raw message: those received from Batsim
	// (FromBatsim) and the replies sent (FromScheduler).
	Observe func(dir batsim.Direction, raw []byte)
	// Bound, when set, is called once the socket is bound, with the actual
	// endpoint (wildcard port resolved).
	Bound func(endpoint string)
	// Transport is TransportNative (or "": tcp:// endpoints are served by
	// bucma's own ZMTP implementation, others by libzmq) or
	// TransportLibzmq (every endpoint through libzmq's REP socket). A
	// bucma built without cgo has no libzmq (HasLibzmq is false): it serves
	// tcp:// endpoints natively and refuses the others.
	Transport string
}

// Transports of ServeConfig.Transport.
const (
	TransportNative = "native"
	TransportLibzmq = "libzmq"
)

// CheckEndpoint checks the port of a tcp:// endpoint, which libzmq would
// otherwise take modulo 65536 ("tcp://127.0.0.1:99999" listens on port
// 34463): it must be a number in 1..65535, or "*" (any free port) for an
// endpoint to bind. Other transports (ipc://, inproc://, ...) are left to
// libzmq. An endpoint without a transport ("127.0.0.1:28000", which libzmq
// refuses as an "invalid argument") is refused with the tcp:// one it
// most likely means.
func CheckEndpoint(endpoint string, bind bool) error {
	if !strings.Contains(endpoint, "://") {
		return fmt.Errorf("endpoint %q: no transport (want TRANSPORT://ADDRESS: tcp://%s?)", endpoint, endpoint)
	}
	rest, ok := strings.CutPrefix(endpoint, "tcp://")
	if !ok {
		return nil
	}
	i := strings.LastIndexByte(rest, ':')
	if i < 0 {
		return fmt.Errorf("endpoint %q: no port (want tcp://HOST:PORT)", endpoint)
	}
	port := rest[i+1:]
	if port == "*" {
		if bind {
			return nil
		}
		return fmt.Errorf("endpoint %q: the port of an endpoint to connect to must be a number in 1..65535", endpoint)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || port[0] == '+' {
		want := "a number in 1..65535"
		if bind {
			want += " or *"
		}
		return fmt.Errorf("endpoint %q: port %q is not %s", endpoint, port, want)
	}
	return nil
}

// ErrInterrupted is returned by Serve when its context is cancelled (for
// example by SIGINT or SIGTERM) before the simulation ended.
var ErrInterrupted = errors.New("interrupted before the end of the simulation")

// TimeoutError is returned by Serve when Batsim stays silent longer than
// ServeConfig.Timeout.
type TimeoutError struct {
	Timeout  time.Duration
	Endpoint string
	Messages int // messages received before the silence
}

// Error implements error.
func (e *TimeoutError) Error() string {
	if e.Messages == 0 {
		return fmt.Sprintf("no message from Batsim for %v (is Batsim running, with a --socket-endpoint that reaches %s?)", e.Timeout, e.Endpoint)
	}
	return fmt.Sprintf("no message from Batsim for %v (after %d messages)", e.Timeout, e.Messages)
}

// pollSlice bounds each wait so that cancellation is noticed promptly.
const pollSlice = 100 * time.Millisecond

// excerpt returns at most n bytes of b for logging.
func excerpt(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + fmt.Sprintf("... (%d bytes)", len(b))
}

// Serve binds a ZeroMQ REP socket and serves one Batsim simulation: Listen
// (then cfg.Bound, when set, with the endpoint bound) and Listener.Serve.
func Serve(ctx context.Context, cfg ServeConfig, h batsim.Handler) error {
	l, err := Listen(cfg)
	if err != nil {
		return err
	}
	if cfg.Bound != nil {
		cfg.Bound(l.Endpoint())
	}
	return l.Serve(ctx, h)
}

// Listener is a REP socket bound to its endpoint, ready to serve one
// simulation. Batsim may connect as soon as Listen has returned.
type Listener struct {
	cfg      ServeConfig
	log      *slog.Logger
	rep      *libzmqRep       // an endpoint served by libzmq (libzmq.go)
	ln       *net.TCPListener // or a native tcp:// endpoint (zmtp.go)
	endpoint string
}

// Listen binds a ZeroMQ REP socket to cfg.Endpoint (DefaultEndpoint when
// empty). With a wildcard port ("tcp://127.0.0.1:*") the system picks a
// free port as it binds, so no other process can take it in between;
// Endpoint tells which. The caller must then call Serve, or Close.
func Listen(cfg ServeConfig) (*Listener, error) {
	l := &Listener{cfg: cfg, log: cfg.Logger, endpoint: cfg.Endpoint}
	if l.log == nil {
		l.log = slog.Default()
	}
	if l.endpoint == "" {
		l.endpoint = DefaultEndpoint
	}
	if err := CheckEndpoint(l.endpoint, true); err != nil {
		return nil, err
	}
	switch cfg.Transport {
	case "", TransportNative, TransportLibzmq:
	default:
		return nil, fmt.Errorf("transport %q: want %s or %s", cfg.Transport, TransportNative, TransportLibzmq)
	}
	if network, addr, ok := nativeEndpoint(l.endpoint, cfg.Transport); ok {
		ln, err := net.Listen(network, addr)
		if err != nil {
			return nil, fmt.Errorf("cannot listen on %s: %w", l.endpoint, err)
		}
		l.ln = ln.(*net.TCPListener)
		l.endpoint = "tcp://" + l.ln.Addr().String()
	} else {
		rep, endpoint, err := listenLibzmq(l.endpoint, cfg.Transport)
		if err != nil {
			return nil, err
		}
		l.rep, l.endpoint = rep, endpoint
	}
	l.log.Info("waiting for Batsim", "endpoint", l.endpoint)
	return l, nil
}

// Endpoint is the endpoint the socket is bound to, wildcard port resolved
// ("tcp://127.0.0.1:*" gives "tcp://127.0.0.1:41237").
func (l *Listener) Endpoint() string { return l.endpoint }

// Close releases the socket of a listener that will not serve.
func (l *Listener) Close() error { return l.close(0) }

// close closes the socket, letting pending messages leave for up to
// linger, and the ZeroMQ context.
func (l *Listener) close(linger time.Duration) (err error) {
	if l.ln != nil {
		return l.ln.Close()
	}
	return l.rep.close(linger)
}

// Serve serves one Batsim simulation, then closes the listener: each
// message is decoded, handed to h, and answered exactly once with the
// encoded reply. Serve returns nil after answering SIMULATION_ENDS (the
// answer is flushed before the socket closes), ErrInterrupted when ctx is
// cancelled, a *TimeoutError when Batsim is silent too long, and the error
// otherwise: a message that does not decode or an error of the handler ends
// the conversation, the message answered with batsim.StopReply so that Batsim
// stops (writing its output files) rather than wait forever.
func (l *Listener) Serve(ctx context.Context, h batsim.Handler) error {
	return l.ServeRaw(ctx, l.v4Step(h))
}

// v4Step is Serve's step: it answers one Batsim 4 message with h's reply,
// and says whether the reply ends the simulation.
func (l *Listener) v4Step(h batsim.Handler) func(raw []byte) ([]byte, bool, error) {
	cfg, log := l.cfg, l.log
	dec := batsim.NewDecoder(log)
	received := 0
	return func(raw []byte) ([]byte, bool, error) {
		received++
		if cfg.Observe != nil {
			cfg.Observe(batsim.FromBatsim, raw)
		}
		msg, err := dec.Decode(raw, batsim.FromBatsim)
		if err != nil {
			log.Error("cannot decode a message from Batsim", "message", received, "error", err, "text", excerpt(raw, 200))
			return batsim.StopReply(0), true, fmt.Errorf("message %d from Batsim: %w", received, err)
		}
		reply, err := h.Handle(msg)
		if err != nil {
			return batsim.StopReply(msg.Now), true, fmt.Errorf("message %d from Batsim (now=%v): %w", received, msg.Now, err)
		}
		if reply == nil {
			reply = batsim.NewReply(msg.Now)
		}
		out := reply.Encode()
		if cfg.Observe != nil {
			cfg.Observe(batsim.FromScheduler, out)
		}
		done := endsSimulation(msg)
		if done {
			log.Info("simulation ended", "now", msg.Now, "messages", received)
		}
		return out, done, nil
	}
}

// ServeRaw serves one simulation at the level of raw messages: step gets
// each message's bytes as received and returns the reply's bytes, sent as
// they are, and whether the reply ends the conversation (Serve's step says
// so after SIMULATION_ENDS). When step fails, the reply it returned (if
// any: Serve's is StopReply) is sent before ServeRaw returns the error.
// ServeRaw checks nothing in the messages; it is for tools that measure the
// transport (a replay of recorded replies). Its errors, cancellation and
// timeouts are Serve's.
func (l *Listener) ServeRaw(ctx context.Context, step func(raw []byte) (reply []byte, done bool, err error)) (err error) {
	linger := l.cfg.Linger
	if linger <= 0 {
		linger = 3 * time.Second
	}
	finalLinger := time.Duration(0)
	defer func() {
		if cerr := l.close(finalLinger); cerr != nil && err == nil {
			err = cerr
		}
	}()
	if l.ln != nil {
		return l.zmtpServe(ctx, step)
	}
	flush, err := l.rep.serve(ctx, l, step)
	if flush {
		finalLinger = linger
	}
	return err
}

func endsSimulation(m *batsim.Message) bool {
	for _, e := range m.Events {
		if e.Type == batsim.TypeSimulationEnds {
			return true
		}
	}
	return false
}
