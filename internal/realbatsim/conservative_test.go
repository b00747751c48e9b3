package realbatsim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/internal/scenario"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit/batsimrun"
)

// matchBatsched runs one case through the real Batsim twice, driven by
// bucma's policy with opts (in process) and by batsched with args
// (-v VARIANT and its flags; {dir} in an argument is the case's
// directory), and counts it in c: identical _jobs.csv, or a case without
// reference when batsched stops on one of its assertions (named in the
// skip).
func matchBatsched(t *testing.T, c *tally, bin, bs, plat, wl, dir, policy string, opts sched.Options, args []string) {
	t.Helper()
	ours, err := batsimrun.WithHandler(context.Background(), batsimrun.Options{Batsim: bin}, plat, wl, filepath.Join(dir, "bucma"), session(t, policy, opts))
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := batsimrun.WithScheduler(context.Background(), batsimrun.Options{Batsim: bin}, func(ep string) []string {
		argv := []string{bs}
		for _, a := range args {
			argv = append(argv, strings.ReplaceAll(a, "{dir}", dir))
		}
		return append(argv, "-s", ep)
	}, plat, wl, filepath.Join(dir, "batsched"))
	var bf *batsimrun.BatschedFailure
	if errors.As(err, &bf) {
		if m := batschedAssertion.FindStringSubmatch(bf.Log); m != nil {
			c.addAborted()
			t.Skipf("no reference: batsched stops on its assertion '%s'; bucma's run ended normally", m[1])
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	ok := bytes.Equal(theirs.Jobs, ours.Jobs)
	c.add(ok)
	if !ok {
		keep(t, dir)
		t.Errorf("_jobs.csv differs (case in %s), first difference at %s", dir, strings.ReplaceAll(strings.ReplaceAll(firstDiff(theirs.Jobs, ours.Jobs), "batsim:", "batsched:"), "bucma: ", "bucma:   "))
	}
}

// batschedFlags are batsched command-line flags (queue order -o,
// resource selection -p, RJMS delay -d) with the options that make a
// twin read them.
type batschedFlags struct {
	args []string
	opts sched.Options
}

// conservativeFlags are the flag sets TestConservativeMatchesBatsched
// runs conservative_bf with, a case each in turn (batsched's defaults
// first, then every queue order, both resource selections and other
// delays).
var conservativeFlags = []batschedFlags{
	{nil, nil},
	{[]string{"-o", "asc_size"}, sched.Options{"order": "asc_size"}},
	{[]string{"-p", "contiguous"}, sched.Options{"hosts": "contiguous"}},
	{[]string{"-o", "desc_walltime", "-d", "0"}, sched.Options{"order": "desc_walltime", "rjms-delay": "0"}},
	{nil, nil},
	{[]string{"-o", "lcfs", "-p", "contiguous", "-d", "2.5"}, sched.Options{"order": "lcfs", "hosts": "contiguous", "rjms-delay": "2.5"}},
	{[]string{"-o", "desc_size"}, sched.Options{"order": "desc_size"}},
	{[]string{"-o", "asc_walltime", "-d", "60"}, sched.Options{"order": "asc_walltime", "rjms-delay": "60"}},
	{nil, nil},
	{[]string{"-o", "desc_slowdown", "-p", "contiguous"}, sched.Options{"order": "desc_slowdown", "hosts": "contiguous"}},
	{[]string{"-o", "desc_bounded_slowdown", "-d", "1"}, sched.Options{"order": "desc_bounded_slowdown", "rjms-delay": "1"}},
}

// scheduleTwins are batsched's variants over its Schedule, and its other
// backfilling variants, with the bucma policy and options that take their
// decisions. allWalltimes: batsched stops (an assertion of its own) on a
// job without walltime, so that only the mixes where every job has one
// are run. flags: the flag sets run in turn.
var scheduleTwins = []struct {
	variant, policy string
	opts            sched.Options
	args            []string // batsched's arguments after -v VARIANT
	allWalltimes    bool
	flags           []batschedFlags
	// diagonals: with one seed (make test), only the cases whose mix
	// index is the shape index (plus k, for k below diagonals), modulo the
	// mixes: each shape and each mix once a diagonal. 0: every case.
	diagonals int
}{
	{variant: "conservative_bf", policy: "conservative", opts: sched.Options{"hosts": "first-fit", "backfill": "batsched", "no-walltime": "reject"}, flags: conservativeFlags},
	{variant: "easy_bf_fast", policy: "easy", opts: sched.Options{"hosts": "first-fit", "backfill": "batsched-fast"}, diagonals: 3},
	// fcfs takes fcfs_fast's decisions (the same policy and options, proven
	// by TestPoliciesMatchBatsched), and easy_bf_plot_liquid_load_horizon
	// easy_bf's: fewer cases in make test, as for easy_bf_fast.
	{variant: "fcfs", policy: "fcfs", opts: sched.Options{"hosts": "first-fit"}, diagonals: 1},
	{variant: "easy_bf_plot_liquid_load_horizon", policy: "easy", opts: sched.Options{"hosts": "first-fit", "backfill": "batsched", "no-walltime": "reject"},
		args: []string{"--variant_options", `{"trace_output_filename": "{dir}/llh.csv"}`}, allWalltimes: true, diagonals: 1},
}

// TestConservativeMatchesBatsched: through the real Batsim, bucma's twins
// of batsched's conservative_bf (conservative, backfill=batsched, under
// every queue order, both resource selections and several RJMS delays),
// easy_bf_fast (easy, backfill=batsched-fast), fcfs (fcfs) and
// easy_bf_plot_liquid_load_horizon (easy_bf's decisions) give batsched's
// _jobs.csv byte for byte, on every platform shape and workload mix of
// TestPoliciesMatchBatsched. A case where batsched stops on one of its
// assertions has no reference: it is counted apart and named.
func TestConservativeMatchesBatsched(t *testing.T) {
	bin := batsimrun.Batsim(t)
	bs := batsimrun.Batsched(t)
	n := seeds(t, 1)
	tallies := make([]tally, len(scheduleTwins))
	for i, tw := range scheduleTwins {
		c := &tallies[i]
		k := 0
		for si, shape := range scenario.Shapes {
			var cases []int
			for ci, bc := range batschedCases {
				if !tw.allWalltimes || bc.allWalltimes {
					cases = append(cases, ci)
				}
			}
			for i, ci := range cases {
				bc := batschedCases[ci]
				if n == 1 && tw.diagonals > 0 && (i-si%len(cases)+len(cases))%len(cases) >= tw.diagonals {
					continue
				}
				for seed := 1; seed <= n; seed++ {
					tw, shape, bc, seed := tw, shape, bc, uint64(seed)
					var fl batschedFlags
					if len(tw.flags) > 0 {
						fl = tw.flags[k%len(tw.flags)]
					}
					k++
					name := fmt.Sprintf("%s/%s/%s/%d", tw.variant, shape, bc.name, seed)
					if len(fl.args) > 0 {
						name += "/" + strings.Join(fl.args, "")
					}
					t.Run(name, func(t *testing.T) {
						t.Parallel()
						mix := mixes[bc.mix]
						mix.AllWalltimes = bc.allWalltimes
						dir := t.TempDir()
						plat, wl := writeCase(t, dir, shape, seed+2000, mix)
						opts := sched.MergeOptions(tw.opts, fl.opts)
						args := append(append([]string{"-v", tw.variant}, tw.args...), fl.args...)
						matchBatsched(t, c, bin, bs, plat, wl, dir, tw.policy, opts, args)
					})
				}
			}
		}
	}
	t.Cleanup(func() {
		for i, tw := range scheduleTwins {
			c := &tallies[i]
			t.Logf("bucma vs batsched, %s %v as %s: %d of %d cases identical, and %d where batsched aborts", tw.policy, tw.opts, tw.variant, c.matching, c.cases, c.aborted)
		}
	})
}
