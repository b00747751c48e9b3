// Command bucma is a scheduling decision process for the Batsim simulator,
// with an embedded Batsim-compatible engine, workload tools and experiment
// campaigns, over every policy bucma ships.
package main

import (
	"os"

	"github.com/bucma-sched/bucma/cli"
	"github.com/bucma-sched/bucma/policies"
)

func main() { os.Exit(cli.Main(os.Args, policies.Builtin())) }
