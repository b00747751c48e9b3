package sge

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/expe/report"
	"github.com/bucma-sched/bucma/studies/internal/studytest"
)

// TestSGEPlan: the ten scenarios, each on the platform its application is
// calibrated for; the round robin from each start host, with platform and
// equal slots; sizes that do not apply are refused.
func TestSGEPlan(t *testing.T) {
	s := studytest.Studies(Register)
	p := studytest.Plan(t, s, SGEPlan)
	if len(p.Cases) != 10 || len(p.Variants) != 11 || len(p.Expand()) != 110 {
		t.Fatalf("%d cases, %d variants, %d runs", len(p.Cases), len(p.Variants), len(p.Expand()))
	}
	if got := p.PlatformOf("pi50-13"); got != "sge-pi50" {
		t.Errorf("pi50-13 on %s", got)
	}
	if got := p.PlatformOf("sw-17"); got != "sge" {
		t.Errorf("sw-17 on %s", got)
	}
	if r := p.Recipe("sw-17"); r.Fields.String("app") != "sw" || r.Fields.Float("tasks") != 17 {
		t.Errorf("sw-17 recipe %+v", r)
	}
	if err := p.Applies("jobs"); err == nil {
		t.Error("--jobs applies to the fixed scenarios")
	}
	if err := p.Applies("loads"); err == nil {
		t.Error("--loads applies to the scenarios")
	}
	q, err := p.With(expe.Overrides{Quick: true})
	if err != nil || len(q.Seeds) != 1 {
		t.Errorf("--quick: %v, %d seeds", err, len(q.Seeds))
	}
	bad := p
	bad.Cases = append([]expe.WorkloadCase(nil), p.Cases...)
	bad.Cases[0].Fields = bad.Cases[0].Fields.Clone()
	bad.Cases[0].Fields.Set("app", "nope")
	if err := bad.Check(); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown application: %v", err)
	}
}

// TestSGECampaignReport runs the whole plan on the embedded engine and
// reads the report: the tables beside the paper's, where the tasks went,
// the equal-slots reading of scenario 10, the figure.
func TestSGECampaignReport(t *testing.T) {
	s := studytest.Studies(Register)
	p := studytest.Plan(t, s, SGEPlan)
	dir, text := studytest.CampaignTwiceReport(t, s, p)
	for _, want := range []string{
		"| 13 | 193.6 (194) | 167.2 (175) | 158.4 (158) | 158.4 (158) | 22.22 (22.78) | 5.56 (10.76) |",
		"| 17, default with 5 slots on h4 | 242.0 (242) |",
		"| sw-17 | [5, 4, 4, 4] | [5, 4, 4, 4] | h4 |",
		"| pi80-13 | [4, 3, 3, 3] | [3, 3, 3, 4] | h4 |",
		"18 of 30 are the paper's value once rounded to the whole second (its tables give whole seconds), 27 of 30 within 1 s of it.",
		"**Saturation.** 0 of 110 runs saturated. 110 of them have every job submitted at once",
		"With equal slots (5,5,5,5) the worst case (start at h4) is 242.0 s",
		"fig/sge-gains.png",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, ext := range []string{".png", ".svg"} {
		if _, err := os.Stat(filepath.Join(dir, report.FigDir, "sge-gains"+ext)); err != nil {
			t.Error(err)
		}
	}
	checkUtilization(t, s, dir)
}

// checkUtilization: under compute sharing (up to 5 tasks a host) every
// run's utilization is the busy fraction of the hosts, at most 1: its busy
// host-time, read from _jobs.csv, is Batsim's time_computing of the
// engine's _schedule.csv. Scenario sw-13 load-balanced keeps the 4 hosts
// busy 541.2 host-seconds over its makespan of 158.400005 s: 0.854; res ×
// execution over the same gave 2.8125.
func checkUtilization(t *testing.T, s *report.Studies, dir string) {
	t.Helper()
	st, _ := s.Study(SGEPlan)
	a, err := report.Analyze(dir, st)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range a.RunIDs() {
		m := a.Runs[id].Metrics
		tc, err := analysis.ScheduleValue(filepath.Join(expe.RunDir(dir, id), expe.ScheduleFile), "time_computing")
		if err != nil {
			t.Fatal(err)
		}
		if !(m.Utilization > 0 && m.Utilization <= 1) || math.Abs(m.Busy-tc) > 1e-5*float64(m.Ran) {
			t.Errorf("run %s: utilization %v, busy %v host-seconds, time_computing %v", id, m.Utilization, m.Busy, tc)
		}
	}
	m := a.Runs["loadbalanced_sw-13_s001"].Metrics
	if want := 541.2 / (4 * 158.400005); math.Abs(m.Utilization-want) > 1e-9 {
		t.Errorf("sw-13 load-balanced: utilization %v, want %v", m.Utilization, want)
	}
}

// The SGE report refuses a gain over a near-zero load-balanced makespan and
// says which runs saturated (a synthetic analysis: scenario pi50-5's
// load-balanced makespan is 0.4 s; one run of the round robin saturated,
// the others have no submission span).
func TestSGEReportNearZeroAndSaturation(t *testing.T) {
	s := studytest.Studies(Register)
	p := studytest.Plan(t, s, SGEPlan)
	a := studytest.Synthetic(t, p, 4)
	noSpan := analysis.Saturation{Offered: math.NaN(), Utilization: math.NaN(), EarlyWait: math.NaN(), LateWait: math.NaN(), MeanExec: 10}
	studytest.FillRuns(a, func(r expe.Run) (analysis.Metrics, analysis.Saturation, any) {
		mk := 100.0
		if r.Variant.Name == SGELoadBalancedVariant && r.Case == "pi50-5" {
			mk = 0.4
		}
		sat := noSpan
		if r.Variant.Name == sgeRRPrefix+"3" && r.Case == "sw-5" {
			sat = studytest.Saturated
		}
		return analysis.Metrics{Makespan: mk, Hosts: 4}, sat, &sgeCell{makespan: mk, perHost: []int{1, 1, 1, 2}}
	})
	st, _ := s.Study(SGEPlan)
	text := studytest.ReportOn(t, st, a)
	for _, want := range []string{
		"| 5 | 100.0 (25) | 100.0 (24) | 100.0 (23) | 0.4 (23) | " + analysis.NearZero + " (8.70) | " + analysis.NearZero + " (4.35) |",
		"**Saturation.** 1 of 110 runs saturated (rr-start3: 1; values over them are marked †). 109 of them have every job submitted at once",
		// The gains of sw-5 involve the saturated start at h4; the other
		// rows' do not.
		"| 5 | 100.0 (97) | 100.0 (87) | 100.0 (79) | 100.0 (79) | 0.00 (22.78)† | 0.00 (10.13)† |",
		"| 9 | 100.0 (146) | 100.0 (131) | 100.0 (119) | 100.0 (119) | 0.00 (22.69) | 0.00 (10.08) |",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
