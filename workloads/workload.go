// Package workloads reads and writes Batsim workload files (JSON), checks
// them, and generates the workloads bucma's experiments use.
package workloads

import json "github.com/goccy/go-json"

// Workload is a Batsim workload file.
type Workload struct {
	Path     string
	NbRes    int
	Jobs     []Job              // in file order
	Profiles map[string]Profile // by name
	// ProfileOrder lists profile names in file order.
	ProfileOrder []string
	// Extra keeps top-level keys other than nb_res, jobs and profiles
	// (e.g. "meta" written by the generators), in file order.
	Extra []KeyValue

	// V5 says the file was in Batsim 5's format, converted to Batsim 4's
	// when it was read (see FromV5).
	V5 bool

	// parseWarnings holds what Parse noticed but Batsim tolerates
	// (duplicate keys); Validate reports them.
	parseWarnings []Finding
	// v5Findings holds what Batsim 5 reads differently in a file of its
	// format (FromV5); CheckFor reports them for Batsim 5.
	v5Findings []Finding
	// formatProfile is a profile whose type tells the format apart (its
	// name and its type as the file writes it), "" without profiles.
	formatProfile, formatType string
}

// KeyValue is one JSON object member kept verbatim.
type KeyValue struct {
	Key   string
	Value json.RawMessage
}

// Job is one job of a workload.
type Job struct {
	ID       string  // the id as a string (an integer id is written in decimal)
	IDIsInt  bool    // the file gave the id as a JSON integer
	Subtime  float64 // seconds
	Res      int
	Walltime float64 // seconds; -1 when absent or -1 (unlimited)
	Profile  string
	// Raw is the job object exactly as the file has it (key order, custom
	// fields, number spelling).
	Raw json.RawMessage
	// Plain says that Raw has no member but id, subtime, res, profile and
	// walltime, each once (set by the readers of workload files; false
	// for a job made otherwise tells nothing).
	Plain bool
}

// Profile is one profile of a workload.
type Profile struct {
	Name string
	Type string // delay, parallel, parallel_homogeneous, parallel_homogeneous_total, composed
	// delay
	Delay float64
	// parallel_homogeneous(_total): per-host (or total) flops and bytes.
	CPU float64
	Com float64
	// parallel: per-host flops and the n×n communication matrix.
	CPUs   []float64
	ComMat []float64
	// composed
	Seq    []string
	Repeat int
	// Ret is the return code on normal completion (profile "ret"; 0 default).
	Ret int
	Raw json.RawMessage
}
