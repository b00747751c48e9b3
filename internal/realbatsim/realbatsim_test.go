package realbatsim

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/run"

	"github.com/bucma-sched/bucma/internal/scenario"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sim"
	"github.com/bucma-sched/bucma/testkit/batsimrun"
	"github.com/bucma-sched/bucma/workloads"
)

// seeds is how many seeds each (shape, mix) combination runs:
// BUCMA_DIFF_SEEDS overrides the default (one: make test-batsim runs 20).
func seeds(t *testing.T, def int) int { return batsimrun.Seeds(t, def) }

// mixes are the kinds of workloads the differential tests cover.
var mixes = map[string]scenario.Mix{
	"delay":   {Jobs: 120},
	"compute": {Jobs: 80, Compute: true, Composed: true},
	"comm":    {Jobs: 60, Compute: true, Comm: true, Composed: true},
	"large":   {Jobs: 60, Compute: true, Composed: true, Large: true},
}

// writeCase writes a generated platform and workload into dir.
func writeCase(t *testing.T, dir string, shape scenario.Shape, seed uint64, mix scenario.Mix) (plat, wl string) {
	t.Helper()
	p, n := scenario.Platform(shape, seed)
	if shape == scenario.Large {
		mix.Jobs *= 3
	}
	w := scenario.Workload(seed, n, mix)
	plat, wl = filepath.Join(dir, "platform.xml"), filepath.Join(dir, "workload.json")
	if err := os.WriteFile(plat, p, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wl, w, 0o644); err != nil {
		t.Fatal(err)
	}
	return plat, wl
}

