package realbatsim

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit/batsimrun"
	"github.com/bucma-sched/bucma/workloads"
)

// gangCombos are every option combination of the gang family: grid
// dispatcher × local dispatcher × queue discipline × migration.
func gangCombos() []sched.Options {
	var out []sched.Options
	for _, gd := range []string{"least-load", "random"} {
		for _, ld := range []string{"olb", "jseq", "jsq"} {
			for _, q := range []string{"afcfs", "ljfs", "lxf"} {
				for _, m := range []string{"none", "local", "local+external"} {
					out = append(out, sched.Options{"gd": gd, "ld": ld, "queue": q, "migration": m})
				}
			}
		}
	}
	return out
}

// TestGangMatchesBatsim: every option combination of gang drives the real
// Batsim to the end on the bundled multicluster (384 hosts in 2 clusters)
// with a gang workload (1 to 128 tasks per job), and the engine writes the
// same _jobs.csv and _schedule.csv.
func TestGangMatchesBatsim(t *testing.T) {
	bin := batsimrun.Batsim(t)
	plat, err := platforms.BundledXML("mcmca")
	if err != nil {
		t.Fatal(err)
	}
	n := seeds(t, 1)
	var c tally
	for _, opts := range gangCombos() {
		for seed := 1; seed <= n; seed++ {
			opts, seed := opts, uint64(seed)
			opts["seed"] = fmt.Sprint(seed)
			t.Run(fmt.Sprintf("%s/%s/%s/%s/%d", opts["gd"], opts["ld"], opts["queue"], opts["migration"], seed), func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				w, err := workloads.GenerateGang(workloads.GangOptions{Jobs: 100, Load: 0.7, Seed: seed})
				if err != nil {
					t.Fatal(err)
				}
				pf, wl := writeInputs(t, dir, plat, w)
				real, err := batsimrun.WithHandler(context.Background(), batsimrun.Options{Batsim: bin}, pf, wl, filepath.Join(dir, "batsim"), session(t, "gang", opts))
				if err != nil {
					t.Fatal(err)
				}
				ours, err := simulate(t, dir, pf, wl, "gang", opts)
				if err != nil {
					t.Fatalf("engine: %v", err)
				}
				sameOutputs(t, &c, dir, "", real, ours)
			})
		}
	}
	t.Cleanup(func() { t.Logf("gang, engine vs Batsim: %d of %d cases identical", c.matching, c.cases) })
}
