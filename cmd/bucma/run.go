package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"bucma/protocol"
	"bucma/schedulers"
	"bucma/workloads"
)

// exitInterrupted is the exit status after SIGINT/SIGTERM (128 + SIGINT,
// the shell convention).
const exitInterrupted = 130

// optionList collects repeated --option key=value flags verbatim (no
// splitting on commas: option values such as weights=0.5,0.3 contain them).
type optionList []string

func (o *optionList) Set(v string) error {
	if v != optionListAlias { // urfave/cli copies a set flag onto its alias (-o) through Serialize
		*o = append(*o, v)
	}
	return nil
}
func (o *optionList) String() string    { return strings.Join(*o, " ") }
func (o *optionList) Serialize() string { return optionListAlias }

const optionListAlias = "\x00alias-copy"

// serveBound, when set, is told the endpoint "run" listens on (wildcard port
// resolved), once the endpoint file, if any, is written. Tests use it to
// reach an in-process "bucma run".
var serveBound func(endpoint string)

// onUsageError turns urfave/cli's flag parsing errors into exit status 2.
func onUsageError(c *cli.Context, err error, _ bool) error {
	var path []string
	for _, ctx := range c.Lineage() {
		if ctx.Command != nil && ctx.Command.Name != "" && ctx.Command.Name != c.App.Name {
			path = append([]string{ctx.Command.Name}, path...)
		}
	}
	name := strings.Join(append([]string{"bucma"}, path...), " ")
	return cli.Exit(fmt.Sprintf("%v (see '%s --help')", err, name), 2)
}

func runCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "serve one Batsim simulation with a scheduling policy (Batsim connects to us over ZeroMQ)",
		Description: `Binds a ZeroMQ REP socket and answers Batsim's messages until SIMULATION_ENDS.
Start Batsim with a matching --socket-endpoint (its default, tcp://localhost:28000,
reaches bucma's default tcp://*:28000), in either order:

   bucma run --scheduler easy
   batsim -p platform.xml -w workload.json

With -s 'tcp://127.0.0.1:*' the system picks a free port as the socket binds;
--endpoint-file FILE then gives the endpoint to start Batsim with:

   bucma run --scheduler easy -s 'tcp://127.0.0.1:*' --endpoint-file ep &
   until [ -s ep ]; do sleep 0.1; done
   batsim -p platform.xml -w workload.json -s "$(cat ep)"

Policy options come from --option key=value (repeatable) and from Batsim's
--sched-cfg '{"key": value, ...}'; --option wins. 'bucma list' shows every policy
and option. Exit status: 0 after SIMULATION_ENDS, 1 on a protocol or decision
error or a timeout, 2 on a bad command line or option, 130 when interrupted.`,
		OnUsageError: onUsageError,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "scheduler", Usage: "policy `NAME` (see 'bucma list')"},
			&cli.GenericFlag{Name: "option", Aliases: []string{"o"}, Value: &optionList{}, Usage: "policy option `key=value` (repeatable)"},
			&cli.StringFlag{Name: "socket-endpoint", Aliases: []string{"s"}, Value: protocol.DefaultEndpoint, Usage: "ZeroMQ `ENDPOINT` to bind (Batsim's --socket-endpoint connects to it); port * picks a free one"},
			&cli.StringFlag{Name: "endpoint-file", Usage: "once bound, write the endpoint (port * resolved) to `FILE`, atomically"},
			&cli.DurationFlag{Name: "timeout", Usage: "give up when Batsim sends nothing for `D` (e.g. 10m); 0 waits forever"},
			&cli.BoolFlag{Name: "validate", Usage: "audit the scheduler's whole state after every decision"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "debug logging, including every message exchanged"},
			&cli.StringFlag{Name: "trace", Usage: "write the decision trace (one CSV row per job) to `FILE`"},
		},
		Action: runAction,
	}
}

// newLogger logs to w: warnings and errors by default, everything with
// verbose.
func newLogger(c *cli.Context, verbose bool) *slog.Logger {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(stderr(c), &slog.HandlerOptions{Level: level}))
}

func runAction(c *cli.Context) error {
	if err := noPositional(c); err != nil {
		return err
	}
	reg := schedulers.Builtin()
	name := c.String("scheduler")
	if name == "" {
		return &schedulers.OptionError{Msg: fmt.Sprintf("run: --scheduler is required (valid: %s)", strings.Join(reg.Names(), ", "))}
	}
	spec, err := reg.Lookup(name)
	if err != nil {
		return err
	}
	var args []string
	if ol, ok := c.Generic("option").(*optionList); ok {
		args = *ol
	}
	opts, err := schedulers.ParseOptionArgs(args)
	if err != nil {
		return err
	}
	log := newLogger(c, c.Bool("verbose"))

	var observers []schedulers.Observer
	closeTrace := func() error { return nil }
	if path := c.String("trace"); path != "" {
		obs, closeFn, err := openTrace(path)
		if err != nil {
			return err
		}
		if obs != nil {
			observers = append(observers, obs)
		}
		if closeFn != nil {
			closeTrace = closeFn
		}
	}
	sess, err := schedulers.NewSession(schedulers.SessionConfig{
		Spec:      spec,
		Options:   opts,
		Validate:  c.Bool("validate"),
		Log:       log,
		Observers: observers,
	})
	if err != nil {
		_ = closeTrace()
		return err
	}

	cfg := protocol.ServeConfig{
		Endpoint: c.String("socket-endpoint"),
		Timeout:  c.Duration("timeout"),
		Logger:   log,
	}
	if c.Bool("verbose") {
		cfg.Observe = func(d protocol.Direction, raw []byte) {
			log.Debug("message", "dir", d.String(), "raw", string(raw))
		}
	}
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = serve(ctx, cfg, sess, c.String("endpoint-file"), spec.Name)
	if cerr := closeTrace(); cerr != nil && err == nil {
		err = cerr
	}
	if errors.Is(err, protocol.ErrInterrupted) {
		return cli.Exit("run: "+err.Error(), exitInterrupted)
	}
	if err != nil {
		return fmt.Errorf("run (scheduler %s): %w", spec.Name, err)
	}
	return nil
}

// serve binds the socket, writes the endpoint file (when path is not
// empty), then serves the simulation.
func serve(ctx context.Context, cfg protocol.ServeConfig, h protocol.Handler, path, scheduler string) error {
	l, err := protocol.Listen(cfg)
	if err != nil {
		return err
	}
	ep := l.Endpoint()
	cfg.Logger.Debug("listening", "endpoint", ep, "scheduler", scheduler)
	if path != "" {
		if err := workloads.WriteFileAtomic(path, []byte(ep+"\n")); err != nil {
			_ = l.Close()
			return fmt.Errorf("--endpoint-file: %w", err)
		}
	}
	if serveBound != nil {
		serveBound(ep)
	}
	return l.Serve(ctx, h)
}

// rootAction runs for "bucma" without a command: help, or exit status 2 for
// an unknown command.
func rootAction(c *cli.Context) error {
	if c.NArg() == 0 {
		return cli.ShowAppHelp(c)
	}
	var names []string
	for _, cmd := range c.App.VisibleCommands() {
		names = append(names, cmd.Name)
	}
	return cli.Exit(fmt.Sprintf("unknown command %q (valid: %s)", c.Args().First(), strings.Join(names, ", ")), 2)
}
