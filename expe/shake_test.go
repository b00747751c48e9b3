package expe

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/workloads"
	"github.com/bucma-sched/bucma/workloads/gen"
)

// shakePlan is testPlan's walltime-trust plan, 2 seeds, shaken into 3
// copies.
func shakePlan(t *testing.T) Plan {
	t.Helper()
	p := testPlan(t, "walltime-trust", 2)
	p.Shake = &ShakeSpec{Submit: 30, RuntimePercent: 5, Copies: 3}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	return p
}

// A shaken plan runs every variant on each copy of each seed's workload;
// ids and keys say the copy; the plan without shake is as before.
func TestShakeExpand(t *testing.T) {
	p := shakePlan(t)
	plain := p
	plain.Shake = nil
	runs, before := p.Expand(), plain.Expand()
	if len(runs) != 3*len(before) {
		t.Fatalf("%d runs, want 3 × %d", len(runs), len(before))
	}
	for _, r := range before {
		if r.Copy != 0 || strings.Contains(r.ID, "_c0") {
			t.Errorf("unshaken run %+v", r)
		}
	}
	v := p.Variants[0].Name
	if r := runs[len(p.Variants)]; r.Copy != 2 || r.Seed != 1 || r.Workload != "s001_l"+FormatLoad(p.Loads[0])+"_c002" || r.ID != v+"_"+r.Workload {
		t.Errorf("run %+v", r)
	}
	if keys := p.WorkloadKeys(); len(keys) != 3*len(plain.WorkloadKeys()) {
		t.Errorf("workloads %v", keys)
	}
	// The seeds of the copies are distinct and a function of (seed, copy).
	seen := map[uint64]bool{}
	for s := uint64(1); s <= 100; s++ {
		for c := 1; c <= 100; c++ {
			k := ShakeSeed(s, c)
			if seen[k] {
				t.Fatalf("seed %d, copy %d: shake seed %d drawn twice", s, c, k)
			}
			seen[k] = true
		}
	}
	if ShakeSeed(7, 3) != ShakeSeed(7, 3) {
		t.Error("ShakeSeed is not a function")
	}
}

// A plan.json with hostile shaking is refused by its check.
func TestShakeCheck(t *testing.T) {
	for _, c := range []struct {
		s   ShakeSpec
		msg string
	}{
		{ShakeSpec{Submit: 30, Copies: 0}, "shake: 0 copies: must be in 1..100000"},
		{ShakeSpec{Submit: 30, Copies: 1e9}, "shake: 1000000000 copies: must be in 1..100000"},
		{ShakeSpec{Submit: -1, Copies: 3}, "shake: the submission time bound must be in [0, 1e+07] s (got -1)"},
		{ShakeSpec{Submit: 1, RuntimePercent: 100, Copies: 3}, "shake: the run time bound must be in [0, 100) % (got 100 %)"},
		{ShakeSpec{Submit: 1, RuntimeSeconds: 2e7, Copies: 3}, "(got 2e+07)"},
		{ShakeSpec{Submit: 1, Copies: 50000}, "× 50000 shaken copies: more than 100000 runs"},
	} {
		p := testPlan(t, "walltime-trust", 2)
		p.Shake = &c.s
		if err := p.Check(); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: got %v, want %q", c.s, err, c.msg)
		}
	}
	p := testPlan(t, "walltime-trust", 1)
	p.Shake, p.Kind = &ShakeSpec{Submit: 1, Copies: 2}, "walltime-trust"
	if err := p.Check(); err == nil || !strings.Contains(err.Error(), "does not read shaken copies") {
		t.Errorf("with a study: %v", err)
	}
}

