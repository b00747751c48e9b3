package realbatsim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/cli"
	"github.com/bucma-sched/bucma/internal/checkfixture"
	"github.com/bucma-sched/bucma/internal/scenario"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sim"
	"github.com/bucma-sched/bucma/testkit/batsimrun"
)

// asBucmaEnv, set to 1, makes this test binary bucma's command line: the
// drop-in test runs "bucma run -v VARIANT ..." as a process of its own
// without building bucma.
const asBucmaEnv = "BUCMA_REALBATSIM_AS_BUCMA"

func TestMain(m *testing.M) {
	checkfixture.ServeIfAsked() // the broken processes bucma check is tested on
	if os.Getenv(asBucmaEnv) == "1" {
		os.Exit(cli.Main(append([]string{"bucma"}, os.Args[1:]...), policies.Builtin()))
	}
	os.Exit(m.Run())
}

// twinCase is one run of a batsched variant: the platform and workload,
// Batsim's extra flags, batsched's flags and variant options, and the
// output files compared besides _jobs.csv.
type twinCase struct {
	name           string
	plat, wl       string
	batsimArgs     []string
	flags          map[string]string // batsched flags by long name
	variantOptions string            // JSON object, "" for none
	compare        []string          // output suffixes besides _jobs.csv
	// engine: the variant never ends under Batsim 4.2.1
	// (energy_bf_monitoring), so that the case is compared message for
	// message through the embedded engine, which plays Batsim's role,
	// up to 20 messages after the last job ended.
	engine bool
	jobs   int // the workload's jobs, for engine
}

// batschedArgv is batsched's command line for the case (also bucma run's,
// in batsched's terms).
func (c twinCase) batschedArgv(variant, endpoint string) []string {
	argv := []string{"-v", variant, "-s", endpoint}
	short := map[string]string{"queue_order": "-o", "policy": "-p", "rjms_delay": "-d"}
	for _, f := range slices.Sorted(maps.Keys(c.flags)) {
		if s, ok := short[f]; ok {
			argv = append(argv, s, c.flags[f])
		} else {
			argv = append(argv, "--"+f+"="+c.flags[f])
		}
	}
	if c.variantOptions != "" {
		argv = append(argv, "--variant_options", c.variantOptions)
	}
	return argv
}

// twinSetup builds case k (seed, shape and workload case given) of a
// variant: which flags and variant options it is run with, on which
// platform.
type twinSetup func(t *testing.T, v policies.BatschedVariant, dir string, seed uint64, k int, shape scenario.Shape, bc batschedCase) twinCase

type batschedCase = struct {
	name         string
	mix          string
	allWalltimes bool
}

var batschedOrders = []string{"fcfs", "lcfs", "asc_size", "desc_size", "asc_walltime", "desc_walltime", "desc_slowdown", "desc_bounded_slowdown"}

// flagsFor rotates batsched's flags over the cases: each flag the twin
// takes (or ignores) runs every value in turn; a flag it takes at the
// default only is left at the default.
func flagsFor(v policies.BatschedVariant, k int) map[string]string {
	flags := map[string]string{}
	if _, ok := v.Flags["queue_order"]; ok {
		flags["queue_order"] = batschedOrders[k%len(batschedOrders)]
	}
	if _, ok := v.Flags["policy"]; ok {
		flags["policy"] = []string{"basic", "contiguous"}[k/len(batschedOrders)%2]
	}
	if _, ok := v.Flags["rjms_delay"]; ok {
		flags["rjms_delay"] = []string{"5", "0", "60"}[k%3]
	}
	return flags
}

// scenarioCase is a variant run on a generated platform and workload of
// the tier (internal/scenario), with rotated flags.
func scenarioCase(t *testing.T, v policies.BatschedVariant, dir string, seed uint64, k int, shape scenario.Shape, bc batschedCase) twinCase {
	mix := mixes[bc.mix]
	mix.AllWalltimes = bc.allWalltimes
	plat, wl := writeCase(t, dir, shape, seed+1000, mix)
	return twinCase{name: fmt.Sprintf("%s/%s", shape, bc.name), plat: plat, wl: wl, flags: flagsFor(v, k)}
}

