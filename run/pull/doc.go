// Package pull runs a simulation of the embedded engine, or serves the real
// Batsim 4 or 5 over ZeroMQ, one decision point at a time, at the pace of
// its caller: the run goes on until a decision is due, hands the caller
// the state, takes the caller's decisions through the same Decider as
// every Go policy (the same checks, the same errors), and goes on at the
// next call of Next. It is what bucma's Python package and its Gymnasium
// environment are built on, over a C shared library (cmd/libbucmapy), and
// a Go program can drive a run the same way.
//
// A Run is built from a Config (New): a policy of bucma's registry, or a
// policy whose decisions come from the caller:
//
//   - Decide: the caller is the policy. At each Batsim message Next
//     returns Decide; the caller reads what changed since the last point
//     (Point: the jobs that joined the queue, started and ended, the hosts
//     whose state changed), decides with Start, Reject, Kill and
//     CallMeLater, and calls Next again.
//   - Key: the caller gives a number per job, and one of the framework's
//     start rules (fcfs, easy, conservative, greedy) with a host selector
//     runs at Go speed over the order of the numbers (sched.KeyOrder):
//     Next returns Keys with the jobs whose keys are due (SetKeys), once
//     per job, in batches (every waiting job at the first decision, then
//     each job as it joins the queue). With TimeDependent, the keys of
//     the whole queue are asked again at each decision (the caller's key
//     may read the time), and the framework sorts the queue by them.
//
// The run is the one package run builds (run.Simulation, run.Server,
// run.Batsim): the decision side is a sched.Spec whose policy yields to
// the caller, so that nothing of the wiring is copied.
//
// Two drivers step the run. The embedded engine runs in a coroutine
// (iter.Pull) on the caller's thread: a point costs two switches, well
// under a microsecond, and the caller must call Next (and Close) from the
// goroutine and OS thread that built the Run. A server, whose run blocks
// on its socket, runs in a goroutine of its own, and Next returns Running
// after Config.Wait without a point (the caller may then stop the run,
// e.g. on a signal, or call Next again). The embedded engine returns
// Running too, now and then, when no point came for a while (a policy of
// the registry runs without any), so that its caller can stop a long run.
//
// The outcome of a run is Next's error once Next returned Done: nil, or
// the run's (an input the engine refuses, an invalid decision, a policy
// that failed, a run stopped by Close), with the rows written before the
// failure kept as PATH.partial (a *run.Error names them).
package pull
