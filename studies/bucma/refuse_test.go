package bucma

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/expe/report"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/studies/internal/studytest"
)

// Every report of the BUCMA study refuses a relative change over a near-zero
// base and marks what involves a saturated run: synthetic analyses (numbers
// no campaign of a test's size gives) through each report kind.

// modelRun is a run's study data: the mean wait of each precision
// profile's inserted requests and the gains by band.
func modelRun(waits map[string]float64, gains map[string][]float64) *runData {
	d := &runData{Classes: map[string]analysis.GroupStats{}, Gains: gains, BandWait: map[string]float64{}, ClassGains: map[string][]float64{},
		OtherSu: math.NaN(), OtherShortWall: math.NaN(), HasTrace: len(gains) > 0}
	for c, w := range waits {
		d.Classes[c] = analysis.GroupStats{Jobs: 100, MeanWait: w}
	}
	return d
}

func metricsOf(wait, makespan float64) analysis.Metrics {
	return analysis.Metrics{Jobs: 100, Ran: 100, MeanWait: wait, Makespan: makespan, MeanSlowdown: 1 + wait/1000, MeanBSLD: 1 + wait/1000, Utilization: 0.7, Hosts: 39}
}

var gainsOf = map[string][]float64{"0-24": {1, 2, 3, 40, 4}, "25-49": {30, 40}, "50-74": {60, 70}, "75-100": {95, 99, 100}}

// bucmaSynthetic is the bucma-model plan on 3 seeds where FCFS alone
// saturates and its imprecise requests wait 0.3 s (a near-zero base), the
// other runs ordinary.
func bucmaSynthetic(t *testing.T, s *report.Studies, plan string) *report.Analysis {
	return synthetic3(t, s, plan, func(r expe.Run) (analysis.Metrics, analysis.Saturation, any) {
		f, v := float64(r.Seed), r.Variant
		waits := map[string]float64{"imprecise": 500 + 10*f, "medium": 400 + f, "precise": 300 + f}
		sat := studytest.Kept
		switch v.Name {
		case "fcfs":
			waits["imprecise"] = 0.3
			sat = studytest.Saturated
		case "bucma5302-fcfs", "bucma4303-fcfs":
			waits["imprecise"] = 40 + f
		}
		var gains map[string][]float64
		if v.Model != "" && v.Model != "wtrust" {
			gains = gainsOf
		}
		return metricsOf(1000+100*f, 1e5), sat, modelRun(waits, gains)
	})
}

// hugePercent finds a relative change of more than 10 000 %: what a ratio
// over a near-zero base prints.
var hugePercent = regexp.MustCompile(`[+-][0-9]{5,}(\.[0-9]+)? (± [0-9.]+ )?%`)

func TestBucmaModelReportRefusesNearZeroAndMarksSaturation(t *testing.T) {
	s := studytest.Studies(RegisterPaper)
	st, _ := s.Study(ModelPlan)
	text := studytest.ReportOn(t, st, bucmaSynthetic(t, s, ModelPlan))
	row := lineWith(t, text, "| BUCMA5302 | imprecise |")
	cell := strings.Split(row, "|")[3] // FCFS
	if !strings.Contains(cell, analysis.NearZero) || !strings.Contains(cell, analysis.SaturatedMark) || !strings.Contains(cell, "[3/3]*") {
		t.Errorf("Table 3 over FCFS's 0.3 s imprecise wait: %q", cell)
	}
	if m := hugePercent.FindString(text); m != "" {
		t.Errorf("a relative change over a near-zero base: %q", m)
	}
	if fcfs := lineWith(t, text, "| fcfs | 3 |"); !strings.Contains(fcfs, "**yes**, 3 of 3 runs") {
		t.Errorf("FCFS alone not flagged saturated: %s", fcfs)
	}
	if easy := lineWith(t, text, "| BUCMA5302 | medium |"); strings.Count(easy, analysis.SaturatedMark) != 1 {
		t.Errorf("only the FCFS cell involves a saturated run: %s", easy)
	}
	for _, want := range []string{"Claim 1", "Claim 2", "Wilcoxon signed-rank", "too few seeds", "The outliers of the 0–24 band"} {
		if !strings.Contains(text, want) {
			t.Errorf("report: no %q", want)
		}
	}
}