// twinSetups are the setups of the variants that need more than the
// generated platforms and workloads as they are; any other variant
// (another family's) runs scenarioCase.
var twinSetups = map[string]twinSetup{
	"easy_bf_plot_liquid_load_horizon": plotLiquidCase,
	"filler": func(t *testing.T, v policies.BatschedVariant, dir string, seed uint64, k int, shape scenario.Shape, bc batschedCase) twinCase {
		c := scenarioCase(t, v, dir, seed, k, shape, bc)
		c.variantOptions = fmt.Sprintf(`{"set_job_metadata": %v, "custom_mapping": %v, "fraction_of_machines_to_use": 1}`, k%3 == 1, k%2 == 0)
		return c
	},
	"killer": func(t *testing.T, v policies.BatschedVariant, dir string, seed uint64, k int, shape scenario.Shape, bc batschedCase) twinCase {
		c := scenarioCase(t, v, dir, seed, k, shape, bc)
		c.variantOptions = fmt.Sprintf(`{"nb_kills_per_job": %d, "delay_before_kill": %s}`, []int{1, 1, 0, 2}[k%4], []string{"10", "0.5", "30"}[k%3])
		return c
	},
	"submitter": func(t *testing.T, v policies.BatschedVariant, dir string, seed uint64, k int, shape scenario.Shape, bc batschedCase) twinCase {
		c := scenarioCase(t, v, dir, seed, k, shape, bc)
		c.batsimArgs = []string{"--enable-dynamic-jobs"}
		if k%2 == 0 {
			c.batsimArgs = append(c.batsimArgs, "--acknowledge-dynamic-jobs")
		}
		increase := k%3 != 2
		if !increase {
			// One profile for every job: Batsim 4 forgets a profile
			// once its jobs have ended, and aborts on its reuse.
			c.batsimArgs = append(c.batsimArgs, "--enable-profile-reuse")
		}
		c.variantOptions = fmt.Sprintf(`{"nb_jobs_to_submit": %d, "increase_jobs_duration": %v, "set_job_metadata": %v}`, []int{10, 3, 0, 25}[k%4], increase, k%5 == 1)
		c.name += fmt.Sprintf("/ack=%v", k%2 == 0)
		return c
	},
	"sleeper": func(t *testing.T, v policies.BatschedVariant, dir string, seed uint64, k int, _ scenario.Shape, _ batschedCase) twinCase {
		r := rand.New(rand.NewPCG(seed, uint64(k)))
		hosts := 1 + r.IntN(6)
		plat, wl := writeInputs(t, dir, energyPlatform(hosts, r), energyWorkload(5+r.IntN(30), hosts, r))
		return twinCase{name: fmt.Sprintf("energy-%d-hosts", hosts), plat: plat, wl: wl, batsimArgs: energyArgs, flags: flagsFor(v, k),
			variantOptions: `{"pstate_compute": 0, "pstate_sleep": 2}`, compare: energyOutputs}
	},
}

// setupOf is the variant's setup.
func setupOf(v policies.BatschedVariant) twinSetup {
	if s, ok := twinSetups[v.Name]; ok {
		return s
	}
	if v.Policy == "batsched-energy" {
		return energyTwinSetup
	}
	return scenarioCase
}

// plotLiquidCase is scenarioCase on the mix's workload where every job
// has a walltime (easy_bf_plot_liquid_load_horizon stops on a job without
// one), with the file of its CSV in dir.
func plotLiquidCase(t *testing.T, v policies.BatschedVariant, dir string, seed uint64, k int, shape scenario.Shape, bc batschedCase) twinCase {
	bc.name, bc.allWalltimes = bc.mix, true
	c := scenarioCase(t, v, dir, seed, k, shape, bc)
	c.variantOptions = fmt.Sprintf(`{"trace_output_filename": %q}`, filepath.Join(dir, "llh.csv"))
	return c
}