func session(t *testing.T, policy string, opts sched.Options) *sched.Session {
	t.Helper()
	spec, err := policies.Builtin().Lookup(policy)
	if err != nil {
		t.Fatal(err)
	}
	s, err := (&run.Policy{Spec: spec, Options: opts}).NewSession()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// simulate runs the embedded engine on the case and returns its _jobs.csv;
// tweaks change the engine's configuration (Batsim's options).
func simulate(t *testing.T, dir, plat, wl, policy string, opts sched.Options, tweaks ...func(*sim.Config)) ([]byte, error) {
	t.Helper()
	prefix := filepath.Join(dir, "engine")
	cfg := loadCase(t, plat, wl)
	cfg.ExportPrefix = prefix
	for _, f := range tweaks {
		f(&cfg)
	}
	if _, err := sim.Run(context.Background(), cfg, sim.InProcess(session(t, policy, opts))); err != nil {
		return nil, err
	}
	return os.ReadFile(prefix + "_jobs.csv")
}

// loadCase is the engine's configuration with the case's platform and
// workload.
func loadCase(t *testing.T, plat, wl string) sim.Config {
	t.Helper()
	p, err := platforms.Load(plat)
	if err != nil {
		t.Fatal(err)
	}
	w, err := workloads.Load(wl)
	if err != nil {
		t.Fatal(err)
	}
	return sim.Config{Platform: p, Workloads: []*workloads.Workload{w}}
}

// sameOutputs compares a real Batsim run with the engine's in dir (its
// _jobs.csv ours, its _schedule.csv at dir/engine_schedule.csv), reports
// each difference (what names the case) and counts the case in c. A
// differing case is kept (see keep).
func sameOutputs(t *testing.T, c *tally, dir, what string, real *batsimrun.Result, ours []byte) bool {
	t.Helper()
	ok := bytes.Equal(real.Jobs, ours)
	if !ok {
		t.Errorf("_jobs.csv differs (case in %s%s), first difference at %s", dir, what, firstDiff(real.Jobs, ours))
	}
	if d := scheduleDiff(t, real.Schedule, filepath.Join(dir, "engine_schedule.csv")); d != "" {
		ok = false
		t.Errorf("_schedule.csv differs (case in %s%s): %s", dir, what, d)
	}
	c.add(ok)
	if !ok {
		keep(t, dir)
	}
	return ok
}

// writeInputs writes a platform and a workload into dir.
func writeInputs(t *testing.T, dir string, platformXML []byte, w *workloads.Workload) (plat, wl string) {
	t.Helper()
	var b bytes.Buffer
	if err := w.Write(&b); err != nil {
		t.Fatal(err)
	}
	plat, wl = filepath.Join(dir, "platform.xml"), filepath.Join(dir, "workload.json")
	if err := os.WriteFile(plat, platformXML, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wl, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return plat, wl
}

// firstDiff describes the first differing line of two CSV files (want:
// the real Batsim's, got: bucma's).
func firstDiff(a, b []byte) string { return batsimrun.FirstDiff(a, b) }

// tally counts cases and identical results for the summary line, and the
// cases without a reference (the reference scheduler aborted).
type tally struct {
	mu                       sync.Mutex
	cases, matching, aborted int
}

func (c *tally) addAborted() {
	c.mu.Lock()
	c.aborted++
	c.mu.Unlock()
}

func (c *tally) add(ok bool) {
	c.mu.Lock()
	c.cases++
	if ok {
		c.matching++
	}
	c.mu.Unlock()
}

// TestEngineMatchesBatsim: for every shape, mix and seed, the real Batsim
// driven by bucma's fcfs (first-fit hosts) and easy policies writes the same
// _jobs.csv, byte for byte, as bucma's engine with the same policy, and
// the same _schedule.csv but for the version and the wall-clock times.
func TestEngineMatchesBatsim(t *testing.T) {
	bin := batsimrun.Batsim(t)
	n := seeds(t, 1)
	var c tally
	for _, policy := range []string{"fcfs", "easy"} {
		for _, shape := range scenario.Shapes {
			for mname, mix := range mixes {
				for seed := 1; seed <= n; seed++ {
					policy, shape, mname, mix, seed := policy, shape, mname, mix, uint64(seed)
					t.Run(fmt.Sprintf("%s/%s/%s/%d", policy, shape, mname, seed), func(t *testing.T) {
						t.Parallel()
						dir := t.TempDir()
						plat, wl := writeCase(t, dir, shape, seed, mix)
						matchEngine(t, bin, &c, dir, plat, wl, policy, sched.Options{"hosts": "first-fit"})
					})
				}
			}
		}
	}
	t.Cleanup(func() { t.Logf("engine vs Batsim: %d of %d cases identical", c.matching, c.cases) })
}

// matchEngine runs the case in dir through the real Batsim (bin) driven
// by policy with opts, then through the engine, and compares their
// outputs (sameOutputs, counted in c).
func matchEngine(t *testing.T, bin string, c *tally, dir, plat, wl, policy string, opts sched.Options) {
	t.Helper()
	real, err := batsimrun.WithHandler(context.Background(), batsimrun.Options{Batsim: bin}, plat, wl, filepath.Join(dir, "batsim"), session(t, policy, opts))
	if err != nil {
		t.Fatal(err)
	}
	ours, err := simulate(t, dir, plat, wl, policy, opts)
	if err != nil {
		t.Fatalf("engine: %v", err)
	}
	sameOutputs(t, c, dir, "", real, ours)
}

// keep copies a failing case to BUCMA_DIFF_KEEP, when set.
func keep(t *testing.T, dir string) {
	dst := os.Getenv("BUCMA_DIFF_KEEP")
	if dst == "" {
		return
	}
	to := filepath.Join(dst, strings.ReplaceAll(t.Name(), "/", "_"))
	if err := os.CopyFS(to, os.DirFS(dir)); err != nil {
		t.Logf("BUCMA_DIFF_KEEP: %v", err)
	}
}

// batschedCases are the workloads TestPoliciesMatchBatsched runs: every
// mix with a walltime for every job, and three where about a third of the
// jobs have none (easy_bf rejects them). In the large mix (dates near
// 1e10 s written to the microsecond) batsched reads Batsim's dates with
// rapidjson's default parser, which is not correctly rounded for so many
// digits, and answers at the date it read; bucma reads them the same way.
var batschedCases = []struct {
	name         string
	mix          string
	allWalltimes bool
}{
	{"delay", "delay", true},
	{"compute", "compute", true},
	{"comm", "comm", true},
	{"large", "large", true},
	{"delay-no-walltime", "delay", false},
	{"compute-no-walltime", "compute", false},
	{"large-no-walltime", "large", false},
}

// batschedAssertion finds the assertion batsched 1.4.0 stopped on. Two are
// known on these workloads, both in easy_bf, both batsched's own: it dates
// the start of its priority job with the last event's date and its other
// decisions with the message's now, so that in a reply that already holds
// a decision (a rejection) and a message whose last event is dated before
// its now, its protocol writer refuses a date that goes back ("date >=
// _last_date"); and its schedule's bookkeeping stops when a message comes
// later than the end of the schedule's first slice ("current_time <=
// slice->end", Schedule::update_first_slice), seen on networked platforms
// after a job reached its walltime. Batsim, left
// without an answer, waits forever. Such a case has no reference to compare
// with; it is counted apart, never hidden.
var batschedAssertion = regexp.MustCompile(`Assertion '([^']*)' failed`)

// TestPoliciesMatchBatsched: through the real Batsim, bucma's policies with
// the options that make them decide as batsched give batsched's _jobs.csv
// byte for byte: fcfs (first-fit hosts) as fcfs_fast, easy (first-fit
// hosts, backfill=batsched, no-walltime=reject) as easy_bf (their twins in
// policies.BatschedVariants), with batsched's default flags.
func TestPoliciesMatchBatsched(t *testing.T) {
	bin := batsimrun.Batsim(t)
	bs := batsimrun.Batsched(t)
	n := seeds(t, 1)
	var vs []policies.BatschedVariant
	for _, name := range []string{"fcfs_fast", "easy_bf"} {
		v, ok := policies.BatschedVariantByName(name)
		if !ok {
			t.Fatalf("no twin of %s in policies.BatschedVariants", name)
		}
		vs = append(vs, v)
	}
	tallies := make([]twinTally, len(vs))
	for i, v := range vs {
		tl := &tallies[i]
		for _, shape := range scenario.Shapes {
			for _, bc := range batschedCases {
				for seed := 1; seed <= n; seed++ {
					v, shape, bc, seed := v, shape, bc, uint64(seed)
					t.Run(fmt.Sprintf("%s/%s/%s/%d", v.Name, shape, bc.name, seed), func(t *testing.T) {
						t.Parallel()
						mix := mixes[bc.mix]
						mix.AllWalltimes = bc.allWalltimes
						dir := t.TempDir()
						plat, wl := writeCase(t, dir, shape, seed+1000, mix)
						if a := runTwinCase(t, bin, bs, v, twinCase{name: bc.name, plat: plat, wl: wl}, dir, false, tl); a != "" {
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

var updateGoldens = flag.Bool("update-goldens", false, "record the goldens of TestGoldens again with the real Batsim")

// goldens are real-Batsim runs recorded in testdata/golden, which the engine
// must reproduce byte for byte even where Batsim is absent. Each pins one
// behaviour the engine once got wrong.
var goldens = []struct {
	name   string
	shape  scenario.Shape
	seed   uint64
	mix    scenario.Mix
	policy string
}{
	// parallel tasks with communication on a networked platform: transfers
	// share the links with each other and with Batsim's messages, and
	// some jobs reach their walltime
	{"comm-multihop", scenario.FullMultiHop, 11, scenario.Mix{Jobs: 150, Compute: true, Comm: true, Composed: true}, "fcfs"},
	{"comm-cluster", scenario.ClusterBackbone, 12, scenario.Mix{Jobs: 150, Compute: true, Comm: true, Composed: true}, "easy"},
	// jobs submitted together and started in one reply on routes of 1 to 7
	// links of unequal latencies
	{"multihop-starts", scenario.FullMultiHop, 13, scenario.Mix{Jobs: 250}, "fcfs"},
	// a cluster with a backbone, the master in its own zone
	{"cluster-backbone", scenario.ClusterBackbone, 14, scenario.Mix{Jobs: 300}, "easy"},
	// submission times around 1e10 s
	{"large-times", scenario.HeteroTies, 15, scenario.Mix{Jobs: 200, Compute: true, Composed: true, Large: true}, "fcfs"},
	// Floyd routing, mixed profiles
	{"floyd-mixed", scenario.Floyd, 16, scenario.Mix{Jobs: 200, Compute: true, Comm: true, Composed: true}, "easy"},
}

func TestGoldens(t *testing.T) {
	var bin string
	if *updateGoldens {
		bin = batsimrun.Batsim(t)
	}
	for _, g := range goldens {
		t.Run(g.name, func(t *testing.T) {
			dir := filepath.Join("testdata", "golden", g.name)
			opts := sched.Options{"hosts": "first-fit"}
			plat, wl := filepath.Join(dir, "platform.xml"), filepath.Join(dir, "workload.json")
			want := filepath.Join(dir, "out_jobs.csv")
			if *updateGoldens {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				writeCase(t, dir, g.shape, g.seed, g.mix)
				res, err := batsimrun.WithHandler(context.Background(), batsimrun.Options{Batsim: bin}, plat, wl, t.TempDir(), session(t, g.policy, opts))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(want, res.Jobs, 0o644); err != nil {
					t.Fatal(err)
				}
				cmd := fmt.Sprintf("# recorded with Batsim %s driven by bucma %s (hosts=first-fit):\nbucma run --scheduler %s -o hosts=first-fit -s tcp://127.0.0.1:28000 &\nbatsim -p platform.xml -w workload.json -e out -s tcp://127.0.0.1:28000\n", batsimrun.Version, g.policy, g.policy)
				if err := os.WriteFile(filepath.Join(dir, "cmd.txt"), []byte(cmd), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			expected, err := os.ReadFile(want)
			if err != nil {
				t.Fatal(err)
			}
			got, err := simulate(t, t.TempDir(), plat, wl, g.policy, opts)
			if err != nil {
				t.Fatalf("engine: %v", err)
			}
			if !bytes.Equal(expected, got) {
				t.Errorf("the engine's _jobs.csv differs from Batsim's, first difference at %s", firstDiff(expected, got))
			}
		})
	}
}
