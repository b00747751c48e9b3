package realbatsim

import (
	"fmt"
	"slices"
	"testing"

	"github.com/bucma-sched/bucma/internal/scenario"
	"github.com/bucma-sched/bucma/policies/prio"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit/batsimrun"
)

// TestPriorityFunctionsMatchBatsim: every priority-function policy
// (policies/prio), under each backfill option, drives the real Batsim to
// the end of a generated case, and the engine with the same policy writes
// the same _jobs.csv, byte for byte, and the same _schedule.csv. The cases
// go round the shapes, the mixes and the host selections, so that each
// combination meets another platform.
func TestPriorityFunctionsMatchBatsim(t *testing.T) {
	bin := batsimrun.Batsim(t)
	n := seeds(t, 1)
	mixNames := make([]string, 0, len(mixes))
	for name := range mixes {
		mixNames = append(mixNames, name)
	}
	slices.Sort(mixNames)
	var c tally
	i := 0
	for _, f := range prio.Functions {
		for _, backfill := range prio.BackfillOption.Values {
			for seed := 1; seed <= n; seed++ {
				shape := scenario.Shapes[i%len(scenario.Shapes)]
				mname := mixNames[(i/len(scenario.Shapes))%len(mixNames)]
				hosts := sched.HostsOption.Values[i%2] // fastest, first-fit
				i++
				policy, opts, seed := f.Name, sched.Options{"backfill": backfill, "hosts": hosts}, uint64(seed)
				t.Run(fmt.Sprintf("%s/%s/%s/%s/%s/%d", policy, backfill, hosts, shape, mname, seed), func(t *testing.T) {
					t.Parallel()
					dir := t.TempDir()
					plat, wl := writeCase(t, dir, shape, seed+48, mixes[mname])
					matchEngine(t, bin, &c, dir, plat, wl, policy, opts)
				})
			}
		}
	}
	t.Cleanup(func() { t.Logf("priority functions, engine vs Batsim: %d of %d cases identical", c.matching, c.cases) })
}
