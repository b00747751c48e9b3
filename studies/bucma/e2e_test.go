package bucma

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/figures"
	"github.com/bucma-sched/bucma/expe/report"
	"github.com/bucma-sched/bucma/studies/internal/studytest"
)

// A tiny campaign of each plan through the real workload generators and the
// embedded engine: every run completes, the report has numbers everywhere
// the paper has, and the same plan gives the same outputs twice.
func TestEmbeddedCampaignEndToEnd(t *testing.T) {
	s := studytest.Studies(RegisterPaper, RegisterSensitivity, RegisterExplorations)
	for _, name := range s.PlanNames() {
		t.Run(name, func(t *testing.T) {
			p, err := studytest.Plan(t, s, name).With(expe.Overrides{Seeds: 2, Jobs: 80})
			if err != nil {
				t.Fatal(err)
			}
			explore := name == WeightsPlan || name == ThresholdPlan
			if name == WeightsPlan {
				// 1148 variants: the bases and three weightings over each.
				p.Variants = slices.DeleteFunc(p.Variants, func(v expe.Variant) bool {
					return v.Model != "" && v.Model != "w5-3-0-2" && v.Model != "w4-3-0-3" && v.Model != "w10-0-0-0"
				})
			}
			if name == ThresholdPlan {
				p.Variants = slices.DeleteFunc(p.Variants, func(v expe.Variant) bool {
					th, ok := thresholdOf(v)
					return v.Name != "easy" && (!ok || th%50 != 0 && th != PaperThreshold)
				})
			}
			dirs := []string{t.TempDir(), t.TempDir()}
			second := dirs[1]
			if explore {
				// The policies and workloads of bucma-model and
				// walltime-trust, whose determinism their subtests check:
				// one execution, one seed.
				p.Seeds = p.Seeds[:1]
				dirs = dirs[:1]
			}
			if IsSensitivity(name) {
				// 12 or 15 conditions: one execution, compared with a
				// second execution of the reference condition only.
				ref := p
				ref.Cases = p.Cases[:1]
				studytest.MustRun(t, &expe.Campaign{Plan: ref, Dir: second, Engine: studytest.Embedded(), Workers: 2})
				dirs = dirs[:1]
			}
			for i, dir := range dirs {
				studytest.MustRun(t, &expe.Campaign{Plan: p, Dir: dir, Engine: studytest.Embedded(), Workers: 1 + i})
			}
			runs := p.Expand()
			if IsSensitivity(name) {
				runs = slices.DeleteFunc(runs, func(r expe.Run) bool { return r.Case != p.Cases[0].Name })
			}
			if !explore {
				studytest.SameOutputsTwice(t, runs, dirs[0], second)
			}
			st, _ := s.Study(name)
			an, err := report.Analyze(dirs[0], st)
			if err != nil {
				t.Fatal(err)
			}
			if an.Hosts != 39 || len(an.Runs) != len(p.Expand()) {
				t.Errorf("analysis: %d hosts, %d runs", an.Hosts, len(an.Runs))
			}
			for id, rd := range an.Runs {
				if rd.Metrics.Ran+rd.Metrics.Rejected != rd.Metrics.Jobs || rd.Metrics.Ran == 0 || !(rd.Metrics.Utilization > 0 && rd.Metrics.Utilization <= 1) {
					t.Errorf("run %s: metrics %+v", id, rd.Metrics)
				}
				if name == WeightsPlan {
					// Its runs keep a summary (weightRun): the bands' medians.
					if bucma := rd.Run.Variant.Model != ""; bucma != (len(wextra(rd).BandMedian) > 0) || len(wextra(rd).ClassWait) != 3 {
						t.Errorf("run %s: %+v", id, wextra(rd))
					}
					continue
				}
				gains := 0
				for _, g := range extra(rd).Gains {
					gains += len(g)
				}
				if bucma := rd.Run.Variant.Model != "" && rd.Run.Variant.Model != "wtrust"; bucma != (gains > 0) {
					t.Errorf("run %s: %d queue-position gains recorded", id, gains)
				}
				if name == "bucma-model" && len(extra(rd).Classes) != 3 {
					t.Errorf("run %s: precision profiles %v", id, extra(rd).Classes)
				}
			}
			if IsSensitivity(name) && an.HostsOf(expe.Run{Case: "resources-cores"}) != 972 {
				t.Errorf("the cores condition runs on %d hosts", an.HostsOf(expe.Run{Case: "resources-cores"}))
			}
			path, err := report.Write(dirs[0], s)
			if err != nil {
				t.Fatal(err)
			}
			text, _ := os.ReadFile(path)
			if IsSensitivity(name) {
				for _, want := range []string{"## Agreement in sign with the paper, per condition", "![Sign of each published change", "## Which factor flips which row", "## Why:", "## Where the paper's signs hold"} {
					if !strings.Contains(string(text), want) {
						t.Errorf("report: no %q", want)
					}
				}
				if strings.Contains(string(text), "| 0 / 0 |") {
					t.Errorf("report: a condition without any compared cell:\n%s", text)
				}
			}
			wants := map[string][]string{
				ModelPlan:     {"### Figures 1–2: queue-position gain at submission by Su band (%), as distributions", "Claim 1", "Claim 2", "fig/figure12_fcfs_load0.85.png"},
				WeightsPlan:   {"### Where BUCMA5302 and BUCMA4303 fall", "would have chosen", "fig/pareto_waiting_load0.85.png", "fig/pareto_makespan_load0.85.png"},
				ThresholdPlan: {"### Where 80 % stands", "fig/threshold_vs_easy_load0.85.png", "| **80 % (paper)** |"},
			}
			for _, want := range wants[name] {
				if !strings.Contains(string(text), want) {
					t.Errorf("report: no %q", want)
				}
			}
			if strings.Contains(string(text), "| n/a") && name == "walltime-trust" {
				t.Errorf("report has missing values:\n%s", text)
			}
			for _, ext := range figures.Formats {
				figs, _ := filepath.Glob(filepath.Join(dirs[0], report.FigDir, "*."+ext))
				if len(figs) == 0 {
					t.Errorf("no %s figure", ext)
				}
			}
		})
	}
}
