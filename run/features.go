package run

import (
	v5 "github.com/bucma-sched/bucma/batsim/v5"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sim"
)

// Features are the simulation features of Batsim a run turns on (Batsim
// 4's command-line flags, the embedded engine's sim.Config fields).
type Features struct {
	DynamicJobs            bool // --enable-dynamic-jobs
	AcknowledgeDynamicJobs bool // --acknowledge-dynamic-jobs
	ComputeSharing         bool // --enable-compute-sharing
	Energy                 bool // --energy
}

// Given are the features a user chose explicitly (a command-line flag
// given, a campaign's setting): nil where the user said nothing.
type Given struct {
	DynamicJobs, AcknowledgeDynamicJobs, ComputeSharing, Energy *bool
}

// Needs is the one rule that turns Batsim's features on for a policy: what
// the policy needs (Spec.DynamicJobs, ComputeSharing, Energy) is on unless
// the user said otherwise; what the user gave is what it says, as it is to
// Batsim. A policy that registers jobs gets dynamic jobs acknowledged
// unless a dynamic-jobs flag is given: --enable-dynamic-jobs alone leaves
// acknowledgement off (Batsim's default). A policy refused a feature it
// needs says why it cannot run. spec may be nil (a scheduler bucma does
// not know, driven over ZeroMQ): only the given features are on.
func Needs(spec *sched.Spec, given Given) Features {
	var f Features
	pick := func(v *bool, need bool) bool {
		if v != nil {
			return *v
		}
		return need
	}
	var needDynamic, needSharing, needEnergy bool
	if spec != nil {
		needDynamic, needSharing, needEnergy = spec.DynamicJobs, spec.ComputeSharing, spec.Energy
	}
	f.DynamicJobs = pick(given.DynamicJobs, needDynamic)
	f.AcknowledgeDynamicJobs = pick(given.AcknowledgeDynamicJobs, needDynamic && given.DynamicJobs == nil)
	f.ComputeSharing = pick(given.ComputeSharing, needSharing)
	f.Energy = pick(given.Energy, needEnergy)
	return f
}

// BatsimArgs are the flags of Batsim 4's command line (and of "bucma
// simulate") that turn the features on.
func (f Features) BatsimArgs() []string {
	var out []string
	if f.DynamicJobs {
		out = append(out, "--enable-dynamic-jobs")
	}
	if f.AcknowledgeDynamicJobs {
		out = append(out, "--acknowledge-dynamic-jobs")
	}
	if f.ComputeSharing {
		out = append(out, "--enable-compute-sharing")
	}
	if f.Energy {
		out = append(out, "--energy")
	}
	return out
}

// Apply sets the features in the embedded engine's configuration.
func (f Features) Apply(cfg *sim.Config) {
	cfg.DynamicJobs, cfg.AcknowledgeDynamicJob = f.DynamicJobs, f.AcknowledgeDynamicJobs
	cfg.ComputeSharing, cfg.Energy = f.ComputeSharing, f.Energy
}

// Requested are the simulation features and constraints a policy needs
// from Batsim 5, the same rule as Needs with nothing given: dynamic
// registration with acknowledgment and the profiles of the static
// workloads for a policy that resubmits killed work, compute sharing for a
// policy that runs several jobs on a host, the profiles for a policy that
// reads them. Batsim 5's energy model (--energy-host) is Batsim's command
// line, not a request.
func Requested(spec *sched.Spec) (v5.RequestedFeatures, v5.SchedulingConstraints) {
	n := Needs(spec, Given{})
	f := v5.RequestedFeatures{DynamicRegistration: n.DynamicJobs, AcknowledgeDynamicJobs: n.AcknowledgeDynamicJobs}
	if spec.DynamicJobs || spec.Profiles {
		f.ForwardProfilesOnSimulationBegins = true
		f.ForwardProfilesOnJobSubmission = true
	}
	c := v5.DefaultConstraints()
	c.ComputeSharing = n.ComputeSharing
	return f, c
}

// Given is f given explicitly, every feature on or off as f says (a
// scheduler of one's own that needs what a policy needs).
func (f Features) Given() Given {
	return Given{DynamicJobs: &f.DynamicJobs, AcknowledgeDynamicJobs: &f.AcknowledgeDynamicJobs,
		ComputeSharing: &f.ComputeSharing, Energy: &f.Energy}
}
