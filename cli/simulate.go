package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/metrics"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sim"
	"github.com/bucma-sched/bucma/workloads"
)

func simulateCommand() *cli.Command {
	return &cli.Command{
		Name:  "simulate",
		Usage: "simulate a platform and workload(s) with bucma's embedded Batsim-compatible engine",
		Description: `Runs the embedded engine, which stands where Batsim 4.2.1 stands: same input files,
same messages to the scheduler, same decision rules, same PREFIX_jobs.csv and
PREFIX_schedule.csv. The scheduler is one of bucma's policies, in-process:

   bucma simulate -p lille -w workload.json --scheduler easy

or any scheduler listening on a ZeroMQ endpoint (bucma run, batsched, pybatsim),
driven exactly as Batsim would:

   bucma run --scheduler easy -s tcp://127.0.0.1:28000 &
   bucma simulate -p platform.xml -w workload.json --connect tcp://127.0.0.1:28000

--latency batsim (default) reproduces Batsim's internal message latencies (its
"+0.000015" offsets); --latency none makes every internal message instantaneous.
Exit status: 0 on success, 1 on a bad input file, a decision Batsim refuses or a
deadlock, 2 on a bad command line or option, 130 when interrupted (SIGINT,
SIGTERM or SIGQUIT).`,
		OnUsageError: onUsageError,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "platform", Aliases: []string{"p"}, Usage: "SimGrid platform `FILE`, or a bundled platform name"},
			&cli.StringSliceFlag{Name: "workload", Aliases: []string{"w"}, KeepSpace: true, Usage: "Batsim workload `FILE` (repeatable: w0, w1, ...)"},
			&cli.StringFlag{Name: "scheduler", Usage: "in-process policy `NAME` (see 'bucma list')"},
			&cli.GenericFlag{Name: "option", Aliases: []string{"o"}, Value: &optionList{}, Usage: "policy option `key=value` (repeatable)"},
			&cli.StringFlag{Name: "connect", Usage: "drive the scheduler listening on `ENDPOINT` over ZeroMQ instead"},
			&cli.StringFlag{Name: "export", Aliases: []string{"e"}, Value: "out", Usage: "output `PREFIX`: PREFIX_jobs.csv and PREFIX_schedule.csv"},
			&cli.BoolFlag{Name: "forward-profiles-on-submission", Usage: "add the job's profile to JOB_SUBMITTED"},
			&cli.BoolFlag{Name: "enable-dynamic-jobs", Usage: "allow REGISTER_JOB / REGISTER_PROFILE (the scheduler must send registration_finished); default off, as Batsim, but on for a policy that registers jobs (osep, submitter) unless given"},
			&cli.BoolFlag{Name: "acknowledge-dynamic-jobs", Usage: "send JOB_SUBMITTED for each registered job; default off, as Batsim, but on for a policy that registers jobs when neither this flag nor --enable-dynamic-jobs is given"},
			&cli.BoolFlag{Name: "enable-compute-sharing", Usage: "let several jobs run on one compute host at once, sharing its processor (on for a policy that shares hosts)"},
			&cli.BoolFlag{Name: "energy", Aliases: []string{"E"}, Usage: "energy support: power states (SET_RESOURCE_STATE), the hosts' energy from their wattage_per_state, PREFIX_consumed_energy.csv and PREFIX_pstate_changes.csv (on for a policy that switches hosts)"},
			&cli.StringFlag{Name: "sched-cfg", Usage: "string forwarded as config.sched-config (policy options as a JSON object)"},
			&cli.StringFlag{Name: "sched-cfg-file", Usage: "read the sched-config string from `FILE`"},
			&cli.StringFlag{Name: "latency", Value: "batsim", Usage: "internal message latencies: batsim or none"},
			jobsFormatFlag(),
			&cli.BoolFlag{Name: "approximate", Usage: "simulate inputs the engine does not reproduce exactly (traces, routes it cannot compute) instead of refusing them; the summary says the results are approximate"},
			&cli.BoolFlag{Name: "validate", Usage: "audit the in-process scheduler's whole state after every decision"},
			&cli.StringFlag{Name: "trace", Usage: "write the decision trace (one CSV row per job) to `FILE` (in-process only)"},
			timeoutFlag("with --connect: give up when the scheduler does not answer within `D`; 0 waits forever", 0),
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no summary"},
			cpuProfileFlag("the simulation"),
			&cli.StringFlag{Name: "memprofile", Usage: "write a heap profile taken when the live heap was largest to `FILE` (go tool pprof -sample_index=inuse_space FILE)"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "debug logging, including every message exchanged"},
		},
		Action: simulateAction,
	}
}

