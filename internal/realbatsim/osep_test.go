package realbatsim

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sim"
	"github.com/bucma-sched/bucma/testkit/batsimrun"
	"github.com/bucma-sched/bucma/workloads"
)

// osepCase is one OSEP run: a thesis demand with a late user, a policy
// and its checkpoint block, with or without acknowledged registrations.
type osepCase struct {
	policy, late, demand string
	checkpoint           string
	ack                  bool
	seed                 uint64
}

func (c osepCase) String() string {
	ack := "ack"
	if !c.ack {
		ack = "noack"
	}
	return fmt.Sprintf("%s/%s-late/%s/ckpt%s/%s/%d", c.policy, c.late, c.demand, c.checkpoint, ack, c.seed)
}

func (c osepCase) args() []string {
	if c.ack {
		return []string{"--enable-dynamic-jobs", "--acknowledge-dynamic-jobs"}
	}
	return []string{"--enable-dynamic-jobs"}
}

// writeOSEP writes the OSEP grid and the case's workload into dir.
func writeOSEP(t *testing.T, dir string, c osepCase) (plat, wl string) {
	t.Helper()
	p, err := platforms.BundledXML("osep")
	if err != nil {
		t.Fatal(err)
	}
	w, err := workloads.GenerateOSEP(workloads.OSEPOptions{Demand: c.demand, Late: c.late, LateBy: 360, Seed: c.seed})
	if err != nil {
		t.Fatal(err)
	}
	return writeInputs(t, dir, p, w)
}

// simulateDyn is simulate with Batsim's dynamic jobs on, as in the case.
func simulateDyn(t *testing.T, dir, plat, wl string, c osepCase) ([]byte, error) {
	return simulate(t, dir, plat, wl, c.policy, c.opts(), func(cfg *sim.Config) {
		cfg.DynamicJobs, cfg.AcknowledgeDynamicJob = true, c.ack
	})
}

func (c osepCase) opts() sched.Options {
	return sched.Options{"checkpoint": c.checkpoint}
}

// osepCases are the thesis' cases for both policies, with and without
// checkpoints, and a few runs without acknowledgments.
func osepCases(n int) []osepCase {
	var out []osepCase
	for seed := 1; seed <= n; seed++ {
		for _, policy := range []string{"osep", "osep-hetero"} {
			for _, late := range []string{"user1", "user4"} {
				for _, demand := range []string{"small", "medium", "large"} {
					for _, ck := range []string{"0", "600"} {
						out = append(out, osepCase{policy, late, demand, ck, true, uint64(seed)})
					}
				}
				out = append(out, osepCase{policy, late, "large", "600", false, uint64(seed)})
			}
		}
	}
	return out
}

// TestOSEPMatchesBatsim: the real Batsim, run with dynamic jobs and driven
// by bucma's osep and osep-hetero (kills, resubmissions, periodic calls,
// registration_finished), ends normally and writes the same _jobs.csv,
// byte for byte, as bucma's engine. Every original job completes once;
// most cases preempt (a late user may also be served by hosts that free up
// before a round, then nothing is preempted). _schedule.csv agrees too,
// but for the version and the wall-clock times.
func TestOSEPMatchesBatsim(t *testing.T) {
	bin := batsimrun.Batsim(t)
	var c, preempting tally
	for _, oc := range osepCases(seeds(t, 1)) {
		oc := oc
		t.Run(oc.String(), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			plat, wl := writeOSEP(t, dir, oc)
			real, err := batsimrun.WithHandler(context.Background(), batsimrun.Options{Batsim: bin, Args: oc.args()}, plat, wl, filepath.Join(dir, "batsim"), session(t, oc.policy, oc.opts()))
			if err != nil {
				t.Fatal(err)
			}
			killed, pieces := bytes.Count(real.Jobs, []byte("COMPLETED_KILLED")), bytes.Count(real.Jobs, []byte(",w0.r,"))
			if killed != pieces {
				t.Errorf("%d jobs killed but %d pieces resubmitted", killed, pieces)
			}
			preempting.add(killed > 0)
			if n := strings.Count(string(real.Jobs), "COMPLETED_SUCCESSFULLY"); n != 40 {
				t.Errorf("%d jobs completed successfully, want the 40 of the workload (each once)", n)
			}
			ours, err := simulateDyn(t, dir, plat, wl, oc)
			if err != nil {
				t.Fatalf("engine: %v", err)
			}
			sameOutputs(t, &c, dir, "", real, ours)
		})
	}
	t.Cleanup(func() {
		t.Logf("OSEP, engine vs Batsim: %d of %d cases identical; %d of them preempt", c.matching, c.cases, preempting.matching)
		if 2*preempting.matching < preempting.cases {
			t.Errorf("only %d of %d cases preempt: the differential test no longer exercises kills", preempting.matching, preempting.cases)
		}
	})
}

// osepGoldens are real-Batsim OSEP runs recorded in testdata/golden, which
// the engine must reproduce byte for byte even where Batsim is absent.
var osepGoldens = []struct {
	name string
	c    osepCase
}{
	// checkpoints keep whole blocks of preempted jobs
	{"osep-hetero-user1-late-large-ckpt600", osepCase{"osep-hetero", "user1", "large", "600", true, 3}},
	// registrations without acknowledgment
	{"osep-user4-late-medium-noack", osepCase{"osep", "user4", "medium", "0", false, 4}},
}

func TestOSEPGoldens(t *testing.T) {
	var bin string
	if *updateGoldens {
		bin = batsimrun.Batsim(t)
	}
	for _, g := range osepGoldens {
		t.Run(g.name, func(t *testing.T) {
			dir := filepath.Join("testdata", "golden", g.name)
			plat, wl := filepath.Join(dir, "platform.xml"), filepath.Join(dir, "workload.json")
			want := filepath.Join(dir, "out_jobs.csv")
			if *updateGoldens {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				writeOSEP(t, dir, g.c)
				res, err := batsimrun.WithHandler(context.Background(), batsimrun.Options{Batsim: bin, Args: g.c.args()}, plat, wl, t.TempDir(), session(t, g.c.policy, g.c.opts()))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(want, res.Jobs, 0o644); err != nil {
					t.Fatal(err)
				}
				cmd := fmt.Sprintf("# recorded with Batsim %s driven by bucma:\nbucma run --scheduler %s -o checkpoint=%s -s tcp://127.0.0.1:28000 &\nbatsim -p platform.xml -w workload.json -e out -s tcp://127.0.0.1:28000 %s\n",
					batsimrun.Version, g.c.policy, g.c.checkpoint, strings.Join(g.c.args(), " "))
				if err := os.WriteFile(filepath.Join(dir, "cmd.txt"), []byte(cmd), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			expected, err := os.ReadFile(want)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(expected, []byte("COMPLETED_KILLED")) {
				t.Fatalf("the golden %s has no preemption", g.name)
			}
			got, err := simulateDyn(t, t.TempDir(), plat, wl, g.c)
			if err != nil {
				t.Fatalf("engine: %v", err)
			}
			if !bytes.Equal(expected, got) {
				t.Errorf("the engine's _jobs.csv differs from Batsim's, first difference at %s", firstDiff(expected, got))
			}
		})
	}
}
