// Package sim is bucma's embedded Batsim-compatible engine: it reads the
// same platform and workload files as Batsim 4.2.1, sends a scheduler the
// same events, applies its decisions with the same rules and writes the same
// output files.
//
// The engine stands where Batsim stands. Its timing model reproduces the
// cost of Batsim's internal messages (SimGrid communications between the
// actors of the master host and the compute hosts): every message to
// Batsim's server costs the latency of its route (the master loopback L_m,
// or the host-to-master route L_h for a job's completion) plus the transfer
// time of its one byte, messages wait in the server's mailbox while it is
// receiving another one, the k-th event of a reply is applied once the k-1
// previous ones have reached the server, and a message is sent to the
// scheduler only when its previous reply has been fully applied and nothing
// is waiting in the mailbox. With LatencyNone every internal message is
// instantaneous.
package sim

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/workloads"
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

// String is the CLI spelling of the latency model.
func (l Latency) String() string {
	if l == LatencyNone {
		return "none"
	}
	return "batsim"
}

// Scheduler is the decision process the engine drives: one message in, one
// reply out. *schedulers.Session (through InProcess) and a ZeroMQ client
// (Remote) both satisfy it.
type Scheduler interface {
	Exchange(msg *batsim.Message) (*batsim.Message, error)
}

// Config is one simulation.
type Config struct {
	Platform  *platforms.Platform
	Workloads []*workloads.Workload // named w0, w1, ... in this order
	// WorkloadsChecked says that each workload was checked with
	// workloads' Validate under its name (w0, w1, ...) and had no error:
	// the engine does not check it again. The engine keeps its own copy
	// of what it needs: the workloads may be freed once Run has started.
	WorkloadsChecked bool
	// Preloaded are workload files already read into the engine's form
	// (Preload), instead of Workloads (give one or the other). Each is
	// used by one run.
	Preloaded []*Preloaded
	// ExportPrefix is Batsim's --export: PREFIX_jobs.csv and
	// PREFIX_schedule.csv are written; "" writes nothing.
	ExportPrefix string
	// Batsim5Jobs writes PREFIX_jobs.csv as Batsim 5.0.0-rc2 writes its
	// jobs.csv: the same columns, the profile column in "workload!name"
	// form, the metadata column empty rather than "" (Batsim 5 has no job
	// metadata). The other columns and the row order are Batsim 4's.
	Batsim5Jobs           bool
	Latency               Latency
	ForwardProfiles       bool // --forward-profiles-on-submission
	DynamicJobs           bool // --enable-dynamic-jobs
	AcknowledgeDynamicJob bool // --acknowledge-dynamic-jobs
	// ComputeSharing is --enable-compute-sharing: a compute host may run
	// several jobs at once, sharing its processor as SimGrid shares it.
	ComputeSharing bool
	// Energy is -E (--energy): SimGrid's host energy plugin, power-state
	// changes (SET_RESOURCE_STATE), QUERY consumed_energy, the energy
	// columns and PREFIX_consumed_energy.csv / PREFIX_pstate_changes.csv.
	Energy      bool
	SchedConfig string // --sched-cfg
	// Approximate runs inputs the engine does not model exactly (see
	// Unmodelled) instead of refusing them: what is not modelled is
	// ignored (traces) or counted as instantaneous (routes SimGrid would
	// compute but the engine cannot).
	Approximate bool
	Log         *slog.Logger
	// Progress, when set, is called now and then with the number of jobs
	// finished so far and the total number of static jobs.
	Progress func(done, total int)
	// Observe, when set, sees every message exchanged, in order: the
	// engine's (FromBatsim) and the scheduler's replies (FromScheduler).
	Observe func(dir batsim.Direction, m *batsim.Message)
}

// BatsimVersion is the batsim_version value of the _schedule.csv files the
// engine writes: bucma's engine, emulating Batsim 4.2.1.
const BatsimVersion = "bucma-sim-batsim-4.2.1"

// Unmodelled lists what cfg holds that changes what Batsim would do but that
// the engine does not model: platform features (traces, SimGrid settings)
// and the routes Batsim's messages take that the engine cannot compute. Run
// refuses such inputs unless cfg.Approximate is set.
func Unmodelled(cfg Config) []string {
	p := cfg.Platform
	if p == nil {
		return nil
	}
	out := append([]string(nil), p.Unmodelled...)
	check := func(src string) {
		if _, _, err := p.Route(src, p.Master); err != nil && !errors.Is(err, platforms.ErrUndeclaredRoute) {
			out = append(out, fmt.Sprintf("the route of Batsim's messages from %s to the master: %v", src, err))
		}
	}
	check(p.Master)
	for _, h := range p.Hosts {
		check(h.Name)
	}
	return out
}
