package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/workloads"
	"github.com/bucma-sched/bucma/workloads/gen"
	"github.com/urfave/cli/v2"
)

// workloadCommand groups the workload tools: check, and the generators.
func workloadCommand() *cli.Command {
	return &cli.Command{
		Name:  "workload",
		Usage: "check, generate and convert Batsim workload files",
		Subcommands: []*cli.Command{
			workloadCheckCommand(),
			workloadLilleCommand(),
			workloadInsertCommand(),
			workloadPreciseCommand(),
			workloadOSEPCommand(),
			workloadSGECommand(),
			workloadGangCommand(),
			workloadLublinCommand(),
			workloadBotCommand(),
			workloadSWFCommand(),
			workloadStepCommand("scale-load"),
			workloadStepCommand("window"),
			workloadDelaysCommand(),
			workloadToV5Command(),
		},
	}
}

var (
	seedFlag = &cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed (same seed, same output bytes)"}
	outFlag  = &cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "-", Usage: "output file (written atomically); - for standard output"}
)

// positional returns the positional arguments of the command, also
// accepting the command's flags written after them (urfave/cli stops at
// the first positional argument otherwise).
func positional(c *cli.Context) ([]string, error) {
	args := c.Args().Slice()
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		var fl cli.Flag
		for _, f := range c.Command.Flags {
			for _, n := range f.Names() {
				if n == name {
					fl = f
				}
			}
		}
		if fl == nil {
			return nil, cli.Exit(fmt.Sprintf("%s: unknown option %s", c.Command.Name, a), 2)
		}
		if _, isBool := fl.(*cli.BoolFlag); isBool && !hasVal {
			val = "true"
		} else if !hasVal {
			if i+1 >= len(args) {
				return nil, cli.Exit(fmt.Sprintf("%s: option %s needs a value", c.Command.Name, a), 2)
			}
			i++
			val = args[i]
		}
		if err := c.Set(fl.Names()[0], val); err != nil {
			return nil, cli.Exit(fmt.Sprintf("%s: bad value %q for option %s: %v", c.Command.Name, val, a, err), 2)
		}
	}
	return pos, nil
}

func onePositional(c *cli.Context, what string) (string, error) {
	pos, err := positional(c)
	if err != nil {
		return "", err
	}
	if len(pos) != 1 {
		return "", cli.Exit(fmt.Sprintf("%s: expected exactly one %s argument, got %d", c.Command.Name, what, len(pos)), 2)
	}
	return pos[0], nil
}

func noPositional(c *cli.Context) error {
	pos, err := positional(c)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return cli.Exit(fmt.Sprintf("%s: unexpected argument %q%s", c.Command.Name, pos[0], variantHint(c, pos[0])), 2)
	}
	return nil
}

// writeOutput writes the workload to path atomically, or to stdout for "-"
// or "".
func writeOutput(c *cli.Context, path string, w *workloads.Workload) error {
	data, err := w.Bytes()
	if err != nil {
		return cli.Exit(err.Error(), 1)
	}
	return writeBytes(c, path, data)
}

// writeBytes writes data to path atomically, or to stdout for "-" or "".
func writeBytes(c *cli.Context, path string, data []byte) error {
	if path == "" || path == "-" {
		_, err := stdout(c).Write(data)
		return err
	}
	if err := workloads.WriteFileAtomic(path, data); err != nil {
		return cli.Exit(err.Error(), 1)
	}
	return nil
}

func stdout(c *cli.Context) io.Writer {
	if c.App != nil && c.App.Writer != nil {
		return c.App.Writer
	}
	return os.Stdout
}

func stderr(c *cli.Context) io.Writer {
	if c.App != nil && c.App.ErrWriter != nil {
		return c.App.ErrWriter
	}
	return os.Stderr
}

// loadInput loads a workload given on the command line; problems are
// input-data errors (exit status 1).
func loadInput(path string) (*workloads.Workload, error) {
	w, err := workloads.Load(path)
	if err != nil {
		return nil, cli.Exit(err.Error(), 1)
	}
	return w, nil
}

func workloadCheckCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "check a workload file the way Batsim 4.2.1 (or with --for batsim5, Batsim 5.0.0-rc2) reads it (exit 1 if Batsim would abort)",
		ArgsUsage: "FILE",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "platform", Usage: "platform name or file: jobs asking for more hosts than it has are errors"},
			&cli.StringFlag{Name: "workload-name", Value: "w0", Usage: "the name Batsim gives the workload"},
			&cli.StringFlag{Name: "for", Value: workloads.ForBatsim4, Usage: "the Batsim the file is given to: " + workloads.ForBatsim4 + " (4.2.1) or " + workloads.ForBatsim5 + " (5.0.0-rc2); each refuses the other's format"},
		},
		Action: func(c *cli.Context) error {
			path, err := onePositional(c, "FILE")
			if err != nil {
				return err
			}
			target := c.String("for")
			if target != workloads.ForBatsim4 && target != workloads.ForBatsim5 {
				return cli.Exit(fmt.Sprintf("check: --for %q: want %s or %s", target, workloads.ForBatsim4, workloads.ForBatsim5), 2)
			}
			opts := workloads.ValidateOptions{WorkloadName: c.String("workload-name")}
			if p := c.String("platform"); p != "" {
				speeds, err := resolvePlatformSpeeds(p)
				if err != nil {
					return cli.Exit(fmt.Sprintf("check: platform %s: %v", p, err), 2)
				}
				opts.PlatformHosts = len(speeds)
			}
			out := stdout(c)
			w, err := workloads.Load(path)
			if err != nil {
				var le *workloads.LoadError
				if errors.As(err, &le) {
					for _, f := range le.Problems {
						fmt.Fprintln(out, f.String())
					}
					return cli.Exit("", 1)
				}
				return cli.Exit(err.Error(), 1)
			}
			errs, warns, err := w.CheckFor(target, opts)
			if err != nil {
				return cli.Exit("check: "+err.Error(), 1)
			}
			for _, f := range errs {
				fmt.Fprintln(out, f.String())
			}
			for _, f := range warns {
				fmt.Fprintln(out, f.String())
			}
			fmt.Fprintf(stderr(c), "%s: %s format, checked for %s: %d jobs, %d profiles, nb_res %d: %d error(s), %d warning(s)\n",
				path, w.Format(), workloads.TargetName(target), len(w.Jobs), len(w.Profiles), w.NbRes, len(errs), len(warns))
			if len(errs) > 0 {
				return cli.Exit("", 1)
			}
			return nil
		},
	}
}

// resolvePlatformSpeeds returns the compute host speeds of a platform given
// by name or file; the Lille speeds are also built in (used if the bundled
// platform cannot be loaded).
func resolvePlatformSpeeds(p string) ([]float64, error) {
	s, err := platformSpeeds(p)
	if err != nil && p == "lille" {
		return workloads.LilleHostSpeeds(), nil
	}
	return s, err
}

func workloadLilleCommand() *cli.Command {
	g := generator("lille")
	return &cli.Command{
		Name:  "lille",
		Usage: "generate a synthetic stand-in for the Lille 2020 Grid'5000 trace (see workloads/README.md)",
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "jobs", Value: g.Jobs, Usage: "number of jobs"},
			seedFlag,
			&cli.Float64Flag{Name: "load", Value: 0.85, Usage: "offered load Σ(res × run time) / (hosts × span), run times on the reference speed"},
			&cli.StringFlag{Name: "platform", Value: "lille", Usage: "platform (name or file) giving the number of hosts"},
		}, append(paramFlags(g.Params), outFlag)...),
		Action: func(c *cli.Context) error {
			if err := noPositional(c); err != nil {
				return err
			}
			if err := checkJobs(c, "lille"); err != nil {
				return err
			}
			if !(c.Float64("load") > 0) {
				return cli.Exit(fmt.Sprintf("lille: --load must be > 0 (got %g)", c.Float64("load")), 2)
			}
			v, err := paramValues(c, "lille", g.Params)
			if err != nil {
				return err
			}
			if err := checkSeed(c, "lille"); err != nil {
				return err
			}
			speeds, err := resolvePlatformSpeeds(c.String("platform"))
			if err != nil {
				return cli.Exit(fmt.Sprintf("lille: platform %s: %v", c.String("platform"), err), 2)
			}
			w, err := g.Make(gen.Input{Values: v, Jobs: c.Int("jobs"), Seed: c.Uint64("seed"), Load: c.Float64("load"),
				Hosts: len(speeds), HostSpeeds: speeds, PlatformName: c.String("platform")})
			if err != nil {
				return cli.Exit(err.Error(), 2)
			}
			return writeOutput(c, c.String("out"), w)
		},
	}
}

func workloadDelaysCommand() *cli.Command {
	return &cli.Command{
		Name:  "delays",
		Usage: "generate the engine benchmark's workload: Poisson arrivals of delay jobs of 1 to 64 hosts, and its platform",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "jobs", Value: 20000, Usage: "number of jobs"},
			&cli.IntFlag{Name: "hosts", Value: 128, Usage: "hosts of the platform"},
			&cli.Float64Flag{Name: "load", Value: 0.95, Usage: "offered load Σ(res × delay) / (hosts × span)"},
			&cli.Float64Flag{Name: "mean-delay", Value: 600, Usage: "mean delay (s), exponential"},
			&cli.IntFlag{Name: "max-res", Usage: "keep only the sizes of at most `N` hosts (0: every size, 1 to 64)"},
			&cli.IntFlag{Name: "users", Usage: "give each job a user u01..uNN drawn uniformly among `N` (0: no user field)"},
			&cli.Float64Flag{Name: "walltime-min", Value: 1, Usage: "smallest walltime as a multiple of the delay"},
			&cli.Float64Flag{Name: "walltime-max", Value: 3, Usage: "largest walltime as a multiple of the delay"},
			&cli.Float64Flag{Name: "span", Usage: "submit every job within `SECONDS` (replaces --load; 0: use --load)"},
			seedFlag,
			&cli.StringFlag{Name: "platform-out", Usage: "also write the platform (a star of 1 Gflop/s hosts) to `FILE`"},
			outFlag,
		},
		Action: func(c *cli.Context) error {
			if err := noPositional(c); err != nil {
				return err
			}
			if err := checkSeed(c, "delays"); err != nil {
				return err
			}
			if err := checkJobs(c, "delays"); err != nil {
				return err
			}
			w, err := workloads.GenerateDelays(workloads.DelaysOptions{Jobs: c.Int("jobs"), Hosts: c.Int("hosts"),
				Load: c.Float64("load"), MeanDelay: c.Float64("mean-delay"), Seed: c.Uint64("seed"),
				MaxRes: c.Int("max-res"), Users: c.Int("users"), WalltimeMin: c.Float64("walltime-min"),
				WalltimeMax: c.Float64("walltime-max"), Span: c.Float64("span")})
			if err != nil {
				return cli.Exit(err.Error(), 2)
			}
			if p := c.String("platform-out"); p != "" {
				if err := workloads.WriteFileAtomic(p, platforms.Star(c.Int("hosts"))); err != nil {
					return err
				}
			}
			return writeOutput(c, c.String("out"), w)
		},
	}
}

