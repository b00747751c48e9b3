package pull

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sim"
)

// Config is a pulled run, as its caller gives it (a JSON object: Parse).
type Config struct {
	// Mode: "simulate" (the embedded engine, the default), "serve" (serve
	// one simulation of the real Batsim 4 or 5 over ZeroMQ), "batsim"
	// (run the real Batsim 4 against the policy, served in this process)
	// or "batsim5" (the same with Batsim 5).
	Mode string `json:"mode"`
	// Platform (a file or a bundled platform's name) and Workloads (files,
	// named w0, w1, ...): simulate, batsim and batsim5.
	Platform  string   `json:"platform"`
	Workloads []string `json:"workloads"`
	Policy    Policy   `json:"policy"`
	// Connect drives a scheduler on this ZeroMQ endpoint instead of a
	// policy (simulate), given Timeout seconds to answer each message (0:
	// forever; serve: to send each).
	Connect string  `json:"connect"`
	Timeout float64 `json:"timeout"`
	// Export is the output prefix (simulate: PREFIX_jobs.csv and
	// PREFIX_schedule.csv, "" for none; batsim: Batsim's -e; batsim5:
	// Batsim 5's output directory); Trace the decision trace's path.
	Export string `json:"export"`
	Trace  string `json:"trace"`
	// Engine holds the embedded engine's options (EngineOptions), the
	// features given to Batsim (batsim) and the sched-config.
	Engine json.RawMessage `json:"engine"`
	// Serve: the ZeroMQ endpoint to bind (default tcp://*:28000), the
	// file that receives it once bound, Batsim 5 only.
	Endpoint     string `json:"endpoint"`
	EndpointFile string `json:"endpoint_file"`
	Batsim5Only  bool   `json:"batsim5_only"`
	// Batsim is the Batsim executable (batsim: default "batsim"; batsim5:
	// "batsim5"), BatsimArgs added to its command line, and BatsimLog the
	// file that receives its output ("": discarded).
	Batsim     string   `json:"batsim"`
	BatsimArgs []string `json:"batsim_args"`
	BatsimLog  string   `json:"batsim_log"`
	// Wait is how long (seconds) Next waits for a point of a server
	// before it returns Running (default 0.1).
	Wait float64 `json:"wait"`
	// Verbose logs at debug level (the messages exchanged).
	Verbose bool `json:"verbose"`
}

// Policy is the decision side: a policy of bucma's registry by Name, or
// with Caller the caller's own ("decide": the caller decides at each
// message; "key": the caller gives keys, Options' rule and hosts decide).
type Policy struct {
	Name   string `json:"name"`
	Caller string `json:"caller"`
	// Options, as Batsim's sched-config gives them: strings, numbers,
	// booleans, arrays and objects of scalars (sched.ParseSchedConfig).
	Options json.RawMessage `json:"options"`
	// TimeDependent asks a key policy's keys of the whole queue at each
	// decision.
	TimeDependent bool `json:"time_dependent"`
	Validate      bool `json:"validate"`
}

// EngineOptions are the options of the embedded engine and of Batsim's
// features, named as bucma simulate's flags.
type EngineOptions struct {
	Latency                     string `json:"latency"`
	JobsFormat                  string `json:"jobs_format"`
	ForwardProfilesOnSubmission bool   `json:"forward_profiles_on_submission"`
	EnableDynamicJobs           *bool  `json:"enable_dynamic_jobs"`
	AcknowledgeDynamicJobs      *bool  `json:"acknowledge_dynamic_jobs"`
	EnableComputeSharing        *bool  `json:"enable_compute_sharing"`
	Energy                      *bool  `json:"energy"`
	SchedCfg                    string `json:"sched_cfg"`
	Approximate                 bool   `json:"approximate"`
}

// engineOptionNames are EngineOptions' keys.
var engineOptionNames = []string{"acknowledge_dynamic_jobs", "approximate", "enable_compute_sharing", "enable_dynamic_jobs",
	"energy", "forward_profiles_on_submission", "jobs_format", "latency", "sched_cfg"}