// energyTwinSetup is a case of one of batsched's energy variants: an
// energy platform of 2 to 7 hosts with its switching pstates and a
// workload of bursts (as TestEnergyTwinsMatchBatsched's), the variant's
// option sets of energyTwinCases in turn (energy_bf_monitoring: a
// monitoring period of 60, 120 or 600 s), as batsched's --variant_options.
func energyTwinSetup(t *testing.T, v policies.BatschedVariant, dir string, seed uint64, k int, _ scenario.Shape, _ batschedCase) twinCase {
	var sets []sched.Options
	for _, tc := range energyTwinCases {
		if tc.variant == v.Name {
			sets = append(sets, tc.opts)
		}
	}
	if v.Name == "energy_bf_monitoring" {
		sets = []sched.Options{{"monitoring-period": "60"}, {"monitoring-period": "120"}, {"monitoring-period": "600"}}
	}
	var extra sched.Options
	if len(sets) > 0 {
		extra = sets[k%len(sets)]
	}
	xml, opts, w := energyTwinInputs(rand.New(rand.NewPCG(seed, uint64(k))), v.Name, extra)
	vj, err := variantJSON(opts, dir)
	if err != nil {
		t.Fatal(err)
	}
	plat, wl := writeInputs(t, dir, xml, w)
	return twinCase{name: fmt.Sprintf("energy-%d-jobs", len(w.Jobs)), plat: plat, wl: wl, batsimArgs: energyArgs, flags: flagsFor(v, k),
		variantOptions: string(vj), compare: energyOutputs, engine: v.Name == "energy_bf_monitoring", jobs: len(w.Jobs)}
}

// twinTally counts one variant's cases.
type twinTally struct {
	tally
	amu    sync.Mutex
	aborts map[string]int // batsched's assertion → cases
}

func (c *twinTally) abort(what string) {
	c.addAborted()
	c.amu.Lock()
	if c.aborts == nil {
		c.aborts = map[string]int{}
	}
	c.aborts[what]++
	c.amu.Unlock()
}

func (c *twinTally) String() string {
	s := fmt.Sprintf("%d of %d cases identical", c.matching, c.cases)
	if c.aborted > 0 {
		var as []string
		for a, n := range c.aborts {
			as = append(as, fmt.Sprintf("%d on '%s'", n, a))
		}
		sort.Strings(as)
		s += fmt.Sprintf(", and %d where batsched aborts (%s)", c.aborted, strings.Join(as, "; "))
	}
	return s
}

// runTwinCase runs case c of variant v with batsched and with bucma (the
// twin in this process, or with dropin "bucma run" in batsched's terms, as
// a process) through the real Batsim and compares the outputs. When
// batsched stops on one of its assertions, the case has no reference: it
// is counted apart and runTwinCase returns the assertion.
func runTwinCase(t *testing.T, bin, bs string, v policies.BatschedVariant, c twinCase, dir string, dropin bool, tl *twinTally) (aborted string) {
	if c.engine {
		return runEngineTwinCase(t, bs, v, c, dropin, tl)
	}
	// The guard against a hang is generous: killer and killer2 on the
	// 1024-host cluster with transfers took Batsim more than 10 minutes on
	// 2 cores under a load of 20.
	o := batsimrun.Options{Batsim: bin, Args: c.batsimArgs, Timeout: 40 * time.Minute}
	var ours *batsimrun.Result
	var err error
	if dropin {
		self, e := os.Executable()
		if e != nil {
			t.Fatal(e)
		}
		ours, err = batsimrun.WithScheduler(context.Background(), o, func(endpoint string) []string {
			return append([]string{"env", asBucmaEnv + "=1", self, "run"}, c.batschedArgv(v.Name, endpoint)...)
		}, c.plat, c.wl, filepath.Join(dir, "bucma"))
	} else {
		ours, err = batsimrun.WithHandler(context.Background(), o, c.plat, c.wl, filepath.Join(dir, "bucma"), twinSession(t, v, c))
	}
	oursErr := err
	theirs, err := batsimrun.WithScheduler(context.Background(), o, func(endpoint string) []string {
		return append([]string{bs}, c.batschedArgv(v.Name, endpoint)...)
	}, c.plat, c.wl, filepath.Join(dir, "batsched"))
	var bf *batsimrun.BatschedFailure
	if errors.As(err, &bf) {
		if m := batschedAssertion.FindStringSubmatch(bf.Log); m != nil {
			return twinAborted(t, m[1], dir, oursErr, tl)
		}
	}
	if oursErr != nil {
		t.Fatalf("bucma: %v", oursErr)
	}
	if err != nil {
		t.Fatal(err)
	}
	ok := bytes.Equal(theirs.Jobs, ours.Jobs)
	if !ok {
		t.Errorf("_jobs.csv differs (case in %s), first difference at %s", dir, strings.ReplaceAll(strings.ReplaceAll(firstDiff(theirs.Jobs, ours.Jobs), "want", "batsched"), "got ", "bucma   "))
		keep(t, dir)
	}
	ok = sameFiles(t, dir, ok, filepath.Join(dir, "batsched", "out"), filepath.Join(dir, "bucma", "out"), c.compare, nil)
	tl.add(ok)
	return ""
}

