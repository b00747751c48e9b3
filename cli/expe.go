package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/expe/figures"
	"github.com/bucma-sched/bucma/expe/report"
	"github.com/bucma-sched/bucma/sched"
	studiespkg "github.com/bucma-sched/bucma/studies"
	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

func expeCommand() *cli.Command {
	return &cli.Command{
		Name:  "expe",
		Usage: "experiment campaigns: run a plan, report on it, compare two campaigns, draw a Gantt chart",
		Subcommands: []*cli.Command{
			flagsAfterArgs(expeRunCommand),
			flagsAfterArgs(expeReportCommand),
			flagsAfterArgs(expeGanttCommand),
			flagsAfterArgs(expeSubmitCommand),
			flagsAfterArgs(expeTaskCommand),
			flagsAfterArgs(expeStatusCommand),
			expeCompareCommand(),
			expePlansCommand(),
		},
	}
}

// flagsAfterArgs lets a command take its flags after its positional
// argument too ("bucma expe run bucma-model --out DIR"): the flag parser
// stops at the first positional argument, so the command is parsed again
// with the trailing flags moved in front.
func flagsAfterArgs(build func() *cli.Command) *cli.Command {
	cmd := build()
	action := cmd.Action
	cmd.Action = func(c *cli.Context) error {
		args := c.Args().Slice()
		trailing := false
		for _, a := range args[min(1, len(args)):] {
			if strings.HasPrefix(a, "-") && a != "-" {
				trailing = true
			}
		}
		if !trailing {
			return action(c)
		}
		var argv []string
		for _, f := range cmd.Flags {
			name := f.Names()[0]
			if !c.IsSet(name) {
				continue
			}
			if _, ok := f.(*cli.StringSliceFlag); ok {
				for _, v := range c.StringSlice(name) {
					argv = append(argv, fmt.Sprintf("--%s=%s", name, v))
				}
				continue
			}
			argv = append(argv, fmt.Sprintf("--%s=%v", name, c.Value(name)))
		}
		argv = append(argv, args[1:]...)
		argv = append(argv, args[0])
		// The command runs again under the same parents, so that its
		// messages name it in full ("expe run").
		again := build()
		path := strings.Fields(commandPath(c))
		top := again
		for i := len(path) - 2; i >= 0; i-- {
			top = &cli.Command{Name: path[i], Subcommands: []*cli.Command{top}}
		}
		app := &cli.App{
			Name: c.App.Name, Writer: c.App.Writer, ErrWriter: c.App.ErrWriter,
			Commands:       []*cli.Command{top},
			ExitErrHandler: func(*cli.Context, error) {},
			OnUsageError:   onUsageError,
			Metadata:       map[string]any{registryKey: registry(c), invokedKey: invoked(c)},
			// Parsed as the first time (see newApp).
			DisableSliceFlagSeparator: true,
		}
		setUsageErrors(app.Commands)
		return app.RunContext(c.Context, append(append([]string{c.App.Name}, path...), argv...))
	}
	return cmd
}

// studies are bucma's studies and built-in plans.
var studies = builtinStudies()

func builtinStudies() *report.Studies { return studiespkg.Builtin() }

