package realbatsim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/batsim/zmq"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sim"
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

// energyTwinInputs draws a case of an energy variant from r: an energy
// platform of 2 to 7 hosts (twinPlatform), the twin's options (the
// platform's, then extra's, then the variant) and a workload of 15 to 44
// jobs (twinWorkload).
func energyTwinInputs(r *rand.Rand, variant string, extra sched.Options) ([]byte, sched.Options, *workloads.Workload) {
	hosts := 2 + r.IntN(6)
	xml, opts := twinPlatform(hosts, r)
	maps.Copy(opts, extra)
	opts["variant"] = variant
	return xml, opts, twinWorkload(15+r.IntN(30), hosts, r)
}

// writeVariantOptions writes batsched's --variant_options of opts
// (variantJSON, its output files in outDir) to dir/variant_options.json,
// and returns the JSON and the file.
func writeVariantOptions(t *testing.T, opts sched.Options, outDir, dir string) ([]byte, string) {
	t.Helper()
	vj, err := variantJSON(opts, outDir)
	if err != nil {
		t.Fatal(err)
	}
	vfile := filepath.Join(dir, "variant_options.json")
	if err := os.WriteFile(vfile, vj, 0o644); err != nil {
		t.Fatal(err)
	}
	return vj, vfile
}

// energyTwinCase is one energy variant with its options besides the platform's.
type energyTwinCase struct {
	variant string
	opts    sched.Options
}

// energyTwinCases are the energy variants and the option sets the tier runs.
var energyTwinCases = []energyTwinCase{
	{"energy_watcher", nil},
	{"energy_bf", nil},
	{"energy_bf", sched.Options{"ensured-sleep-time-lower-bound": "60"}},
	{"energy_bf_monitoring_inertial", sched.Options{"monitoring-period": "120"}},
	{"energy_bf_monitoring_inertial", sched.Options{"monitoring-period": "60", "idle-time-to-sedate": "90", "sedate-idle-on-classical-events": "true", "inertial-alteration": "p1"}},
	{"energy_bf_dicho", sched.Options{"tolerated-slowdown-loss-ratio": "1.5"}},
	{"energy_bf_dicho", sched.Options{"tolerated-slowdown-loss-ratio": "1", "comparison-type": "switch_on"}},
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
	for ci, tc := range energyTwinCases {
		name := tc.variant
		if len(tc.opts) > 0 {
			name += fmt.Sprintf("-%d", ci)
		}
		for seed := 1; seed <= n; seed++ {
			tc, seed := tc, uint64(seed)
			t.Run(fmt.Sprintf("%s/%d", name, seed), func(t *testing.T) {
				t.Parallel()
				c := tal.get(tc.variant)
				xml, opts, w := energyTwinInputs(rand.New(rand.NewPCG(seed, 0x7477696e)), tc.variant, tc.opts)
				dir := t.TempDir()
				plat, wl := writeInputs(t, dir, xml, w)
				_, vfile := writeVariantOptions(t, opts, dir, dir)
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
				// The engine with the twin writes what Batsim with the twin
				// wrote.
				eng, err := simulate(t, dir, plat, wl, "batsched-energy", opts, func(cfg *sim.Config) { cfg.Energy = true })
				if err != nil {
					t.Fatalf("engine: %v", err)
				}
				var scratch tally
				eok := sameOutputs(t, &scratch, dir, " (engine vs Batsim, both with the twin)", ours, eng)
				tal.get("engine " + tc.variant).add(sameFiles(t, dir, eok, filepath.Join(ours.Dir, "out"), filepath.Join(dir, "engine"), energyOutputs, nil))
				if ps, err := os.ReadFile(filepath.Join(theirs.Dir, "out_pstate_changes.csv")); err == nil {
					tal.switches(tc.variant, bytes.Count(ps, []byte("\n"))-2)
				}
			})
		}
	}
	t.Cleanup(func() {
		for _, v := range []string{"energy_watcher", "energy_bf", "energy_bf_monitoring", "energy_bf_idle_sleeper", "energy_bf_monitoring_inertial", "energy_bf_subpart_sleeper", "energy_bf_dicho"} {
			if c := tal.by[v]; c != nil {
				t.Logf("bucma vs batsched, batsched-energy as %s: %d of %d cases identical (_jobs.csv, _consumed_energy.csv, _pstate_changes.csv), and %d where batsched aborts; batsched switched machines in %d cases (%d pstate changes)", v, c.matching, c.cases, c.aborted, tal.swOn[v], tal.sw[v])
			}
		}
		for _, v := range []string{"energy_watcher", "energy_bf", "energy_bf_idle_sleeper", "energy_bf_monitoring_inertial", "energy_bf_subpart_sleeper", "energy_bf_dicho"} {
			if c := tal.by["engine "+v]; c != nil {
				t.Logf("engine vs Batsim, both driven by batsched-energy %s: %d of %d cases identical (_jobs.csv, _schedule.csv, _consumed_energy.csv, _pstate_changes.csv)", v, c.matching, c.cases)
			}
		}
		for a, k := range aborts {
			t.Logf("bucma vs batsched, where batsched aborts: %d cases of %s", k, a)
		}
	})
}

