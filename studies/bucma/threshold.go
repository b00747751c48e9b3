package bucma

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/expe/figures"
	"github.com/bucma-sched/bucma/expe/report"
)

// The threshold sweep (plan walltime-trust-threshold): Algorithm 1 orders
// the queue by W × res descending when at least a threshold of the hosts
// are free, ascending otherwise; the paper took 80 % "based on the best
// results among several ranges tested empirically" (bucma.txt, section
// 3.1). The plan runs the algorithm at every threshold from 0 to 100 % in
// steps of 10 %, with the four base policies; the report draws the
// Figures 3–4 metrics against EASY over the thresholds and says where 80 %
// stands.

// Thresholds are the thresholds of the sweep, in percent.
var Thresholds = []int{0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100}

// PaperThreshold is the paper's threshold, in percent.
const PaperThreshold = 80

// ThresholdVariant is the variant name of walltime-trust at a threshold
// (percent): "wtrust-t80".
func ThresholdVariant(t int) string { return fmt.Sprintf("wtrust-t%d", t) }

// thresholdOf reads a variant's threshold (percent) from its options; ok is
// false for a variant that is not walltime-trust.
func thresholdOf(v expe.Variant) (int, bool) {
	if v.Policy != "wtrust" {
		return 0, false
	}
	s, ok := v.Options["threshold"]
	if !ok {
		return 80, true // the policy's default
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return int(math.Round(100 * f)), true
}

// sweepVariants are the plan's walltime-trust variants and their
// thresholds, in the plan's order.
func (r *reporter) sweepVariants() (names []string, ts []int) {
	for _, v := range r.a.Plan.Variants {
		if t, ok := thresholdOf(v); ok {
			names, ts = append(names, v.Name), append(ts, t)
		}
	}
	return names, ts
}

func (r *reporter) threshold() error {
	pl := r.a.Plan
	r.planHeader()
	r.p("\n")
	r.p("Algorithm 1 (walltime-trust) orders the queue by W × res, the largest first when at least the threshold of the hosts are free, the ")
	r.p("smallest first otherwise; the paper chose 80 %% \"based on the best results among several ranges tested empirically\". At 0 %% the ")
	r.p("largest always go first; at 100 %% only an idle platform puts them first. Each cell: the change of the metric against the base alone, ")
	r.p("computed on each seed's pair of runs and averaged over the seeds, ± its 95 %% interval, as in Figures 3–4 (negative = reduction). ")
	r.p("%s %s %s\n\n", analysis.FloorsNote(), analysis.SeedsNote(), analysis.SaturatedMarkNote())
	names, ts := r.sweepVariants()
	if len(names) == 0 {
		r.p("The plan has no walltime-trust variant.\n\n")
		return nil
	}
	for _, load := range pl.Loads {
		if len(pl.Loads) > 1 {
			r.p("## Load %s\n\n", expe.FormatLoad(load))
		}
		if err := r.thresholdAt(load, names, ts); err != nil {
			return err
		}
		r.variantTable(load)
	}
	return nil
}

// sweepCmp compares walltime-trust variant v with base b on a Figures 3–4
// metric.
func (r *reporter) sweepCmp(v, b, metric string, load float64) analysis.Comparison {
	return r.a.CompareVariants(v, b, expe.Condition{Load: load}, func(x *report.RunData) float64 { return wtrustMetric(metric, x) }, wtrustFloor(metric))
}

func (r *reporter) thresholdAt(load float64, names []string, ts []int) error {
	const ref = "easy"
	r.p("### Walltime-trust against EASY at each threshold (%%)\n\n")
	r.p("| threshold |")
	for _, m := range WtrustMetrics {
		r.p(" %s |", wtrustTitles[m])
	}
	r.p("\n|---|%s\n", strings.Repeat("---|", len(WtrustMetrics)))
	ests := make([][]analysis.Estimate, len(WtrustMetrics))
	xs := make([]float64, len(ts))
	for i, v := range names {
		xs[i] = float64(ts[i])
		label := fmt.Sprintf("%d %%", ts[i])
		if ts[i] == PaperThreshold {
			label = fmt.Sprintf("**%d %% (paper)**", ts[i])
		}
		r.p("| %s |", label)
		for mi, m := range WtrustMetrics {
			cp := r.sweepCmp(v, ref, m, load)
			ests[mi] = append(ests[mi], cp.Change)
			r.p(" %s%s |", cp.Cell(1, wtrustUnit(m), 0), r.satMark(v, ref, load))
		}
		r.p("\n")
	}
	r.p("\nThe paper's values at 80 %%: makespan %s, mean waiting time %s, mean slowdown %s.\n\n",
		PaperWtrust["makespan"]["easy"].Text, PaperWtrust["waiting"]["easy"].Text, PaperWtrust["slowdown"]["easy"].Text)
	series := make([]string, len(WtrustMetrics))
	for i, m := range WtrustMetrics {
		series[i] = wtrustTitles[m]
	}
	name := r.figName("threshold_vs_easy", load)
	title := fmt.Sprintf("walltime-trust vs EASY against the threshold (load %s; triangles: the paper's values at 80 %%)", expe.FormatLoad(load))
	paper := figures.PaperPoints{X: PaperThreshold, Label: fmt.Sprintf("the paper (at %d %%)", PaperThreshold)}
	for _, m := range WtrustMetrics {
		paper.Values = append(paper.Values, PaperWtrust[m][ref].Value)
	}
	if err := figures.ChangeLinePlotWithPaper(r.Fig(name), title, "threshold: free hosts at or above which the largest W × res go first (%)", "change vs EASY (%)", xs, series, ests, paper); err != nil {
		return err
	}
	r.p("![%s](%s/%s.png)\n\n", title, report.FigDir, name)

	// Where 80 % stands, against EASY and the other bases.
	r.p("### Where 80 %% stands\n\n")
	i80 := -1
	for i, t := range ts {
		if t == PaperThreshold {
			i80 = i
		}
	}
	if i80 < 0 {
		r.p("The plan has no walltime-trust variant at 80 %%.\n\n")
		return nil
	}
	r.p("For each metric: the rank of 80 %% among the %d thresholds by walltime-trust's own mean over the seeds (1 = the lowest; the ", len(ts))
	r.p("ranking is the same against every base, the base runs being the same), the best threshold, and 80 %% against that best threshold on ")
	r.p("each seed's pair of runs (walltime-trust at 80 %% − at the best, relative to the best, averaged over the seeds, with its seeds): 80 %% is *as good as ")
	r.p("the best* when that difference is not significant.\n\n")
	r.p("| metric | rank of 80 %% | best threshold | 80 %% vs the best | verdict |")
	for _, b := range BaseNames {
		r.p(" vs %s: 80 %% / best |", BaseTitle(b))
	}
	r.p("\n|---|---|---|---|---|%s\n", strings.Repeat("---|", len(BaseNames)))
	good := 0
	c := expe.Condition{Load: load}
	for _, m := range WtrustMetrics {
		get := func(x *report.RunData) float64 { return wtrustMetric(m, x) }
		vals := make([]float64, len(names))
		for i, v := range names {
			vals[i] = analysis.Estimate95(r.a.ConditionValues(v, c, get)).Mean
		}
		best, rank := -1, 1
		for i := range vals {
			if !math.IsNaN(vals[i]) && (best < 0 || vals[i] < vals[best]) {
				best = i
			}
			if i != i80 && vals[i] < vals[i80] {
				rank++
			}
		}
		if best < 0 || math.IsNaN(vals[i80]) {
			continue
		}
		vsBest := r.a.CompareVariants(names[i80], names[best], c, get, wtrustFloor(m))
		verdict := "**80 % is the best**"
		switch {
		case best == i80:
			good++
		case vsBest.Significant():
			verdict = "**worse than the best**"
		default:
			verdict = "as good as the best (not significant)"
			good++
		}
		r.p("| %s | %d of %d | %d %% | %s%s | %s |", wtrustTitles[m], rank, len(ts), ts[best], vsBest.Cell(1, wtrustUnit(m), 0),
			report.MarkSaturated(r.a.ConditionRuns(names[i80], c), r.a.ConditionRuns(names[best], c)), verdict)
		for _, b := range BaseNames {
			r.p(" %s / %s |", r.sweepCmp(names[i80], b, m, load).ChangeText(1)+r.satMark(names[i80], b, load), r.sweepCmp(names[best], b, m, load).ChangeText(1)+r.satMark(names[best], b, load))
		}
		r.p("\n")
	}
	r.p("\n80 %% is the best threshold, or not distinguishable from the best, for %d of the %d metrics.\n\n", good, len(WtrustMetrics))
	return nil
}