func expePlansCommand() *cli.Command {
	return &cli.Command{
		Name:  "plans",
		Usage: "list the built-in experiment plans, or print one as a plan file to copy and edit (--show NAME)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "show", Usage: "print the plan file of the built-in plan `NAME` (bucma expe plans --show bucma-model > my.yaml)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cli.Exit(fmt.Sprintf("expe plans: unexpected argument %q (--show NAME prints a plan)", c.Args().First()), 2)
			}
			if name := c.String("show"); name != "" {
				file, ok := studies.PlanFile(name)
				if !ok {
					return cli.Exit(fmt.Sprintf("expe plans: unknown plan %q (valid: %s)", name, strings.Join(studies.PlanNames(), ", ")), 2)
				}
				_, err := c.App.Writer.Write(file)
				return err
			}
			for _, name := range studies.PlanNames() {
				p, err := studies.Plan(name)
				if err != nil {
					return err
				}
				steps := ""
				if len(p.Workload.Steps) > 0 {
					steps = " then " + strings.Join(p.Workload.Steps, ", ")
				}
				qs, qj := p.QuickSizes()
				size := "fixed size"
				if !p.FixedJobs() {
					size = fmt.Sprintf("%d jobs", p.Workload.Jobs)
				}
				quick := fmt.Sprintf("%d seeds", qs)
				if qj > 0 {
					quick += fmt.Sprintf(", %d jobs", qj)
				}
				fmt.Fprintf(c.App.Writer, "%s\n    %s\n", name, p.Title)
				if len(p.Cases) > 0 {
					fmt.Fprintf(c.App.Writer, "    %d variants × %d workload cases × %d seeds = %d runs; workload: %s (%s)%s; --quick: %s\n",
						len(p.Variants), len(p.Cases), len(p.Seeds), len(p.Expand()), p.Workload.Generator, size, steps, quick)
					continue
				}
				fmt.Fprintf(c.App.Writer, "    %d variants × %d seeds × %d load(s) = %d runs; workload: %s (%s)%s; --quick: %s\n",
					len(p.Variants), len(p.Seeds), len(p.Loads), len(p.Expand()), p.Workload.Generator, size, steps, quick)
			}
			return nil
		},
	}
}

func expeRunCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run the campaign of a plan file or of a built-in plan (resumes an interrupted one: completed runs are kept)",
		ArgsUsage: "FILE.yaml | PLAN (" + strings.Join(studies.PlanNames(), " | ") + ")",
		Flags: append(campaignFlags(),
			&cli.IntFlag{Name: "workers", Value: runtime.NumCPU(), Usage: "runs in parallel"},
			&cli.StringFlag{Name: "out", Usage: "campaign directory (default results/PLAN)"},
			&cli.BoolFlag{Name: "report", Usage: "write the report when the campaign is complete"},
			&cli.StringFlag{Name: "format", Value: "md,csv", Usage: "with --report: md (report.md and its figures), csv (results.csv, one row per run and metric) or both"},
			&cli.BoolFlag{Name: "no-progress", Usage: "no progress bar (there is none when standard error is not a terminal)"},
		),
		Action: expeRun,
	}
}

// campaignFlags are the flags of the commands that run a campaign (expe
// run, expe submit): the engine, the plan's sizes and workload, the time
// limit of each run.
func campaignFlags() []cli.Flag {
	return append(engineFlags(),
		&cli.IntFlag{Name: "seeds", Usage: fmt.Sprintf("number of seeds, 1..N (default: the plan's; with --quick %d, or the plan's quick seeds)", expe.QuickSeeds)},
		&cli.StringFlag{Name: "workload", Usage: "a workload `FILE` (a real trace: a Batsim workload, e.g. from 'bucma workload from-swf', or an SWF trace, FILE.swf) instead of the synthetic one: bucma-model, walltime-trust and prio; with --jobs N each seed takes a window of N consecutive jobs of it; the plan's steps (inserted requests, precise walltimes) are applied to it for each seed"},
		&cli.StringFlag{Name: "platform", Usage: "platform (bundled name or file) instead of the plan's, e.g. for --workload"},
		&cli.StringFlag{Name: "loads", Usage: fmt.Sprintf("comma-separated offered load levels (default: the plan's, %s for the paper's plans; not for plans without load levels)", expe.FormatLoad(expe.DefaultLoad))},
		&cli.IntFlag{Name: "jobs", Usage: fmt.Sprintf("jobs of the generated workload (default: the plan's, %d for the paper's plans; %d with --quick; not for generators of fixed size)", expe.DefaultJobs, expe.QuickJobs)},
		&cli.BoolFlag{Name: "quick", Usage: fmt.Sprintf("a small campaign: %d seeds, %d jobs, unless the plan says otherwise (osep: 5 seeds)", expe.QuickSeeds, expe.QuickJobs)},
	)
}

