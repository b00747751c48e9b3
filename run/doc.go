// Package run builds bucma's runs: it is the one place that turns a policy
// (a name and its options, or a Spec of one's own), a platform, workloads
// and an engine choice into a running simulation. bucma's commands, its
// campaigns, its test kit, its benchmarks and its Batsim 5 library are thin
// callers of it, so that a policy behaves the same whatever runs it.
//
//   - Policy is the decision side: Policy.NewSession builds the pure session
//     (sched.Session) that every transport wraps.
//   - Needs is the one rule that turns Batsim's features on (dynamic jobs,
//     compute sharing, energy) from what the policy needs and what the user
//     gave explicitly (Given); Features.BatsimArgs are Batsim 4's flags,
//     Requested Batsim 5's requests.
//   - Simulation runs the embedded engine (sim), in this process, with the
//     policy or with a scheduler on a ZeroMQ endpoint: Prepare checks the
//     policy and reads the inputs, Run writes the outputs.
//   - Server serves the real Batsim 4 or 5 over ZeroMQ (bucma run); Init,
//     Resolve and Start read Batsim 5's init string and start the decision
//     component, as the shared library does.
//   - Batsim is the real Batsim 4's command line; Batsim.Against runs it
//     against a handler served in this process (a user's differential
//     test), and Procs supervises a run's processes (a scheduler, Batsim).
//
// The package never registers policies: a Policy names its Registry
// (policies.Builtin() for bucma's built-in policies, or a registry of
// one's own).
package run
