package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sched"
)

// exitInterrupted is the exit status after SIGINT, SIGTERM or SIGQUIT (128
// + SIGINT, the shell convention). SIGQUIT (Ctrl-\\) is one more way for a
// user to stop a run, so it ends like the other two: by default a Go program
// dumps its goroutines and exits with status 2, the status of a bad command
// line, which would tell scripts the wrong story.
const exitInterrupted = 130

// interruptSignals are the signals that stop a command cleanly.
var interruptSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGQUIT}

// handlingInterrupts counts the commands in progress that stop cleanly on
// interruptSignals (see interruptContext); while it is zero, main exits with
// exitInterrupted on any of them.
var handlingInterrupts atomic.Int32

// interruptContext returns a context cancelled by any of interruptSignals,
// and by SIGPIPE once the reader of the standard output or error is gone
// ("| head"): the command stops as on SIGINT, keeping the rows its outputs
// hold as .partial files, instead of being killed with its temporary files
// left behind. stop releases it.
func interruptContext(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, append(slices.Clone(interruptSignals), syscall.SIGPIPE)...)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				if s != syscall.SIGPIPE || outputGone() {
					cancel()
				}
			case <-done:
				return
			}
		}
	}()
	handlingInterrupts.Add(1)
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(sigs)
			close(done)
			cancel()
			handlingInterrupts.Add(-1)
		})
	}
}

// exitOnInterrupt makes SIGINT, SIGTERM and SIGQUIT end the process at once
// with exitInterrupted when no command is stopping cleanly on them: while a
// command reads its inputs (a large workload, a platform), before it has
// written anything, and for SIGQUIT instead of Go's goroutine dump and
// status 2. A command that stops cleanly gets interruptGrace to do so; a
// second signal, or the grace's end, ends the process (a step that does not
// watch its context, such as drawing a report's figures, must not make the
// signal a no-op).
func exitOnInterrupt() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, interruptSignals...)
	go watchInterrupts(sigs, func() bool { return handlingInterrupts.Load() > 0 }, interruptGrace, func(msg string) {
		fmt.Fprintln(os.Stderr, msg)
		os.Exit(exitInterrupted)
	})
}

// interruptGrace is how long a command that stops cleanly on a signal has
// before the process ends anyway.
const interruptGrace = 30 * time.Second

// watchInterrupts reads sigs: a signal while no command handles it
// (handling false), or a second signal, calls exit at once; the first one a
// command handles calls exit after grace unless the process has ended.
func watchInterrupts(sigs <-chan os.Signal, handling func() bool, grace time.Duration, exit func(msg string)) {
	var deadline <-chan time.Time
	for {
		select {
		case <-sigs:
			if !handling() || deadline != nil {
				exit("bucma: interrupted")
				return
			}
			deadline = time.After(grace)
		case <-deadline:
			exit(fmt.Sprintf("bucma: interrupted (the command had not stopped %v after the signal)", grace))
			return
		}
	}
}

// timeoutFlag is a --timeout flag (0: no limit); a negative duration is a
// usage error (exit status 2).
func timeoutFlag(usage string, value time.Duration) *cli.DurationFlag {
	return &cli.DurationFlag{Name: "timeout", Usage: usage, Value: value,
		Action: func(c *cli.Context, d time.Duration) error {
			if d < 0 {
				return cli.Exit(fmt.Sprintf("%s: --timeout %v: a duration must not be negative (0 means no limit)", commandPath(c), d), 2)
			}
			return nil
		}}
}

// checkEndpoint checks the ZeroMQ endpoint of flag (see
// zmq.CheckEndpoint); a bad one is a usage error (exit status 2).
func checkEndpoint(c *cli.Context, flag string, bind bool) error {
	if err := zmq.CheckEndpoint(c.String(flag), bind); err != nil {
		return cli.Exit(fmt.Sprintf("%s: --%s: %v", commandPath(c), flag, err), 2)
	}
	return nil
}

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
	return cli.Exit(fmt.Sprintf("%v (see '%s --help')", err, strings.Join(append([]string{c.App.Name}, strings.Fields(commandPath(c))...), " ")), 2)
}