func workloadInsertCommand() *cli.Command {
	return &cli.Command{
		Name:      "bucma-insert",
		Usage:     "add the BUCMA paper's 300 one-node requests of walltime 3600 s in three precision profiles",
		ArgsUsage: "IN",
		Flags: []cli.Flag{
			seedFlag,
			&cli.IntFlag{Name: "per-class", Value: 100, Usage: "requests per precision profile"},
			&cli.Float64Flag{Name: "ref-speed", Usage: "reference speed (default: the input's meta.ref_speed, else 5.632e11, the slowest Lille node)"},
			paramFlags(step("bucma-insert").Params)[0],
			&cli.Float64Flag{Name: "burst-width", Value: 300, Usage: "seconds over which the requests of a burst are submitted"},
			outFlag,
		},
		Action: func(c *cli.Context) error {
			in, err := onePositional(c, "IN")
			if err != nil {
				return err
			}
			if _, err := paramValues(c, "bucma-insert", step("bucma-insert").Params); err != nil {
				return err
			}
			if !(c.Float64("burst-width") >= 1) {
				return cli.Exit(fmt.Sprintf("bucma-insert: --burst-width must be at least 1 s (got %g)", c.Float64("burst-width")), 2)
			}
			if c.Int("per-class") < 1 || c.Int("per-class") > 999 {
				return cli.Exit(fmt.Sprintf("bucma-insert: --per-class must be in 1..999 (got %d)", c.Int("per-class")), 2)
			}
			if err := checkSeedAndRefSpeed(c, "bucma-insert"); err != nil {
				return err
			}
			src, err := loadInput(in)
			if err != nil {
				return err
			}
			w, err := workloads.BucmaInsert(src, workloads.InsertOptions{
				Seed: c.Uint64("seed"), PerClass: c.Int("per-class"), RefSpeed: c.Float64("ref-speed"),
				Bursts: c.Int("bursts"), BurstWidth: c.Float64("burst-width"),
			})
			if err != nil {
				return cli.Exit(err.Error(), 1)
			}
			if err := writeOutput(c, c.String("out"), w); err != nil {
				return err
			}
			opt := workloads.PinnedScoresOption()
			if o := c.String("out"); o == "" || o == "-" {
				fmt.Fprintln(stderr(c), opt)
			} else {
				fmt.Fprintln(stdout(c), opt)
			}
			return nil
		},
	}
}

func workloadPreciseCommand() *cli.Command {
	return &cli.Command{
		Name:      "precise",
		Usage:     "rewrite walltimes to be precise: W = Te / U(0.85, 1.0), Te = run time on the reference speed",
		ArgsUsage: "IN",
		Flags: []cli.Flag{
			seedFlag,
			paramFlags(step("precise").Params)[0],
			&cli.Float64Flag{Name: "ref-speed", Usage: "reference speed (default: the input's meta.ref_speed, else 5.632e11, the slowest Lille node)"},
			outFlag,
		},
		Action: func(c *cli.Context) error {
			in, err := onePositional(c, "IN")
			if err != nil {
				return err
			}
			if _, err := paramValues(c, "precise", step("precise").Params); err != nil {
				return err
			}
			if err := checkSeedAndRefSpeed(c, "precise"); err != nil {
				return err
			}
			src, err := loadInput(in)
			if err != nil {
				return err
			}
			w, err := workloads.MakePrecise(src, workloads.PreciseOptions{
				Seed: c.Uint64("seed"), PMin: c.Float64("p-min"), RefSpeed: c.Float64("ref-speed"),
			})
			if err != nil {
				return cli.Exit(err.Error(), 1)
			}
			return writeOutput(c, c.String("out"), w)
		},
	}
}

func workloadOSEPCommand() *cli.Command {
	return workloadGeneratorCommand("osep", "generate an OSEP demand: 4 users × 10 sequential tasks, one user late", generatorFlags{})
}

func workloadSGECommand() *cli.Command {
	return workloadGeneratorCommand("sge", "", generatorFlags{})
}

