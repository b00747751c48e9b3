package report

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/policies"
)

// smallPlan is a campaign of four runs of the embedded engine: two
// variants at two load levels.
const smallPlan = `name: small
platform: lille
workload: {generator: lille, jobs: 40}
loads: [0.7, 1]
seeds: [1]
variants:
  - {name: fcfs, policy: fcfs}
  - {name: easy, policy: easy}
`

// runSmall runs smallPlan into a new campaign directory.
func runSmall(t *testing.T) (string, expe.Plan) {
	t.Helper()
	p, err := expe.ParsePlanFile([]byte(smallPlan), expe.PlanFileOptions{Name: "small.yaml", Policies: policies.Builtin()})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	camp := &expe.Campaign{Plan: p, Dir: dir, Engine: expe.NewEmbeddedEngine(policies.Builtin()), Workers: 2}
	res, err := camp.Execute(context.Background())
	if err != nil || len(res.Failed) != 0 || res.Done != len(p.Expand()) {
		t.Fatalf("campaign: %+v, %v", res, err)
	}
	return dir, p
}

func readReport(t *testing.T, dir string) string {
	t.Helper()
	path, err := Write(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// The report of a campaign with several load levels has a section and a
// distribution figure per level; a run not done is said missing; a
// completed run whose outputs changed since it finished is refused, named
// with its file.
func TestReportOfACampaign(t *testing.T) {
	dir, p := runSmall(t)
	text := readReport(t, dir)
	for _, l := range []string{"0.7", "1"} {
		if _, err := os.Stat(filepath.Join(dir, FigDir, "cdf_waiting_l"+l+".svg")); err != nil || !strings.Contains(text, "cdf_waiting_l"+l+".png") {
			t.Errorf("distribution figure of load %s: %v", l, err)
		}
		if !strings.Contains(text, "## load level "+l+"\n") {
			t.Errorf("the report has no section for load %s", l)
		}
	}
	if again := readReport(t, dir); again != text {
		t.Errorf("the report of the same runs differs:\n%s\n----\n%s", again, text)
	}

	runs := p.Expand()
	if err := os.RemoveAll(expe.RunDir(dir, runs[0].ID)); err != nil {
		t.Fatal(err)
	}
	if text := readReport(t, dir); !strings.Contains(text, "(**1 missing**") {
		t.Errorf("the report does not mention the missing run:\n%s", text)
	}

	jobs := filepath.Join(expe.RunDir(dir, runs[1].ID), expe.JobsFile)
	data, err := os.ReadFile(jobs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(jobs, []byte(strings.Replace(string(data), "COMPLETED_SUCCESSFULLY", "COMPLETED_SUCCESSFULLX", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(dir, nil); err == nil || !strings.Contains(err.Error(), "run "+runs[1].ID+": "+jobs) {
		t.Errorf("report on a tampered run: %v", err)
	}
}

// The metrics the comparison report defines are the ones a plan may name
// (expe.ReportMetrics), in that order.
func TestReportMetricsDefined(t *testing.T) {
	var names []string
	for _, m := range reportMetricDefs {
		names = append(names, m.name)
	}
	if !slices.Equal(names, expe.ReportMetrics) {
		t.Errorf("defined %v, a plan names %v", names, expe.ReportMetrics)
	}
	for _, m := range expe.DefaultReportMetrics {
		if !slices.Contains(names, m) {
			t.Errorf("default metric %s not defined", m)
		}
	}
}

// A study registry knows its built-in plans by name.
func TestStudiesPlan(t *testing.T) {
	s := NewStudies()
	s.AddPlan("small", []byte(smallPlan))
	if _, err := s.Plan("nope"); err == nil || !strings.Contains(err.Error(), `unknown plan "nope" (valid: small)`) {
		t.Errorf("unknown plan: %v", err)
	}
	if p, err := s.Plan("small"); err != nil || p.Name != "small" || len(p.Variants) != 2 {
		t.Errorf("small: %+v, %v", p, err)
	}
}
