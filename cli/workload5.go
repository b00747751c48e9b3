package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

// workloadToV5Command converts a Batsim 4 workload to Batsim 5's format.
func workloadToV5Command() *cli.Command {
	return &cli.Command{
		Name:      "to-v5",
		Usage:     "convert a Batsim 4 workload to Batsim 5's format (profile types, a job's own fields in extra_data)",
		ArgsUsage: "FILE",
		Description: `Profiles: delay -> DelayProfile, parallel -> ParallelTaskProfile,
parallel_homogeneous(_total) -> ParallelTaskHomogeneousProfile (generation_strategy
DefinedAmountsUsedForEachValue or DefinedAmountsSpreadUniformly), composed ->
SequentialCompositionProfile. A job's own fields (user, ...) go into its extra_data
object, which Batsim 5 forwards to the decision component; a walltime of -1 is left
out. Refused, each named with its job or profile (exit status 1): a profile with a
return code ("ret"), a delay that is not strictly positive, a job with fields of its
own and an extra_data that is not an object. bucma reads both formats everywhere.`,
		Flags: []cli.Flag{outFlag},
		Action: func(c *cli.Context) error {
			path, err := onePositional(c, "FILE")
			if err != nil {
				return err
			}
			w, err := loadInput(path)
			if err != nil {
				return err
			}
			if w.V5 {
				return cli.Exit(fmt.Sprintf("to-v5: %s is already in Batsim 5's format", path), 1)
			}
			v, err := w.ToV5()
			if err != nil {
				return cli.Exit(err.Error(), 1)
			}
			return writeOutput(c, c.String("out"), v)
		},
	}
}

// jobsFormatFlag is simulate's --jobs-format: which Batsim's jobs.csv the
// engine writes.
func jobsFormatFlag() cli.Flag {
	return &cli.StringFlag{Name: "jobs-format", Value: "batsim4", Usage: "PREFIX_jobs.csv as batsim4 (4.2.1) or batsim5 (5.0.0-rc2: profile column workload!name, empty metadata) writes it",
		Action: func(c *cli.Context, v string) error {
			if v != "batsim4" && v != "batsim5" {
				return cli.Exit(fmt.Sprintf("%s: --jobs-format %q: want batsim4 or batsim5", commandPath(c), v), 2)
			}
			return nil
		}}
}