func workloadGangCommand() *cli.Command {
	return workloadGeneratorCommand("gang", "generate a gang-scheduling workload: the MCMCA paper's job sizes (1 to 128 tasks), log-normal run times, Poisson arrivals at an offered load",
		generatorFlags{Load: 0.7, LoadUsage: "offered load at the reference speed (2 Gflop/s per task)", Hosts: 384, HostsUsage: "processors of the platform (mcmca: 384)"})
}

// workloadLublinCommand is "bucma workload lublin": the Lublin–Feitelson
// model, written as SWF or as a Batsim workload for a platform's size.
func workloadLublinCommand() *cli.Command {
	g := generator("lublin")
	return &cli.Command{
		Name: "lublin",
		Usage: "generate a trace of the Lublin-Feitelson model of rigid parallel jobs (JPDC 2003, the Parallel Workloads Archive's m_lublin99.c), " +
			"as SWF or Batsim JSON (see workloads/README.md); in JSON, " + profilesUsage,
		Flags: append(append([]cli.Flag{
			&cli.IntFlag{Name: "jobs", Value: g.Jobs, Usage: "number of jobs"},
			seedFlag,
			&cli.Float64Flag{Name: "load", Usage: "offered load Σ(res × run time) / (hosts × span) to reach by scaling every inter-arrival time (the daily cycle kept); 0: the model's arrival rate"},
			&cli.StringFlag{Name: "platform", Usage: "platform (name or file): its hosts are the machine (nb_res, SWF MaxNodes, the load's hosts) and the default --max-size (default: --max-size, else 128 hosts); its slowest host's speed is the reference speed of --profile-type compute"},
			&cli.StringFlag{Name: "format", Usage: "json (a Batsim workload) or swf (Standard Workload Format); default swf when --out ends in .swf, else json"},
		}, profileFlags()...), append(paramFlags(g.Params), outFlag)...),
		Action: func(c *cli.Context) error {
			if err := noPositional(c); err != nil {
				return err
			}
			usage := func(format string, a ...any) error { return cli.Exit("lublin: "+fmt.Sprintf(format, a...), 2) }
			if err := checkSeed(c, "lublin"); err != nil {
				return err
			}
			if err := checkJobs(c, "lublin"); err != nil {
				return err
			}
			if l := c.Float64("load"); l < 0 || l > 100 || math.IsNaN(l) {
				return usage("--load must be in (0, 100], or 0 for the model's arrival rate (got %g)", l)
			}
			format := c.String("format")
			if format == "" {
				format = "json"
				if strings.HasSuffix(strings.ToLower(c.String("out")), ".swf") {
					format = "swf"
				}
			}
			if format != "json" && format != "swf" {
				return usage("--format %q: want json or swf", format)
			}
			v, err := paramValues(c, "lublin", g.Params)
			if err != nil {
				return err
			}
			hosts := 0
			if p := c.String("platform"); p != "" {
				speeds, err := resolvePlatformSpeeds(p)
				if err != nil {
					return usage("platform %s: %v", p, err)
				}
				hosts = len(speeds)
			}
			lo := gen.LublinOptionsFrom(v, c.Int("jobs"), c.Uint64("seed"), c.Float64("load"), hosts)
			if lo.Profiles, err = runtimeProfiles(c, "lublin"); err != nil {
				return err
			}
			if format == "swf" && (c.IsSet("profile-type") || c.IsSet("speed")) {
				return usage("--profile-type and --speed make the profiles of the Batsim JSON output; an SWF trace has run times only (convert it with from-swf --profile-type)")
			}
			t, err := workloads.GenerateLublin(lo)
			if err != nil {
				return cli.Exit(err.Error(), 2)
			}
			if format == "json" {
				w, err := t.Workload()
				if err != nil {
					return cli.Exit(err.Error(), 1)
				}
				return writeOutput(c, c.String("out"), w)
			}
			var b bytes.Buffer
			if err := t.WriteSWF(&b); err != nil {
				return cli.Exit(err.Error(), 1)
			}
			return writeBytes(c, c.String("out"), b.Bytes())
		},
	}
}

// generatorFlags are the flags a generator's command has besides its
// declared parameters: --load (a generator that takes a load) and --hosts
// (one sized by the platform's hosts: Hosts > 0) with their defaults.
type generatorFlags struct {
	Load       float64
	LoadUsage  string
	Hosts      int
	HostsUsage string
}