// Parse reads a Config: a JSON object whose unknown keys are errors naming
// the known ones.
func Parse(data []byte) (Config, error) {
	var c Config
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, &sched.OptionError{Msg: fmt.Sprintf("run configuration: %v", err)}
	}
	return c, nil
}

// engineOptions reads the engine options, refusing a name that is not
// one and a value of the wrong type, each named.
func engineOptions(raw json.RawMessage) (EngineOptions, error) {
	var o EngineOptions
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return o, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return o, &sched.OptionError{Msg: fmt.Sprintf("engine options: not an object: %v", err)}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		found := false
		for _, n := range engineOptionNames {
			found = found || n == k
		}
		if !found {
			return o, &sched.OptionError{Msg: fmt.Sprintf("unknown engine option %q (valid: %s)", k, strings.Join(engineOptionNames, ", "))}
		}
		one, _ := json.Marshal(map[string]json.RawMessage{k: m[k]})
		if err := json.Unmarshal(one, &o); err != nil {
			return o, &sched.OptionError{Msg: fmt.Sprintf("engine option %s=%s: %v", k, m[k], err)}
		}
	}
	switch o.Latency {
	case "", "batsim", "none":
	default:
		return o, &sched.OptionError{Msg: fmt.Sprintf("engine option latency=%q: valid values are batsim, none", o.Latency)}
	}
	switch o.JobsFormat {
	case "", "batsim4", "batsim5":
	default:
		return o, &sched.OptionError{Msg: fmt.Sprintf("engine option jobs_format=%q: valid values are batsim4, batsim5", o.JobsFormat)}
	}
	return o, nil
}

func (o EngineOptions) given() run.Given {
	return run.Given{DynamicJobs: o.EnableDynamicJobs, AcknowledgeDynamicJobs: o.AcknowledgeDynamicJobs,
		ComputeSharing: o.EnableComputeSharing, Energy: o.Energy}
}

// policy builds the run's policy: the registry's, or the caller's own
// (a *Policy of package run either way), and sets how the run yields.
func (r *Run) policy(p Policy, reg *sched.Registry, log *slog.Logger) (*run.Policy, error) {
	opts, reserved, err := sched.ParseSchedConfig(string(p.Options))
	if err != nil {
		return nil, &sched.OptionError{Msg: "policy options: " + strings.TrimPrefix(err.Error(), "sched-config ")}
	}
	for k := range reserved {
		return nil, &sched.OptionError{Msg: fmt.Sprintf("policy options: %q names a policy, not an option", k)}
	}
	pol := &run.Policy{Name: p.Name, Registry: reg, Options: opts, Validate: p.Validate, Log: log}
	r.track = &tracker{}
	name := p.Name
	if name == "" {
		name = "python"
	}
	switch p.Caller {
	case "":
		if p.TimeDependent {
			return nil, &sched.OptionError{Msg: "time_dependent is for a key policy"}
		}
		r.pol = registryPolicy
		return pol, nil
	case "decide":
		pol.Name, pol.Spec = "", r.decideSpec(name)
		r.pol = decidePolicy
	case "key":
		pol.Name, pol.Spec = "", r.keySpec(name, p.TimeDependent)
		r.pol = keyPolicy
		r.keyed = &keyTable{}
		r.track.starts = true
		pol.Observers = append(pol.Observers, r.keyed)
	default:
		return nil, &sched.OptionError{Msg: fmt.Sprintf("policy caller %q: valid values are decide, key (or none for a policy of bucma's)", p.Caller)}
	}
	pol.Observers = append(pol.Observers, r.track)
	return pol, nil
}

