package realbatsim

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/bucma-sched/bucma/internal/corpus"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit/batsimrun"
	"github.com/bucma-sched/bucma/workloads"
)

// TestLublinComputeProfiles: a Lublin workload of compute profiles (what
// `bucma workload lublin --profile-type compute` writes), EASY choosing
// the fastest hosts on a platform of eight host speeds: the real Batsim and
// the engine give the same jobs, and they are not those of the delay
// profiles (host speed matters).
func TestLublinComputeProfiles(t *testing.T) {
	b := batsimrun.Batsim(t)
	dir := t.TempDir()
	platXML, err := os.ReadFile(corpus.Path("hetero8_compute", "platform.xml"))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := policies.Builtin().Lookup("easy")
	if err != nil {
		t.Fatal(err)
	}
	opts := sched.Options{"hosts": "fastest"}
	var jobs [2][]byte
	for i, r := range []workloads.RuntimeProfiles{{}, {Type: workloads.ProfileTypeCompute, Speed: 1e9}} {
		tr, err := workloads.GenerateLublin(workloads.LublinOptions{Jobs: 80, Seed: 11, Hosts: 8, Load: 0.9, Profiles: r})
		if err != nil {
			t.Fatal(err)
		}
		w, err := tr.Workload()
		if err != nil {
			t.Fatal(err)
		}
		d := filepath.Join(dir, r.Type+"profiles")
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		plat, wl := writeInputs(t, d, platXML, w)
		real, err := batsimrun.Policy(context.Background(), batsimrun.Options{Batsim: b}, spec, opts, plat, wl, filepath.Join(d, "batsim"))
		if err != nil {
			t.Fatal(err)
		}
		ours, err := simulate(t, d, plat, wl, "easy", opts)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(real.Jobs, ours) {
			keep(t, d)
			t.Fatalf("%s profiles: the engine's _jobs.csv differs from Batsim's, first at %s", r.Type, firstDiff(real.Jobs, ours))
		}
		if bytes.Count(ours, []byte("\n")) != 81 {
			t.Fatalf("%s profiles: %d lines", r.Type, bytes.Count(ours, []byte("\n")))
		}
		jobs[i] = ours
	}
	if bytes.Equal(jobs[0], jobs[1]) {
		t.Fatal("compute and delay profiles gave the same jobs")
	}
}