// workloadGeneratorCommand is the "bucma workload NAME" command of a
// generator of the registry: --jobs (a generator sized by it), --load,
// --hosts, --seed (a seeded generator), its declared parameters and --out.
// A generator added to gen.Builtin gets its command with one
// call and a line in workloadCommand.
func workloadGeneratorCommand(name, usage string, o generatorFlags) *cli.Command {
	g := generator(name)
	if usage == "" {
		usage = "generate " + g.Usage
	}
	var flags []cli.Flag
	if g.Jobs > 0 {
		flags = append(flags, &cli.IntFlag{Name: "jobs", Value: g.Jobs, Usage: "number of jobs"})
	}
	if g.Load {
		u := o.LoadUsage
		if u == "" {
			u = "offered load Σ(res × run time) / (hosts × span)"
		}
		flags = append(flags, &cli.Float64Flag{Name: "load", Value: o.Load, Usage: u})
	}
	if o.Hosts > 0 {
		u := o.HostsUsage
		if u == "" {
			u = "hosts of the platform"
		}
		flags = append(flags, &cli.IntFlag{Name: "hosts", Value: o.Hosts, Usage: u})
	}
	flags = append(flags, paramFlags(g.Params)...)
	if g.Seeded {
		flags = append(flags, seedFlag)
	}
	return &cli.Command{
		Name:  name,
		Usage: usage,
		Flags: append(flags, outFlag),
		Action: func(c *cli.Context) error {
			if err := noPositional(c); err != nil {
				return err
			}
			in := gen.Input{}
			if g.Seeded {
				if err := checkSeed(c, name); err != nil {
					return err
				}
				in.Seed = c.Uint64("seed")
			}
			if g.Load {
				if l := c.Float64("load"); !(l > 0) || l > 100 {
					return cli.Exit(fmt.Sprintf("%s: --load must be > 0 and at most 100 (got %g)", name, l), 2)
				}
				in.Load = c.Float64("load")
			}
			if g.Jobs > 0 {
				if err := checkJobs(c, name); err != nil {
					return err
				}
				in.Jobs = c.Int("jobs")
			}
			if o.Hosts > 0 {
				if in.Hosts = c.Int("hosts"); in.Hosts < 1 {
					return cli.Exit(fmt.Sprintf("%s: --hosts must be at least 1 (got %d)", name, in.Hosts), 2)
				}
			}
			var err error
			if in.Values, err = paramValues(c, name, g.Params); err != nil {
				return err
			}
			w, err := g.Make(in)
			if err != nil {
				return cli.Exit(err.Error(), 2)
			}
			return writeOutput(c, c.String("out"), w)
		},
	}
}

func workloadBotCommand() *cli.Command {
	return &cli.Command{
		Name: "bot",
		Usage: "generate bags of tasks (the BoT consolidation thesis): one job per task step, the published BoTs (" +
			strings.Join(workloads.BotNames(), ", ") + ") or BoTs drawn from the thesis' classes",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "bots", Usage: "comma-separated published BoTs (" + strings.Join(workloads.BotNames(), ", ") +
				") and/or classes to draw a BoT from (" + strings.Join(workloads.BotProfileNames(), ", ") + "), in arrival order"},
			&cli.StringFlag{Name: "class", Usage: `a class to draw one more BoT from, named "custom", e.g. "Q10 N4^10 S1^3 L2^10 I1^2" (needs --vms)`},
			&cli.IntFlag{Name: "vms", Usage: "VMs of every BoT (default: each BoT's own)"},
			&cli.StringFlag{Name: "interval", Usage: `Weibull law of the steps between two BoTs' arrivals, e.g. "I4^8" (default: every BoT at step 0)`},
			&cli.Float64Flag{Name: "step", Value: 300, Usage: "seconds per step"},
			&cli.Float64Flag{Name: "core-speed", Value: 1e9, Usage: "flop/s of a core: a step at c percent is c/100 × step × core-speed flop"},
			&cli.IntFlag{Name: "hosts", Value: 36, Usage: "nb_res of the workload (the thesis: 9 nodes × 4 cores)"},
			&cli.IntFlag{Name: "background", Usage: "external load, percent of every host, one job per host and step (0: none)"},
			&cli.IntFlag{Name: "background-steps", Usage: "steps of background load (required with --background)"},
			seedFlag,
			outFlag,
		},
		Action: func(c *cli.Context) error {
			if err := noPositional(c); err != nil {
				return err
			}
			if err := checkSeed(c, "bot"); err != nil {
				return err
			}
			usage := func(format string, a ...any) error { return cli.Exit("bot: "+fmt.Sprintf(format, a...), 2) }
			switch {
			case !(c.Float64("step") > 0):
				return usage("--step must be > 0 seconds (got %g)", c.Float64("step"))
			case !(c.Float64("core-speed") > 0):
				return usage("--core-speed must be > 0 flop/s (got %g)", c.Float64("core-speed"))
			case c.Int("hosts") < 1:
				return usage("--hosts must be at least 1 (got %d)", c.Int("hosts"))
			case c.Int("background") < 0 || c.Int("background") > 100:
				return usage("--background must be in 0..100 percent (got %d)", c.Int("background"))
			case c.Int("background-steps") < 0:
				return usage("--background-steps must be ≥ 0 (got %d)", c.Int("background-steps"))
			case c.Int("background") > 0 && c.Int("background-steps") == 0:
				return usage("--background needs --background-steps")
			case c.Int("background") == 0 && c.Int("background-steps") > 0:
				return usage("--background-steps needs --background")
			case c.IsSet("vms") && c.Int("vms") < 1:
				return usage("--vms must be at least 1 (got %d)", c.Int("vms"))
			case c.String("bots") == "" && c.String("class") == "":
				return usage("give --bots (%s, or a class: %s) or --class",
					strings.Join(workloads.BotNames(), ", "), strings.Join(workloads.BotProfileNames(), ", "))
			case c.String("class") != "" && !c.IsSet("vms"):
				return usage("--class needs --vms")
			}
			// Draw order: the BoTs of --bots in order, the --class BoT, then
			// the arrival intervals, all from one source seeded by --seed.
			rng := workloads.NewBotRand(c.Uint64("seed"))
			var bots []workloads.BotSpec
			classes := map[string]string{}
			seen := map[string]bool{}
			if s := c.String("bots"); s != "" {
				for _, name := range strings.Split(s, ",") {
					name = strings.TrimSpace(name)
					var b workloads.BotSpec
					if nb, ok := workloads.NamedBoT(name); ok {
						b = nb
					} else if cl, vms, ok := workloads.BotProfileClass(name); ok {
						var err error
						if b, err = workloads.GenerateBoT(workloads.BotProfileName(name), cl, vms, rng); err != nil {
							return usage("--bots: %v", err)
						}
						classes[b.Name] = cl.String()
					} else {
						return usage("--bots: unknown BoT or class %q (want %s, or a class: %s)", name,
							strings.Join(workloads.BotNames(), ", "), strings.Join(workloads.BotProfileNames(), ", "))
					}
					if seen[b.Name] {
						return usage("--bots: %s given twice", b.Name)
					}
					seen[b.Name] = true
					bots = append(bots, b)
				}
			}
			if s := c.String("class"); s != "" {
				cl, err := workloads.ParseBotClass(s)
				if err != nil {
					return usage("--class: %v", err)
				}
				b, err := workloads.GenerateBoT("custom", cl, c.Int("vms"), rng)
				if err != nil {
					return usage("--class: %v", err)
				}
				if seen[b.Name] {
					return usage("--class: a BoT of --bots is already named %s", b.Name)
				}
				classes[b.Name] = cl.String()
				bots = append(bots, b)
			}
			if c.IsSet("vms") {
				for i := range bots {
					bots[i].VMs = c.Int("vms")
				}
			}
			meta := map[string]any{"seed": c.Uint64("seed")}
			if len(classes) > 0 {
				meta["classes"] = classes
			}
			if s := c.String("interval"); s != "" {
				shape, scale, err := workloads.ParseBotInterval(s)
				if err != nil {
					return usage("--interval: %v", err)
				}
				for i, a := range workloads.BotArrivals(len(bots), shape, scale, rng) {
					bots[i].Arrival = a
				}
				meta["interval"] = fmt.Sprintf("I%g^%g", shape, scale)
			}
			w, err := workloads.BotWorkload(bots, workloads.BotWorkloadOptions{
				Step: c.Float64("step"), CoreSpeed: c.Float64("core-speed"), Hosts: c.Int("hosts"),
				Background: c.Int("background"), BackgroundSteps: c.Int("background-steps"), Meta: meta,
			})
			if err != nil {
				return cli.Exit(err.Error(), 2)
			}
			for _, b := range bots {
				fmt.Fprintf(stderr(c), "bot: %s: %d quadruples, %d tasks, %d jobs, %d VMs, arrival step %d\n",
					b.Name, len(b.Quads), b.Tasks(), b.Jobs(), b.VMs, b.Arrival)
			}
			return writeOutput(c, c.String("out"), w)
		},
	}
}

