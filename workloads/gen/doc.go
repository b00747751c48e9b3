// Package gen makes workloads from recipes: a generator, then steps that
// transform its workload, all seeded, with parameters declared once (Param)
// and checked wherever they are given — a campaign's plan file
// (package expe), the flags of "bucma workload NAME", a study's own
// cases.
//
//   - Registry holds the generators and steps a program knows; Builtin
//     returns bucma's (lille, osep, sge, gang, lublin, file, swf; steps
//     bucma-insert, precise, scale-load, window), and Default is the one
//     campaigns use, to which a program or a study adds its own before its
//     campaigns run (the bag-of-tasks study adds "bot", package studies/bot).
//   - Recipe names a generator, its steps and their parameters (Fields, in
//     the order a plan gives them); Registry.Make makes its workload for a
//     seed, an offered load and a platform's hosts; Generate does it for a
//     platform file, as a campaign does by default.
//   - Param, Values and the checks (AtLeast, Above, Within) declare and
//     read parameters; FileSHA256 is the checksum a recipe records for each
//     file it names, checked again before a workload is made from it.
package gen