// engineFlags choose the engine of a campaign's runs, and each run's time
// limit (planEngine reads them).
func engineFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "engine", Value: "embedded", Usage: "embedded (in-process engine) or batsim (a Batsim binary per run); default: the plan's engine, else embedded"},
		&cli.StringFlag{Name: "batsim-bin", Value: "batsim", Usage: "Batsim executable for --engine batsim"},
		&cli.StringFlag{Name: "batsim-image", Usage: "run Batsim from this Docker `IMAGE` (e.g. oarteam/batsim:4.2.1) for --engine batsim"},
		timeoutFlag("time limit of each run; 0 means none", 30*time.Minute),
	}
}

// loadPlan reads the plan a command line names: a plan file (a path, or a
// name ending in .yaml or .yml), else a built-in plan. Problems are usage
// errors: nothing has started.
func loadPlan(c *cli.Context, arg string) (expe.Plan, error) {
	isFile := strings.HasSuffix(arg, ".yaml") || strings.HasSuffix(arg, ".yml") || strings.ContainsRune(arg, filepath.Separator)
	if _, builtin := studies.PlanFile(arg); !builtin {
		if st, err := os.Stat(arg); err == nil && !st.IsDir() {
			isFile = true
		}
	}
	if isFile {
		p, err := expe.LoadPlanFile(arg, expe.PlanFileOptions{Studies: studies.Kinds(), Policies: registry(c)})
		if err != nil {
			return p, cli.Exit("expe run: "+err.Error(), 2)
		}
		return p, nil
	}
	p, err := studies.Plan(arg)
	if err != nil {
		return p, cli.Exit(fmt.Sprintf("expe run: %v, or a plan file (FILE.yaml)", err), 2)
	}
	return p, nil
}

// commandPlan is the plan of a campaign command ("expe run", "expe
// submit"): its argument and its size and workload flags; formats are its
// --format. Problems are usage errors: nothing has started.
func commandPlan(c *cli.Context, name string) (plan expe.Plan, formats []string, err error) {
	if c.NArg() != 1 {
		return plan, nil, cli.Exit(fmt.Sprintf(name+": want one plan file (FILE.yaml) or built-in plan (%s)", strings.Join(studies.PlanNames(), ", ")), 2)
	}
	plan, err = loadPlan(c, c.Args().First())
	if err != nil {
		return plan, nil, err
	}
	// Sizes that mean nothing for the plan are refused, not ignored.
	for _, f := range []string{"jobs", "loads"} {
		if c.IsSet(f) {
			if err := plan.Applies(f); err != nil {
				return plan, nil, cli.Exit(name+": "+err.Error(), 2)
			}
		}
	}
	platform := ""
	if c.IsSet("platform") {
		// Found as every command finds a platform, and held as a plan
		// file's is: a bundled name, or a file's absolute path.
		if platform, err = expe.ResolvePlatform("", c.String("platform")); err != nil {
			return plan, nil, cli.Exit(name+": --platform: "+err.Error(), 2)
		}
	}
	ov := expe.Overrides{Seeds: c.Int("seeds"), Jobs: c.Int("jobs"), Quick: c.Bool("quick")}
	if c.IsSet("jobs") && ov.Jobs < 1 {
		return plan, nil, cli.Exit(name+": --jobs must be at least 1", 2)
	}
	if c.IsSet("workload") {
		// --jobs sizes the window each seed takes of the file.
		if plan, err = plan.WithFile(c.String("workload"), platform, ov.Jobs); err != nil {
			return plan, nil, cli.Exit(name+": "+err.Error(), 2)
		}
		ov.Jobs = 0
	} else if c.IsSet("platform") {
		if len(plan.Cases) > 0 && plan.Kind != "osep" {
			return plan, nil, cli.Exit(name+": --platform does not apply to plan "+plan.Name+": its conditions name their platforms", 2)
		}
		plan.Platform = platform
	}
	if c.IsSet("loads") {
		if ov.Loads, err = expe.ParseLoads(c.String("loads")); err != nil {
			return plan, nil, cli.Exit(name+": "+err.Error(), 2)
		}
	}
	if c.IsSet("seeds") && ov.Seeds < 1 {
		return plan, nil, cli.Exit(name+": --seeds must be at least 1", 2)
	}
	if plan, err = plan.With(ov); err != nil {
		return plan, nil, cli.Exit(name+": "+err.Error(), 2)
	}
	if err := checkPlanPolicies(plan, registry(c)); err != nil {
		return plan, nil, err
	}
	formats, err = reportFormats(c.String("format"))
	if err != nil {
		return plan, nil, cli.Exit(name+": "+err.Error(), 2)
	}
	return plan, formats, nil
}