// New builds a run from c, with the policies of reg (policies.Builtin()
// for bucma's): the policy and its options are checked, and (simulate)
// the platform and workloads read and checked, before it returns; the run
// itself starts at the first Next. log receives the warnings (nil: none).
func New(c Config, reg *sched.Registry, log *slog.Logger) (*Run, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	eng, err := engineOptions(c.Engine)
	if err != nil {
		return nil, err
	}
	r := &Run{}
	var pol *run.Policy
	if c.Connect == "" {
		if pol, err = r.policy(c.Policy, reg, log); err != nil {
			return nil, err
		}
	} else if c.Policy.Name != "" || c.Policy.Caller != "" {
		return nil, &sched.OptionError{Msg: "give a policy or the endpoint of a scheduler to connect to, not both"}
	}
	wait := time.Duration(c.Wait * float64(time.Second))
	if wait <= 0 {
		wait = 100 * time.Millisecond
	}
	switch c.Mode {
	case "", "simulate":
		return r, r.simulate(c, pol, eng, log)
	case "serve":
		if c.Connect != "" {
			return nil, &sched.OptionError{Msg: "serve: connect is for simulate"}
		}
		return r, r.serve(c, pol, wait, log)
	case "batsim", "batsim5":
		if c.Connect != "" {
			return nil, &sched.OptionError{Msg: c.Mode + ": connect is for simulate"}
		}
		return r, r.batsim(c, pol, eng, wait, log)
	}
	return nil, &sched.OptionError{Msg: fmt.Sprintf("mode %q: valid modes are simulate, serve, batsim, batsim5", c.Mode)}
}

// simulate prepares the embedded engine's run.
func (r *Run) simulate(c Config, pol *run.Policy, eng EngineOptions, log *slog.Logger) error {
	lat := sim.LatencyBatsim
	if eng.Latency == "none" {
		lat = sim.LatencyNone
	}
	plat, err := bundledPlatform(c.Platform, log)
	if err != nil {
		return err
	}
	s := run.Simulation{
		Inputs:  run.Inputs{Platform: c.Platform, PlatformData: plat, Workloads: c.Workloads},
		Policy:  pol,
		Connect: c.Connect, Timeout: time.Duration(c.Timeout * float64(time.Second)),
		Given: eng.given(), Export: c.Export, Trace: c.Trace, SchedConfig: eng.SchedCfg,
		Approximate: eng.Approximate, Log: log,
		Configure: func(cfg *sim.Config) {
			cfg.Latency = lat
			cfg.ForwardProfiles = eng.ForwardProfilesOnSubmission
			cfg.Batsim5Jobs = eng.JobsFormat == "batsim5"
			cfg.Observe = func(d batsim.Direction, m *batsim.Message) {
				if c.Verbose {
					log.Debug("message", "dir", d.String(), "raw", string(batsim.EncodeBatsim(m)))
				}
				if d == batsim.FromBatsim {
					r.progress()
				}
			}
		},
	}
	if len(c.Workloads) == 0 {
		return &sched.OptionError{Msg: "no workload"}
	}
	prep, err := s.Prepare()
	if err != nil {
		return err
	}
	r.start(func(ctx context.Context) error {
		res, err := prep.Run(ctx)
		r.result = res
		return err
	}, false, 0)
	return nil
}

// bundled holds the bundled platforms parsed so far, by name. Their text
// never changes and a run only reads its platform (a Platform is shared by
// design: the routes it computes on demand are kept under its lock), so
// the runs of one process, such as the episodes of a Python environment,
// parse each bundled platform once.
var bundled sync.Map // string → *platforms.Platform

// bundledPlatform is the platform that name names when it is a bundled
// platform's name (and no file's), parsed once per process, its warnings
// logged as run.Simulation logs those of a platform it reads; nil for a
// file or an unknown name, which run.Simulation reads and reports.
func bundledPlatform(name string, log *slog.Logger) (*platforms.Platform, error) {
	file, bname, err := platforms.Locate("", name)
	if err != nil || file != "" {
		return nil, nil
	}
	p, ok := bundled.Load(bname)
	if !ok {
		parsed, err := platforms.Resolve(bname)
		if err != nil {
			return nil, err
		}
		p, _ = bundled.LoadOrStore(bname, parsed)
	}
	plat := p.(*platforms.Platform)
	for _, w := range plat.Warnings {
		log.Warn("platform", "warning", w)
	}
	return plat, nil
}
