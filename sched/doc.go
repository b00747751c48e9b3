// Package sched is bucma's scheduling framework: what a policy is, what it
// sees, how its decisions reach Batsim, and the building blocks the
// built-in policies are made of. A policy of your own is written against
// this package alone (see docs/writing-a-policy.md and the examples
// module).
//
// # A policy
//
// A Policy is a value with one method, Decide(s *State, d *Decider), called
// once per Batsim message after the message's events were applied to the
// State. It reads the State and decides through the Decider: Start a
// waiting job on hosts, Reject it, Kill running jobs, Resubmit the rest of
// a killed job, CallMeLater, SetPState. The Decider checks every decision
// against the known state before it is applied (so that the policy sees its
// own earlier decisions at once) and before it leaves: a decision Batsim
// would abort on is refused, recorded (Decider.Err) and the run stops with
// that error instead of crashing Batsim. Policies are pure: no clock, no
// socket, no global; the same messages give the same decisions.
//
// Optional interfaces add hooks: Starter (set up at SIMULATION_BEGINS),
// SubmitObserver and EndObserver (a job joined the queue, a job ended),
// Admitter and RefusalExplainer (refuse jobs at submission),
// InPlaceRejecter, Registrar (a policy that registers dynamic jobs) and
// RegistrationCloser (one that says itself when it stops: Decider.Register,
// Decider.FinishRegistration), TraceInfo and SubmitRecorder (columns of the
// decision trace), WaitingTimeEstimator (answers to Batsim's
// estimate_waiting_time query; Composite answers with its start rule's
// Forecast).
//
// # What a policy sees
//
// The State is read-only for a policy: Now, the hosts (Host: speed,
// properties, running jobs, slots, availability, power state), the waiting
// queue in arrival order (Waiting, WaitingCopy, NbWaiting), the running
// jobs (Running), any job by id (Job), the free-host count (NbFree), the
// kills under way and the jobs Batsim killed in this message (Killed).
// Job and Host are read through their methods; only the framework changes
// them.
//
// # Registering a policy
//
// A Spec describes a policy: its name, a one-line description, its options
// (OptionSpec: name, default, help, enumerated values, printed by "bucma
// list"), a constructor New from resolved Options, and what it needs from
// Batsim (DynamicJobs, ComputeSharing, Energy, JobJSON, Profiles: bucma's
// runners pass the matching Batsim flags). A Registry is a value holding
// specs: a program builds one, adds its policies (Registry.Add) and hands
// it to the command line (package cli) or to a campaign (package expe).
// Options come from the command line and from Batsim's --sched-cfg JSON
// (ParseSchedConfig); the command line wins.
//
// # Building blocks
//
// Most policies are an Order of the waiting queue, a StartRule that turns
// the ordered queue into starts, and a HostSelector that picks a job's
// hosts (a function of the state, the job and the number of hosts): a
// Composite of the three is a Policy. The orders FCFSOrder,
// WalltimeOrder, AreaOrder and any KeyOrder (an order by a number computed
// from each job) are indexed by the framework as jobs arrive and leave, so
// a decision walks the order (State.Walk) and jumps to the jobs that fit
// instead of copying and sorting the queue: a KeyOrder of your own runs at
// the speed of the built-in orders. A TimeOrder is an order by a key that
// changes with the time, a line in the time for each job (Line: WFP3
// through its cube root, an aging priority); the framework keeps it as the
// time goes by, computing again only the comparisons its lines say may
// have changed since the last decision: NewWFP3Order, NewUNICEPOrder and
// NewExpansionOrder are built on it, and an order of your own runs at
// their speed. The start rules are Blocking (FCFS),
// Greedy (start every job that fits), EASY (EASY backfilling, with
// Reservation and Backfill as functions of their own) and Conservative
// (conservative backfilling over a profile of future free hosts, package
// sched/profile: a StatefulRule, which keeps its reservations from one
// decision to the next, so that each policy takes its own); the host
// selectors
// Fastest, FirstFit and OwnFirst (HostsOption and HostsFrom give them as
// the common "hosts" option). BaseSpec registers a Composite as a base
// that a re-ranking policy wraps (Registry.Wrap): Rerank is BUCMA's
// re-ranking of a base order by a weighted score over the users' scores
// (UserScores), the base rank, the waiting time and the walltime, walked
// best-first without sorting.
//
// # Running a policy
//
// A Session is the decision process of one simulation: Handle applies one
// Batsim message to the State, asks the policy, and returns the reply
// (batsim.Reply). It is driven by the ZeroMQ loop (package batsim/zmq) for
// the real Batsim, and in-process by the embedded engine (package sim);
// package testkit drives it in tests. SessionConfig.Validate audits the
// whole state after every decision (the --validate flag). Observers see
// every submission, start and end (Trace writes the decision trace).
//
// # What may change
//
// The names above are the API a policy author relies on. The framework's
// internals (the queue indexes, the reply encoding) are unexported and may
// change; exported fields of Spec, OptionSpec, SessionConfig, Composite,
// Base and Rerank are part of the API.
package sched