func expeRun(c *cli.Context) error {
	plan, formats, err := commandPlan(c, "expe run")
	if err != nil {
		return err
	}
	workers := c.Int("workers")
	if workers < 1 {
		return cli.Exit("expe run: --workers must be at least 1", 2)
	}
	out := c.String("out")
	if out == "" {
		out = filepath.Join("results", plan.Name)
	}
	engine, err := planEngine(c, plan)
	if err != nil {
		return err
	}

	ctx, stop := interruptContext(c.Context)
	defer stop()
	var bar *progressbar.ProgressBar
	camp := &expe.Campaign{Plan: plan, Dir: out, Engine: engine, Workers: workers, RunTimeout: c.Duration("timeout"), Log: newLogger(c, false)}
	if !c.Bool("no-progress") && term.IsTerminal(int(os.Stderr.Fd())) {
		camp.Progress = func(done, total int) {
			if bar == nil {
				bar = progressbar.NewOptions(total,
					progressbar.OptionSetWriter(os.Stderr),
					progressbar.OptionSetDescription(plan.Name),
					progressbar.OptionShowCount(),
					progressbar.OptionSetPredictTime(true),
					progressbar.OptionShowElapsedTimeOnFinish(),
					progressbar.OptionThrottle(200*time.Millisecond),
					progressbar.OptionSetWidth(30),
					progressbar.OptionOnCompletion(func() { fmt.Fprintln(os.Stderr) }),
				)
			}
			_ = bar.Set(done)
		}
	}
	res, err := camp.Execute(ctx)
	w := c.App.ErrWriter
	if w == nil {
		w = os.Stderr
	}
	if bar != nil && !bar.IsFinished() {
		fmt.Fprintln(w)
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintf(w, "interrupted: %d runs done, %d were already done; run the same command again to resume\n", res.Done, res.Skipped)
		return cli.Exit("", 130)
	}
	if err != nil {
		return err
	}
	redone := ""
	if res.Redone > 0 {
		redone = fmt.Sprintf(", %d of them redone: their outputs had changed", res.Redone)
	}
	busy := ""
	if res.Busy > 0 {
		busy = fmt.Sprintf(", %d being run by another execution", res.Busy)
	}
	fmt.Fprintf(w, "%s: %d runs in %s (%d done now%s, %d already done%s, %d failed) — %s\n",
		plan.Name, res.Total, res.Duration.Round(time.Millisecond), res.Done, redone, res.Skipped, busy, len(res.Failed), out)
	if len(res.Failed) > 0 {
		for _, f := range res.Failed {
			fmt.Fprintln(w, f.String())
		}
		return cli.Exit(fmt.Sprintf("%d of %d runs failed; fix the cause and run the same command again (completed runs are kept)", len(res.Failed), res.Total), 1)
	}
	if res.Busy > 0 {
		return cli.Exit(fmt.Sprintf("%d of %d runs are not done: other executions (another expe run, Slurm tasks) hold them; %s expe status %s follows them; run the same command again once they ended",
			res.Busy, res.Total, invoked(c), out), 1)
	}
	if c.Bool("report") {
		return writeReports(c, out, formats)
	}
	fmt.Fprintf(w, "next: %s\n", expe.ShellJoin([]string{invoked(c), "expe", "report", out}))
	return nil
}