func workloadSWFCommand() *cli.Command {
	g := generator("swf")
	return &cli.Command{
		Name: "from-swf",
		Usage: "convert a Standard Workload Format trace (Parallel Workloads Archive) to a Batsim workload, " +
			"read twice and written as it is read (a trace of any length: a pipe is copied to a temporary file first); " + profilesUsage,
		ArgsUsage: "FILE",
		Flags: append(append(paramFlags(g.Params, "file"), profileFlags(
			&cli.StringFlag{Name: "platform", Usage: "platform (name or file) whose slowest host's speed is the reference speed of --profile-type compute"})...), outFlag),
		Action: func(c *cli.Context) error {
			in, err := onePositional(c, "FILE")
			if err != nil {
				return err
			}
			v, err := paramValues(c, "from-swf", g.Params, "file")
			if err != nil {
				return err
			}
			if c.Float64("to") > 0 && c.Float64("to") <= c.Float64("from") {
				return cli.Exit(fmt.Sprintf("from-swf: --to (%g) must be after --from (%g)", c.Float64("to"), c.Float64("from")), 2)
			}
			o := gen.SWFOptionsFrom(in, v)
			if o.Profiles, err = runtimeProfiles(c, "from-swf"); err != nil {
				return err
			}
			first, second, cleanup, err := openTwice(in)
			if err != nil {
				return cli.Exit(fmt.Sprintf("from-swf: %v", err), 1)
			}
			defer cleanup()
			scan, err := workloads.ScanSWF(first, o)
			if err != nil {
				return cli.Exit(fmt.Sprintf("from-swf: %s: %s", in, strings.TrimPrefix(err.Error(), "from-swf: ")), 1)
			}
			st := scan.Stats()
			fmt.Fprintf(stderr(c), "from-swf: %s: %s\n", in, st)
			if st.Kept == 0 {
				return cli.Exit(fmt.Sprintf("from-swf: %s: no job left to convert", in), 1)
			}
			write := func(out io.Writer) error {
				again, err := second()
				if err != nil {
					return err
				}
				return scan.Write(again, out)
			}
			if path := c.String("out"); path != "" && path != "-" {
				err = workloads.WriteAtomic(path, write)
			} else {
				err = write(stdout(c))
			}
			if err != nil {
				return cli.Exit(fmt.Sprintf("from-swf: %s: %s", in, strings.TrimPrefix(err.Error(), "from-swf: ")), 1)
			}
			return nil
		},
	}
}

