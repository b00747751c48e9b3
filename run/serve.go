package run

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/bucma-sched/bucma/batsim"
	v5 "github.com/bucma-sched/bucma/batsim/v5"
	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/workloads"
)

// Server serves one Batsim simulation over ZeroMQ: it binds the endpoint
// (Batsim connects to it) and answers Batsim 4 with the policy's session,
// or Batsim 5 with the decision component its init string asks for (the
// first message tells them apart).
type Server struct {
	// Policy is the policy served. Without its Spec or Name, Batsim 5's
	// init string names it (looked up in Policy.Registry), and Batsim 4 is
	// refused; its Options then win over the init string's, checked once
	// the policy is known. Its Log, Validate and Observers apply to Batsim
	// 5's decision component too.
	Policy Policy
	// Batsim5Only refuses a Batsim 4 peer (it is answered so that it ends).
	Batsim5Only bool
	// ZeroMQ: Endpoint to bind (a wildcard port picks a free one),
	// Transport, Timeout for each message (0: forever).
	Endpoint, Transport string
	Timeout             time.Duration
	// EndpointFile, when set, receives the bound endpoint (the port
	// resolved), written atomically once bound.
	EndpointFile string
	// Bound, when set, is told the bound endpoint.
	Bound func(endpoint string)
	// Trace, when set, is the path of the decision trace (published when
	// the simulation ends, kept as PATH.partial when it fails).
	Trace string
	// Version is the decision component's version in Batsim 5's hello.
	Version string
	// Observe, when set, sees every raw message: those received from
	// Batsim and the replies sent.
	Observe func(dir batsim.Direction, raw []byte)
	// Level, when set, is the level of Log that Batsim 5's init string may
	// lower to debug ("verbose": true); at debug every message is logged.
	Level *slog.LevelVar
	Log   *slog.Logger
	// Start, when set, builds Batsim 5's decision component from its init
	// string in place of the policy's (bucma bridge: a Batsim 4 decision
	// process behind the adapter).
	Start zmq.EDCStarter
}

// Serve checks the policy and opens the trace, binds, and serves until the
// simulation ends, ctx is cancelled (the error is zmq.ErrInterrupted) or a
// failure; a failure after the trace was opened keeps its rows (an *Error
// naming PATH.partial).
func (s *Server) Serve(ctx context.Context) error {
	log := s.Log
	if log == nil {
		log = slog.Default()
	}
	var h batsim.Handler = noScheduler{}
	named := s.Policy.Spec != nil || s.Policy.Name != ""
	if named {
		if _, err := s.Policy.Check(""); err != nil {
			return err
		}
	}
	trace, err := OpenTrace(s.Trace)
	if err != nil {
		return err
	}
	defer trace.Discard()
	var observers []sched.Observer
	if trace != nil {
		observers = append(observers, trace)
	}
	if named {
		sess, err := s.Policy.NewSession(observers...)
		if err != nil {
			return err
		}
		h = sess
	}
	cfg := zmq.ServeConfig{Transport: s.Transport, Endpoint: s.Endpoint, Timeout: s.Timeout, Logger: log}
	debug := func() bool { return log.Enabled(context.Background(), slog.LevelDebug) }
	cfg.Observe = s.Observe
	if debug() {
		cfg.Observe = func(d batsim.Direction, raw []byte) {
			log.Debug("message", "dir", d.String(), "raw", string(raw))
			if s.Observe != nil {
				s.Observe(d, raw)
			}
		}
	}
	start := func(init []byte) (*v5.EDC, error) {
		st, err := Resolve(init, s.Policy.Registry, Defaults{Spec: s.Policy.Spec, Options: s.Policy.Options})
		if err != nil {
			return Refused(s.Version, err), err
		}
		if st.Init.Verbose && s.Level != nil {
			s.Level.Set(slog.LevelDebug)
		}
		e, err := Start(st, s.Version, s.Policy.Validate, log, append(s.Policy.Observers, observers...)...)
		if err != nil {
			return Refused(s.Version, err), err
		}
		if debug() {
			e.Observe = func(d batsim.Direction, raw []byte) {
				log.Debug("message", "dir", d.String(), "raw", string(raw))
			}
		}
		return e, nil
	}
	if s.Start != nil {
		start = s.Start
	}
	err = s.serve(ctx, cfg, h, start, log)
	if err == nil {
		return trace.Commit()
	}
	return &Error{Err: err, Partial: []string{trace.Abort()}}
}

// serve binds the socket, writes the endpoint file, then serves the
// simulation: Batsim 4 with h, Batsim 5 with the decision component start
// builds (only Batsim 5 with Batsim5Only).
func (s *Server) serve(ctx context.Context, cfg zmq.ServeConfig, h batsim.Handler, start zmq.EDCStarter, log *slog.Logger) error {
	l, err := zmq.Listen(cfg)
	if err != nil {
		return err
	}
	ep := l.Endpoint()
	log.Debug("listening", "endpoint", ep, "scheduler", s.Policy.Name)
	if s.EndpointFile != "" {
		if err := workloads.WriteFileAtomic(s.EndpointFile, []byte(ep+"\n")); err != nil {
			_ = l.Close()
			return fmt.Errorf("--endpoint-file: %w", err)
		}
	}
	if s.Bound != nil {
		s.Bound(ep)
	}
	if s.Batsim5Only {
		return l.ServeV5(ctx, start)
	}
	return l.ServeAuto(ctx, h, start)
}

// noScheduler is the Batsim 4 handler of a server without a policy: Batsim
// 4 has no init string to name the policy.
type noScheduler struct{}

// Handle implements batsim.Handler.
func (noScheduler) Handle(*batsim.Message) (*batsim.Reply, error) {
	return nil, &sched.OptionError{Msg: "--scheduler is required to serve Batsim 4 (Batsim 5 may name the policy in its init string instead)"}
}
