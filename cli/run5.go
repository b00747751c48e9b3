package cli

import (
	"fmt"
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

// edcStarter builds the Batsim 5 decision component around run's session
// once Batsim 5's init string is known. The init string may be empty or
// bucma's JSON object ({"policy": ..., "options": {...}}): its options are
// the session's sched-config (the command line's options win), and a policy
// it names must be the one run serves.
func edcStarter(spec *sched.Spec, sess batsim.Handler, log *slog.Logger, verbose bool) zmq.EDCStarter {
	return func(init []byte) (*v5.EDC, error) {
		in, err := edc.ParseInit(init)
		if err != nil {
			return nil, err
		}
		if in.Policy != "" && in.Policy != spec.Name {
			return nil, fmt.Errorf("the init string names policy %q but bucma run serves %q (--scheduler)", in.Policy, spec.Name)
		}
		e := v5.NewEDC(edc.AdapterConfig(spec, version, in.SchedConfig(), log), sess)
		if verbose {
			e.Observe = func(d batsim.Direction, raw []byte) {
				log.Debug("message", "dir", d.String(), "raw", string(raw))
			}
		}
		return e, nil
	}
}