// errEnoughMessages stops an engine run that would never end.
var errEnoughMessages = errors.New("enough messages")

// boundedScheduler passes messages to s until every one of jobs jobs has
// completed and after more messages, then stops the run
// (errEnoughMessages): energy_bf_monitoring's CALL_ME_LATER chain never
// ends, nor would the simulation.
type boundedScheduler struct {
	s           sim.Scheduler
	jobs, after int
	done        int
}

func (b *boundedScheduler) Exchange(m *batsim.Message) (*batsim.Message, error) {
	for _, ev := range m.Events {
		if ev.Type == batsim.TypeJobCompleted {
			b.done++
		}
	}
	if b.done >= b.jobs {
		if b.after == 0 {
			return nil, errEnoughMessages
		}
		b.after--
	}
	return b.s.Exchange(m)
}

// exchanges runs the engine on plat and wl with --energy against s, up to
// 20 messages after the last job ended, and returns every message
// exchanged, one per line (Batsim's then the scheduler's).
func exchanges(t *testing.T, plat, wl string, jobs int, s sim.Scheduler) []string {
	t.Helper()
	out, err := tryExchanges(t, plat, wl, jobs, s)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// tryExchanges is exchanges, returning an error where the run does not
// stop after the last job as planned (the scheduler failed).
func tryExchanges(t *testing.T, plat, wl string, jobs int, s sim.Scheduler) ([]string, error) {
	t.Helper()
	var out []string
	cfg := loadCase(t, plat, wl)
	cfg.Energy = true
	cfg.Observe = func(dir batsim.Direction, m *batsim.Message) {
		var b strings.Builder
		fmt.Fprintf(&b, "%v now=%v", dir, m.Now)
		for _, ev := range m.Events {
			fmt.Fprintf(&b, " | %s %v %+v", ev.Type, ev.Timestamp, ev.Data)
		}
		out = append(out, b.String())
	}
	// The engine reports the scheduler's error as text.
	if _, err := sim.Run(context.Background(), cfg, &boundedScheduler{s: s, jobs: jobs, after: 20}); err == nil || !strings.Contains(err.Error(), errEnoughMessages.Error()) {
		return nil, fmt.Errorf("engine: %v (want the run stopped after the last job)", err)
	}
	return out, nil
}

// sameExchanges compares the messages of a run with batsched (theirs)
// and one with bucma (ours), reporting the first that differs.
func sameExchanges(t *testing.T, theirs, ours []string) bool {
	t.Helper()
	for i := 0; i < len(theirs) && i < len(ours); i++ {
		if theirs[i] != ours[i] {
			t.Errorf("message %d differs:\n  batsched: %s\n  bucma:    %s", i, theirs[i], ours[i])
			return false
		}
	}
	if len(theirs) != len(ours) {
		t.Errorf("%d messages with batsched, %d with bucma", len(theirs), len(ours))
		return false
	}
	return true
}

// TestEnergyBFMonitoringMatchesBatsched: energy_bf_monitoring never ends
// under Batsim 4.2.1 (its monitoring CALL_ME_LATER chain goes on after the
// last job, and Batsim does not end while a call is pending: it wrote
// nothing after 700 000 simulated seconds, 11 958 messages), so the twin is
// compared with batsched through the embedded engine, which plays Batsim
// 4.2.1's role message for message (TestEnergyMatchesBatsim): the same
// messages both ways, up to 20 messages after the last job ended.
func TestEnergyBFMonitoringMatchesBatsched(t *testing.T) {
	bs := batsimrun.Batsched(t)
	var c tally
	var mu sync.Mutex
	msgs, switches := 0, 0
	for seed := 1; seed <= seeds(t, 1); seed++ {
		seed := uint64(seed)
		t.Run(strconv.Itoa(int(seed)), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(seed, 0x6d6f6e69))
			xml, opts, w := energyTwinInputs(r, "energy_bf_monitoring", nil)
			opts["monitoring-period"] = []string{"60", "120", "600"}[r.IntN(3)]
			dir := t.TempDir()
			plat, wl := writeInputs(t, dir, xml, w)
			_, vfile := writeVariantOptions(t, opts, dir, dir)
			ep, stop := startScheduler(t, func(ep string) []string {
				return []string{bs, "-v", "energy_bf_monitoring", "-s", ep, "--variant_options_filepath", vfile}
			})
			defer stop()
			rs, err := zmq.Remote(context.Background(), ep, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			defer rs.Close()
			theirs := exchanges(t, plat, wl, len(w.Jobs), rs)
			ours := exchanges(t, plat, wl, len(w.Jobs), sim.InProcess(session(t, "batsched-energy", opts)))
			ok := sameExchanges(t, theirs, ours)
			c.add(ok)
			mu.Lock()
			msgs += len(theirs)
			for _, m := range theirs {
				switches += strings.Count(m, "SET_RESOURCE_STATE")
			}
			mu.Unlock()
		})
	}
	t.Cleanup(func() {
		t.Logf("bucma vs batsched, batsched-energy as energy_bf_monitoring (through the engine, the variant never ending under Batsim): %d of %d cases with the same messages both ways up to 20 messages after the last job (%d messages, %d SET_RESOURCE_STATE)", c.matching, c.cases, msgs, switches)
	})
}

