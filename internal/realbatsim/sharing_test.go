package realbatsim

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/internal/scenario"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sim"
	"github.com/bucma-sched/bucma/testkit/batsimrun"
	"github.com/bucma-sched/bucma/workloads"
)

// sharingArgs is Batsim's option of compute sharing.
var sharingArgs = []string{"--enable-compute-sharing"}

// withSharing is the engine's equivalent.
func withSharing(cfg *sim.Config) { cfg.ComputeSharing = true }

// randomSlots gives n hosts 1 to 4 slots each, drawn from seed.
func randomSlots(n int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 0x736c6f74))
	parts := make([]string, n)
	for i := range parts {
		parts[i] = strconv.Itoa(1 + r.IntN(4))
	}
	return strings.Join(parts, ",")
}

// sharingPolicies are the host-sharing policies and options the
// differential test drives Batsim with.
var sharingPolicies = []struct {
	name   string
	policy string
	opts   sched.Options
}{
	{"loadbalanced", "sge-loadbalanced", nil},
	{"rr", "sge-default-rr", sched.Options{"start": "random"}},
	{"least-load", "sge-default-rr", sched.Options{"choice": "least-load"}},
}

// TestComputeSharingMatchesBatsim: the real Batsim run with
// --enable-compute-sharing, driven by the SGE policies with 1 to 4 slots
// per host (several jobs computing, communicating or sleeping on one host
// at once, sequences, walltimes), ends normally and writes the same
// _jobs.csv, byte for byte, as bucma's engine with compute sharing (and
// the same _schedule.csv but for the version and the wall-clock times), on
// every platform shape and workload mix of the tier.
func TestComputeSharingMatchesBatsim(t *testing.T) {
	bin := batsimrun.Batsim(t)
	n := seeds(t, 1)
	var c, shared tally
	for _, pol := range sharingPolicies {
		for _, shape := range scenario.Shapes {
			if shape == scenario.Large {
				continue // 1024 hosts: nothing more to share than on the others
			}
			for mname, mix := range mixes {
				for seed := 1; seed <= n; seed++ {
					pol, shape, mname, mix, seed := pol, shape, mname, mix, uint64(seed)
					t.Run(fmt.Sprintf("%s/%s/%s/%d", pol.name, shape, mname, seed), func(t *testing.T) {
						t.Parallel()
						dir := t.TempDir()
						plat, wl := writeCase(t, dir, shape, seed, mix)
						p, err := platforms.Load(plat)
						if err != nil {
							t.Fatal(err)
						}
						opts := sched.Options{"slots": randomSlots(len(p.Hosts), seed)}
						for k, v := range pol.opts {
							opts[k] = v
						}
						real, err := batsimrun.WithHandler(context.Background(), batsimrun.Options{Batsim: bin, Args: sharingArgs}, plat, wl, filepath.Join(dir, "batsim"), session(t, pol.policy, opts))
						if err != nil {
							t.Fatal(err)
						}
						shared.add(overlapping(t, real.Jobs))
						busyIsTimeComputing(t, real, len(p.Hosts))
						ours, err := simulate(t, dir, plat, wl, pol.policy, opts, withSharing)
						if err != nil {
							t.Fatalf("engine: %v", err)
						}
						sameOutputs(t, &c, dir, ", slots "+opts["slots"], real, ours)
					})
				}
			}
		}
	}
	t.Cleanup(func() {
		t.Logf("compute sharing, engine vs Batsim: %d of %d cases identical; %d of them run two jobs on one host at once", c.matching, c.cases, shared.matching)
		if 2*shared.matching < shared.cases {
			t.Errorf("only %d of %d cases share a host: the test no longer exercises compute sharing", shared.matching, shared.cases)
		}
	})
}

// TestSGEScenariosMatchBatsim: every scenario of the SGE seed (pi with 50
// and 80 decimals, Smith-Waterman; 5 to 17 tasks) on the bundled
// prototype, under the load-balanced choice and the default's worst round
// robin, ends the same on the real Batsim and in the engine.
func TestSGEScenariosMatchBatsim(t *testing.T) {
	bin := batsimrun.Batsim(t)
	var c tally
	for _, app := range workloads.SGEApps {
		for _, n := range app.Tasks {
			for _, pol := range []struct {
				policy string
				opts   sched.Options
			}{{"sge-loadbalanced", nil}, {"sge-default-rr", sched.Options{"start": "3"}}} {
				app, n, pol := app, n, pol
				t.Run(fmt.Sprintf("%s/%d/%s%s", app.Name, n, pol.policy, pol.opts["start"]), func(t *testing.T) {
					t.Parallel()
					dir := t.TempDir()
					plat, wl := writeSGE(t, dir, app, n)
					real, err := batsimrun.WithHandler(context.Background(), batsimrun.Options{Batsim: bin, Args: sharingArgs}, plat, wl, filepath.Join(dir, "batsim"), session(t, pol.policy, pol.opts))
					if err != nil {
						t.Fatal(err)
					}
					ours, err := simulate(t, dir, plat, wl, pol.policy, pol.opts, withSharing)
					if err != nil {
						t.Fatalf("engine: %v", err)
					}
					sameOutputs(t, &c, dir, "", real, ours)
				})
			}
		}
	}
	t.Cleanup(func() { t.Logf("SGE scenarios, engine vs Batsim: %d of %d cases identical", c.matching, c.cases) })
}