// openTwice opens a file to read it twice: first reads it once, then
// second (called once first was read to its end) reads it again. A file
// that cannot seek (a pipe, /dev/stdin) is copied to a temporary file as
// first reads it, so that a stream without end that first gives up on
// (/dev/zero: no line) is not copied without end either. cleanup closes
// (and removes the copy).
func openTwice(path string) (first io.Reader, second func() (io.Reader, error), cleanup func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		return f, func() (io.Reader, error) {
			_, err := f.Seek(0, io.SeekStart)
			return f, err
		}, func() { f.Close() }, nil
	}
	tmp, err := os.CreateTemp("", "bucma-swf-*")
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	return io.TeeReader(f, tmp), func() (io.Reader, error) {
			_, err := tmp.Seek(0, io.SeekStart)
			return tmp, err
		}, func() {
			f.Close()
			tmp.Close()
			os.Remove(tmp.Name())
		}, nil
}

// profilesUsage is what the workload commands that read run times say of
// their profiles.
const profilesUsage = "profiles are delay profiles by default (a job lasts its run time on any host, whatever its speed); " +
	"--profile-type compute makes compute profiles of run time × the reference speed flops, so that host speeds matter"

// profileFlags are the flags of RuntimeProfiles, with the command's flag
// naming a platform when it has none already.
func profileFlags(platform ...cli.Flag) []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "profile-type", Value: workloads.ProfileTypeDelay, Usage: "delay: each job waits its run time, on any host; compute: each job computes run time × the reference speed flops on each of its hosts (no communication), so it takes its run time on a host of the reference speed and less on a faster one"},
		&cli.Float64Flag{Name: "speed", Usage: "the reference speed of --profile-type compute, in flop/s (e.g. 1e9; default: the slowest host of --platform)"},
	}, platform...)
}

// runtimeProfiles reads the flags of profileFlags (and --platform).
func runtimeProfiles(c *cli.Context, cmd string) (workloads.RuntimeProfiles, error) {
	usage := func(format string, a ...any) error { return cli.Exit(cmd+": "+fmt.Sprintf(format, a...), 2) }
	r := workloads.RuntimeProfiles{Type: c.String("profile-type"), Speed: c.Float64("speed")}
	switch r.Type {
	case workloads.ProfileTypeDelay:
		if c.IsSet("speed") {
			return r, usage("--speed is the reference speed of --profile-type compute (delay profiles take no speed)")
		}
		return r, nil
	case workloads.ProfileTypeCompute:
	default:
		return r, usage("--profile-type %q: want %s or %s", r.Type, workloads.ProfileTypeDelay, workloads.ProfileTypeCompute)
	}
	if !c.IsSet("speed") {
		p := c.String("platform")
		if p == "" {
			return r, usage("--profile-type compute needs the reference speed: --speed FLOPS, or --platform (its slowest host)")
		}
		speeds, err := resolvePlatformSpeeds(p)
		if err == nil && len(speeds) == 0 {
			err = errors.New("no host")
		}
		if err != nil {
			return r, usage("platform %s: %v", p, err)
		}
		r.Speed = slices.Min(speeds)
	}
	if !(r.Speed > 0) || r.Speed > 1e20 {
		return r, usage("--speed %g: want a speed in (0, 1e20] flop/s", r.Speed)
	}
	return r, nil
}

// workloadStepCommand is the "bucma workload NAME IN" command of a step
// that takes an offered load on a platform (scale-load) or only the seed
// (window): its declared parameters as flags.
func workloadStepCommand(name string) *cli.Command {
	st := step(name)
	flags := paramFlags(st.Params)
	if st.Load {
		flags = append([]cli.Flag{
			&cli.Float64Flag{Name: "load", Usage: "the offered load to reach (required)"},
			&cli.StringFlag{Name: "platform", Value: "lille", Usage: "platform (name or file): its hosts, and its slowest host's speed for computation profiles"},
		}, flags...)
	} else {
		flags = append(flags, seedFlag)
	}
	return &cli.Command{
		Name:      name,
		Usage:     st.Usage,
		ArgsUsage: "IN",
		Flags:     append(flags, outFlag),
		Action: func(c *cli.Context) error {
			in, err := onePositional(c, "IN")
			if err != nil {
				return err
			}
			v, err := paramValues(c, name, st.Params)
			if err != nil {
				return err
			}
			gi := gen.Input{Values: v}
			if st.Load {
				if l := c.Float64("load"); !(l > 0) || l > 100 {
					return cli.Exit(fmt.Sprintf("%s: --load must be > 0 and at most 100 (got %g)", name, l), 2)
				}
				speeds, err := resolvePlatformSpeeds(c.String("platform"))
				if err != nil {
					return cli.Exit(fmt.Sprintf("%s: platform %s: %v", name, c.String("platform"), err), 2)
				}
				gi.Load, gi.Hosts, gi.HostSpeeds = c.Float64("load"), len(speeds), speeds
			} else {
				if err := checkSeed(c, name); err != nil {
					return err
				}
				gi.Seed = c.Uint64("seed")
			}
			src, err := loadInput(in)
			if err != nil {
				return err
			}
			w, err := st.Apply(src, gi)
			if err != nil {
				return cli.Exit(err.Error(), 1)
			}
			return writeOutput(c, c.String("out"), w)
		},
	}
}

