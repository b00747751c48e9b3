// Command bucma is a scheduling decision process for the Batsim simulator,
// with an embedded Batsim-compatible engine, workload tools and experiment
// campaigns.
package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/bucma-sched/bucma/schedulers"
)

// version is what --version prints. make build and make image set it with
// -ldflags "-X main.version=..." (scripts/version: git describe); without it,
// appVersion falls back to the module version of a `go install ...@version`
// build, then to 0.1.0-dev.
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

func newApp() *cli.App {
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
		},
		ExitErrHandler: func(c *cli.Context, err error) {},
		OnUsageError:   onUsageError,
		Action:         rootAction,
		// Repeatable flags take one value per occurrence: a path may
		// contain a comma.
		DisableSliceFlagSeparator: true,
	}
	setUsageErrors(app.Commands)
	return app
}

// setUsageErrors makes a flag error of any command or subcommand a usage
// error (exit status 2).
func setUsageErrors(cmds []*cli.Command) {
	for _, c := range cmds {
		if c.OnUsageError == nil {
			c.OnUsageError = onUsageError
		}
		setUsageErrors(c.Subcommands)
	}
}

func main() {
	exitOnQuit()
	err := newApp().Run(os.Args)
	os.Exit(exitCode(err))
}

// exitCode prints err and maps it to the process exit code: 0 for success,
// 2 for usage errors (bad option names or values), 1 otherwise.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var oe *schedulers.OptionError
	var ce cli.ExitCoder
	switch {
	case errors.As(err, &oe):
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
