package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/bucma-sched/bucma/check"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sched"
)

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "check that a decision process follows Batsim's protocol: every reply Batsim would abort on, misread or never end from",
		ArgsUsage: "[-- COMMAND ARGS... (" + check.Placeholder + " is the endpoint it binds)]",
		Description: `Plays Batsim against a decision process (the embedded engine by default, or the
real Batsim 4 with --batsim, the check standing between Batsim and the process)
and reports every reply that breaks a rule of Batsim's: the message, the rule,
the simulated time, and what Batsim does (aborts, misreads the decision, or
never ends the simulation). The rules are Batsim's reader's, those bucma's
Decider holds its own policies to, and the engine's model of Batsim; --rules
lists them.

The process is a command bucma starts for each run, with ` + check.Placeholder + ` where the
endpoint it binds goes; one already listening (--connect, for one run); or one
of bucma's policies, in-process (--scheduler):

   bucma check -- batsched -v easy_bf -s ` + check.Placeholder + `
   bucma check --batsim batsim -- python3 my_scheduler.py ` + check.Placeholder + `
   bucma check -p lille -w workload.json --connect tcp://127.0.0.1:28000

Without -w, the suite of scenarios runs (--scenario picks some): jobs arriving
at one instant, jobs too big for the platform, walltimes reached and jobs
failing, kills, dynamic jobs, hosts made unavailable (the last with the real
Batsim 4 only: the engine does not model external events). With -p and -w, the
run is yours, with simulate's Batsim flags.

Exit status: 0 when nothing was found, 1 when something was (or a run could
not be played), 2 on a bad command line.`,
		OnUsageError: onUsageError,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "connect", Usage: "check the process listening on `ENDPOINT` (one run: a process serves one simulation)"},
			&cli.StringFlag{Name: "scheduler", Usage: "check bucma's policy `NAME`, in-process"},
			&cli.GenericFlag{Name: "option", Aliases: []string{"o"}, Value: &optionList{}, Usage: "with --scheduler: policy option `key=value` (repeatable)"},
			&cli.StringFlag{Name: "platform", Aliases: []string{"p"}, Usage: "SimGrid platform `FILE`, or a bundled platform name (with -w)"},
			&cli.StringSliceFlag{Name: "workload", Aliases: []string{"w"}, KeepSpace: true, Usage: "Batsim workload `FILE` (repeatable): check this run instead of the scenarios"},
			&cli.StringSliceFlag{Name: "scenario", Usage: "run scenario `NAME` of the suite (repeatable; default all): " + strings.Join(scenarioNames(), ", ")},
			&cli.StringFlag{Name: "batsim", Usage: "play Batsim with the real Batsim 4 `EXECUTABLE` (e.g. batsim) rather than the embedded engine"},
			&cli.StringFlag{Name: "batsim5", Usage: "play Batsim with the real Batsim 5 `EXECUTABLE` (e.g. batsim5), the process behind bucma's bridge (the workloads converted to Batsim 5's format)"},
			&cli.StringFlag{Name: "events", Usage: "with -w and --batsim: Batsim's external events `FILE`"},
			&cli.BoolFlag{Name: "forward-profiles-on-submission", Usage: "Batsim's flag, with -w"},
			&cli.BoolFlag{Name: "enable-dynamic-jobs", Usage: "Batsim's flag, with -w"},
			&cli.BoolFlag{Name: "acknowledge-dynamic-jobs", Usage: "Batsim's flag, with -w"},
			&cli.BoolFlag{Name: "enable-compute-sharing", Usage: "Batsim's flag, with -w"},
			&cli.BoolFlag{Name: "energy", Aliases: []string{"E"}, Usage: "Batsim's flag, with -w"},
			&cli.StringFlag{Name: "sched-cfg", Usage: "Batsim's --sched-cfg, with -w"},
			&cli.StringFlag{Name: "sched-cfg-file", Usage: "read the sched-config string from `FILE`"},
			timeoutFlag("a process silent for `D` after a message has not answered it (0: no limit; a process that dies is seen at once)", 0),
			&cli.StringFlag{Name: "out", Usage: "keep each run's outputs (Batsim's, the engine's) under `DIR` (default: a scratch directory, removed)"},
			&cli.BoolFlag{Name: "rules", Usage: "list the rules and exit"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "debug logging"},
		},
		Action: checkAction,
	}
}

