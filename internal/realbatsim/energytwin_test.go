package realbatsim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit/batsimrun"
	"github.com/bucma-sched/bucma/workloads"
)

// twinPlatform has n single-core hosts of drawn speeds with one computation
// pstate set (0, and a slower 1), a sleep pstate (2) and its switching
// pstates (3 off, 4 on) of the same speeds on every host, so that the
// switches last the same on every machine, as batsched's options assume.
// It returns the platform and the variant options that describe it.
func twinPlatform(n int, r *rand.Rand) ([]byte, sched.Options) {
	offSpeed := []float64{0.5, 0.2, 0.1639344262295082}[r.IntN(3)]
	onSpeed := []float64{0.1, 0.05, 0.025}[r.IntN(3)]
	idle, busy, sleep, offW, onW := 95.0, 190.738, 9.75, 100.99672131147543, 125.1743848996832
	xml := energyPlatformXML(n, r, []string{"10us", "50us"}, func(i int) string {
		speed := []string{"100Mf", "250Mf", "1Gf"}[r.IntN(3)]
		return fmt.Sprintf(`<host id="h%d" speed="%s, 50Mf, 1e-9Mf, %gf, %gf"><prop id="wattage_per_state" value="%g:%g:%g, 95:98:132.5, %g:%g:%g, %g:%g:%g, %g:%g:%g"/><prop id="wattage_off" value="10"/><prop id="sleep_pstates" value="2:3:4"/></host>`,
			i, speed, offSpeed, onSpeed, idle, idle, busy, sleep, sleep, sleep, offW, offW, offW, onW, onW, onW)
	})
	g := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	return xml, sched.Options{
		"power-compute": g(busy), "power-idle": g(idle), "power-sleep": g(sleep),
		"pstate-compute": "0", "pstate-sleep": "2",
		"time-switch-on": g(1 / onSpeed), "time-switch-off": g(1 / offSpeed),
		"energy-switch-on": g(onW / onSpeed), "energy-switch-off": g(offW / offSpeed),
	}
}

// twinWorkload has bursts of jobs separated by idle gaps (so that
// machines are switched off and on), every job with a walltime, some
// reaching it: delays and computations, some communicating.
func twinWorkload(n, hosts int, r *rand.Rand) *workloads.Workload {
	return burstWorkload(n, hosts, r, func() float64 { return 100 + r.Float64()*900 }, func() float64 { return r.Float64() * 30 },
		func() float64 { return 15 + r.Float64()*200 }, func(int) int { return r.IntN(5) },
		`{"p0": {"type": "delay", "delay": 20}, "p1": {"type": "delay", "delay": 90}, "p2": {"type": "parallel_homogeneous", "cpu": 5e9, "com": 0}, "p3": {"type": "parallel_homogeneous", "cpu": 2e9, "com": 1e7}, "p4": {"type": "delay", "delay": 400}}`)
}

// variantJSON is batsched's --variant_options of opts (the twin's
// options), with the output files batsched's inertial variants insist on
// writing put in dir.
func variantJSON(opts sched.Options, dir string) ([]byte, error) {
	m := map[string]any{"output_dir": dir, "trace_output_filename": filepath.Join(dir, "batsched_trace.csv")}
	for k, v := range opts {
		if k == "variant" || k == "rjms-delay" {
			continue
		}
		key := strings.ReplaceAll(k, "-", "_")
		switch {
		case v == "true" || v == "false":
			m[key] = v == "true"
		case k == "inertial-alteration" || k == "comparison-type":
			m[key] = v
		case k == "pstate-compute" || k == "pstate-sleep":
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, err
			}
			m[key] = n
		default:
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, fmt.Errorf("%s=%q: %w", k, v, err)
			}
			m[key] = f
		}
	}
	return json.Marshal(m)
}

// twinCase is one variant with its options besides the platform's.
type twinCase struct {
	variant string
	opts    sched.Options
}

// twinCases are the energy variants and the option sets the tier runs.
var twinCases = []twinCase{
	{"energy_watcher", nil},
	{"energy_bf", nil},
	{"energy_bf", sched.Options{"ensured-sleep-time-lower-bound": "60"}},
	{"energy_bf_monitoring_inertial", sched.Options{"monitoring-period": "120"}},
	{"energy_bf_monitoring_inertial", sched.Options{"monitoring-period": "60", "idle-time-to-sedate": "90", "sedate-idle-on-classical-events": "true", "inertial-alteration": "p1"}},
	{"energy_bf_idle_sleeper", sched.Options{"monitoring-period": "60", "idle-time-to-sedate": "120"}},
	{"energy_bf_subpart_sleeper", sched.Options{"monitoring-period": "60", "idle-time-to-sedate": "120", "fraction-of-machines-to-let-awake": "0.5"}},
}

// energyTwinTally counts, per variant, the cases and identical results.
type energyTwinTally struct {
	mu   sync.Mutex
	by   map[string]*tally
	sw   map[string]int // pstate changes in batsched's runs
	swOn map[string]int // its runs with pstate changes
}