// startScheduler starts the scheduler argv(endpoint) gives on a free
// loopback port, and returns its endpoint and how to stop it (which
// returns what it wrote).
func startScheduler(t *testing.T, argv func(endpoint string) []string) (string, func() string) {
	t.Helper()
	for attempt := 0; attempt < 5; attempt++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		ep := "tcp://127.0.0.1:" + strconv.Itoa(port)
		ctx, cancel := context.WithCancel(context.Background())
		var log bytes.Buffer
		args := argv(ep)
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		cmd.Stdout, cmd.Stderr = &log, &log
		if err := cmd.Start(); err != nil {
			cancel()
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
			cancel()
			if strings.Contains(log.String(), "ddress already in use") {
				continue
			}
			t.Fatalf("%s stopped at once:\n%s", filepath.Base(args[0]), log.String())
		case <-time.After(300 * time.Millisecond):
		}
		stopped := false
		return ep, func() string {
			if !stopped {
				stopped = true
				cancel()
				<-done
			}
			return log.String()
		}
	}
	t.Fatal("no free port for the scheduler")
	return "", nil
}

// TestEnergyPolicyMatchesBatsim: the textbook energy policy (idle timeout,
// wake-ups timed by the switch-on delay, inertial shutdown, hosts kept on,
// EASY and conservative)
// drives the real Batsim with --energy to the end on the energy platforms,
// and the engine writes the same _jobs.csv, _schedule.csv,
// _consumed_energy.csv and _pstate_changes.csv.
func TestEnergyPolicyMatchesBatsim(t *testing.T) {
	bin := batsimrun.Batsim(t)
	var c tally
	optionSets := []sched.Options{
		{"idle-off": "0"},
		{"idle-off": "60", "keep-awake": "0.3"},
		{"idle-off": "never", "monitor": "120", "wake": "needed"},
		{"idle-off": "200", "monitor": "300", "inertia": "+1", "min-sleep": "100"},
		{"backfill": "conservative", "idle-off": "30"},
	}
	for i, set := range optionSets {
		for seed := 1; seed <= seeds(t, 1); seed++ {
			set, seed := set, uint64(seed)
			t.Run(fmt.Sprintf("%d/%d", i, seed), func(t *testing.T) {
				t.Parallel()
				r := rand.New(rand.NewPCG(seed, 0x74657874))
				hosts := 2 + r.IntN(6)
				xml, vo := twinPlatform(hosts, r)
				opts := sched.Options{"switch-on": vo["time-switch-on"], "switch-off": vo["time-switch-off"]}
				for k, v := range set {
					opts[k] = v
				}
				dir := t.TempDir()
				plat, wl := writeInputs(t, dir, xml, twinWorkload(15+r.IntN(30), hosts, r))
				real, err := batsimrun.WithHandler(context.Background(), batsimrun.Options{Batsim: bin, Args: energyArgs}, plat, wl, filepath.Join(dir, "batsim"), session(t, "energy", opts))
				if err != nil {
					t.Fatal(err)
				}
				ours, err := simulate(t, dir, plat, wl, "energy", opts, func(cfg *sim.Config) { cfg.Energy = true })
				if err != nil {
					t.Fatalf("engine: %v", err)
				}
				var scratch tally
				ok := sameOutputs(t, &scratch, dir, fmt.Sprintf(" (energy %v)", opts), real, ours)
				c.add(sameFiles(t, dir, ok, filepath.Join(dir, "batsim", "out"), filepath.Join(dir, "engine"), energyOutputs, nil))
			})
		}
	}
	t.Cleanup(func() {
		t.Logf("energy policy, engine vs Batsim: %d of %d cases identical (_jobs.csv, _schedule.csv, _consumed_energy.csv, _pstate_changes.csv)", c.matching, c.cases)
	})
}