// twinOptions are the options of v's twin with the case's flags and
// variant options.
func twinOptions(t *testing.T, v policies.BatschedVariant, c twinCase) sched.Options {
	t.Helper()
	var vopts map[string]json.RawMessage
	if c.variantOptions != "" {
		if err := json.Unmarshal([]byte(c.variantOptions), &vopts); err != nil {
			t.Fatal(err)
		}
	}
	opts, _, err := v.Resolve(c.flags, vopts)
	if err != nil {
		t.Fatalf("variant %s: %v", v.Name, err)
	}
	return opts
}

// twinSession is the twin of v with the case's flags and variant
// options, in this process.
func twinSession(t *testing.T, v policies.BatschedVariant, c twinCase) *sched.Session {
	t.Helper()
	return session(t, v.Policy, twinOptions(t, v, c))
}

// runEngineTwinCase is runTwinCase for a variant that never ends under
// Batsim 4.2.1: the embedded engine, which plays Batsim 4.2.1's role
// message for message, runs the case against batsched and against bucma
// (the twin in this process, or "bucma run" in batsched's terms as a
// process, over ZeroMQ), and the messages exchanged must be the same both
// ways up to 20 messages after the last job ended.
func runEngineTwinCase(t *testing.T, bs string, v policies.BatschedVariant, c twinCase, dropin bool, tl *twinTally) (aborted string) {
	remote := func(argv func(ep string) []string) ([]string, func() string, error) {
		ep, stop := startScheduler(t, argv)
		rs, err := zmq.Remote(context.Background(), ep, time.Minute)
		if err != nil {
			stop()
			t.Fatal(err)
		}
		defer rs.Close()
		msgs, err := tryExchanges(t, c.plat, c.wl, c.jobs, rs)
		return msgs, stop, err
	}
	var ours []string
	var oursErr error
	if dropin {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		var stop func() string
		ours, stop, oursErr = remote(func(ep string) []string {
			return append([]string{"env", asBucmaEnv + "=1", self, "run"}, c.batschedArgv(v.Name, ep)...)
		})
		if log := stop(); oursErr != nil {
			oursErr = fmt.Errorf("%v\n%s", oursErr, log)
		}
	} else {
		ours, oursErr = tryExchanges(t, c.plat, c.wl, c.jobs, sim.InProcess(twinSession(t, v, c)))
	}
	theirs, stop, err := remote(func(ep string) []string {
		return append([]string{bs}, c.batschedArgv(v.Name, ep)...)
	})
	if log := stop(); err != nil {
		if m := batschedAssertion.FindStringSubmatch(log); m != nil {
			return twinAborted(t, m[1], "", oursErr, tl)
		}
		t.Fatalf("batsched: %v\n%s", err, log)
	}
	if oursErr != nil {
		t.Fatalf("bucma: %v", oursErr)
	}
	tl.add(sameExchanges(t, theirs, ours))
	return ""
}

