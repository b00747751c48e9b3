package expe

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/workloads"
	"github.com/bucma-sched/bucma/workloads/gen"
)

// lublinPlan is a campaign on the Lublin–Feitelson generator: its
// parameters in a plan file, the run's load level reached on the platform.
const lublinPlan = `name: lublin-plan
platform: lille
workload:
  generator: lublin
  jobs: 400
  users: 8
  walltime: factor
  walltime_factor: 2
  set: "interactive.pa=0"
loads: [0.7]
seeds: 1-2
variants:
  - {name: easy, policy: easy}
`

// A plan file names the lublin generator with its parameters; each run's
// workload is the model's trace for the run's seed, on the platform's hosts
// at the run's load, the same as "bucma workload lublin" makes it.
func TestLublinInPlanFile(t *testing.T) {
	p, err := parseTestPlan(t.TempDir(), lublinPlan)
	if err != nil {
		t.Fatal(err)
	}
	r := p.Recipe("")
	w, err := gen.Default().Make(r, 2, 0.7, workloads.LilleHostSpeeds())
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 400 || w.NbRes != 39 {
		t.Fatalf("%d jobs, nb_res %d", len(w.Jobs), w.NbRes)
	}
	if l, err := w.OfferedLoad(39, 1); err != nil || math.Abs(l-0.7) > 1e-3 {
		t.Errorf("offered load %g (%v), want 0.7", l, err)
	}
	g, _ := gen.Default().Generator("lublin")
	v, err := gen.ValuesOf(g.Params, r.Fields)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := workloads.GenerateLublin(gen.LublinOptionsFrom(v, 400, 2, 0.7, 39))
	if err != nil {
		t.Fatal(err)
	}
	direct, err := tr.Workload()
	if err != nil {
		t.Fatal(err)
	}
	a, _ := w.Bytes()
	b, _ := direct.Bytes()
	if string(a) != string(b) {
		t.Error("the campaign's workload differs from the generator's")
	}
	if tr.Classes[1].PA != 0 || !strings.Contains(string(w.Meta("meta")), `"walltime":"factor"`) {
		t.Errorf("parameters not applied: %+v, meta %s", tr.Classes, w.Meta("meta"))
	}
	for _, j := range direct.Jobs {
		rt := direct.Profiles[j.Profile].Delay
		if j.Walltime != math.Ceil(2*rt) {
			t.Fatalf("job %s: walltime %g for run time %g (factor 2)", j.ID, j.Walltime, rt)
		}
	}
}

// Bad lublin parameters in a plan file are refused with the line and key.
func TestLublinPlanFileErrors(t *testing.T) {
	for _, c := range []struct {
		old, new string
		line     int
		key, msg string
	}{
		{"walltime: factor", "walltime: tsafrir", 7, "workload.walltime", `"tsafrir" is not one of uniform, factor, exact, none`},
		{"walltime_factor: 2", "walltime_factor: 0.5", 8, "workload.walltime_factor", "must be in [1, 1e+06]"},
		{"users: 8", "users: -1", 6, "workload.users", "must be at least 0"},
		{`set: "interactive.pa=0"`, `set: "interactive.p=0"`, 3, "workload", `unknown parameter "p"`},
		{`set: "interactive.pa=0"`, `set: "batch.umed=9"`, 3, "workload", "batch class: ulow 1.2, umed 9, uhi 7"},
	} {
		_, err := parseTestPlan(t.TempDir(), strings.Replace(lublinPlan, c.old, c.new, 1))
		var pe *PlanFileError
		if !errors.As(err, &pe) || pe.Line != c.line || pe.Key != c.key || !strings.Contains(pe.Msg, c.msg) {
			t.Errorf("%s: got %v, want line %d, key %q, %q", c.new, err, c.line, c.key, c.msg)
		}
	}
}