// twinGoldens are real-Batsim runs of batsched's energy variants recorded
// in testdata/golden (go test -run TestEnergyTwinGoldens -update-goldens):
// the twins, in the engine, must write the same files where neither
// Batsim nor batsched is installed.
var twinGoldens = []struct {
	name string
	tc   energyTwinCase
	seed uint64
}{
	{"twin-energy_bf", energyTwinCase{"energy_bf", nil}, 3},
	{"twin-energy_bf_dicho", energyTwinCase{"energy_bf_dicho", sched.Options{"tolerated-slowdown-loss-ratio": "1.5"}}, 4},
	{"twin-energy_bf_monitoring_inertial", energyTwinCase{"energy_bf_monitoring_inertial", sched.Options{"monitoring-period": "120"}}, 5},
	{"twin-energy_bf_idle_sleeper", energyTwinCase{"energy_bf_idle_sleeper", sched.Options{"monitoring-period": "60", "idle-time-to-sedate": "120"}}, 6},
	{"twin-energy_bf_subpart_sleeper", energyTwinCase{"energy_bf_subpart_sleeper", sched.Options{"monitoring-period": "60", "idle-time-to-sedate": "120", "fraction-of-machines-to-let-awake": "0.5"}}, 7},
}

func TestEnergyTwinGoldens(t *testing.T) {
	var bin, bs string
	if *updateGoldens {
		bin, bs = batsimrun.Batsim(t), batsimrun.Batsched(t)
	}
	for _, g := range twinGoldens {
		t.Run(g.name, func(t *testing.T) {
			dir := filepath.Join("testdata", "golden", g.name)
			plat, wl := filepath.Join(dir, "platform.xml"), filepath.Join(dir, "workload.json")
			xml, opts, w := energyTwinInputs(rand.New(rand.NewPCG(g.seed, 0x7477696e)), g.tc.variant, g.tc.opts)
			outs := append([]string{"_jobs.csv", "_schedule.csv"}, energyOutputs...)
			if *updateGoldens {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				writeInputs(t, dir, xml, w)
				tmp := t.TempDir()
				vj, vfile := writeVariantOptions(t, opts, "/tmp", tmp)
				if _, err := batsimrun.WithScheduler(context.Background(), batsimrun.Options{Batsim: bin, Args: energyArgs}, func(endpoint string) []string {
					return []string{bs, "-v", g.tc.variant, "-s", endpoint, "--variant_options_filepath", vfile}
				}, plat, wl, tmp); err != nil {
					t.Fatal(err)
				}
				recordOutputs(t, tmp, dir, outs)
				cmd := fmt.Sprintf("# recorded with Batsim %s --energy driven by batsched 1.4.0:\nbatsched -v %s --variant_options '%s' -s tcp://127.0.0.1:28000 &\nbatsim -p platform.xml -w workload.json -e out --energy -s tcp://127.0.0.1:28000\n# bucma's twin: bucma simulate -p platform.xml -w workload.json --energy --scheduler batsched-energy%s\n",
					batsimrun.Version, g.tc.variant, vj, optionArgs(opts))
				if err := os.WriteFile(filepath.Join(dir, "cmd.txt"), []byte(cmd), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got := t.TempDir()
			if _, err := simulate(t, got, plat, wl, "batsched-energy", opts, func(cfg *sim.Config) { cfg.Energy = true }); err != nil {
				t.Fatalf("engine: %v", err)
			}
			checkGoldenOutputs(t, dir, filepath.Join(got, "engine"), outs, "batsched's")
		})
	}
}

// optionArgs is opts as " -o key=value" arguments, in key order.
func optionArgs(opts sched.Options) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		fmt.Fprintf(&b, " -o %s=%s", k, opts[k])
	}
	return b.String()
}