// wtrustSynthetic is a walltime-trust plan on 3 seeds where EASY alone
// waits 0.2 s (a near-zero base) and FCFS alone saturates.
func wtrustSynthetic(t *testing.T, s *report.Studies, plan string) *report.Analysis {
	return synthetic3(t, s, plan, func(r expe.Run) (analysis.Metrics, analysis.Saturation, any) {
		wait, sat := 2000+float64(r.Seed), studytest.Kept
		switch r.Variant.Name {
		case "easy":
			wait = 0.2 // EASY starts everything at once
		case "fcfs":
			sat = studytest.Saturated
		}
		return metricsOf(wait, 1e5), sat, modelRun(nil, nil)
	})
}

// synthetic3 is plan on 3 seeds with every run's numbers from fill.
func synthetic3(t *testing.T, s *report.Studies, plan string, fill func(r expe.Run) (analysis.Metrics, analysis.Saturation, any)) *report.Analysis {
	p, err := studytest.Plan(t, s, plan).With(expe.Overrides{Seeds: 3})
	if err != nil {
		t.Fatal(err)
	}
	a := studytest.Synthetic(t, p, 39)
	studytest.FillRuns(a, fill)
	return a
}

func TestWalltimeTrustReportsRefuseNearZeroAndMarkSaturation(t *testing.T) {
	s := studytest.Studies(RegisterPaper, RegisterExplorations)
	for _, plan := range []string{WtrustPlan, ThresholdPlan} {
		a := wtrustSynthetic(t, s, plan)
		st, _ := s.Study(plan)
		text := studytest.ReportOn(t, st, a)
		if m := hugePercent.FindString(text); m != "" {
			t.Errorf("%s: a relative change over a near-zero base: %q", plan, m)
		}
		if !strings.Contains(text, analysis.NearZero) || !strings.Contains(text, analysis.SaturatedMark) || !strings.Contains(text, "**yes**, 3 of 3 runs") {
			t.Errorf("%s: no near-zero or saturation mark:\n%s", plan, text)
		}
		if plan == WtrustPlan {
			cells := strings.Split(lineWith(t, text, "| mean waiting time |"), "|")
			if !strings.Contains(cells[5], analysis.NearZero) || strings.Contains(cells[5], analysis.SaturatedMark) || !strings.Contains(cells[2], analysis.SaturatedMark) {
				t.Errorf("Figures 3–4 waiting row: EASY %q, FCFS %q", cells[5], cells[2])
			}
		} else if !strings.Contains(lineWith(t, text, "| **80 % (paper)** |"), analysis.NearZero) {
			t.Errorf("threshold sweep against EASY's near-zero wait: %s", lineWith(t, text, "| **80 % (paper)** |"))
		}
	}
}

