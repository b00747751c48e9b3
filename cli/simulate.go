package cli

import (
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
	"golang.org/x/term"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/metrics"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sim"
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
	schedCfg, err := schedConfigOf(c)
	if err != nil {
		return err
	}

	simu := run.Simulation{
		Inputs:  run.Inputs{Platform: c.String("platform"), Workloads: wpaths},
		Connect: connect, Timeout: c.Duration("timeout"),
		Given: givenFeatures(c), Export: c.String("export"), Trace: c.String("trace"),
		SchedConfig: schedCfg, Approximate: c.Bool("approximate"), Log: log,
		Configure: func(cfg *sim.Config) {
			cfg.Latency = lat
			cfg.ForwardProfiles = c.Bool("forward-profiles-on-submission")
			cfg.Batsim5Jobs = c.String("jobs-format") == "batsim5"
			if c.Bool("verbose") {
				cfg.Observe = func(d batsim.Direction, m *batsim.Message) {
					log.Debug("message", "dir", d.String(), "raw", string(batsim.EncodeBatsim(m)))
				}
			}
		},
	}
	if name != "" {
		// The scheduler first: a bad policy or option fails before any
		// file is read (Prepare).
		pol, err := run.ParsedPolicy(registry(c), name, optArgs)
		if err != nil {
			return err
		}
		pol.Validate, pol.Log = c.Bool("validate"), log
		simu.Policy = pol
	}
	prep, err := simu.Prepare()
	if err != nil {
		var um *run.UnmodelledError
		switch {
		case errors.As(err, &um):
			return usage("%v", err)
		case run.IsOptionError(err):
			return err
		}
		return fmt.Errorf("simulate: %w", err)
	}
	unmodelled := prep.Unmodelled()
	var bar *progressbar.ProgressBar
	if f, ok := stderr(c).(*os.File); ok && !c.Bool("quiet") && prep.Jobs() >= 20000 && term.IsTerminal(int(f.Fd())) {
		bar = progressbar.NewOptions(prep.Jobs(), progressbar.OptionSetWriter(f), progressbar.OptionSetDescription("simulating"),
			progressbar.OptionShowCount(), progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
		prep.Config().Progress = func(done, _ int) { bar.Set(done) }
	}

	ctx, stop := interruptContext(c.Context)
	defer stop()
	res, err := prep.Run(ctx)
	if bar != nil {
		bar.Finish()
	}
	if err != nil {
		if run.IsInterrupted(err) {
			var re *run.Error
			note := ""
			if errors.As(err, &re) {
				note = re.Note()
			}
			return cli.Exit("simulate: interrupted"+note, exitInterrupted)
		}
		return fmt.Errorf("simulate: %w", err)
	}
	prefix := simu.Export
	if !c.Bool("quiet") {
		if len(unmodelled) > 0 {
			fmt.Fprintf(stdout(c), "APPROXIMATE results (--approximate): not modelled: %s\n", strings.Join(unmodelled, "; "))
		}
		printSummary(stdout(c), res.Result, prefix, c.String("trace"))
	}
	return nil
}

// schedConfigOf is the sched-config of --sched-cfg or --sched-cfg-file
// (not both: a usage error).
func schedConfigOf(c *cli.Context) (string, error) {
	schedCfg := c.String("sched-cfg")
	if f := c.String("sched-cfg-file"); f != "" {
		if schedCfg != "" {
			return "", cli.Exit(commandPath(c)+": give --sched-cfg or --sched-cfg-file, not both", 2)
		}
		b, err := readBounded(f, maxSchedConfig)
		if err != nil {
			return "", fmt.Errorf("%s: sched-config file: %w", commandPath(c), err)
		}
		schedCfg = string(b)
	}
	return schedCfg, nil
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

// givenFeatures are the feature flags given on the command line (a flag
// given means what it says; run.Needs turns on what the policy needs of
// the others).
func givenFeatures(c *cli.Context) run.Given {
	flag := func(name string) *bool {
		if !c.IsSet(name) {
			return nil
		}
		v := c.Bool(name)
		return &v
	}
	return run.Given{DynamicJobs: flag("enable-dynamic-jobs"), AcknowledgeDynamicJobs: flag("acknowledge-dynamic-jobs"),
		ComputeSharing: flag("enable-compute-sharing"), Energy: flag("energy")}
}
