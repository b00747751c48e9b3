package studies

import (
	"os"
	"path/filepath"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/policies"
)

// The built-in plans, read from their plan files, are the plans bucma
// built in Go before plan files existed: testdata/plans holds the
// plan.json each wrote then, with its default sizes and with --quick, and
// a campaign's plan.json is that JSON.
func TestBuiltinPlansKeepTheirJSON(t *testing.T) {
	s := Builtin()
	if len(s.PlanNames()) != 10 {
		t.Fatalf("%d built-in plans: %v", len(s.PlanNames()), s.PlanNames())
	}
	for _, name := range s.PlanNames() {
		// The plan file passes the checks a user's file gets.
		file, _ := s.PlanFile(name)
		if _, err := expe.ParsePlanFile(file, expe.PlanFileOptions{Name: name + ".yaml", Studies: s, Policies: policies.Builtin()}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The plans that were Go code before plan files (the explorations,
	// bucma-weights and walltime-trust-threshold, came as files).
	for _, name := range s.PlanNames()[:8] {
		p, err := s.Plan(name)
		if err != nil {
			t.Fatal(err)
		}
		q, err := p.With(expe.Overrides{Quick: true})
		if err != nil {
			t.Fatal(err)
		}
		for file, plan := range map[string]expe.Plan{name + ".json": p, name + ".quick.json": q} {
			want, err := os.ReadFile(filepath.Join("testdata", "plans", file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(plan, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if string(append(got, '\n')) != string(want) {
				t.Errorf("%s: the plan file gives\n%s\nwant\n%s", file, got, want)
			}
			back, err := expe.ParsePlan(got)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			again, _ := json.MarshalIndent(back, "", "  ")
			if string(again) != string(got) {
				t.Errorf("%s: plan.json does not read back as it was written", file)
			}
		}
	}
}