func simulateAction(c *cli.Context) error {
	if err := noPositional(c); err != nil {
		return err
	}
	defer tuneGC()()
	stopCPU, err := startCPUProfile(c)
	if err != nil {
		return err
	}
	defer stopCPU()
	if path := c.String("memprofile"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return cli.Exit("simulate: --memprofile: "+err.Error(), 2)
		}
		f.Close()
		p := startPeakHeapProfile(path, 250*time.Millisecond)
		defer func() {
			if err := p.Stop(); err != nil {
				fmt.Fprintln(c.App.ErrWriter, "simulate: --memprofile:", err)
			}
		}()
	}
	log := newLogger(c, c.Bool("verbose"))
	usage := func(format string, args ...any) error {
		return cli.Exit("simulate: "+fmt.Sprintf(format, args...), 2)
	}
	var lat sim.Latency
	switch c.String("latency") {
	case "batsim":
		lat = sim.LatencyBatsim
	case "none":
		lat = sim.LatencyNone
	default:
		return usage("--latency %q: valid values are batsim, none", c.String("latency"))
	}
	if c.String("platform") == "" {
		return usage("--platform is required (a SimGrid file or one of: %s)", platforms.BundledList())
	}
	wpaths := c.StringSlice("workload")
	if len(wpaths) == 0 && !c.Bool("enable-dynamic-jobs") {
		return usage("--workload is required")
	}
	connect, name := c.String("connect"), c.String("scheduler")
	if connect != "" && name != "" {
		return usage("give either --scheduler (in-process) or --connect (remote), not both")
	}
	if connect != "" {
		if err := checkEndpoint(c, "connect", false); err != nil {
			return err
		}
	}
	if connect == "" && name == "" {
		return &sched.OptionError{Msg: fmt.Sprintf("simulate: --scheduler or --connect is required (policies: %s)", strings.Join(registry(c).Names(), ", "))}
	}
	var optArgs []string
	if ol, ok := c.Generic("option").(*optionList); ok {
		optArgs = *ol
	}
	if connect != "" && (len(optArgs) > 0 || c.String("trace") != "" || c.Bool("validate")) {
		return usage("--option, --trace and --validate apply to an in-process scheduler, not to --connect")
	}
	schedCfg := c.String("sched-cfg")
	if f := c.String("sched-cfg-file"); f != "" {
		if schedCfg != "" {
			return usage("give --sched-cfg or --sched-cfg-file, not both")
		}
		b, err := readBounded(f, maxSchedConfig)
		if err != nil {
			return fmt.Errorf("simulate: sched-config file: %w", err)
		}
		schedCfg = string(b)
	}

	// Scheduler first: a bad policy or option fails before any file is read.
	var scfg sched.SessionConfig
	if name != "" {
		spec, err := registry(c).Lookup(name)
		if err != nil {
			return err
		}
		opts, err := sched.ParseOptionArgs(optArgs)
		if err != nil {
			return err
		}
		scfg = sched.SessionConfig{Spec: spec, Options: opts, Validate: c.Bool("validate"), Log: log}
		if _, err := sched.NewSession(scfg); err != nil {
			return err
		}
		// The sched-config is the policy's too: checked now as the
		// options are, not once the engine has begun its outputs.
		if _, _, err := spec.BuildWithSchedConfig(schedCfg, opts); err != nil {
			return fmt.Errorf("simulate: %w", err)
		}
	}

	plat, err := platforms.Resolve(c.String("platform"))
	if err != nil {
		return fmt.Errorf("simulate: %w", err)
	}
	for _, w := range plat.Warnings {
		log.Warn("platform", "warning", w)
	}
	// Workload files are read straight into the engine's form; any the
	// engine does not read so (a problem in it, most often) is loaded and
	// checked the way Batsim does, the errors naming the file, the job and
	// the rule.
	var pre []*sim.Preloaded
	for i, p := range wpaths {
		w := sim.Preload(p, fmt.Sprintf("w%d", i))
		if w == nil {
			pre = nil
			break
		}
		pre = append(pre, w)
	}
	var wls []*workloads.Workload
	for i, p := range wpaths {
		if pre != nil {
			break
		}
		w, _, err := workloads.LoadChecked(p, workloads.ValidateOptions{WorkloadName: fmt.Sprintf("w%d", i)})
		if err != nil {
			return fmt.Errorf("simulate: %w", err)
		}
		wls = append(wls, w)
	}

	// A workload the policy cannot schedule at all (none of the fields it
	// reads) is refused now, rather than every job at its submission.
	if scfg.Spec != nil {
		for i, p := range wpaths {
			jobs := func(yield func([]byte) bool) {
				if pre != nil {
					pre[i].JobDescriptions()(yield)
					return
				}
				for _, j := range wls[i].Jobs {
					if !yield(j.Raw) {
						return
					}
				}
			}
			if err := scfg.Spec.CheckJobFields(jobs); err != nil {
				return fmt.Errorf("simulate: workload %s: %w", p, err)
			}
		}
	}

	// Outputs are opened only now that every input has been read.
	var sess *sched.Session
	var trace *traceFile
	if name != "" {
		var err error
		if sess, trace, err = newSession(scfg, c.String("trace")); err != nil {
			return err
		}
		defer trace.discard()
	}
	cfg := sim.Config{
		Platform: plat, Workloads: wls, Preloaded: pre, ExportPrefix: c.String("export"), Latency: lat,
		ForwardProfiles: c.Bool("forward-profiles-on-submission"), DynamicJobs: c.Bool("enable-dynamic-jobs"),
		AcknowledgeDynamicJob: c.Bool("acknowledge-dynamic-jobs"), SchedConfig: schedCfg, Log: log,
		Approximate: c.Bool("approximate"), WorkloadsChecked: true,
		ComputeSharing: c.Bool("enable-compute-sharing"), Energy: c.Bool("energy"),
		Batsim5Jobs: c.String("jobs-format") == "batsim5",
	}
	if scfg.Spec != nil && scfg.Spec.Energy && !c.IsSet("energy") {
		cfg.Energy = true
	}
	// A policy that shares hosts needs compute sharing: on unless the flag
	// says otherwise (then the policy says why it cannot run).
	if scfg.Spec != nil && scfg.Spec.ComputeSharing && !c.IsSet("enable-compute-sharing") {
		cfg.ComputeSharing = true
	}
	// A policy that registers jobs needs dynamic jobs: on, acknowledged,
	// unless a flag is given. A flag given means what it says, as it does
	// to Batsim: --enable-dynamic-jobs alone leaves acknowledgement off
	// (Batsim's default), and a policy that needs either says why it
	// cannot run without it.
	if scfg.Spec != nil && scfg.Spec.DynamicJobs && !c.IsSet("enable-dynamic-jobs") {
		cfg.DynamicJobs = true
		if !c.IsSet("acknowledge-dynamic-jobs") {
			cfg.AcknowledgeDynamicJob = true
		}
	}
	// Inputs the engine does not reproduce exactly are refused before
	// anything is simulated or written, unless --approximate.
	unmodelled := sim.Unmodelled(cfg)
	if len(unmodelled) > 0 && !cfg.Approximate {
		return usage("the engine does not reproduce Batsim exactly with these inputs:\n  %s\nRun with --approximate to simulate anyway (the results will only approximate Batsim's).", strings.Join(unmodelled, "\n  "))
	}
	if c.Bool("verbose") {
		cfg.Observe = func(d batsim.Direction, m *batsim.Message) {
			log.Debug("message", "dir", d.String(), "raw", string(batsim.EncodeBatsim(m)))
		}
	}
	total := 0
	for _, w := range wls {
		total += len(w.Jobs)
	}
	for _, w := range pre {
		total += w.Jobs()
	}
	var bar *progressbar.ProgressBar
	if f, ok := stderr(c).(*os.File); ok && !c.Bool("quiet") && total >= 20000 && isTerminal(f) {
		bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(f), progressbar.OptionSetDescription("simulating"),
			progressbar.OptionShowCount(), progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
		cfg.Progress = func(done, _ int) { bar.Set(done) }
	}

	ctx, stop := interruptContext(c.Context)
	defer stop()
	var sched sim.Scheduler
	if sess != nil {
		sched = sim.InProcess(sess)
	} else {
		rs, err := zmq.Remote(ctx, connect, c.Duration("timeout"))
		if err != nil {
			return fmt.Errorf("simulate: %w", err)
		}
		defer rs.Close()
		sched = rs
	}
	var jobsPartial partialWatch
	prefix := cfg.ExportPrefix
	if prefix != "" {
		jobsPartial = watchPartial(prefix + "_jobs.csv" + sim.PartialSuffix)
	}
	// Neither cfg nor wls is used from here on: the engine keeps its own
	// copy of the workloads, which the collector may then free.
	wls, pre = nil, nil
	res, err := sim.Run(ctx, cfg, sched)
	if bar != nil {
		bar.Finish()
	}
	if err == nil {
		err = trace.commit()
	} else {
		note := partialNote(jobsPartial.written(), trace.abort())
		if errors.Is(err, context.Canceled) {
			return cli.Exit("simulate: interrupted"+note, exitInterrupted)
		}
		err = fmt.Errorf("%w%s", err, note)
	}
	if err != nil {
		return fmt.Errorf("simulate: %w", err)
	}
	if !c.Bool("quiet") {
		if len(unmodelled) > 0 {
			fmt.Fprintf(stdout(c), "APPROXIMATE results (--approximate): not modelled: %s\n", strings.Join(unmodelled, "; "))
		}
		printSummary(stdout(c), res, prefix, c.String("trace"))
	}
	return nil
}