// switches records that a run of variant v had n pstate changes (after
// the initial states).
func (e *energyTwinTally) switches(v string, n int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sw == nil {
		e.sw, e.swOn = map[string]int{}, map[string]int{}
	}
	e.sw[v] += n
	if n > 0 {
		e.swOn[v]++
	}
}

func (e *energyTwinTally) get(v string) *tally {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.by == nil {
		e.by = map[string]*tally{}
	}
	if e.by[v] == nil {
		e.by[v] = &tally{}
	}
	return e.by[v]
}

// TestEnergyTwinsMatchBatsched: through the real Batsim with --energy, on
// platforms with a sleep pstate and its switching pstates, bucma's
// batsched-energy with each variant gives the same _jobs.csv,
// _consumed_energy.csv and _pstate_changes.csv as batsched's variant with
// the same variant options. Cases where batsched stops on one of its
// assertions are counted apart, by assertion.
func TestEnergyTwinsMatchBatsched(t *testing.T) {
	bin := batsimrun.Batsim(t)
	bs := batsimrun.Batsched(t)
	n := seeds(t, 1)
	var tal energyTwinTally
	aborts := map[string]int{}
	var amu sync.Mutex
	for ci, tc := range twinCases {
		name := tc.variant
		if len(tc.opts) > 0 {
			name += fmt.Sprintf("-%d", ci)
		}
		for seed := 1; seed <= 2*n; seed++ {
			tc, seed := tc, uint64(seed)
			t.Run(fmt.Sprintf("%s/%d", name, seed), func(t *testing.T) {
				t.Parallel()
				c := tal.get(tc.variant)
				r := rand.New(rand.NewPCG(seed, 0x7477696e))
				hosts := 2 + r.IntN(6)
				xml, opts := twinPlatform(hosts, r)
				for k, v := range tc.opts {
					opts[k] = v
				}
				opts["variant"] = tc.variant
				dir := t.TempDir()
				plat, wl := writeInputs(t, dir, xml, twinWorkload(15+r.IntN(30), hosts, r))
				vj, err := variantJSON(opts, dir)
				if err != nil {
					t.Fatal(err)
				}
				vfile := filepath.Join(dir, "variant_options.json")
				if err := os.WriteFile(vfile, vj, 0o644); err != nil {
					t.Fatal(err)
				}
				o := batsimrun.Options{Batsim: bin, Args: energyArgs}
				theirs, err := batsimrun.WithScheduler(context.Background(), o, func(endpoint string) []string {
					return []string{bs, "-v", tc.variant, "-s", endpoint, "--variant_options_filepath", vfile}
				}, plat, wl, filepath.Join(dir, "batsched"))
				var bf *batsimrun.BatschedFailure
				if errors.As(err, &bf) {
					if m := batschedAssertion.FindStringSubmatch(bf.Log); m != nil {
						c.addAborted()
						// The twin stops too, on the same assertion.
						_, err := batsimrun.WithHandler(context.Background(), o, plat, wl, filepath.Join(dir, "bucma"), session(t, "batsched-energy", opts))
						stops := err != nil && strings.Contains(err.Error(), "batsched stops here on its assertion")
						amu.Lock()
						aborts[fmt.Sprintf("%s: '%s' (bucma stops too: %v)", tc.variant, m[1], stops)]++
						amu.Unlock()
						t.Skipf("no reference: batsched stops on its assertion '%s'; bucma: %v", m[1], err)
					}
				}
				if err != nil {
					t.Fatal(err)
				}
				ours, err := batsimrun.WithHandler(context.Background(), o, plat, wl, filepath.Join(dir, "bucma"), session(t, "batsched-energy", opts))
				if err != nil {
					t.Fatal(err)
				}
				ok := sameFiles(t, dir, true, filepath.Join(theirs.Dir, "out"), filepath.Join(ours.Dir, "out"), append([]string{"_jobs.csv"}, energyOutputs...),
					strings.NewReplacer("want", "batsched", "got ", "bucma"))
				c.add(ok)
				if ps, err := os.ReadFile(filepath.Join(theirs.Dir, "out_pstate_changes.csv")); err == nil {
					tal.switches(tc.variant, bytes.Count(ps, []byte("\n"))-2)
				}
			})
		}
	}
	t.Cleanup(func() {
		for _, v := range []string{"energy_watcher", "energy_bf", "energy_bf_monitoring", "energy_bf_idle_sleeper", "energy_bf_monitoring_inertial", "energy_bf_subpart_sleeper", "energy_bf_dicho"} {
			if c := tal.by[v]; c != nil {
				t.Logf("bucma batsched-energy vs batsched %s: %d of %d cases identical (_jobs.csv, _consumed_energy.csv, _pstate_changes.csv), and %d where batsched aborts; batsched switched machines in %d cases (%d pstate changes)", v, c.matching, c.cases, c.aborted, tal.swOn[v], tal.sw[v])
			}
		}
		for a, k := range aborts {
			t.Logf("batsched aborts (%d cases) in %s", k, a)
		}
	})
}
