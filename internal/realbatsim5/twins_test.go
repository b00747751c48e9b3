package realbatsim5

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/bucma-sched/bucma/internal/scenario"
	"github.com/bucma-sched/bucma/workloads"
)

// twin pairs one of Batsim 5's test decision components (test/edc-lib,
// installed as libNAME.so) with the bucma policy that takes its decisions.
type twin struct {
	edc     string // library name, without lib and .so
	edcInit string // its init string
	policy  string
	opts    map[string]string
	// plain marks bucma's own policy compared with the component: its
	// count is reported, its differences are not failures.
	plain bool
}

var twins = []twin{
	// fcfs: submission order, stop at the first job that does not fit,
	// lowest free host ids: bucma's fcfs with first-fit hosts, with the
	// rejections placed before the starts (edc-fcfs); plain fcfs is
	// compared too (TestFCFSPlacement).
	{edc: "fcfs", edcInit: `{}`, policy: "edc-fcfs"},
	// easy: EASY backfilling on a host count, lowest free host ids, jobs
	// without walltime rejected: bucma's easy with those options, but for
	// jobs that end at the same instant (edc-easy; plain easy is compared
	// too).
	{edc: "easy", edcInit: `{}`, policy: "edc-easy"},
	{edc: "easy", edcInit: `{}`, policy: "easy", opts: map[string]string{"hosts": "first-fit", "no-walltime": "reject"}, plain: true},
	{edc: "exec1by1", edcInit: ``, policy: "edc-exec1by1"},
	{edc: "rejecter", edcInit: ``, policy: "edc-rejecter"},
	{edc: "killer", edcInit: `{"kill_delay": 6.5}`, policy: "edc-killer", opts: map[string]string{"kill-delay": "6.5"}},
}

// twinWorkloads are seeded scenario workloads (bursts of equal submission
// times, jobs too big for the platform, walltimes shorter and longer than
// the run times, delay, computation and composed profiles) on seeded
// platforms, converted to Batsim 5's format.
func twinWorkloads(t *testing.T, root string) (cases []struct{ name, plat, wl string }) {
	t.Helper()
	shapes := []scenario.Shape{scenario.HeteroTies, scenario.ClusterBackbone, scenario.FullMultiHop, scenario.OneHost}
	mixes := []struct {
		name string
		mix  scenario.Mix
	}{
		{"delay", scenario.Mix{Jobs: 40}},
		{"compute", scenario.Mix{Jobs: 30, Compute: true, Composed: true}},
	}
	n := seeds(t, 2)
	for _, sh := range shapes {
		for _, m := range mixes {
			for seed := uint64(1); seed <= uint64(n); seed++ {
				name := fmt.Sprintf("%s-%s-%d", sh, m.name, seed)
				dir := filepath.Join(root, name)
				p, hosts := scenario.Platform(sh, seed)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				plat := filepath.Join(dir, "platform.xml")
				if err := os.WriteFile(plat, p, 0o644); err != nil {
					t.Fatal(err)
				}
				w, err := workloads.Parse(scenario.Workload(seed, hosts, m.mix), name)
				if err != nil {
					t.Fatal(err)
				}
				cases = append(cases, struct{ name, plat, wl string }{name, plat, writeV5Workload(t, w, dir)})
			}
		}
	}
	return cases
}

// TestTwins compares, jobs.csv byte for byte, each of Batsim 5's test
// decision components with its bucma twin served over ZeroMQ and as a
// library.
func TestTwins(t *testing.T) {
	batsim5(t)
	dir := edcDir(t)
	lib := library(t)
	cases := twinWorkloads(t, filepath.Join(tmpRoot, "twins"))
	total, same := 0, 0
	for _, tw := range twins {
		tw := tw
		t.Run(tw.edc+"/"+tw.policy, func(t *testing.T) {
			n, ok := 0, 0
			for _, c := range cases {
				out := filepath.Join(filepath.Dir(c.wl), tw.edc)
				ref, _, err := viaLibrary(t, filepath.Join(dir, "lib"+tw.edc+".so"), c.plat, c.wl, filepath.Join(out, "edc"), tw.edcInit)
				if err != nil {
					t.Errorf("%s: Batsim's %s: %v", c.name, tw.edc, err)
					continue
				}
				init := initString(t, tw.policy, tw.opts)
				for _, via := range transports {
					r, _, err := runVia(t, via, lib, c.plat, c.wl, filepath.Join(out, via), init)
					n++
					if err != nil {
						t.Errorf("%s: bucma %s over %s: %v", c.name, tw.policy, via, err)
						continue
					}
					if !bytes.Equal(ref.Jobs, r.Jobs) {
						if !tw.plain {
							t.Errorf("%s: bucma %s over %s: jobs.csv differs from Batsim's %s, %s", c.name, tw.policy, via, tw.edc, firstDiff(ref.Jobs, r.Jobs))
						}
						continue
					}
					ok++
				}
			}
			if tw.plain {
				t.Logf("bucma's own %s against Batsim's %s: identical jobs.csv %d/%d (the others differ where running jobs end at the same instant)", tw.policy, tw.edc, ok, n)
				return
			}
			total += n
			same += ok
			t.Logf("twin of Batsim's %s: bucma %s identical jobs.csv %d/%d (%d workloads, ZeroMQ and library)", tw.edc, tw.policy, ok, n, len(cases))
		})
	}
	t.Logf("Batsim 5 test EDC twins: identical jobs.csv %d/%d", same, total)
}

// TestTwinEasyLille compares Batsim's easy component with edc-easy on the
// bundled 7056-job Lille workload (up to 39 running jobs: rehashed
// containers and std::sort's introsort, many jobs ending at the same
// instant), bucma as a library.
func TestTwinEasyLille(t *testing.T) {
	batsim5(t)
	dir := edcDir(t)
	lib := library(t)
	root := filepath.Join(tmpRoot, "twin-lille")
	wl := writeV5(t, filepath.Join("..", "..", "workloads", "lille-7056.json"), root)
	plat := platformPath("lille")
	ref, _, err := viaLibrary(t, filepath.Join(dir, "libeasy.so"), plat, wl, filepath.Join(root, "edc"), `{}`, "-q")
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := viaLibrary(t, lib, plat, wl, filepath.Join(root, "bucma"), `{"policy": "edc-easy"}`, "-q")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ref.Jobs, got.Jobs) {
		t.Fatalf("jobs.csv differs, %s", firstDiff(ref.Jobs, got.Jobs))
	}
	t.Logf("twin of Batsim's easy on the 7056-job Lille workload: identical jobs.csv (%d lines)", bytes.Count(got.Jobs, []byte("\n")))
}
