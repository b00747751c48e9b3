package bridge

import (
	"context"
	"errors"

	v5 "github.com/bucma-sched/bucma/batsim/v5"
)

// Name is the decision component's name in its hello.
const Name = "bucma-bridge"

// AdapterConfig is the configuration of the adapter in front of the
// process: the Batsim 4 flags of cfg as the features and constraints asked
// of Batsim 5 (the profiles forwarded at submission are forwarded at
// SimulationBegins too, where Batsim 4 always gives them), its sched-config
// told to the process.
func AdapterConfig(cfg Config) v5.Config {
	f := v5.RequestedFeatures{
		DynamicRegistration:               cfg.DynamicJobs,
		AcknowledgeDynamicJobs:            cfg.AcknowledgeDynamicJobs,
		ForwardProfilesOnJobSubmission:    cfg.ForwardProfiles,
		ForwardProfilesOnSimulationBegins: cfg.ForwardProfiles,
		ProfileReuse:                      cfg.ProfileReuse,
		ForwardUnknownExternalEvents:      cfg.ForwardUnknownEvents,
	}
	c := v5.DefaultConstraints()
	c.ComputeSharing = cfg.ComputeSharing
	name := cfg.Name
	if name == "" {
		name = Name
	}
	return v5.Config{Name: name, Version: cfg.Version, Features: f, Constraints: c, SchedConfig: cfg.SchedConfig, Log: cfg.Log}
}

// New builds a bridge's Batsim 5 decision component: package v5's
// adapter, configured by cfg, in front of the process at cfg.Endpoint. The
// component asks Batsim 5 to stop the simulation on a decision it cannot
// translate or an error of the process (v5.EDC.StopOnError). The caller
// ends the process's side once the simulation is over, whatever happened
// (Process.End, then Process.Close).
func New(ctx context.Context, cfg Config) (*v5.EDC, *Process, error) {
	p, err := NewProcess(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	e := v5.NewEDC(AdapterConfig(cfg), p)
	e.StopOnError = true
	return e, p, nil
}

// Component is a bridge as one object, for a transport that hands it
// Batsim 5's messages one by one (the shared library): Take is the
// component's, and tells the process the end once the simulation is over
// however it ended.
type Component struct {
	EDC     *v5.EDC
	Process *Process
}

// Start builds the component of a bridge's init string over def (see
// Init.Config).
func Start(ctx context.Context, init []byte, def Config) (*Component, error) {
	in, err := ParseInit(init)
	if err != nil {
		return nil, err
	}
	cfg, err := in.Config(def)
	if err != nil {
		return nil, err
	}
	e, p, err := New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &Component{EDC: e, Process: p}, nil
}

// Hello is the answer to Batsim 5's initialization.
func (c *Component) Hello() []byte { return c.EDC.Hello() }

// Take answers one message of Batsim 5 (v5.EDC.Take); once the answer ends
// the simulation, or the component cannot go on, the process is told the
// end, if it was not.
func (c *Component) Take(raw []byte) ([]byte, bool, error) {
	out, done, err := c.EDC.Take(raw)
	if done || err != nil {
		if eerr := c.Process.End(); eerr != nil {
			err = errors.Join(err, eerr)
		}
	}
	return out, done, err
}

// Close tells the process the end, if it was not, and closes the
// connection.
func (c *Component) Close() error {
	return errors.Join(c.Process.End(), c.Process.Close())
}
