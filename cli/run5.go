package cli

import (
	"github.com/urfave/cli/v2"
)

// batsim5Flag is run's --batsim5. Without it, run serves either Batsim: the
// first message tells them apart (Batsim 5 opens with its init string
// behind a u32 size, Batsim 4 with a JSON message), so one command line
// serves both; with it, a Batsim 4 peer is an error, for scripts that must
// be sure which Batsim they drive.
func batsim5Flag() cli.Flag {
	return &cli.BoolFlag{Name: "batsim5", Usage: "serve Batsim 5 only (by default the first message tells Batsim 4 and 5 apart)"}
}