func TestSensitivityReportsRefuseNearZeroAndMarkSaturation(t *testing.T) {
	s := studytest.Studies(RegisterSensitivity)
	st, _ := s.Study(BucmaSensitivity)
	a := bucmaSynthetic(t, s, BucmaSensitivity)
	text := studytest.ReportOn(t, st, a)
	if m := hugePercent.FindString(text); m != "" {
		t.Errorf("a relative change over a near-zero base: %q", m)
	}
	ref := lineWith(t, text, "| reference | reference | **")
	cells := strings.Split(ref, "|")
	// The last two columns: cells over a saturated run, over a near-zero base.
	if sat, nz := strings.TrimSpace(cells[len(cells)-3]), strings.TrimSpace(cells[len(cells)-2]); sat != "6" || nz != "2" {
		t.Errorf("reference: %s cells over a saturated run, %s over a near-zero base (want 6: the FCFS column; 2: its imprecise row)\n%s", sat, nz, ref)
	}
	if !strings.Contains(text, analysis.NearZero) {
		t.Error("no near-zero cell in the values table")
	}

	// Walltime-trust's map: the FCFS column (3 metrics) over a saturated
	// run, the waiting time against EASY over a near-zero base.
	st, _ = s.Study(WtrustSensitivity)
	text = studytest.ReportOn(t, st, wtrustSynthetic(t, s, WtrustSensitivity))
	if m := hugePercent.FindString(text); m != "" {
		t.Errorf("walltime-trust: a relative change over a near-zero base: %q", m)
	}
	cells = strings.Split(lineWith(t, text, "| reference | reference | **"), "|")
	if sat, nz := strings.TrimSpace(cells[len(cells)-3]), strings.TrimSpace(cells[len(cells)-2]); sat != "3" || nz != "1" {
		t.Errorf("walltime-trust, reference: %s cells over a saturated run, %s over a near-zero base (want 3 and 1)\n%s", sat, nz, strings.Join(cells, "|"))
	}
	if !strings.Contains(text, analysis.NearZero) || !strings.Contains(text, analysis.SaturatedMark) {
		t.Errorf("walltime-trust: no near-zero or saturated cell in the values table:\n%s", text)
	}
}

func TestWeightsReportMarksSaturationAndNearZero(t *testing.T) {
	s := studytest.Studies(RegisterExplorations)
	p, err := studytest.Plan(t, s, WeightsPlan).With(expe.Overrides{Seeds: 3})
	if err != nil {
		t.Fatal(err)
	}
	// Four weightings over each base: the two paper models, α = 1 and
	// β = 1 (the base's own order).
	keep := map[string]bool{"w5-3-0-2": true, "w4-3-0-3": true, "w10-0-0-0": true, "w0-10-0-0": true}
	var vs []expe.Variant
	for _, v := range p.Variants {
		if v.Model == "" || keep[v.Model] {
			vs = append(vs, v)
		}
	}
	p.Variants = vs
	a := studytest.Synthetic(t, p, 39)
	studytest.FillRuns(a, func(r expe.Run) (analysis.Metrics, analysis.Saturation, any) {
		v := r.Variant
		wait, sat := 1000+10*float64(r.Seed), studytest.Kept
		w := &weightRun{BandMedian: map[string]float64{}, ClassWait: map[string]float64{"imprecise": 100, "precise": 50}}
		switch {
		case v.Name == "minmin":
			wait = 0.4
		case v.Name == "fcfs":
			sat = studytest.Saturated
		case v.Model != "":
			wt, _ := parseWeighting(v.Options["weights"])
			w.BandMedian["0-24"], w.BandMedian["75-100"] = 5, 5+float64(wt[0])*9
			wait += float64(wt[3]) * 20
			if wt[0] == 10 {
				// A makespan a little longer on average, within its
				// interval of 0: not made worse.
				return metricsOf(wait, 1e5+10*wait+[]float64{90, -60, 30}[r.Seed-1]), sat, w
			}
		}
		return metricsOf(wait, 1e5+10*wait), sat, w
	})
	st, _ := s.Study(WeightsPlan)
	text := studytest.ReportOn(t, st, a)
	if m := hugePercent.FindString(text); m != "" {
		t.Errorf("a relative change over a near-zero base: %q", m)
	}
	for _, want := range []string{"| FCFS | ", "**yes**, 3 of 3 runs", analysis.NearZero, "Where BUCMA5302 and BUCMA4303 fall", "would have chosen", "![Queue-gain spread against the mean waiting time"} {
		if !strings.Contains(text, want) {
			t.Errorf("weights report: no %q", want)
		}
	}
	// α = 1 has the largest spread and the lowest wait (δ = 0): alone on
	// every front, dominating both paper models.
	if row := lineWith(t, text, "| FCFS | BUCMA5302 |"); !strings.Contains(row, "| no | 1 |") || !strings.Contains(row, analysis.SaturatedMark) {
		t.Errorf("BUCMA5302 over FCFS: %s", row)
	}
	// α = 1's makespan is longer on average but not significantly: it is
	// chosen before β = 1, which changes nothing (spread 0), and before the
	// paper's models, whose δ makes the wait significantly longer.
	if !strings.Contains(text, "would have chosen **10 0 0 0**") {
		t.Errorf("the chosen weighting is not α = 1:\n%s", text)
	}
	// Every weighting makes MIN-MIN's near-zero wait and its makespan
	// worse (2 pairs); BUCMA5302's δ the wait and makespan over every base.
	lineWith(t, text, "| 1 | 10 0 0 0 | 2 | 0 | 90.0 |")
	lineWith(t, text, "| 2 | 0 10 0 0 | 2 | 0 | 0.0 |")
	lineWith(t, text, "| 3 | 5302 (BUCMA5302) | 8 | 0 |")
	// The fronts' tables give the range of the mean changes; MIN-MIN's
	// waits, over a near-zero base, have none.
	lineWith(t, text, "The mean changes range over "+analysis.NearZero+" for the waiting time, over +10.2 to +10.8 % for the makespan.")
	lineWith(t, text, "The mean changes range over +0.0 to +5.9 % for the waiting time, over +0.0 to +0.5 % for the makespan.")
	// By the signs of the means alone, α = 1's longer makespans count: β = 1
	// comes first.
	lineWith(t, text, "would choose **0 10 0 0** (2 pairs with a positive mean, mean spread 0.0 points: β = 1 alone keeps")
}

