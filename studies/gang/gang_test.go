package gang

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/expe/report"
	"github.com/bucma-sched/bucma/metrics"
	"github.com/bucma-sched/bucma/studies/internal/studytest"
)

// jobRow is a job on the hosts 0 to res − 1.
func jobRow(submit, start, finish float64, res int) analysis.JobRow {
	return analysis.JobRow{Submit: submit, Start: start, Finish: finish, Exec: finish - start, Wait: start - submit,
		Turnaround: finish - submit, Res: res, Alloc: fmt.Sprintf("0-%d", res-1), HasTimes: true, FinalState: metrics.SuccessState, Success: true}
}

// TestGangMetrics: on 4 processors, A (2 tasks) runs 0-10; B (4) waits
// 0-10 and runs 10-20; C (1) arrives at 5, waits behind B, runs 20-30.
// Idle processors that a waiting job could use: 2 during 5-10 (C fits,
// B does not), so the loss of capacity is 2 × 5 / (4 × 30) = 8.33 %.
func TestGangMetrics(t *testing.T) {
	rows := []analysis.JobRow{jobRow(0, 0, 10, 2), jobRow(0, 10, 20, 4), jobRow(5, 20, 30, 1), {Res: 8, FinalState: "REJECTED"}}
	if got := GangLoC(rows, 4); math.Abs(got-100*10.0/120) > 1e-9 {
		t.Errorf("loss of capacity %f, want 8.333", got)
	}
	if got := GangUtilization(rows, 4); math.Abs(got-100*(20+40+10)/120.0) > 1e-9 {
		t.Errorf("utilization %f", got)
	}
	art := GangARTAt(rows, []int{1, 2, 3, 4})
	if art[0] != 10 || art[1] != 15 || math.Abs(art[2]-(10+20+25)/3.0) > 1e-9 || !math.IsNaN(art[3]) {
		t.Errorf("ART %v", art)
	}
	if !math.IsNaN(GangLoC(nil, 4)) {
		t.Error("loss of capacity of no job")
	}
}

// TestGangPlan: the paper's two scenarios × three disciplines × three
// migration settings, on the multicluster, 10 seeds of 3000 jobs.
func TestGangPlan(t *testing.T) {
	p := studytest.Plan(t, studytest.Studies(Register), GangPlan)
	if len(p.Variants) != 18 || len(p.Seeds) != 10 || p.Workload.Jobs != 3000 || p.Platform != "mcmca" {
		t.Fatalf("%d variants, %d seeds, %d jobs, platform %s", len(p.Variants), len(p.Seeds), p.Workload.Jobs, p.Platform)
	}
	q, err := p.With(expe.Overrides{Quick: true})
	if err != nil || len(q.Seeds) != expe.QuickSeeds || q.Workload.Jobs != expe.QuickJobs {
		t.Errorf("--quick: %v, %d seeds, %d jobs", err, len(q.Seeds), q.Workload.Jobs)
	}
	for _, v := range p.Variants {
		if v.Options["ld"] == "" || v.Options["queue"] == "" || v.Options["migration"] == "" {
			t.Errorf("variant %s: options %v", v.Name, v.Options)
		}
	}
}

// TestGangCampaignReport runs a small campaign and reads its report: the
// ART tables beside Tables 3 and 4, loss of capacity, the paper's
// findings checked, the figures.
func TestGangCampaignReport(t *testing.T) {
	s := studytest.Studies(Register)
	p, err := studytest.Plan(t, s, GangPlan).With(expe.Overrides{Seeds: 1, Jobs: 500})
	if err != nil {
		t.Fatal(err)
	}
	// The same plan gives the same outputs (OLB's shuffles are seeded).
	dir, text := studytest.CampaignTwiceReport(t, s, p)
	for _, want := range []string{
		"## Table 3: scenario S1, local dispatcher OLB", "## Table 4: scenario S2, local dispatcher JSEQ",
		"| 500 |", "(40133)", "(11941)", "| olb-afcfsm |", "(3.48)", "(≈ 50)",
		"- (a) Local migration cuts ART", "- (g) Without migration AFCFS",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(text, "| 1000 |") {
		t.Error("the ART table goes past the campaign's 500 jobs")
	}
	for _, f := range []string{"gang-art-s1.png", "gang-art-s2.svg"} {
		if _, err := os.Stat(filepath.Join(dir, report.FigDir, f)); err != nil {
			t.Error(err)
		}
	}
}

// The gang report refuses a reduction over a near-zero ART and marks what
// involves a saturated run (a synthetic analysis: the variants without
// migration saturate; OLB AFCFS's ART is 0.5 s).
func TestGangReportNearZeroAndSaturation(t *testing.T) {
	s := studytest.Studies(Register)
	p, err := studytest.Plan(t, s, GangPlan).With(expe.Overrides{Seeds: 3})
	if err != nil {
		t.Fatal(err)
	}
	a := studytest.Synthetic(t, p, 384)
	studytest.FillRuns(a, func(r expe.Run) (analysis.Metrics, analysis.Saturation, any) {
		v := r.Variant
		art, sat := 1e4+float64(r.Seed), studytest.Kept
		if v.Options["migration"] == "none" {
			art, sat = 5e4+float64(r.Seed), studytest.Saturated
		}
		if v.Name == "olb-afcfs" {
			art = 0.5
		}
		arts := make([]float64, len(gangKs))
		for i := range arts {
			arts[i] = art
		}
		return analysis.Metrics{Jobs: 3000, Ran: 3000, Hosts: 384}, sat, &gangRun{artAt: arts, loc: 10, util: 50, ran: 3000, artBySize: map[int]float64{1: art}}
	})
	st, _ := s.Study(GangPlan)
	text := studytest.ReportOn(t, st, a)
	for _, want := range []string{
		"OLB AFCFS " + analysis.NearZero + analysis.SaturatedMark,
		"OLB LXF 80.0 % [3/3]*" + analysis.SaturatedMark, // (5e4 − 1e4) / 5e4 on every seed
		"| saturated runs | 3 of 3 | 0 of 3 |",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	found := 0
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "| olb-afcfs |"):
			found++
			if !strings.Contains(l, "**yes**, 3 of 3 runs") {
				t.Errorf("saturation column: %s", l)
			}
		case strings.HasPrefix(l, "| olb-afcfsm |"):
			found++
			if !strings.HasSuffix(l, "| no |") {
				t.Errorf("saturation column: %s", l)
			}
		}
	}
	if found != 2 {
		t.Errorf("%d rows of the loss-of-capacity table found", found)
	}
}
