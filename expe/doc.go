// Package expe runs experiment campaigns and reports on them.
//
// An experiment is a declarative Plan: a platform, a workload recipe (a
// generator and transformations), scheduler variants with their options,
// seeds and load levels, or instead of load levels a list of workload cases
// (generator settings, such as the OSEP demands and late users).
// Plan.Expand turns it into runs, one per variant, seed and load (or case);
// a Campaign executes them in parallel into a directory
// (resumable: each completed run is marked by the atomic rename of its
// folder, and its run.json records checksums of its outputs, verified
// before the run is skipped or reported on), with the in-process EmbeddedEngine or a real Batsim binary per
// run (BatsimEngine); policies that preempt run with Batsim's dynamic jobs.
// Analyze and WriteReport read the Batsim-format outputs
// of every run (PREFIX_jobs.csv, plus the scheduler's decision trace and the
// workload file when present), compute the metrics, aggregate them over
// seeds with 95 % confidence intervals and write a Markdown report with
// PNG and SVG figures, next to the published numbers of the BUCMA paper or
// the findings of the heterogeneous OSEP thesis (satisfaction per user,
// share of the grid's power over time, preemptions; preempted jobs are
// followed through their resubmitted pieces, see OriginalJob).
package expe
