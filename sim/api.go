// Package sim is bucma's embedded Batsim-compatible engine: it reads the
// same platform and workload files as Batsim 4.2.1, sends a scheduler the
// same events, applies its decisions with the same rules and writes the same
// output files.
package sim

import (
	"log/slog"

	"bucma/platforms"
	"bucma/protocol"
	"bucma/workloads"
)

// Latency selects the timing model of the engine's internal messages.
type Latency int

const (
	// LatencyBatsim models Batsim's internal message latencies (the
	// platform's master loopback and host-to-master route latencies).
	LatencyBatsim Latency = iota
	// LatencyNone makes every internal message instantaneous.
	LatencyNone
)

// Scheduler is the decision process the engine drives: one message in, one
// reply out. *schedulers.Session (through InProcess) and a ZeroMQ client
// (Remote) both satisfy it.
type Scheduler interface {
	Exchange(msg *protocol.Message) (*protocol.Message, error)
}

// Config is one simulation.
type Config struct {
	Platform  *platforms.Platform
	Workloads []*workloads.Workload // named w0, w1, ... in this order
	// ExportPrefix is Batsim's --export: PREFIX_jobs.csv and
	// PREFIX_schedule.csv are written; "" writes nothing.
	ExportPrefix          string
	Latency               Latency
	ForwardProfiles       bool   // --forward-profiles-on-submission
	DynamicJobs           bool   // --enable-dynamic-jobs
	AcknowledgeDynamicJob bool   // --acknowledge-dynamic-jobs
	SchedConfig           string // --sched-cfg
	Log                   *slog.Logger
	// Progress, when set, is called now and then with the number of jobs
	// finished so far and the total number of static jobs.
	Progress func(done, total int)
}
