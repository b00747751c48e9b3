package realbatsim

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bucma-sched/bucma/internal/scenario"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/testkit/batsimrun"
)

// conservativeFlags are the batsched flags (by long name)
// TestConservativeMatchesBatsched runs conservative_bf with, a case each
// in turn: batsched's defaults first, then every queue order, both
// resource selections and other RJMS delays.
var conservativeFlags = []map[string]string{
	nil,
	{"queue_order": "asc_size"},
	{"policy": "contiguous"},
	{"queue_order": "desc_walltime", "rjms_delay": "0"},
	nil,
	{"queue_order": "lcfs", "policy": "contiguous", "rjms_delay": "2.5"},
	{"queue_order": "desc_size"},
	{"queue_order": "asc_walltime", "rjms_delay": "60"},
	nil,
	{"queue_order": "desc_slowdown", "policy": "contiguous"},
	{"queue_order": "desc_bounded_slowdown", "rjms_delay": "1"},
}

// scheduleTwins are batsched's variants over its Schedule, and its other
// backfilling variants (their twins: policies.BatschedVariants).
// allWalltimes: batsched stops (an assertion of its own) on a job without
// walltime, so that only the mixes where every job has one are run.
// flags: the flag sets run in turn (nil: flagsFor's rotation of the flags
// the twin takes or ignores).
var scheduleTwins = []struct {
	variant      string
	allWalltimes bool
	flags        []map[string]string
	// diagonals: with one seed (make test), only the cases whose mix
	// index is the shape index (plus k, for k below diagonals), modulo the
	// mixes: each shape and each mix once a diagonal. 0: every case.
	diagonals int
}{
	{variant: "conservative_bf", flags: conservativeFlags},
	{variant: "easy_bf_fast", diagonals: 3},
	// fcfs takes fcfs_fast's decisions (the same policy and options, proven
	// by TestPoliciesMatchBatsched), and easy_bf_plot_liquid_load_horizon
	// easy_bf's: fewer cases in make test, as for easy_bf_fast.
	{variant: "fcfs", diagonals: 1},
	{variant: "easy_bf_plot_liquid_load_horizon", allWalltimes: true, diagonals: 1},
}

// llhOptions are easy_bf_plot_liquid_load_horizon's variant options: the
// CSV it writes, in dir.
func llhOptions(dir string) string {
	return fmt.Sprintf(`{"trace_output_filename": %q}`, filepath.Join(dir, "llh.csv"))
}

// TestConservativeMatchesBatsched: through the real Batsim, bucma's twins
// of batsched's conservative_bf (conservative, backfill=batsched, under
// every queue order, both resource selections and several RJMS delays),
// easy_bf_fast (easy, backfill=batsched-fast), fcfs (fcfs) and
// easy_bf_plot_liquid_load_horizon (easy_bf's decisions), with the flags
// resolved as bucma run resolves them (policies.BatschedVariant.Resolve),
// give batsched's _jobs.csv byte for byte, on every platform shape and
// workload mix of TestPoliciesMatchBatsched. A case where batsched stops
// on one of its assertions has no reference: it is counted apart and
// named.
func TestConservativeMatchesBatsched(t *testing.T) {
	bin := batsimrun.Batsim(t)
	bs := batsimrun.Batsched(t)
	n := seeds(t, 1)
	vs := make([]policies.BatschedVariant, len(scheduleTwins))
	tallies := make([]twinTally, len(scheduleTwins))
	for i, tw := range scheduleTwins {
		v, ok := policies.BatschedVariantByName(tw.variant)
		if !ok {
			t.Fatalf("no twin of %s in policies.BatschedVariants", tw.variant)
		}
		vs[i] = v
		tl := &tallies[i]
		k := 0
		for si, shape := range scenario.Shapes {
			var cases []int
			for ci, bc := range batschedCases {
				if !tw.allWalltimes || bc.allWalltimes {
					cases = append(cases, ci)
				}
			}
			for ic, ci := range cases {
				bc := batschedCases[ci]
				if n == 1 && tw.diagonals > 0 && (ic-si%len(cases)+len(cases))%len(cases) >= tw.diagonals {
					continue
				}
				for seed := 1; seed <= n; seed++ {
					shape, bc, seed := shape, bc, uint64(seed)
					flags := flagsFor(v, k)
					if len(tw.flags) > 0 {
						flags = tw.flags[k%len(tw.flags)]
					}
					k++
					name := fmt.Sprintf("%s/%s/%s/%d", tw.variant, shape, bc.name, seed)
					for _, f := range slices.Sorted(maps.Keys(flags)) {
						name += fmt.Sprintf("/%s=%s", f, flags[f])
					}
					t.Run(name, func(t *testing.T) {
						t.Parallel()
						mix := mixes[bc.mix]
						mix.AllWalltimes = bc.allWalltimes
						dir := t.TempDir()
						plat, wl := writeCase(t, dir, shape, seed+2000, mix)
						c := twinCase{name: name, plat: plat, wl: wl, flags: flags}
						if _, reads := v.VariantOptions["trace_output_filename"]; reads {
							c.variantOptions = llhOptions(dir)
						}
						if a := runTwinCase(t, bin, bs, v, c, dir, false, tl); a != "" {
							t.Skipf("no reference: batsched stops on its assertion '%s'", a)
						}
					})
				}
			}
		}
	}
	t.Cleanup(func() {
		for i, v := range vs {
			t.Logf("bucma vs batsched, %s%s as %s: %s", v.Policy, v.OptionArgs(), v.Name, &tallies[i])
		}
	})
}
