// Package analysis reads the outputs of runs and says what they show, with
// no knowledge of campaigns: what a report computes, and what a study's own
// analysis builds on.
//
//   - Outputs: JobRow (a row of Batsim's PREFIX_jobs.csv, ReadJobsCSV),
//     TraceRow (bucma's decision trace, ReadTrace), JobInfo (what a
//     workload says of its jobs, ReadJobInfo), OriginalJob (the job a
//     resubmitted piece of a preempted job continues).
//   - Metrics: Compute gives a run's metrics (package metrics' definitions),
//     ByGroup the same by group of jobs (user, size, precision profile).
//   - Statistics: Estimate95 (a mean and its 95 % Student interval), Box,
//     Compare (a variant against a reference over seeds, paired: the
//     difference, the relative change refused over a base below its floor,
//     the seeds that back its sign), WilcoxonSignedRank and HolmRejects
//     (tests), ParetoFront.
//   - Saturation: SaturationOf says whether a run kept up with its
//     workload; reports mark the values computed over one that did not
//     (SaturatedMark).
//   - Formatting: FmtEst, FmtSigned, FmtDuration, SeedList, and the
//     sentences a report gives to define what it prints (FloorsNote,
//     SeedsNote, SaturationNote, DefinitionsNote).
package analysis
