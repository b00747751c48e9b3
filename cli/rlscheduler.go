package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/studies/rlscheduler"
)

// rlschedulerCommand evaluates RLScheduler's heuristics (Tables V and VI
// of Zhang et al., SC20) on an SWF trace in the paper's simulator, as
// published and corrected.
func rlschedulerCommand() *cli.Command {
	return &cli.Command{
		Name:  "rlscheduler",
		Usage: "RLScheduler's Tables V and VI (bounded slowdown, utilization of FCFS, WFP3, UNI, SJF, F1-F4, smallest-first) in the paper's simulator, as published and corrected",
		Description: `Evaluates each heuristic without backfilling and with the paper's greedy
backfilling on windows of consecutive jobs of an SWF trace, on 256
interchangeable nodes, in two modes: compat, the paper's simulator and
metrics (WFP3 and UNI see a waiting job's wait as -1 - submit; the
utilization ends at the last job's start), and corrected (the real wait,
the utilization to the last finish); with --batsim, also under Batsim's
rules: the same windows as Batsim workloads (walltime = requested time, a
delay profile of the run time) on 256 hosts, scheduled by bucma's prio-*
policies through the embedded engine, the metrics of package metrics.
Each cell is the mean of the windows.
On a 10 000-job trace the default windows are the paper's (10 of 1024
jobs, its seed-1 starts); otherwise --windows starts are drawn by bucma's
own generator from --seed (not the paper's).`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "trace", Usage: "SWF trace (required)"},
			&cli.StringFlag{Name: "starts", Usage: "window starts: paper (the paper's seed-1 starts for a 10 000-job trace), or 0-based job indices 1981,2756,...; default: paper on a 10 000-job trace with 10 windows of 1024 jobs, else drawn"},
			&cli.IntFlag{Name: "windows", Value: rlscheduler.PaperWindows, Usage: "number of windows to draw"},
			&cli.IntFlag{Name: "window-jobs", Value: rlscheduler.PaperWindowJobs, Usage: "jobs per window"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the drawn starts"},
			&cli.StringFlag{Name: "heuristics", Usage: "comma-separated heuristics (default all: " + strings.Join(rlscheduler.Heuristics, ",") + ")"},
			&cli.StringFlag{Name: "published", Usage: "print the paper's published cells of this trace beside: lublin-1"},
			&cli.BoolFlag{Name: "batsim", Usage: "add the same windows under Batsim's rules: bucma's prio-* policies (none, EASY and conservative backfilling) through the embedded engine on 256 hosts"},
			&cli.BoolFlag{Name: "csv", Usage: "print CSV, one row per cell (metric,backfilling,heuristic, then published, compat, corrected, batsim, batsim_conservative as given)"},
		},
		Action: rlschedulerAction,
	}
}

func rlschedulerAction(c *cli.Context) error {
	if err := noPositional(c); err != nil {
		return err
	}
	usage := func(format string, a ...any) error { return cli.Exit("rlscheduler: "+fmt.Sprintf(format, a...), 2) }
	path := c.String("trace")
	if path == "" {
		return usage("--trace is required (an SWF file)")
	}
	if err := checkSeed(c, "rlscheduler"); err != nil {
		return err
	}
	if c.Int("windows") < 1 || c.Int("window-jobs") < 1 {
		return usage("--windows and --window-jobs must be ≥ 1")
	}
	starts, err := rlscheduler.ParseStarts(c.String("starts"))
	if err != nil {
		return usage("%v", err)
	}
	var hs []string
	if s := c.String("heuristics"); s != "" {
		hs = strings.Split(strings.ToUpper(s), ",")
	}
	f, err := os.Open(path)
	if err != nil {
		return cli.Exit("rlscheduler: "+err.Error(), 1)
	}
	defer f.Close()
	jobs, err := rlscheduler.ReadSWF(f, path)
	if err != nil {
		return cli.Exit("rlscheduler: "+err.Error(), 1)
	}
	ctx, stop := interruptContext(c.Context)
	defer stop()
	r, err := rlscheduler.Run(ctx, jobs, rlscheduler.Config{Batsim: c.Bool("batsim"), Trace: path, Starts: starts, Windows: c.Int("windows"),
		WindowJobs: c.Int("window-jobs"), Seed: c.Uint64("seed"), Heuristics: hs, Published: c.String("published")})
	if run.IsInterrupted(err) {
		return cli.Exit("rlscheduler: interrupted", exitInterrupted)
	}
	if err != nil {
		return cli.Exit(err.Error(), 1)
	}
	if c.Bool("csv") {
		return r.WriteCSV(stdout(c))
	}
	return r.WriteText(stdout(c))
}