// commandPath is the command being run, with its parents ("expe run").
func commandPath(c *cli.Context) string {
	var path []string
	for _, ctx := range c.Lineage() {
		if ctx.Command != nil && ctx.Command.Name != "" && ctx.Command.Name != c.App.Name {
			path = append([]string{ctx.Command.Name}, path...)
		}
	}
	return strings.Join(path, " ")
}

func runCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "serve one Batsim simulation with a scheduling policy (Batsim 4 or 5 connects to us over ZeroMQ)",
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

Batsim 5 is served too (the first message tells the two apart; --batsim5
requires it): start it with -s ENDPOINT INIT, INIT empty or bucma's init string
('{"policy": NAME, "options": {...}}', read as the shared library reads it: an
unknown policy or option is refused). Without --scheduler, the init string
names the policy (an edc-* twin of Batsim 5's test components too):

   bucma run -s tcp://127.0.0.1:28000 &
   batsim5 -p platform.xml -w workload-v5.json -s tcp://localhost:28000 '{"policy": "easy"}' -e out/

A refused init string, or a Batsim 4 peer with --batsim5 or without
--scheduler, is answered so that Batsim ends too (Batsim 5 stops its
simulation, Batsim 4 aborts), and bucma exits with the error.

batsched's command line works as it is, so that a script swaps "batsched" for
"bucma run" and nothing else: -v followed by a variant name is batsched's
variant (the policy that decides as it does), -o followed by a queue order
batsched's queue order, and its other flags (-d, -p, --variant_options, ...)
keep their names. 'bucma run -v VARIANT --help' lists them and the variants:

   bucma run -v easy_bf -s tcp://*:28000       # batsched -v easy_bf -s tcp://*:28000

On a terminal, bucma run says which endpoint it waits for Batsim on (-v says it
everywhere).

Policy options come from --option key=value (repeatable) and from Batsim's
--sched-cfg '{"key": value, ...}' (Batsim 5: the init string's options); --option wins. 'bucma list' shows every policy
and option. Exit status: 0 after SIMULATION_ENDS, 1 on a protocol or decision
error or a timeout, 2 on a bad command line, option or init string, 130 when interrupted
(SIGINT, SIGTERM or SIGQUIT).`,
		OnUsageError: onUsageError,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "scheduler", Usage: "policy `NAME` (see 'bucma list'; or an edc-* twin); required for Batsim 4, Batsim 5's init string may name it instead"},
			&cli.GenericFlag{Name: "option", Aliases: []string{"o"}, Value: &optionList{}, Usage: "policy option `key=value` (repeatable); -o ORDER is batsched's queue order"},
			&cli.StringFlag{Name: "socket-endpoint", Aliases: []string{"s"}, Value: zmq.DefaultEndpoint, Usage: "ZeroMQ `ENDPOINT` to bind, TRANSPORT://ADDRESS (Batsim's --socket-endpoint connects to it); port * picks a free one"},
			&cli.StringFlag{Name: "endpoint-file", Usage: "once bound, write the endpoint (port * resolved) to `FILE`, atomically"},
			&cli.StringFlag{Name: "transport", Value: zmq.TransportNative, Usage: "native: tcp:// endpoints served by bucma's own ZeroMQ (ZMTP 3) code, the fastest; libzmq: every endpoint through libzmq's REP socket (ipc:// and other transports always are; not in a bucma built without cgo: see bucma --version)"},
			timeoutFlag("give up when Batsim sends nothing for `D` (e.g. 10m); 0 waits forever", 0),
			&cli.BoolFlag{Name: "validate", Usage: "audit the scheduler's whole state after every decision"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "debug logging, including every message exchanged; -v VARIANT is batsched's variant"},
			&cli.StringFlag{Name: "trace", Usage: "write the decision trace (one CSV row per job) to `FILE`"},
			cpuProfileFlag("the scheduler's run (decoding, decisions, encoding, the socket)"),
			batsim5Flag(),
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
	return loggerAt(c, level)
}

// serveLevel is the log level of a command that serves Batsim: debug with
// verbose; on a terminal, info (where bucma waits for Batsim, the endpoint
// bound, and when the simulation ends); warnings otherwise.
func serveLevel(c *cli.Context, verbose bool) *slog.LevelVar {
	level := new(slog.LevelVar)
	switch {
	case verbose:
		level.Set(slog.LevelDebug)
	case isTerminal(stderr(c)):
		level.Set(slog.LevelInfo)
	default:
		level.Set(slog.LevelWarn)
	}
	return level
}

// loggerAt logs to c's standard error from level up.
func loggerAt(c *cli.Context, level slog.Leveler) *slog.Logger {
	return slog.New(slog.NewTextHandler(stderr(c), &slog.HandlerOptions{Level: level}))
}

func runAction(c *cli.Context) error {
	if err := noPositional(c); err != nil {
		return err
	}
	if err := checkEndpoint(c, "socket-endpoint", true); err != nil {
		return err
	}
	reg := registry(c)
	// Without --scheduler, Batsim 5's init string names the policy.
	var spec *sched.Spec
	if name := c.String("scheduler"); name != "" {
		var err error
		if spec, err = run.Lookup(reg, name); err != nil {
			return err
		}
	}
	var args []string
	if ol, ok := c.Generic("option").(*optionList); ok {
		args = *ol
	}
	opts, err := sched.ParseOptionArgs(args)
	if err != nil {
		return err
	}
	verbose := c.Bool("verbose")
	level := serveLevel(c, verbose) // Batsim 5's init string may lower it (verbose)
	log := loggerAt(c, level)
	if mode := modeOf(c); mode != nil {
		// batsched's command line: the variant's twin, its options
		// resolved (see runBatsched).
		opts = mode.options
		if verbose || mode.debug {
			mode.level, verbose = slog.LevelDebug, true
		}
		level.Set(mode.level)
		log.Info("batsched's variant, served by its twin", "variant", mode.variant.Name, "scheduler", spec.Name, "options", policies.BatschedVariant{Options: opts}.OptionArgs())
		for _, k := range mode.unread {
			log.Warn("ignoring a variant option the variant does not read (batsched ignores it too)", "variant", mode.variant.Name, "key", k)
		}
	}

	switch c.String("transport") {
	case zmq.TransportNative, zmq.TransportLibzmq:
	default:
		return cli.Exit(fmt.Sprintf("run: --transport %q: want %s or %s", c.String("transport"), zmq.TransportNative, zmq.TransportLibzmq), 2)
	}
	// The command line's options are checked now (Serve), against
	// --scheduler's policy; without it, against the init string's policy
	// (run.Resolve).
	srv := &run.Server{
		Batsim5Only: c.Bool("batsim5"),
		Endpoint:    c.String("socket-endpoint"), Transport: c.String("transport"), Timeout: c.Duration("timeout"),
		EndpointFile: c.String("endpoint-file"), Bound: serveBound, Trace: c.String("trace"),
		Version: appVersion(), Level: level, Log: log,
	}
	srv.Policy = run.Policy{Name: c.String("scheduler"), Spec: spec, Registry: reg, Options: opts, Validate: c.Bool("validate"), Log: log, IgnoreSchedConfig: modeOf(c) != nil}
	stopCPU, err := startCPUProfile(c)
	if err != nil {
		return err
	}
	defer stopCPU()
	ctx, stop := interruptContext(c.Context)
	defer stop()
	err = srv.Serve(ctx)
	if err == nil {
		return nil
	}
	if errors.Is(err, zmq.ErrInterrupted) {
		var re *run.Error
		note := ""
		if errors.As(err, &re) {
			note, err = re.Note(), re.Err
		}
		return cli.Exit("run: "+err.Error()+note, exitInterrupted)
	}
	if spec == nil {
		return fmt.Errorf("run: %w", err)
	}
	return fmt.Errorf("run (scheduler %s): %w", spec.Name, err)
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