// maxSchedConfig bounds the file of --sched-cfg-file: a sched-config is
// a policy's options (a score per user at most), far below it.
const maxSchedConfig = 16 << 20

func printSummary(w io.Writer, r *sim.Result, prefix, trace string) {
	fmt.Fprintf(w, "jobs           %d\n", r.Jobs)
	states := make([]string, 0, len(r.ByState))
	for s := range r.ByState {
		states = append(states, s)
	}
	sort.Strings(states)
	for _, s := range states {
		fmt.Fprintf(w, "  %-26s %d\n", s, r.ByState[s])
	}
	// The metrics of the campaign reports (package metrics), under their
	// names there.
	m := &r.Metrics
	if m.Ran == 0 {
		fmt.Fprintf(w, "no job ran: no makespan, waiting time, slowdown or utilization\n")
	} else {
		num := func(v float64) string {
			if math.IsNaN(v) {
				return "n/a"
			}
			return strconv.FormatFloat(v, 'f', 6, 64)
		}
		fmt.Fprintf(w, "makespan       %s s (last finish %s s − first submission %s s)\n", num(m.Makespan), num(m.LastFinish), num(m.FirstSubmit))
		fmt.Fprintf(w, "mean waiting   %s s (over the %d jobs that ran)\n", num(m.MeanWait), m.Ran)
		fmt.Fprintf(w, "mean slowdown  %s (bounded slowdown, τ = %g s: %s)\n", num(m.MeanSlowdown), metrics.BSLDThreshold, num(m.MeanBSLD))
		fmt.Fprintf(w, "utilization    %s (busy host-time / (%d hosts × makespan))\n", num(m.Utilization), m.Hosts)
	}
	fmt.Fprintf(w, "messages       %d (scheduler %.3f s, total %.3f s wall)\n", r.Messages, r.SchedWall.Seconds(), r.Wall.Seconds())
	if r.EnergyOn {
		fmt.Fprintf(w, "energy         %.6f J (%.3f kWh)\n", r.Energy, r.Energy/3.6e6)
	}
	if prefix != "" {
		fmt.Fprintf(w, "outputs        %s_jobs.csv, %s_schedule.csv", prefix, prefix)
		if r.EnergyOn {
			fmt.Fprintf(w, ", %s_consumed_energy.csv, %s_pstate_changes.csv", prefix, prefix)
		}
		fmt.Fprintln(w)
	}
	if trace != "" {
		fmt.Fprintf(w, "trace          %s\n", trace)
	}
}

// Garbage collection of a simulation, unless GOGC or GOMEMLIMIT say
// otherwise: a collection when the heap reaches 4 times what survived the
// last one (the engine and the scheduler allocate much that dies young;
// 20 000 jobs run about 10 % faster than with Go's default of 2 times), and
// the collector working harder as the whole heap nears gcMemoryLimit, so
// that large runs (a million jobs) stay within it as long as what they keep
// does.
const (
	gcPercent     = 300
	gcMemoryLimit = 900 << 20
)

// tuneGC applies those settings and returns what restores the previous
// ones.
func tuneGC() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	percent := debug.SetGCPercent(gcPercent)
	limit := debug.SetMemoryLimit(gcMemoryLimit)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}
