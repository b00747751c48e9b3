// Package studytest holds what the studies' tests share: a study's plan
// read from its plan file, and a campaign run twice on the embedded engine
// with its report.
package studytest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/expe/report"
	"github.com/bucma-sched/bucma/policies"
)

// Studies returns a registry holding the studies register adds.
func Studies(register ...func(*report.Studies)) *report.Studies {
	s := report.NewStudies()
	for _, r := range register {
		r(s)
	}
	return s
}

// Plan is a built-in plan of a registry.
func Plan(t testing.TB, s *report.Studies, name string) expe.Plan {
	t.Helper()
	p, err := s.Plan(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// MustRun executes a campaign and fails the test unless every run is done.
func MustRun(t testing.TB, camp *expe.Campaign) expe.Result {
	t.Helper()
	res, err := camp.Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Failed {
		t.Error(f.String())
	}
	if n := len(camp.Plan.Expand()); res.Done != n {
		t.Fatalf("%d of %d runs done", res.Done, n)
	}
	return res
}

// SameOutputsTwice checks that two executions of the same runs, in dirs a
// and b, wrote the same non-empty _jobs.csv.
func SameOutputsTwice(t testing.TB, runs []expe.Run, a, b string) {
	t.Helper()
	for _, r := range runs {
		x, _ := os.ReadFile(filepath.Join(expe.RunDir(a, r.ID), expe.JobsFile))
		y, _ := os.ReadFile(filepath.Join(expe.RunDir(b, r.ID), expe.JobsFile))
		if len(x) == 0 || string(x) != string(y) {
			t.Errorf("run %s: outputs differ between two executions (or are empty)", r.ID)
		}
	}
}

// Embedded is the embedded engine with bucma's policies.
func Embedded() expe.Engine { return expe.NewEmbeddedEngine(policies.Builtin()) }

// CampaignTwiceReport runs plan p twice on the embedded engine (2 workers,
// then 1), checks the two executions wrote the same outputs, writes the
// first's report (its study's, from s) and returns its directory and the
// report's text.
func CampaignTwiceReport(t testing.TB, s *report.Studies, p expe.Plan) (dir, report string) {
	t.Helper()
	dir, again := t.TempDir(), t.TempDir()
	MustRun(t, &expe.Campaign{Plan: p, Dir: dir, Engine: Embedded(), Workers: 2})
	MustRun(t, &expe.Campaign{Plan: p, Dir: again, Engine: Embedded(), Workers: 1})
	SameOutputsTwice(t, p.Expand(), dir, again)
	return dir, Report(t, s, dir)
}

// Report writes a campaign's report and returns its text.
func Report(t testing.TB, s *report.Studies, dir string) string {
	t.Helper()
	path, err := report.Write(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Synthetic is an analysis of plan p built in memory, with no run yet:
// tests add runs of chosen numbers (FillRuns) and write a study's report on
// it (ReportOn), to pin what a report prints over numbers no campaign of a
// test's size gives (a near-zero base, a saturated variant). FillRuns adds
// its runs.
func Synthetic(t testing.TB, p expe.Plan, hosts int) *report.Analysis {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, report.FigDir), 0o755); err != nil {
		t.Fatal(err)
	}
	return &report.Analysis{Dir: dir, Plan: p, Hosts: hosts, Runs: map[string]*report.RunData{}}
}

// Kept and Saturated are the saturation of a run that kept up with its
// workload and of one that did not (utilization far below the offered
// load).
var (
	Kept      = analysis.Saturation{Offered: 0.8, Utilization: 0.78, EarlyWait: 100, LateWait: 110, MeanExec: 3000}
	Saturated = analysis.Saturation{Offered: 0.8, Utilization: 0.3, EarlyWait: 100, LateWait: 90000, MeanExec: 3000}
)

// ReportOn writes study st's report on analysis a and returns its text.
func ReportOn(t testing.TB, st report.Study, a *report.Analysis) string {
	t.Helper()
	r := report.New(a)
	if err := st.Report(r); err != nil {
		t.Fatal(err)
	}
	return r.Text()
}

// FillRuns adds every run of the synthetic analysis's plan, with what f
// gives for it (its metrics, saturation and study data).
func FillRuns(a *report.Analysis, f func(r expe.Run) (analysis.Metrics, analysis.Saturation, any)) {
	for _, r := range a.Plan.Expand() {
		m, sat, extra := f(r)
		a.Runs[r.ID] = &report.RunData{Run: r, Metrics: m, Saturation: sat, Extra: extra}
	}
}