// twinAborted counts a case where batsched stops on its assertion what:
// it has no reference. bucma's run (oursErr) ends normally, or the twin
// stops on the same assertion, saying so (the energy twins reproduce
// batsched's aborts); any other failure of bucma's is one.
func twinAborted(t *testing.T, what, dir string, oursErr error, tl *twinTally) string {
	t.Helper()
	tl.abort(what)
	outcome := "bucma's run ended normally"
	if oursErr != nil {
		if !strings.Contains(oursErr.Error(), "batsched stops here on its assertion") {
			t.Fatalf("batsched stops on its assertion '%s', and bucma fails otherwise: %v", what, oursErr)
		}
		outcome = "bucma's twin stops there too, saying so"
	}
	if dir != "" {
		dir = " (case in " + dir + ")"
	}
	t.Logf("no reference%s: batsched stops on its assertion '%s'; %s", dir, what, outcome)
	return what
}

// simpleVariantNames are the variants TestSimpleVariantsMatchBatsched
// proves: those whose table entry names it.
func simpleVariantNames(t *testing.T) []policies.BatschedVariant {
	var vs []policies.BatschedVariant
	for _, v := range policies.BatschedVariants() {
		if strings.HasSuffix(v.Proven, "TestSimpleVariantsMatchBatsched") {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		t.Fatal("no variant names TestSimpleVariantsMatchBatsched as its proof")
	}
	return vs
}

// TestSimpleVariantsMatchBatsched: through the real Batsim, the twins of
// batsched's simple variants (filler, sequencer, rejecter,
// waiting_time_estimator, killer, submitter, sleeper) give batsched's
// _jobs.csv byte for byte (sleeper on energy platforms, and its
// _consumed_energy.csv and _pstate_changes.csv too), with batsched's queue
// orders, host selections, RJMS delays and variant options rotated over
// the cases. Each seed runs every workload case of the tier once per
// variant, on a shape that rotates with the seed, so that a few seeds
// cover every shape; make test-batsim SEEDS=n runs n.
func TestSimpleVariantsMatchBatsched(t *testing.T) {
	bin := batsimrun.Batsim(t)
	bs := batsimrun.Batsched(t)
	n := seeds(t, 1)
	vs := simpleVariantNames(t)
	tallies := make([]twinTally, len(vs))
	for vi, v := range vs {
		for seed := 1; seed <= n; seed++ {
			for ci, bc := range batschedCases {
				vi, v, seed, ci, bc := vi, v, uint64(seed), ci, bc
				k := int(seed)*len(batschedCases) + ci
				shape := scenario.Shapes[(int(seed)+vi+ci)%len(scenario.Shapes)]
				dir := t.TempDir()
				c := setupOf(v)(t, v, dir, seed, k, shape, bc)
				t.Run(fmt.Sprintf("%s/%s/%d", v.Name, c.name, seed), func(t *testing.T) {
					t.Parallel()
					if a := runTwinCase(t, bin, bs, v, c, dir, false, &tallies[vi]); a != "" {
						t.Skipf("no reference: batsched stops on its assertion '%s'", a)
					}
				})
			}
		}
	}
	t.Cleanup(func() {
		for i, v := range vs {
			t.Logf("bucma vs batsched, %s%s as %s: %s", v.Policy, v.OptionArgs(), v.Name, &tallies[i])
		}
	})
}

// TestDropinMatchesBatsched: for every variant of the table
// (policies.BatschedVariants), "bucma run -v VARIANT -s ENDPOINT" with
// batsched's flags, run as a process by the real Batsim, gives the
// _jobs.csv of "batsched -v VARIANT -s ENDPOINT" with the same flags: one
// case per variant and seed.
func TestDropinMatchesBatsched(t *testing.T) {
	bin := batsimrun.Batsim(t)
	bs := batsimrun.Batsched(t)
	n := seeds(t, 1)
	vs := policies.BatschedVariants()
	tallies := make([]twinTally, len(vs))
	for vi, v := range vs {
		for seed := 1; seed <= n; seed++ {
			vi, v, seed := vi, v, uint64(seed)
			t.Run(fmt.Sprintf("%s/%d", v.Name, seed), func(t *testing.T) {
				t.Parallel()
				// A case where batsched stops on one of its assertions
				// has no reference: the next is tried, four at most.
				for try := 0; try < 4; try++ {
					k := int(seed) + vi + 5*try
					bc := batschedCases[[]int{0, 4, 1, 5}[k%4]]
					shape := []scenario.Shape{scenario.ClusterBackbone, scenario.HeteroTies, scenario.OneHost}[k%3]
					dir := t.TempDir()
					c := setupOf(v)(t, v, dir, seed+500+uint64(try), k, shape, bc)
					t.Logf("case %s", c.name)
					if runTwinCase(t, bin, bs, v, c, dir, true, &tallies[vi]) == "" {
						return
					}
				}
				t.Skip("no reference: batsched stops on its assertions in every case tried")
			})
		}
	}
	t.Cleanup(func() {
		for i, v := range vs {
			t.Logf("bucma vs batsched, bucma run -v %s as batsched -v %s: %s", v.Name, v.Name, &tallies[i])
		}
	})
}

// TestSimplePoliciesEngineMatchesBatsim: the embedded engine, driven by
// the twins of batsched's simple variants, writes the real Batsim's
// _jobs.csv (and energy files), byte for byte: their kills, dynamic jobs,
// power states and decisions dated later than the message they answer.
// One case per variant and seed, its flags and options as in
// TestSimpleVariantsMatchBatsched.
func TestSimplePoliciesEngineMatchesBatsim(t *testing.T) {
	bin := batsimrun.Batsim(t)
	n := seeds(t, 1)
	vs := simpleVariantNames(t)
	var c tally
	for vi, v := range vs {
		for seed := 1; seed <= n; seed++ {
			v, seed := v, uint64(seed)
			k := int(seed)*3 + vi
			bc := batschedCases[k%len(batschedCases)]
			shape := scenario.Shapes[k%(len(scenario.Shapes)-1)] // not the 1024-host one
			dir := t.TempDir()
			tc := setupOf(v)(t, v, dir, seed+2000, k, shape, bc)
			if slices.Contains(tc.batsimArgs, "--enable-profile-reuse") {
				// The engine has no profile reuse: the submitter refuses
				// to start without it (docs/batsched.md).
				tc = setupOf(v)(t, v, dir, seed+2000, k+1, shape, bc)
			}
			t.Run(fmt.Sprintf("%s/%s/%d", v.Name, tc.name, seed), func(t *testing.T) {
				t.Parallel()
				opts := twinOptions(t, v, tc)
				o := batsimrun.Options{Batsim: bin, Args: tc.batsimArgs, Timeout: 40 * time.Minute}
				real, err := batsimrun.WithHandler(context.Background(), o, tc.plat, tc.wl, filepath.Join(dir, "batsim"), session(t, v.Policy, opts))
				if err != nil {
					t.Fatal(err)
				}
				ours, err := simulate(t, dir, tc.plat, tc.wl, v.Policy, opts, func(cfg *sim.Config) {
					cfg.Energy = slices.Contains(tc.batsimArgs, "--energy")
					cfg.DynamicJobs = slices.Contains(tc.batsimArgs, "--enable-dynamic-jobs")
					cfg.AcknowledgeDynamicJob = slices.Contains(tc.batsimArgs, "--acknowledge-dynamic-jobs")
				})
				if err != nil {
					t.Fatalf("engine: %v", err)
				}
				var scratch tally
				ok := sameOutputs(t, &scratch, dir, "", real, ours)
				ok = ok && sameFiles(t, dir, true, filepath.Join(dir, "batsim", "out"), filepath.Join(dir, "engine"), tc.compare, nil)
				c.add(ok)
			})
		}
	}
	t.Cleanup(func() {
		t.Logf("engine vs Batsim, the simple policies as batsched's variants: %d of %d cases identical", c.matching, c.cases)
	})
}
