package cli

import (
	"log/slog"

	"github.com/urfave/cli/v2"

	"github.com/bucma-sched/bucma/batsim"
	v5 "github.com/bucma-sched/bucma/batsim/v5"
	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/internal/edc"
	"github.com/bucma-sched/bucma/sched"
)

// batsim5Flag is run's --batsim5. Without it, run serves either Batsim: the
// first message tells them apart (Batsim 5 opens with its init string
// behind a u32 size, Batsim 4 with a JSON message), so one command line
// serves both; with it, a Batsim 4 peer is an error, for scripts that must
// be sure which Batsim they drive.
func batsim5Flag() cli.Flag {
	return &cli.BoolFlag{Name: "batsim5", Usage: "serve Batsim 5 only (by default the first message tells Batsim 4 and 5 apart)"}
}

// edcStarter builds the Batsim 5 decision component once Batsim 5's init
// string is known. The init string is read as the shared library reads it
// (edc.Resolve): the policy is --scheduler's or the init string's (the
// same when both name one), its options the init string's under
// --option's; an unknown policy or option, or a bad value, is refused, and
// the refusal is a decision component that makes Batsim end (edc.Refused).
// The init string's validate and verbose add to --validate and --verbose.
func edcStarter(reg *sched.Registry, def edc.Defaults, validate bool, trace *traceFile, log *slog.Logger, level *slog.LevelVar) zmq.EDCStarter {
	return func(init []byte) (*v5.EDC, error) {
		st, err := edc.Resolve(init, reg, def)
		if err != nil {
			return edc.Refused(appVersion(), err), err
		}
		if st.Init.Verbose {
			level.Set(slog.LevelDebug)
		}
		var observers []sched.Observer
		if trace != nil {
			observers = append(observers, trace)
		}
		e, err := edc.Start(st, appVersion(), validate, log, observers...)
		if err != nil {
			return edc.Refused(appVersion(), err), err
		}
		if level.Level() <= slog.LevelDebug {
			e.Observe = func(d batsim.Direction, raw []byte) {
				log.Debug("message", "dir", d.String(), "raw", string(raw))
			}
		}
		return e, nil
	}
}