// reportFormats reads --format: md, csv or both, comma-separated.
func reportFormats(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f != "md" && f != "csv" {
			return nil, fmt.Errorf("--format %q: want md, csv or md,csv", s)
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out, nil
}

// writeReports writes the reports of a campaign directory and prints their
// paths.
func writeReports(c *cli.Context, dir string, formats []string) error {
	for _, f := range formats {
		var path string
		var err error
		switch f {
		case "md":
			path, err = report.Write(dir, studies)
		case "csv":
			var paths []string
			paths, err = report.WriteCSVs(dir)
			path = strings.Join(paths, "\n")
		}
		if err != nil {
			return err
		}
		fmt.Fprintln(c.App.Writer, path)
	}
	return nil
}

// checkPlanPolicies fails early, before any run, when a variant names an
// unknown policy or option, or an option value its policy refuses: each
// variant's policy is built once, as each of its runs builds it.
func checkPlanPolicies(p expe.Plan, reg *sched.Registry) error {
	for _, v := range p.Variants {
		spec, err := reg.Lookup(v.Policy)
		if err != nil {
			return fmt.Errorf("plan %s, variant %s: %w", p.Name, v.Name, err)
		}
		if _, err := spec.Build(sched.Options(v.Options)); err != nil {
			return fmt.Errorf("plan %s, variant %s: %w", p.Name, v.Name, err)
		}
	}
	return nil
}

// planEngine is the engine of a run command: its flags, else the plan's
// engine, else the embedded one.
func planEngine(c *cli.Context, p expe.Plan) (expe.Engine, error) {
	name, bin, image := c.String("engine"), c.String("batsim-bin"), c.String("batsim-image")
	var flags []string
	if e := p.Engine; e != nil {
		if !c.IsSet("engine") {
			name = e.Name
		}
		if !c.IsSet("batsim-bin") && e.Batsim != "" {
			bin = e.Batsim
		}
		if !c.IsSet("batsim-image") && !c.IsSet("batsim-bin") && e.Image != "" {
			image = e.Image
		}
		flags = e.BatsimFlags
	}
	if c.IsSet("batsim-image") && c.IsSet("batsim-bin") {
		return nil, cli.Exit("expe run: give --batsim-bin or --batsim-image, not both", 2)
	}
	return makeEngine(c, name, bin, image, flags)
}

func makeEngine(c *cli.Context, name, batsimBin, image string, flags []string) (expe.Engine, error) {
	switch name {
	case "embedded":
		e := expe.NewEmbeddedEngine(registry(c))
		e.Program = c.App.Name
		return e, nil
	case "batsim":
		self, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("expe run: locating the bucma executable: %w", err)
		}
		e := &expe.BatsimEngine{Bucma: self, Registry: registry(c), BatsimArgs: flags}
		if image != "" {
			docker, err := exec.LookPath("docker")
			if err != nil {
				return nil, cli.Exit(fmt.Sprintf("expe run: Batsim image %s: docker not found: %v", image, err), 2)
			}
			e.Batsim, e.Image = docker, image
			return e, nil
		}
		bin, err := exec.LookPath(batsimBin)
		if err != nil {
			return nil, cli.Exit(fmt.Sprintf("expe run: --engine batsim: Batsim executable %q not found: %v", batsimBin, err), 2)
		}
		if abs, err := filepath.Abs(bin); err == nil {
			bin = abs
		}
		e.Batsim = bin
		return e, nil
	}
	return nil, cli.Exit(fmt.Sprintf("expe run: --engine %q: valid engines are embedded, batsim", name), 2)
}

