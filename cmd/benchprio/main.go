// Command benchprio is bucma with a user's policy beside the built-in ones:
// wfp3 (package wfp3), WFP3 with EASY backfilling as docs/writing-a-policy.md
// writes it on sched.TimeOrder, outside bucma's policies. scripts/bench-prio
// runs it against easy on 20 000 jobs.
package main

import (
	"os"

	"github.com/bucma-sched/bucma/cli"
	"github.com/bucma-sched/bucma/cmd/benchprio/wfp3"
	"github.com/bucma-sched/bucma/policies"
)

func main() {
	reg := policies.Builtin()
	reg.Add(wfp3.Spec())
	os.Exit(cli.Main(os.Args, reg))
}
