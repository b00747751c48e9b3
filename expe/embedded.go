package expe

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/run"

	"github.com/bucma-sched/bucma/sched"
)

// EmbeddedEngine runs each simulation in-process with bucma's embedded
// Batsim-compatible engine (Batsim's timing model), the policy driven
// in-process, and the decision trace written next to the outputs.
type EmbeddedEngine struct {
	Registry *sched.Registry
	// Program is the name of the bucma executable in the command lines
	// the engine records (cmd.txt, run.json; "": bucma): a binary of
	// one's own registering its policies replays its runs.
	Program string
	// Validate audits the scheduler's whole state after every decision
	// (slower; for debugging).
	Validate bool
}

// NewEmbeddedEngine returns the in-process engine using the policies of reg.
func NewEmbeddedEngine(reg *sched.Registry) *EmbeddedEngine {
	return &EmbeddedEngine{Registry: reg}
}

// Name implements Engine.
func (e *EmbeddedEngine) Name() string { return "embedded" }

// policyFeatures are the features of Batsim a policy needs (run.Needs;
// none for a policy reg does not know: the run fails on it with a clear
// message).
func policyFeatures(reg *sched.Registry, policy string) run.Features {
	if reg == nil {
		reg = policies.Builtin()
	}
	if s, ok := reg.Get(policy); ok {
		return run.Needs(s, run.Given{})
	}
	return run.Features{}
}

// CommandLine implements Engine: the equivalent "bucma simulate" command.
func (e *EmbeddedEngine) CommandLine(spec RunSpec) string {
	program := e.Program
	if program == "" {
		program = "bucma"
	}
	argv := []string{program, "simulate", "-p", spec.Platform, "-w", spec.Workload, "-e", spec.Prefix}
	argv = append(argv, policyFeatures(e.Registry, spec.Run.Variant.Policy).BatsimArgs()...)
	argv = append(argv, "--scheduler", spec.Run.Variant.Policy)
	for _, o := range spec.Run.Variant.OptionArgs() {
		argv = append(argv, "--option", o)
	}
	argv = append(argv, "--trace", spec.Trace)
	return ShellJoin(argv)
}

// Run implements Engine.
func (e *EmbeddedEngine) Run(ctx context.Context, spec RunSpec) (err error) {
	reg := e.Registry
	if reg == nil {
		reg = policies.Builtin()
	}
	pspec, err := reg.Lookup(spec.Run.Variant.Policy)
	if err != nil {
		return err
	}
	logf, err := os.Create(spec.Log)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			fmt.Fprintf(logf, "error: %v\n", err)
		}
		if cerr := logf.Close(); err == nil {
			err = cerr
		}
	}()
	log := slog.New(slog.NewTextHandler(logf, &slog.HandlerOptions{Level: slog.LevelWarn}))
	res, err := run.Simulate(ctx, run.Simulation{
		Inputs: run.Inputs{Platform: spec.Platform, Workloads: []string{spec.Workload}},
		Policy: &run.Policy{Spec: pspec, Options: sched.Options(spec.Run.Variant.Options), Validate: e.Validate, Log: log},
		Export: spec.Prefix, Trace: spec.Trace, Log: log,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(logf, "%s: %d jobs %v, makespan %.6f, %d messages, wall %s (scheduler %s)\n",
		spec.Run.ID, res.Jobs, res.ByState, res.Metrics.Makespan, res.Messages, res.Wall, res.SchedWall)
	return nil
}
