package batsimrun

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit"
	"github.com/bucma-sched/bucma/workloads"
)

// SameAsEngine is the differential test of a policy: it runs spec with
// opts on the platform and workload files through bucma's embedded engine
// and through the real Batsim, and fails the test unless both write the
// same _jobs.csv, byte for byte (the first differing line is shown). It
// skips the test, saying so, where Batsim is not installed. It returns
// the engine's rows.
func SameAsEngine(t testing.TB, spec *sched.Spec, opts sched.Options, platform, workload string) []map[string]string {
	t.Helper()
	bin := Batsim(t)
	plat, err := platforms.Resolve(platform)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(workload)
	if err != nil {
		t.Fatal(err)
	}
	wl, err := workloads.Parse(raw, workload)
	if err != nil {
		t.Fatal(err)
	}
	eng := testkit.Simulate(t, testkit.EngineRun{Platform: plat, Workloads: []*workloads.Workload{wl}, Spec: spec, Options: opts})
	want, err := os.ReadFile(eng.Prefix + "_jobs.csv")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Policy(context.Background(), Options{Batsim: bin}, spec, opts, platform, workload, filepath.Join(t.TempDir(), "batsim"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(res.Jobs, want) {
		a, b := strings.Split(string(want), "\n"), strings.Split(string(res.Jobs), "\n")
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("%s: _jobs.csv line %d differs:\nengine: %s\nbatsim: %s", spec.Name, i+1, a[i], b[i])
			}
		}
		t.Fatalf("%s: _jobs.csv: %d lines through the engine, %d through Batsim", spec.Name, len(a), len(b))
	}
	return eng.Jobs
}

// WriteFiles writes a platform (PlatformXML) and a workload (WorkloadJSON)
// into dir and returns their paths, for SameAsEngine on hand-made cases.
func WriteFiles(t testing.TB, dir string, hosts []testkit.Host, jobs []testkit.Job) (platform, workload string) {
	t.Helper()
	platform, workload = filepath.Join(dir, "platform.xml"), filepath.Join(dir, "workload.json")
	if err := os.WriteFile(platform, []byte(testkit.PlatformXML(hosts)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(workload, testkit.WorkloadJSON(jobs), 0o644); err != nil {
		t.Fatal(err)
	}
	return platform, workload
}
