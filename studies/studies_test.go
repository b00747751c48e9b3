package studies

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/workloads/gen"
	json "github.com/goccy/go-json"
)

// The built-in plans, read from their plan files, are the plans bucma
// built in Go before plan files existed: testdata/plans holds the
// plan.json each wrote then, with its default sizes and with --quick, and
// a campaign's plan.json is that JSON.
func TestBuiltinPlansKeepTheirJSON(t *testing.T) {
	s := Builtin()
	if len(s.PlanNames()) != 11 {
		t.Fatalf("%d built-in plans: %v", len(s.PlanNames()), s.PlanNames())
	}
	for _, name := range s.PlanNames() {
		// The plan file passes the checks a user's file gets.
		file, _ := s.PlanFile(name)
		if _, err := expe.ParsePlanFile(file, expe.PlanFileOptions{Name: name + ".yaml", Studies: s.Kinds(), Policies: policies.Builtin()}); err != nil {
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

// docs/campaigns.md lists every generator and step with its parameters, as
// they are declared: gen's and the studies' (the bot generator is
// studies/bot's), every one bucma knows once this package is linked.
func TestCampaignsDocListsDeclarations(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "campaigns.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	reg := gen.Default()
	row := func(name string) string {
		i := strings.Index(doc, "| `"+name+"` |")
		if i < 0 {
			return ""
		}
		return doc[i : i+strings.Index(doc[i:], "\n")]
	}
	check := func(kind, name string, ps []gen.Param, jobs bool) {
		r := row(name)
		if r == "" {
			t.Errorf("docs/campaigns.md: no row for the %s %s", kind, name)
			return
		}
		names := gen.ParamNames(ps)
		if jobs {
			names = append(names, "jobs")
		}
		for _, p := range names {
			if !strings.Contains(r, "`"+p+"`") {
				t.Errorf("docs/campaigns.md: the %s %s's row lacks its parameter %s", kind, name, p)
			}
		}
	}
	for _, name := range reg.Names() {
		g, _ := reg.Generator(name)
		check("generator", name, g.Params, g.Jobs > 0)
	}
	for _, name := range reg.StepNames() {
		s, _ := reg.Step(name)
		check("step", name, s.Params, false)
	}
	for _, m := range expe.ReportMetrics {
		if !strings.Contains(doc, "`"+m+"`") {
			t.Errorf("docs/campaigns.md does not name the report metric %s", m)
		}
	}
}
