package run

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sim"
	"github.com/bucma-sched/bucma/workloads"
)

// Inputs are a run's platform and workloads, as files or as values.
type Inputs struct {
	// Platform is a SimGrid platform file or a bundled platform's name
	// (platforms.Locate: "lille" or "lille.xml").
	Platform string
	// Workloads are Batsim workload files, named w0, w1, ... in this order.
	Workloads []string
	// PlatformData and WorkloadData are the same already loaded, instead
	// of Platform and Workloads.
	PlatformData *platforms.Platform
	WorkloadData []*workloads.Workload
}

// Simulation is a run of the embedded engine, which stands where Batsim
// 4.2.1 stands: the same input files, the same messages to the scheduler,
// the same decision rules and the same output files.
type Simulation struct {
	Inputs
	// Policy is the scheduler, run in this process; or, instead, Connect is
	// the ZeroMQ endpoint of a scheduler the engine drives as Batsim would
	// (bucma run, batsched, pybatsim), given Timeout to answer each
	// message (0: forever).
	Policy  *Policy
	Connect string
	Timeout time.Duration
	// Scheduler, instead of both, is a scheduler of one's own in this
	// process (a replay of recorded replies, a test's stand-in); Given
	// then says which features it needs.
	Scheduler sim.Scheduler
	// Given are the features the user chose; the policy's needs turn the
	// others on (Needs).
	Given Given
	// Export is the output prefix (Batsim's --export): PREFIX_jobs.csv and
	// PREFIX_schedule.csv; "" writes nothing.
	Export string
	// Trace, when set, is the path of the decision trace (one CSV row per
	// job): published when the run succeeds, kept as PATH.partial when it
	// fails.
	Trace string
	// SchedConfig is Batsim's --sched-cfg: the policy's options as a JSON
	// object, checked with the command line's before anything is read.
	SchedConfig string
	// Approximate simulates inputs the engine does not reproduce exactly
	// (sim.Unmodelled) instead of refusing them.
	Approximate bool
	// Configure, when set, adjusts the engine's configuration last
	// (latencies, forwarded profiles, progress, observation, ...).
	Configure func(*sim.Config)
	// Log receives the warnings of the platform, the engine and the
	// policy (nil: slog.Default()).
	Log *slog.Logger
}

// UnmodelledError refuses inputs the engine does not reproduce exactly
// (Simulation.Approximate simulates them anyway).
type UnmodelledError struct{ What []string }

// Error names what is not modelled and how to simulate it anyway.
func (e *UnmodelledError) Error() string {
	return fmt.Sprintf("the engine does not reproduce Batsim exactly with these inputs:\n  %s\nRun with --approximate to simulate anyway (the results will only approximate Batsim's).", strings.Join(e.What, "\n  "))
}

// Error is a run that failed after it began its outputs: Partial names the
// files that hold what was written before the failure (PATH.partial).
type Error struct {
	Err     error
	Partial []string
}

// Error is the failure's, with where its partial outputs are.
func (e *Error) Error() string { return e.Err.Error() + e.Note() }

// Unwrap gives the failure.
func (e *Error) Unwrap() error { return e.Err }

// Note tells where the rows written before the failure were kept ("" when
// nothing was).
func (e *Error) Note() string { return PartialNote(e.Partial...) }

// Prepared is a Simulation whose policy, options and inputs were checked
// and read, ready to run once.
type Prepared struct {
	s          Simulation
	cfg        sim.Config
	spec       *sched.Spec
	jobs       int
	unmodelled []string
}

// Prepare checks the policy and its options first (a mistake is a
// *sched.OptionError, before any file is read), then reads the platform and
// the workloads, checking them as Batsim does (the errors name the file,
// the job and the rule), and refuses a workload none of whose jobs has a
// field the policy reads, and inputs the engine does not reproduce exactly
// (*UnmodelledError) unless Approximate. Nothing is written.
func (s Simulation) Prepare() (*Prepared, error) {
	if n := btoi(s.Policy != nil) + btoi(s.Connect != "") + btoi(s.Scheduler != nil); n != 1 {
		return nil, &sched.OptionError{Msg: "a simulation needs one scheduler: a policy, the endpoint of a scheduler, or a scheduler in this process"}
	}
	log := s.Log
	if log == nil {
		log = slog.Default()
	}
	p := &Prepared{s: s}
	if s.Policy != nil {
		spec, err := s.Policy.Check(s.SchedConfig)
		if err != nil {
			return nil, err
		}
		p.spec = spec
	}
	plat := s.PlatformData
	if plat == nil {
		if s.Platform == "" {
			return nil, &sched.OptionError{Msg: fmt.Sprintf("no platform (a SimGrid file or one of: %s)", platforms.BundledList())}
		}
		var err error
		if plat, err = platforms.Resolve(s.Platform); err != nil {
			return nil, err
		}
		for _, w := range plat.Warnings {
			log.Warn("platform", "warning", w)
		}
	}
	cfg := sim.Config{Platform: plat, ExportPrefix: s.Export, SchedConfig: s.SchedConfig, Latency: sim.LatencyBatsim,
		Log: log, Approximate: s.Approximate}
	if err := p.readWorkloads(&cfg); err != nil {
		return nil, err
	}
	Needs(p.spec, s.Given).Apply(&cfg)
	if s.Configure != nil {
		s.Configure(&cfg)
	}
	p.unmodelled = sim.Unmodelled(cfg)
	if len(p.unmodelled) > 0 && !cfg.Approximate {
		return nil, &UnmodelledError{What: p.unmodelled}
	}
	p.cfg = cfg
	return p, nil
}

