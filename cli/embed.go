package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/bucma-sched/bucma/sched"
)

// Embeddable are the commands Command runs: those that never take the
// process's signals (run, simulate and expe run stop cleanly on SIGINT,
// which a host process such as Python's keeps for itself).
var Embeddable = []string{"list", "workload"}

// Command runs one of bucma's commands for a program that embeds bucma
// (bucma's Python package): args as Main takes them (args[0] the
// program's name, then one of Embeddable), over reg, its output written to
// stdout and stderr rather than the process's. It returns the command's
// error, not printed, and its exit status as Main would give it (0, 2 for
// a usage error, 1 otherwise).
func Command(args []string, reg *sched.Registry, stdout, stderr io.Writer) (int, error) {
	if len(args) < 2 || !slices.Contains(Embeddable, args[1]) {
		return 2, &sched.OptionError{Msg: fmt.Sprintf("command %q: the commands a program that embeds bucma runs are %v", args, Embeddable)}
	}
	app := namedApp(reg, args)
	app.Writer, app.ErrWriter = stdout, stderr
	err := runCLI(app, args)
	var oe *sched.OptionError
	var ce cli.ExitCoder
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &oe):
		return 2, err
	case errors.As(err, &ce):
		return ce.ExitCode(), err
	}
	return 1, err
}
