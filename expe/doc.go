// Package expe runs experiment campaigns and reports on them.
//
// An experiment is a declarative Plan: a platform, a workload recipe (a
// generator and transformations), scheduler variants with their options,
// seeds and load levels. Plan.Expand turns it into runs, one per variant,
// seed and load; a Campaign executes them in parallel into a directory
// (resumable: each completed run is marked by the atomic rename of its
// folder, and its run.json records checksums of its outputs, verified
// before the run is skipped or reported on), with the in-process EmbeddedEngine or a real Batsim binary per
// run (BatsimEngine). Analyze and WriteReport read the Batsim-format outputs
// of every run (PREFIX_jobs.csv, plus the scheduler's decision trace and the
// workload file when present), compute the metrics, aggregate them over
// seeds with 95 % confidence intervals and write a Markdown report with
// PNG and SVG figures, next to the published numbers of the BUCMA paper.
package expe