// lineWith returns the first line of text containing s.
func lineWith(t *testing.T, text, s string) string {
	t.Helper()
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	t.Fatalf("no line with %q in:\n%s", s, text)
	return ""
}

// Each main report lists the known causes of its own plan (the BUCMA
// model's inserted requests, δ term and Table 3 denominators are not
// walltime-trust's), and says why its load level is above the offered load
// its runs show: the generator's level is at the slowest Lille host's
// speed, and jobs on faster hosts run shorter.
func TestReportsKnownCausesAndLoadLevel(t *testing.T) {
	s := studytest.Studies(RegisterPaper)
	lille, err := platforms.Resolve("lille")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		plan      string
		synthetic func(*testing.T, *report.Studies, string) *report.Analysis
		want, not []string
	}{
		{WtrustPlan, wtrustSynthetic, []string{"*Precise walltimes.*", "*The threshold.*", "Algorithm 1's \"free resources > 80 %\""},
			[]string{"δ", "inserted", "Table 3", "Su = 0", "*Model decisions.*"}},
		{ModelPlan, bucmaSynthetic, []string{"*The walltime term.*", "δ·(1 − W/MaxW)", "*Small denominators.*", "*Model decisions.*"},
			[]string{"*Precise walltimes.*", "*The threshold.*", "Algorithm 1"}},
	} {
		a := c.synthetic(t, s, c.plan)
		a.Platform = lille
		st, _ := s.Study(c.plan)
		text := studytest.ReportOn(t, st, a)
		causes := text[strings.Index(text, "**Known causes of differences.**"):]
		for _, w := range c.want {
			if !strings.Contains(causes, w) {
				t.Errorf("%s: known causes lack %q:\n%s", c.plan, w, causes)
			}
		}
		for _, w := range c.not {
			if strings.Contains(causes, w) {
				t.Errorf("%s: known causes name %q, another plan's:\n%s", c.plan, w, causes)
			}
		}
		note := lineWith(t, text, "- A load level is the generator's")
		for _, w := range []string{"563.2 Gflop/s, the platform's slowest host", "up to 1997 Gflop/s, 3.55 times the reference",
			"is below the level: 0.80 to 0.80 at level 0.85 in these runs"} {
			if !strings.Contains(note, w) {
				t.Errorf("%s: load note lacks %q: %s", c.plan, w, note)
			}
		}
	}
}
