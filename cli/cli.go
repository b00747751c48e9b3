// Package cli is bucma's command line as a library: a program built on
// bucma (a module of its own, with its own policies) gets every command of
// bucma (run, list, simulate, workload, expe) over its own registry:
//
//	func main() {
//		reg := registry(c) // or sched.NewRegistry() for none of bucma's
//		reg.Add(mypolicy.Spec())
//		os.Exit(cli.Main(os.Args, reg))
//	}
//
// Its commands then know the new policy, its options and its checks.
package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/sched"
	"github.com/urfave/cli/v2"
)

// version is what --version prints. make build and make image set it with
// -ldflags "-X github.com/bucma-sched/bucma/cli.version=..." (scripts/version:
// git describe); without it, appVersion falls back to the main module's
// version of a `go install ...@version` build, then to 0.1.0-dev.
var version = ""

func appVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return strings.TrimPrefix(bi.Main.Version, "v")
	}
	return "0.1.0-dev"
}

// printVersion is --version's output: the version, then the ZeroMQ
// transports this build has (a build without cgo has no libzmq).
func printVersion(c *cli.Context) {
	_, _ = fmt.Fprintf(c.App.Writer, "%s version %s\ntransports: %s\n", c.App.Name, c.App.Version, zmq.Transports())
}

func init() { cli.VersionPrinter = printVersion }

// Main runs the command line args (args[0] is the program's name) with the
// policies of reg and returns the process's exit status: 0 on success, 2
// for a usage error (unknown command, flag, policy, option name or value),
// 1 for any other error, 130 when interrupted. It stops the process at once
// on a second interrupt.
func Main(args []string, reg *sched.Registry) int {
	exitOnInterrupt()
	return exitCode(runCLI(namedApp(reg, args), args))
}

// namedApp is the App of the command line args, named after the program
// the user ran (args[0]): the commands it prints (its help, a run's
// cmd.txt, the next command to type) name that program, a binary of
// one's own ("mybucma") as much as bucma.
func namedApp(reg *sched.Registry, args []string) *cli.App {
	app := newApp(reg)
	if len(args) > 0 && args[0] != "" {
		app.Name = filepath.Base(args[0])
		app.Metadata[invokedKey] = args[0]
	}
	return app
}

// invokedKey is where the App's Metadata holds the program as the user
// invoked it ("bin/mybucma").
const invokedKey = "invoked"

// invoked is the program as the user invoked it, for the commands printed
// for them to type next in the same shell ("bin/mybucma expe report DIR");
// the App's name when not known.
func invoked(c *cli.Context) string {
	for _, ctx := range c.Lineage() {
		if ctx.App != nil {
			if s, ok := ctx.App.Metadata[invokedKey].(string); ok {
				return s
			}
		}
	}
	return c.App.Name
}

func newApp(reg *sched.Registry) *cli.App {
	app := &cli.App{
		Name:    "bucma",
		Usage:   "scheduling policies for the Batsim simulator, and an embedded engine to run them",
		Version: appVersion(),
		Commands: []*cli.Command{
			runCommand(),
			listCommand(),
			simulateCommand(),
			workloadCommand(),
			expeCommand(),
			bridgeCommand(),
			checkCommand(),
			rlschedulerCommand(),
		},
		ExitErrHandler: func(c *cli.Context, err error) {},
		OnUsageError:   onUsageError,
		Action:         rootAction,
		// Repeatable flags take one value per occurrence: a path may
		// contain a comma.
		DisableSliceFlagSeparator: true,
	}
	app.Metadata = map[string]any{registryKey: reg}
	setUsageErrors(app.Commands)
	return app
}

// registryKey is where the App's Metadata holds the registry.
const registryKey = "registry"

// registry is the registry of the command line c runs in.
func registry(c *cli.Context) *sched.Registry {
	for _, ctx := range c.Lineage() {
		if ctx.App != nil {
			if r, ok := ctx.App.Metadata[registryKey].(*sched.Registry); ok {
				return r
			}
		}
	}
	panic("cli: no registry in the command line's context")
}

// setUsageErrors makes a flag error of any command or subcommand a usage
// error (exit status 2), and so an unknown subcommand of a command that has
// subcommands ("bucma expe frobnicate").
func setUsageErrors(cmds []*cli.Command) {
	for _, c := range cmds {
		if c.OnUsageError == nil {
			c.OnUsageError = onUsageError
		}
		if len(c.Subcommands) > 0 && c.Action == nil {
			c.Action = unknownSubcommand
		}
		setUsageErrors(c.Subcommands)
	}
}

// unknownSubcommand runs for a command that has subcommands when none of
// them is named: its help, or exit status 2 for an unknown name.
func unknownSubcommand(c *cli.Context) error {
	if c.NArg() == 0 {
		return cli.ShowSubcommandHelp(c)
	}
	var names []string
	for _, sub := range c.Command.Subcommands {
		if !sub.Hidden {
			names = append(names, sub.Name)
		}
	}
	return cli.Exit(fmt.Sprintf("%s: unknown command %q (valid: %s)", commandPath(c), c.Args().First(), strings.Join(names, ", ")), 2)
}

// helpTopicCode is the exit status urfave/cli gives "help NAME" for an
// unknown NAME ("No help topic for 'NAME'").
const helpTopicCode = 3

// runCLI runs app with args. urfave/cli answers "help NAME" for an unknown
// NAME with exit status 3; bucma makes it a usage error like any other.
func runCLI(app *cli.App, args []string) error {
	if err := runBatschedIfAny(app, args); err != errNoBatschedMode {
		return err
	}
	err := app.Run(args)
	var ce cli.ExitCoder
	if errors.As(err, &ce) && ce.ExitCode() == helpTopicCode {
		if topic, ok := strings.CutPrefix(err.Error(), "No help topic for "); ok {
			return cli.Exit("help: unknown command "+topic, 2)
		}
	}
	return err
}

// exitCode prints err and maps it to the process exit code: 0 for success,
// 2 for usage errors (bad option names or values), 1 otherwise.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var oe *sched.OptionError
	var pe *expe.PlanFileError
	var ce cli.ExitCoder
	switch {
	case errors.As(err, &oe), errors.As(err, &pe):
		fmt.Fprintln(os.Stderr, "bucma:", err)
		return 2
	case errors.As(err, &ce):
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(os.Stderr, "bucma:", msg)
		}
		return ce.ExitCode()
	}
	fmt.Fprintln(os.Stderr, "bucma:", err)
	return 1
}
