// Package report reads a campaign's runs and writes its report.
//
// Analyze reads every completed run of a campaign directory once (its
// outputs verified, expe.ReadRun) into an Analysis: each run's metrics and
// saturation (package analysis), and what the study reporting on the
// campaign reads of it (Study's hooks). A Study is the report of a kind of
// campaign: a paper's experiment (package studies) or the comparison
// report every other campaign gets (ComparisonStudy: per condition, each
// variant's means with their 95 % intervals, paired differences against
// the baseline variant, distributions, breakdowns by job size and by user,
// Gantt charts on request). Studies holds the studies a program knows and
// its built-in plan files. Write writes dir/report.md and its figures
// (dir/fig, package figures); WriteResultsCSV writes results.csv, one row
// per run and metric. CompareRuns, MarkSaturated and SaturationSummary
// compare and flag runs as every report prints them.
//
// Analyze reads the runs in goroutines, each calling the study's ReadRun,
// a hook of the importer's: make test runs the importers' tests under the
// race detector (internal/racepkgs).
//
//bucma:race-importers
package report