// writeSGE writes a scenario and the bundled platform it is meant for.
func writeSGE(t *testing.T, dir string, app workloads.SGEApp, n int) (plat, wl string) {
	t.Helper()
	p, err := platforms.BundledXML(app.Platform)
	if err != nil {
		t.Fatal(err)
	}
	w, err := workloads.GenerateSGE(workloads.SGEOptions{App: app.Name, Tasks: n})
	if err != nil {
		t.Fatal(err)
	}
	return writeInputs(t, dir, p, w)
}

// scheduleDiff compares Batsim's _schedule.csv with the engine's, every
// value but the version and the wall-clock times; "" when they agree.
func scheduleDiff(t *testing.T, real []byte, oursPath string) string {
	t.Helper()
	ours, err := os.ReadFile(oursPath)
	if err != nil {
		t.Fatal(err)
	}
	parse := func(b []byte) map[string]string {
		rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil || len(rows) != 2 || len(rows[0]) != len(rows[1]) {
			t.Fatalf("_schedule.csv: %v (%d rows)", err, len(rows))
		}
		m := map[string]string{}
		for i, k := range rows[0] {
			m[k] = rows[1][i]
		}
		return m
	}
	a, b := parse(real), parse(ours)
	var diffs []string
	for k, v := range a {
		switch k {
		case "batsim_version", "scheduling_time", "simulation_time":
			continue
		}
		if b[k] != v {
			diffs = append(diffs, fmt.Sprintf("%s: batsim %s, bucma %s", k, v, b[k]))
		}
	}
	if len(a) != len(b) {
		diffs = append(diffs, fmt.Sprintf("%d keys, bucma %d", len(a), len(b)))
	}
	sort.Strings(diffs)
	return strings.Join(diffs, "; ")
}

// busyIsTimeComputing checks the reports' busy host-time, read from
// Batsim's _jobs.csv (a host busy while at least one job runs on it), against
// Batsim's own time_computing, and the utilization against its bound of 1.
func busyIsTimeComputing(t *testing.T, real *batsimrun.Result, hosts int) {
	t.Helper()
	rows, err := analysis.ReadJobsCSV(bytes.NewReader(real.Jobs))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(real.Schedule)).ReadAll()
	if err != nil || len(recs) != 2 {
		t.Fatalf("_schedule.csv: %v", err)
	}
	tc := math.NaN()
	for i, k := range recs[0] {
		if k == "time_computing" {
			tc, _ = strconv.ParseFloat(recs[1][i], 64)
		}
	}
	m := analysis.Compute(rows, hosts)
	if math.Abs(m.Busy-tc) > 1e-5*float64(m.Ran+1) || m.Utilization > 1 {
		t.Errorf("busy host-time %v from _jobs.csv, Batsim's time_computing %v; utilization %v", m.Busy, tc, m.Utilization)
	}
}

// overlapping reports whether two jobs of a _jobs.csv ran on a common host
// at the same time.
func overlapping(t *testing.T, jobsCSV []byte) bool {
	t.Helper()
	rows, err := analysis.ReadJobsCSV(bytes.NewReader(jobsCSV))
	if err != nil {
		t.Fatal(err)
	}
	hosts := make([]batsim.IntervalSet, len(rows))
	for i := range rows {
		if hosts[i], err = rows[i].Hosts(); err != nil {
			t.Fatal(err)
		}
	}
	for i, a := range rows {
		for k, b := range rows[:i] {
			if a.Rejected() || b.Rejected() || !(a.Start < b.Finish && b.Start < a.Finish && a.Finish > a.Start && b.Finish > b.Start) {
				continue
			}
			for _, h := range hosts[i] {
				if slices.Contains(hosts[k], h) {
					return true
				}
			}
		}
	}
	return false
}
