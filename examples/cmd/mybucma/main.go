// Command mybucma is bucma with the example policies added: every command
// of bucma (run, list, simulate, workload, expe) knows sjf, fairshare and
// preempt beside the built-in policies.
package main

import (
	"os"

	"github.com/bucma-sched/bucma/cli"
	"github.com/bucma-sched/bucma/examples/fairshare"
	"github.com/bucma-sched/bucma/examples/preempt"
	"github.com/bucma-sched/bucma/examples/sjf"
	"github.com/bucma-sched/bucma/policies"
)

func main() {
	reg := policies.Builtin()
	reg.Add(sjf.Spec())
	reg.Add(fairshare.Spec())
	reg.Add(preempt.Spec())
	os.Exit(cli.Main(os.Args, reg))
}