func expeReportCommand() *cli.Command {
	return &cli.Command{
		Name: "report",
		Usage: "write the report of a campaign directory: DIR/report.md and its figures (DIR/fig/*.png, *.svg), " +
			"and DIR/results.csv (one row per run and metric)",
		ArgsUsage: "DIR",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "md,csv", Usage: "md (report.md and its figures), csv (results.csv, one row per run and metric) or both"},
			&cli.BoolFlag{Name: "complete", Usage: "write nothing, and fail (exit status 1) saying which runs, unless every run of the plan is done (the report job of expe submit)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cli.Exit("expe report: want one campaign directory", 2)
			}
			formats, err := reportFormats(c.String("format"))
			if err != nil {
				return cli.Exit("expe report: "+err.Error(), 2)
			}
			// Not a campaign directory: a usage error, as for expe status.
			if _, err := expe.ReadPlan(c.Args().First()); err != nil {
				return cli.Exit("expe report: "+err.Error(), 2)
			}
			if c.Bool("complete") {
				if err := expe.CheckComplete(c.Args().First()); errors.Is(err, expe.ErrIncomplete) {
					return cli.Exit(fmt.Sprintf("expe report: %v\nsubmit the same command again to run what is missing or failed", err), 1)
				} else if err != nil {
					return cli.Exit("expe report: "+err.Error(), 2)
				}
			}
			return writeReports(c, c.Args().First(), formats)
		},
	}
}

// maxDiffLines is how many differing files expe compare names.
const maxDiffLines = 20

func expeCompareCommand() *cli.Command {
	return &cli.Command{
		Name: "compare",
		Usage: "compare two campaign directories, file by file, but for what differs from one execution to the next " +
			"(wall times, logs, the program's name in recorded command lines): every file of DIR_A must be in DIR_B, the same; " +
			"exit status 1 when one differs",
		ArgsUsage: "DIR_A DIR_B",
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return cli.Exit("expe compare: want two campaign directories", 2)
			}
			a, b := c.Args().Get(0), c.Args().Get(1)
			d, err := report.DiffCampaigns(a, b)
			if err != nil {
				return cli.Exit("expe compare: "+err.Error(), 2)
			}
			fmt.Fprintf(c.App.Writer, "%s: %d files compared, %d differ\n", a, d.Compared, len(d.Differ))
			for i, f := range d.Differ {
				if i == maxDiffLines {
					fmt.Fprintf(c.App.Writer, "  ... and %d more\n", len(d.Differ)-i)
					break
				}
				fmt.Fprintf(c.App.Writer, "  differs: %s\n", f)
			}
			if len(d.Differ) > 0 {
				return cli.Exit("", 1)
			}
			return nil
		},
	}
}

func expeGanttCommand() *cli.Command {
	return &cli.Command{
		Name:      "gantt",
		Usage:     "draw the Gantt chart of one run (hosts × time) from its directory or its _jobs.csv",
		ArgsUsage: "RUNDIR | JOBS.csv",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "output image, .png or .svg (default gantt.png next to the jobs file)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cli.Exit("expe gantt: want one run directory or jobs CSV file", 2)
			}
			in := c.Args().First()
			st, err := os.Stat(in)
			if err != nil {
				return err
			}
			jobs := in
			if st.IsDir() {
				jobs = filepath.Join(in, expe.JobsFile)
				if _, err := os.Stat(jobs); err != nil {
					matches, _ := filepath.Glob(filepath.Join(in, "*_jobs.csv"))
					if len(matches) != 1 {
						return fmt.Errorf("expe gantt: %s holds no %s (nor exactly one *_jobs.csv)", in, expe.JobsFile)
					}
					jobs = matches[0]
				}
			}
			rows, err := analysis.ReadJobsFile(jobs)
			if err != nil {
				return err
			}
			out := c.String("out")
			if out == "" {
				out = filepath.Join(filepath.Dir(jobs), "gantt.png")
			}
			if err := figures.GanttChart(rows, filepath.Base(filepath.Dir(jobs)), out); err != nil {
				return err
			}
			fmt.Fprintln(c.App.Writer, out)
			return nil
		},
	}
}
