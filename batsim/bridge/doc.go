// Package bridge runs a Batsim 4 decision process (batsched, a pybatsim
// scheduler, any program behind a ZeroMQ REP socket that speaks Batsim 4's
// JSON protocol) on Batsim 5. It stands between the two: Batsim 5's
// messages are translated into the Batsim 4 messages the process reads by
// the adapter of package batsim/v5 (the one that serves bucma's own
// policies to Batsim 5), sent to the process over ZeroMQ as Batsim 4 sends
// them (the bridge connects a REQ socket to the process's endpoint), and
// the process's replies, read with Batsim 4's reader rules, are translated
// back into Batsim 5 decisions by the same adapter.
//
// Process is the Batsim 4 side, a batsim.Handler: it is the handler of a
// v5.EDC, as a policy's session is for bucma's own component. New builds
// that component from a Config; ParseInit reads the init string that
// carries a Config (the shared library's case, and bucma bridge's).
//
// The run ends on both sides whatever fails. A decision the process sends
// that Batsim 5 cannot express (v5.ErrNoEquivalent: QUERY, CHANGE_JOB_STATE,
// TO_JOB_MSG, ...) or a reply that breaks Batsim 4's protocol makes the
// component ask Batsim 5 to stop the simulation (ForceSimulationStop, as
// v5.EDC.StopOnError does) and the process is told the end (End: a
// SIMULATION_ENDS, which it answers). A process that dies is seen at once on
// a tcp:// endpoint (its connection closes); a process that stops answering
// is given up after Config.Timeout; a process that never answers its first
// message after Config.ConnectTimeout. When Batsim 5 goes away, the caller
// tells the process the end (End).
package bridge