func scenarioNames() []string {
	var out []string
	for _, s := range check.Scenarios {
		out = append(out, s.Name)
	}
	return out
}

// printRules prints the rules bucma check reports.
func printRules(w io.Writer) {
	for _, r := range check.Rules() {
		fmt.Fprintf(w, "%-28s %-26s %s\n", r.Name, r.Effect, r.What)
	}
}

func checkAction(c *cli.Context) error {
	if c.Bool("rules") {
		printRules(stdout(c))
		return nil
	}
	usage := func(format string, args ...any) error {
		return cli.Exit("check: "+fmt.Sprintf(format, args...), 2)
	}
	argv := c.Args().Slice()
	sources := 0
	for _, on := range []bool{len(argv) > 0, c.String("connect") != "", c.String("scheduler") != ""} {
		if on {
			sources++
		}
	}
	if sources != 1 {
		return usage("give the process to check: -- COMMAND (with %s), --connect ENDPOINT or --scheduler NAME, one of them", check.Placeholder)
	}
	if len(argv) > 0 {
		if err := check.CheckArgv(argv); err != nil {
			return usage("%v", err)
		}
	}
	if c.String("connect") != "" {
		if err := checkEndpoint(c, "connect", false); err != nil {
			return err
		}
	}
	schedCfg, err := schedConfigOf(c)
	if err != nil {
		return err
	}
	log := newLogger(c, c.Bool("verbose"))

	// The runs: the user's, or the scenarios.
	var runs []check.Run
	var scenarios []check.Scenario
	wls := c.StringSlice("workload")
	if len(wls) > 0 {
		if c.String("platform") == "" {
			return usage("-w needs -p (a SimGrid file or a bundled platform)")
		}
		if len(c.StringSlice("scenario")) > 0 {
			return usage("give -w (a run of yours) or --scenario, not both")
		}
		runs = append(runs, check.Run{Name: filepath.Base(wls[0]), Platform: c.String("platform"), Workloads: wls, Events: c.String("events"),
			ForwardProfiles: c.Bool("forward-profiles-on-submission"), DynamicJobs: c.Bool("enable-dynamic-jobs"),
			AcknowledgeDynamicJobs: c.Bool("acknowledge-dynamic-jobs"), ComputeSharing: c.Bool("enable-compute-sharing"),
			Energy: c.Bool("energy"), SchedConfig: schedCfg})
	} else {
		if c.String("platform") != "" {
			return usage("-p goes with -w (without -w the scenarios run on their own platform)")
		}
		names := c.StringSlice("scenario")
		for _, s := range check.Scenarios {
			if len(names) == 0 || contains(names, s.Name) {
				scenarios = append(scenarios, s)
			}
		}
		for _, n := range names {
			if !contains(scenarioNames(), n) {
				return usage("--scenario %q: valid scenarios are %s", n, strings.Join(scenarioNames(), ", "))
			}
		}
		if c.String("connect") != "" && len(scenarios) != 1 {
			return usage("--connect checks one run (a process serves one simulation): name one --scenario, or give -- COMMAND or --scheduler")
		}
	}
	if c.String("events") != "" && (len(wls) == 0 || c.String("batsim") == "") {
		return usage("--events goes with -w and --batsim (the engine does not model external events)")
	}
	if c.String("batsim") != "" && c.String("batsim5") != "" {
		return usage("give --batsim or --batsim5, not both")
	}

	// The process.
	var spec *sched.Spec
	var opts sched.Options
	var pol *run.Policy
	if name := c.String("scheduler"); name != "" {
		if spec, err = registry(c).Lookup(name); err != nil {
			return err
		}
		var args []string
		if ol, ok := c.Generic("option").(*optionList); ok {
			args = *ol
		}
		if opts, err = sched.ParseOptionArgs(args); err != nil {
			return err
		}
		pol = &run.Policy{Spec: spec, Options: opts, Log: log}
		if _, err := pol.Check(""); err != nil {
			return err
		}
	}
	cmd := check.Command{Argv: argv, Timeout: c.Duration("timeout")}

	out := c.String("out")
	if out == "" {
		dir, err := os.MkdirTemp("", "bucma-check-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		out = dir
	}
	ctx, stop := interruptContext(c.Context)
	defer stop()
	for _, s := range scenarios {
		run, err := s.Run(filepath.Join(out, s.Name))
		if err != nil {
			return err
		}
		if spec != nil {
			// A policy of bucma's runs with what it needs of Batsim.
			run.DynamicJobs = run.DynamicJobs || spec.DynamicJobs
			run.AcknowledgeDynamicJobs = run.AcknowledgeDynamicJobs || spec.DynamicJobs
			run.ComputeSharing = spec.ComputeSharing
			run.Energy = spec.Energy
		}
		runs = append(runs, run)
	}
	var results []*check.Result
	for _, run := range runs {
		res, err := checkRun(ctx, c, run, pol, cmd, filepath.Join(out, run.Name), log)
		switch {
		case errors.Is(err, check.ErrNeedsBatsim):
			fmt.Fprintf(stdout(c), "%s: skipped: %v (--batsim)\n", run.Name, err)
			continue
		case errors.Is(err, check.ErrNotBatsim5):
			fmt.Fprintf(stdout(c), "%s: skipped: %v\n", run.Name, err)
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return cli.Exit("check: interrupted", exitInterrupted)
			}
			return fmt.Errorf("check: %s: %w", run.Name, err)
		}
		printResult(stdout(c), res)
		results = append(results, res)
	}
	return summarize(stdout(c), results)
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// checkRun checks the process on one run.
func checkRun(ctx context.Context, c *cli.Context, cr check.Run, pol *run.Policy, cmd check.Command, dir string, log *slog.Logger) (*check.Result, error) {
	player := check.Player{Batsim: c.String("batsim"), Batsim5: c.String("batsim5"), Log: log}
	if err := player.Playable(cr); err != nil {
		return nil, err
	}
	switch {
	case pol != nil:
		s, _, err := pol.InProcess()
		if err != nil {
			return nil, err
		}
		return player.Play(ctx, cr, s, dir)
	case c.String("connect") != "":
		r, err := check.Connect(ctx, c.String("connect"), c.Duration("timeout"))
		if err != nil {
			return nil, err
		}
		defer r.Close()
		return player.Play(ctx, cr, r, dir)
	}
	return player.CheckCommand(ctx, cmd, cr, dir)
}

// printResult prints one run's findings.
func printResult(w io.Writer, r *check.Result) {
	end := "the simulation ended"
	if !r.Ended {
		end = "the simulation did not end"
	}
	if r.Clean() {
		fmt.Fprintf(w, "%s: %d messages, %s: no finding\n", r.Run.Name, r.Messages, end)
		return
	}
	fmt.Fprintf(w, "%s: %d messages, %s: %d finding(s)\n", r.Run.Name, r.Messages, end, len(r.Findings))
	for _, f := range r.Findings {
		fmt.Fprintf(w, "  %s\n", f)
	}
	if r.Process != "" {
		fmt.Fprintf(w, "  (%s)\n", r.Process)
	}
}

// summarize prints the summary line and returns the exit: 1 when anything
// was found.
func summarize(w io.Writer, results []*check.Result) error {
	byRule := map[string]int{}
	n, runs := 0, 0
	for _, r := range results {
		if !r.Clean() {
			runs++
		}
		for _, f := range r.Findings {
			byRule[f.Rule.Name]++
			n++
		}
	}
	if n == 0 {
		fmt.Fprintf(w, "%d run(s): no finding\n", len(results))
		return nil
	}
	var rules []string
	for k := range byRule {
		rules = append(rules, fmt.Sprintf("%s %d", k, byRule[k]))
	}
	sort.Strings(rules)
	fmt.Fprintf(w, "%d run(s), %d with findings: %d finding(s) (%s)\n", len(results), runs, n, strings.Join(rules, ", "))
	return cli.Exit("", 1)
}
