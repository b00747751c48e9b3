package expe

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/bucma-sched/bucma/policies"

	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sim"
	"github.com/bucma-sched/bucma/workloads"
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

// DynamicJobFlags are the flags of Batsim (and of "bucma simulate") that a
// policy registering dynamic jobs needs (sched.Spec.DynamicJobs): its
// preempted jobs come back as new jobs, and each is acknowledged with a
// JOB_SUBMITTED.
var DynamicJobFlags = []string{"--enable-dynamic-jobs", "--acknowledge-dynamic-jobs"}

// ComputeSharingFlag is the flag of Batsim (and of "bucma simulate") that
// a policy sharing hosts needs (sched.Spec.ComputeSharing).
const ComputeSharingFlag = "--enable-compute-sharing"

// EnergyFlag is the flag of Batsim (and of "bucma simulate") that a policy
// switching hosts' power states needs (sched.Spec.Energy).
const EnergyFlag = "--energy"

// policyFlags are the flags of Batsim a policy needs: DynamicJobFlags for
// a policy that registers dynamic jobs, ComputeSharingFlag for one that
// shares hosts (none for a policy reg does not know: the run fails on it
// with a clear message).
func policyFlags(reg *sched.Registry, policy string) []string {
	if reg == nil {
		reg = policies.Builtin()
	}
	if s, ok := reg.Get(policy); ok {
		return s.BatsimFlags()
	}
	return nil
}

// CommandLine implements Engine: the equivalent "bucma simulate" command.
func (e *EmbeddedEngine) CommandLine(spec RunSpec) string {
	program := e.Program
	if program == "" {
		program = "bucma"
	}
	argv := []string{program, "simulate", "-p", spec.Platform, "-w", spec.Workload, "-e", spec.Prefix}
	argv = append(argv, policyFlags(e.Registry, spec.Run.Variant.Policy)...)
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
	plat, err := platforms.Load(spec.Platform)
	if err != nil {
		return err
	}
	w, err := workloads.Load(spec.Workload)
	if err != nil {
		return err
	}
	tf, err := os.Create(spec.Trace)
	if err != nil {
		return err
	}
	defer tf.Close()
	trace := sched.NewTrace(tf)
	sess, err := sched.NewSession(sched.SessionConfig{
		Spec: pspec, Options: sched.Options(spec.Run.Variant.Options), Validate: e.Validate, Log: log,
		Observers: []sched.Observer{trace},
	})
	if err != nil {
		return err
	}
	cfg := sim.Config{
		Platform: plat, Workloads: []*workloads.Workload{w}, ExportPrefix: spec.Prefix,
		Latency: sim.LatencyBatsim, Log: log,
		DynamicJobs: pspec.DynamicJobs, AcknowledgeDynamicJob: pspec.DynamicJobs,
		ComputeSharing: pspec.ComputeSharing, Energy: pspec.Energy,
	}
	res, err := sim.Run(ctx, cfg, sim.InProcess(sess))
	if err != nil {
		return err
	}
	if err := trace.Err(); err != nil {
		return err
	}
	fmt.Fprintf(logf, "%s: %d jobs %v, makespan %.6f, %d messages, wall %s (scheduler %s)\n",
		spec.Run.ID, res.Jobs, res.ByState, res.Metrics.Makespan, res.Messages, res.Wall, res.SchedWall)
	return nil
}
