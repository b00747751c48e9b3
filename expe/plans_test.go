package expe

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The built-in plans' files, for the tests of the runner (the studies are
// other packages, which import this one). The bot plan is not among them:
// its generator is its study's (package studies/bot), whose tests, and
// package studies', read it.
var builtinPlanFiles = map[string]string{
	"bucma-model":                "../studies/bucma/bucma-model.yaml",
	"walltime-trust":             "../studies/bucma/walltime-trust.yaml",
	"bucma-sensitivity":          "../studies/bucma/bucma-sensitivity.yaml",
	"walltime-trust-sensitivity": "../studies/bucma/walltime-trust-sensitivity.yaml",
	"osep":                       "../studies/osep/plan.yaml",
	"sge":                        "../studies/sge/plan.yaml",
	"gang":                       "../studies/gang/plan.yaml",
	"prio":                       "../studies/prio/plan.yaml",
}

// testStudies are the built-in plans' kinds: the studies a plan file of
// these tests may name.
func testStudies() []string {
	return append([]string{""}, slices.Sorted(maps.Keys(builtinPlanFiles))...)
}

// builtinPlan reads a built-in plan's file.
func builtinPlan(t testing.TB, name string) Plan {
	t.Helper()
	path, ok := builtinPlanFiles[name]
	if !ok {
		t.Fatalf("no built-in plan %s", name)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParsePlanFile(data, PlanFileOptions{Name: filepath.Base(path), Studies: testStudies()})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
