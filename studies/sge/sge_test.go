package sge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/expe"
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
	dir, report := studytest.CampaignTwiceReport(t, s, p)
	for _, want := range []string{
		"| 13 | 193.6 (194) | 167.2 (175) | 158.4 (158) | 158.4 (158) | 22.22 (22.78) | 5.56 (10.76) |",
		"| 17, default with 5 slots on h4 | 242.0 (242) |",
		"| sw-17 | [5, 4, 4, 4] | [5, 4, 4, 4] | h4 |",
		"| pi80-13 | [4, 3, 3, 3] | [3, 3, 3, 4] | h4 |",
		"27 of 30 within 1 s of the paper",
		"With equal slots (5,5,5,5) the worst case (start at h4) is 242.0 s",
		"fig/sge-gains.png",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, ext := range []string{".png", ".svg"} {
		if _, err := os.Stat(filepath.Join(dir, expe.FigDir, "sge-gains"+ext)); err != nil {
			t.Error(err)
		}
	}
}
