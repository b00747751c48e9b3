package run

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sim"
)

// Policy is the decision side of a run: a policy of a registry by name (or
// a Spec value), its options, and how its session runs. Every run mode
// builds its session here (NewSession), so that a policy cannot behave
// differently from one mode to another.
type Policy struct {
	// Name is a policy of Registry, or a twin of one of Batsim 5's test
	// decision components (edc-fcfs, ...), which every run finds.
	Name string
	// Spec is the policy itself, instead of Name.
	Spec *sched.Spec
	// Registry is where Name is looked up (policies.Builtin() for bucma's
	// built-in policies, or a user's own registry).
	Registry *sched.Registry
	// Options are the command line's (--option): they win over Batsim's
	// sched-config (Batsim 5: the init string's options).
	Options sched.Options
	// IgnoreSchedConfig builds the policy from Options alone, whatever
	// Batsim's sched-config holds (batsched's command line: batsched
	// ignores it).
	IgnoreSchedConfig bool
	// Validate audits the scheduler's whole state after every decision, on
	// top of the checks of every decision that always run.
	Validate bool
	// Log receives the session's warnings (nil: slog.Default()).
	Log *slog.Logger
	// Observers see every submission, start and end (a decision trace).
	Observers []sched.Observer
}

// Resolve finds the policy's Spec: Spec, or Name looked up in Registry
// (or among Batsim 5's twins). An unknown name is a *sched.OptionError
// listing the valid ones.
func (p *Policy) Resolve() (*sched.Spec, error) {
	if p.Spec != nil {
		return p.Spec, nil
	}
	if p.Name == "" {
		return nil, &sched.OptionError{Msg: "no policy"}
	}
	reg := p.Registry
	if reg == nil {
		reg = sched.NewRegistry()
	}
	s, err := Lookup(reg, p.Name)
	if err != nil {
		return nil, err
	}
	p.Spec = s
	return s, nil
}

// Check resolves the policy and checks its options, names and values, and
// the sched-config Batsim will send (schedConfig, "" for none), so that a
// mistake is refused before any file is read or written. Its errors are
// *sched.OptionError where the mistake is an option's.
func (p *Policy) Check(schedConfig string) (*sched.Spec, error) {
	spec, err := p.Resolve()
	if err != nil {
		return nil, err
	}
	if _, err := sched.NewSession(p.sessionConfig()); err != nil {
		return nil, err
	}
	if schedConfig != "" && !p.IgnoreSchedConfig {
		if _, _, err := spec.BuildWithSchedConfig(schedConfig, p.Options); err != nil {
			return nil, err
		}
	}
	return spec, nil
}

// NewSession builds the policy's session: the pure state machine that
// reads Batsim's messages and answers them, whatever carries them (the
// embedded engine, ZeroMQ, Batsim 5's adapter, a test's driver).
func (p *Policy) NewSession(observers ...sched.Observer) (*sched.Session, error) {
	if _, err := p.Resolve(); err != nil {
		return nil, err
	}
	cfg := p.sessionConfig()
	if len(observers) > 0 {
		cfg.Observers = append(append([]sched.Observer(nil), cfg.Observers...), observers...)
	}
	return sched.NewSession(cfg)
}

// InProcess builds the policy's session (NewSession) and the embedded
// engine's scheduler that drives it in this process, events and decisions
// crossing as Go values.
func (p *Policy) InProcess(observers ...sched.Observer) (sim.Scheduler, *sched.Session, error) {
	sess, err := p.NewSession(observers...)
	if err != nil {
		return nil, nil, err
	}
	return sim.InProcess(sess), sess, nil
}

func (p *Policy) sessionConfig() sched.SessionConfig {
	return sched.SessionConfig{Spec: p.Spec, Options: p.Options, IgnoreSchedConfig: p.IgnoreSchedConfig,
		Validate: p.Validate, Log: p.Log, Observers: p.Observers}
}

// ParsedPolicy is Policy with its options given as the command line gives
// them (key=value).
func ParsedPolicy(reg *sched.Registry, name string, optionArgs []string) (*Policy, error) {
	opts, err := sched.ParseOptionArgs(optionArgs)
	if err != nil {
		return nil, err
	}
	return &Policy{Name: name, Registry: reg, Options: opts}, nil
}

// IsOptionError reports whether err is a mistake of the command line or of
// a policy option (a usage error).
func IsOptionError(err error) bool {
	var oe *sched.OptionError
	return errors.As(err, &oe)
}

// String names the policy with its options, as a command line gives them.
func (p *Policy) String() string {
	name := p.Name
	if p.Spec != nil {
		name = p.Spec.Name
	}
	if len(p.Options) == 0 {
		return name
	}
	return fmt.Sprintf("%s %v", name, p.Options)
}