// platformSpeeds loads a platform (bundled name or file) and returns the
// speeds of its compute hosts.
func platformSpeeds(p string) ([]float64, error) {
	pl, err := platforms.Resolve(p)
	if err != nil {
		return nil, err
	}
	s := make([]float64, len(pl.Hosts))
	for i, h := range pl.Hosts {
		s[i] = h.Speed
	}
	return s, nil
}

// checkSeed checks the --seed flag of a generator (seeds start at 1).
func checkSeed(c *cli.Context, cmd string) error {
	if c.Uint64("seed") == 0 {
		return cli.Exit(cmd+": --seed must be ≥ 1", 2)
	}
	return nil
}

// checkSeedAndRefSpeed checks the --seed and --ref-speed flags of the
// commands that rewrite a workload (a zero --ref-speed means "the input's").
func checkSeedAndRefSpeed(c *cli.Context, cmd string) error {
	if c.Float64("ref-speed") < 0 || c.Uint64("seed") == 0 {
		return cli.Exit(cmd+": --ref-speed must be > 0 and --seed ≥ 1", 2)
	}
	return nil
}

// generator is a generator of the registry plans use: its declaration
// makes the flags of its "bucma workload" command.
func generator(name string) gen.Generator {
	g, ok := gen.Default().Generator(name)
	if !ok {
		panic("cli: no generator " + name)
	}
	return g
}

// step is a step of the registry plans use.
func step(name string) gen.Step {
	s, ok := gen.Default().Step(name)
	if !ok {
		panic("cli: no step " + name)
	}
	return s
}

// paramFlags are the flags of declared parameters (--NAME, with '_' as
// '-'), but those named in skip.
func paramFlags(ps []gen.Param, skip ...string) []cli.Flag {
	var out []cli.Flag
	for _, p := range ps {
		if slices.Contains(skip, p.Name) {
			continue
		}
		usage := p.Usage
		if len(p.Choices) > 0 && !strings.Contains(usage, p.Choices[0]) {
			usage += " (" + strings.Join(p.Choices, ", ") + ")"
		}
		switch p.Type {
		case gen.Int:
			f := &cli.IntFlag{Name: p.Flag(), Usage: usage}
			if d, ok := p.Default.(int); ok {
				f.Value = d
			}
			out = append(out, f)
		case gen.Float:
			f := &cli.Float64Flag{Name: p.Flag(), Usage: usage}
			if d, ok := p.Default.(float64); ok {
				f.Value = d
			}
			out = append(out, f)
		case gen.Bool:
			out = append(out, &cli.BoolFlag{Name: p.Flag(), Usage: usage})
		default:
			f := &cli.StringFlag{Name: p.Flag(), Usage: usage}
			if d, ok := p.Default.(string); ok {
				f.Value = d
			}
			out = append(out, f)
		}
	}
	return out
}

// paramValues reads the flags of declared parameters, checked as a plan
// file's parameters are: a bad value is a usage error naming the flag.
func paramValues(c *cli.Context, cmd string, ps []gen.Param, skip ...string) (gen.Values, error) {
	v := gen.Values{}
	for _, p := range ps {
		if slices.Contains(skip, p.Name) {
			continue
		}
		var x any
		switch p.Type {
		case gen.Int:
			x = c.Int(p.Flag())
		case gen.Float:
			x = c.Float64(p.Flag())
		case gen.Bool:
			x = c.Bool(p.Flag())
		default:
			x = c.String(p.Flag())
		}
		if err := gen.CheckParam(p, x); err != nil {
			return nil, cli.Exit(fmt.Sprintf("%s: --%s: %v", cmd, p.Flag(), err), 2)
		}
		v[p.Name] = x
	}
	return v, nil
}

// maxGeneratedJobs bounds --jobs of the workload generators: a generator
// holds the workload in memory (about 0.3 KB a job for lublin, measured
// with 2 000 000 jobs), so a mistyped count would exhaust the machine's
// memory instead of failing at once.
const maxGeneratedJobs = 10_000_000

// checkJobs checks a generator's --jobs: 1 to maxGeneratedJobs (exit 2).
func checkJobs(c *cli.Context, cmd string) error {
	n := c.Int("jobs")
	switch {
	case n < 1:
		return cli.Exit(fmt.Sprintf("%s: --jobs must be at least 1 (got %d)", cmd, n), 2)
	case n > maxGeneratedJobs:
		return cli.Exit(fmt.Sprintf("%s: --jobs %d: at most %d (the workload is built in memory)", cmd, n, maxGeneratedJobs), 2)
	}
	return nil
}