// readWorkloads reads the workload files straight into the engine's form;
// any the engine does not read so (a problem in it, most often) is loaded
// and checked the way Batsim does.
func (p *Prepared) readWorkloads(cfg *sim.Config) error {
	s := p.s
	if s.WorkloadData != nil {
		cfg.Workloads = s.WorkloadData
		for _, w := range s.WorkloadData {
			p.jobs += len(w.Jobs)
		}
		return p.checkJobFields(func(i int) func(func([]byte) bool) {
			return func(yield func([]byte) bool) {
				for _, j := range s.WorkloadData[i].Jobs {
					if !yield(j.Raw) {
						return
					}
				}
			}
		}, len(s.WorkloadData))
	}
	var pre []*sim.Preloaded
	for i, path := range s.Workloads {
		w := sim.Preload(path, fmt.Sprintf("w%d", i))
		if w == nil {
			pre = nil
			break
		}
		pre = append(pre, w)
	}
	if pre != nil {
		cfg.Preloaded = pre
		for _, w := range pre {
			p.jobs += w.Jobs()
		}
		return p.checkJobFields(func(i int) func(func([]byte) bool) { return pre[i].JobDescriptions() }, len(pre))
	}
	for i, path := range s.Workloads {
		w, _, err := workloads.LoadChecked(path, workloads.ValidateOptions{WorkloadName: fmt.Sprintf("w%d", i)})
		if err != nil {
			return err
		}
		cfg.Workloads = append(cfg.Workloads, w)
		p.jobs += len(w.Jobs)
	}
	cfg.WorkloadsChecked = true
	return p.checkJobFields(func(i int) func(func([]byte) bool) {
		return func(yield func([]byte) bool) {
			for _, j := range cfg.Workloads[i].Jobs {
				if !yield(j.Raw) {
					return
				}
			}
		}
	}, len(cfg.Workloads))
}

// checkJobFields refuses a workload the policy cannot schedule at all
// (none of the fields it reads), rather than every job at its submission.
func (p *Prepared) checkJobFields(jobs func(i int) func(func([]byte) bool), n int) error {
	if p.spec == nil {
		return nil
	}
	for i := 0; i < n; i++ {
		if err := p.spec.CheckJobFields(jobs(i)); err != nil {
			name := fmt.Sprintf("w%d", i)
			if i < len(p.s.Workloads) {
				name = p.s.Workloads[i]
			}
			return fmt.Errorf("workload %s: %w", name, err)
		}
	}
	return nil
}

// Jobs is the number of static jobs of the workloads.
func (p *Prepared) Jobs() int { return p.jobs }

// Unmodelled lists what the engine does not reproduce exactly in the
// inputs (empty, unless Approximate).
func (p *Prepared) Unmodelled() []string { return p.unmodelled }

// Config is the engine's configuration, to adjust before Run.
func (p *Prepared) Config() *sim.Config { return &p.cfg }

// Spec is the policy's Spec (nil for a scheduler over ZeroMQ).
func (p *Prepared) Spec() *sched.Spec { return p.spec }

// Result is a finished simulation.
type Result struct {
	*sim.Result
	// Session is the in-process policy's session (nil over ZeroMQ).
	Session *sched.Session
}

// Run runs the simulation: the outputs are opened only now, and a run that
// fails keeps what it wrote as PATH.partial (an *Error naming them); a
// cancelled ctx stops it (the error wraps context.Canceled).
func (p *Prepared) Run(ctx context.Context) (*Result, error) {
	trace, err := OpenTrace(p.s.Trace)
	if err != nil {
		return nil, err
	}
	defer trace.Discard()
	out := &Result{}
	scheduler := p.s.Scheduler
	if p.s.Policy != nil {
		var observers []sched.Observer
		if trace != nil {
			observers = append(observers, trace)
		}
		if scheduler, out.Session, err = p.s.Policy.InProcess(observers...); err != nil {
			return nil, err
		}
	} else if p.s.Connect != "" {
		rs, err := zmq.Remote(ctx, p.s.Connect, p.s.Timeout)
		if err != nil {
			return nil, err
		}
		defer rs.Close()
		scheduler = rs
	}
	var jobsPartial PartialWatch
	if prefix := p.cfg.ExportPrefix; prefix != "" {
		jobsPartial = WatchPartial(prefix + "_jobs.csv" + sim.PartialSuffix)
	}
	cfg := p.cfg
	// The engine keeps its own copy of the workloads, which the collector
	// may then free.
	p.cfg.Workloads, p.cfg.Preloaded, p.s.WorkloadData = nil, nil, nil
	res, err := sim.Run(ctx, cfg, scheduler)
	cfg = sim.Config{}
	if err != nil {
		return nil, &Error{Err: err, Partial: []string{jobsPartial.Written(), trace.Abort()}}
	}
	if err := trace.Commit(); err != nil {
		return nil, err
	}
	out.Result = res
	return out, nil
}

// Simulate prepares s and runs it.
func Simulate(ctx context.Context, s Simulation) (*Result, error) {
	p, err := s.Prepare()
	if err != nil {
		return nil, err
	}
	return p.Run(ctx)
}

// IsInterrupted reports whether err is a run stopped by its context.
func IsInterrupted(err error) bool { return errors.Is(err, context.Canceled) }

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