// The copies of a campaign are made from the seed's workload, once each,
// the same whatever the workers; the workload itself is made once per
// seed and load.
func TestShakenWorkloads(t *testing.T) {
	p := shakePlan(t)
	var files map[string][]byte
	for _, workers := range []int{1, 3} {
		dir := t.TempDir()
		camp := newCampaign(p, dir, newFakeEngine(), workers)
		made := countMade(camp)
		if _, err := camp.Execute(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(made) != 2 || made[WorkloadKey(1, p.Loads[0])] != 1 {
			t.Errorf("workloads made: %v", made)
		}
		got := map[string][]byte{}
		for _, k := range p.WorkloadKeys() {
			data, err := os.ReadFile(WorkloadPath(dir, k))
			if err != nil {
				t.Fatal(err)
			}
			got[k] = data
		}
		if _, err := os.Stat(WorkloadPath(dir, WorkloadKey(1, p.Loads[0]))); err == nil {
			t.Error("the unshaken workload was kept")
		}
		if files != nil && !reflect.DeepEqual(files, got) {
			t.Errorf("%d workers made other workloads", workers)
		}
		files = got
	}
	// Each copy is the seed's workload shaken with the copy's seed; two
	// copies differ.
	base, _ := fakeWorkload(p.Workload, 2, p.Loads[0], "/")
	want, err := ShakeWorkload(base, *p.Shake, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	k := ShakenKey(WorkloadKey(2, p.Loads[0]), 3)
	if !bytes.Equal(files[k], want) {
		t.Errorf("workload %s is not seed 2's shaken as copy 3", k)
	}
	if bytes.Equal(files[k], files[ShakenKey(WorkloadKey(2, p.Loads[0]), 2)]) {
		t.Error("copies 2 and 3 are the same")
	}
	w, err := workloads.Parse(files[k], k)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 12 || !strings.Contains(string(w.Meta("meta")), `"generator":"shake"`) {
		t.Errorf("copy: %d jobs, meta %s", len(w.Jobs), w.Meta("meta"))
	}
}

// A shaken campaign interrupted midway resumes to the outputs of an
// uninterrupted one; the same directory with other shaking is another
// experiment.
func TestShakenCampaignResumes(t *testing.T) {
	p := shakePlan(t)
	total := len(p.Expand())
	dir := t.TempDir()
	eng := newFakeEngine()
	res, err := newCampaign(p, dir, eng, 1).Execute(interruptAt(eng, 7))
	if !errors.Is(err, context.Canceled) || res.Done != 6 {
		t.Fatalf("interrupted: %+v, %v", res, err)
	}
	eng.hook = nil
	res, err = newCampaign(p, dir, eng, 2).Execute(context.Background())
	if err != nil || res.Skipped != 6 || res.Done != total-6 {
		t.Fatalf("resumed: %+v, %v", res, err)
	}
	ref := t.TempDir()
	if _, err := newCampaign(p, ref, newFakeEngine(), 3).Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	if a, b := outputsOf(t, dir), outputsOf(t, ref); !reflect.DeepEqual(a, b) {
		t.Error("resumed and uninterrupted shaken campaigns give different outputs")
	}
	for _, k := range p.WorkloadKeys() {
		a, _ := os.ReadFile(WorkloadPath(dir, k))
		b, _ := os.ReadFile(WorkloadPath(ref, k))
		if !bytes.Equal(a, b) {
			t.Errorf("workload %s differs", k)
		}
	}
	other := p
	other.Shake = &ShakeSpec{Submit: 60, RuntimePercent: 5, Copies: 3}
	if _, err := newCampaign(other, dir, newFakeEngine(), 1).Execute(context.Background()); err == nil || !strings.Contains(err.Error(), "another experiment") {
		t.Errorf("other shaking in the same directory: %v", err)
	}
	plain := p
	plain.Shake = nil
	if _, err := newCampaign(plain, dir, newFakeEngine(), 1).Execute(context.Background()); err == nil || !strings.Contains(err.Error(), "another experiment") {
		t.Errorf("no shaking in the same directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, PlanFile)); err != nil {
		t.Fatal(err)
	}
}

// A copy that cannot be made (run times of computation profiles) fails
// with the copy's workload named.
func TestShakenWorkloadError(t *testing.T) {
	p := shakePlan(t)
	camp := newCampaign(p, t.TempDir(), newFakeEngine(), 1)
	camp.MakeWorkload = func(gen.Recipe, uint64, float64, string) ([]byte, error) {
		return []byte(`{"nb_res": 1, "jobs": [{"id": 1, "subtime": 0, "res": 1, "profile": "c"}], "profiles": {"c": {"type": "parallel_homogeneous", "cpu": 1e9, "com": 0}}}`), nil
	}
	_, err := camp.Execute(context.Background())
	if err == nil || !strings.Contains(err.Error(), "workload s001_l"+FormatLoad(p.Loads[0])+"_c001 (seed 1, load") || !strings.Contains(err.Error(), "run times are shaken on delay profiles only") {
		t.Errorf("got %v", err)
	}
}

// A shaken campaign prepared for a batch system (Slurm's submission
// prepares the directory, its array tasks run their shards by id) runs each
// copy's runs once, on the copies prepared with it.
func TestShakenExecuteRuns(t *testing.T) {
	p := shakePlan(t)
	dir, prep := preparedCampaign(t, p)
	if len(prep.Pending) != len(p.Expand()) {
		t.Fatalf("%d runs pending, want %d", len(prep.Pending), len(p.Expand()))
	}
	inputs, err := InputDigests(dir, p, prep.Pending)
	if err != nil {
		t.Fatal(err)
	}
	eng := newFakeEngine()
	for shard := range 2 {
		var ids []string
		for i, r := range prep.Pending {
			if i%2 == shard {
				ids = append(ids, r.ID)
			}
		}
		c := newCampaign(p, dir, eng, 2)
		c.Inputs = inputs
		if res, err := c.ExecuteRuns(context.Background(), ids); err != nil || res.Done != len(ids) {
			t.Fatalf("shard %d: %+v, %v", shard, res, err)
		}
	}
	for _, r := range p.Expand() {
		if eng.completed[r.ID] != 1 || r.Copy < 1 || !strings.HasSuffix(r.Workload, ShakenKey("", r.Copy)) {
			t.Errorf("run %+v completed %d times", r, eng.completed[r.ID])
		}
	}
}

// The generators that say their profiles are computations (plan files
// refuse to shake their run times) make computations, the others of
// bucma's that need no file make delays.
func TestGeneratorsComputations(t *testing.T) {
	reg := gen.Default()
	for _, name := range reg.Names() {
		g, _ := reg.Generator(name)
		if name == "file" || name == "swf" {
			continue // the file's profiles (swf: delays, its own test)
		}
		r := gen.Recipe{Generator: name}
		if g.Jobs > 0 {
			r.Jobs = 30
		}
		load := 0.0
		if g.Load {
			load = 0.7
		}
		w, err := reg.Make(r, 1, load, workloads.LilleHostSpeeds())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("%s: %d jobs, computations %v", name, len(w.Jobs), g.Computations)
		for _, j := range w.Jobs {
			if delay := w.Profiles[j.Profile].Type == workloads.TypeDelay; delay == g.Computations {
				t.Errorf("%s: job %s has a %s profile, the generator says Computations = %v", name, j.ID, w.Profiles[j.Profile].Type, g.Computations)
				break
			}
		}
	}
}
