// Package expe runs experiment campaigns.
//
// An experiment is a declarative Plan: a platform, a workload recipe (a
// generator and transformations, package workloads/gen), policy variants
// with their options, seeds and load levels, or instead of load levels a
// list of workload cases (generator settings, such as the OSEP demands and
// late users). Plan files (LoadPlanFile, ParsePlanFile) declare plans in
// YAML or JSON, checked strictly. Plan.Expand turns a plan into runs, one
// per variant, seed and load (or case); a Campaign executes them in
// parallel into a directory (resumable: each completed run is marked by the
// atomic rename of its folder, and its run.json records checksums of its
// outputs, verified before the run is skipped or read, VerifyRun), with
// the in-process EmbeddedEngine or a real Batsim binary per run
// (BatsimEngine); policies that preempt run with Batsim's dynamic jobs.
// NewSubmission shards a campaign into a Slurm job array and its report
// job; ReadStatus says where every run stands.
//
// The packages below read what a campaign wrote: expe/analysis the runs'
// outputs and their statistics, expe/report a campaign's report (the
// comparison report, or a study's: package studies) and results.csv,
// expe/figures the report's figures.
//
// Its workers run the policies and workload generators of the plan, its
// importers' code among them, in goroutines of their own: make test runs
// the importers' tests under the race detector (internal/racepkgs).
//
//bucma:race-importers
package expe
