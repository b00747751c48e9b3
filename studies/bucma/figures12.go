package bucma

import (
	"fmt"
	"math"
	"strings"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/expe/figures"
	"github.com/bucma-sched/bucma/expe/report"
	"github.com/bucma-sched/bucma/metrics"
)

// Figures 1–2 as distributions: the boxes of the queue-position gains by Su
// band beside what the paper says of its boxes, the outliers of the lowest
// band, and the paper's two textual claims tested over seeds.

// ClaimAlpha is the family-wise level of the claims' tests.
const ClaimAlpha = 0.05

// figures12 writes the distributions of the queue-position gains at one
// load level; it reports whether any gain was recorded.
func (r *reporter) figures12(load float64) (bool, error) {
	a := r.a
	pooled := map[string]map[string]map[string][]float64{} // base → model → band → gains
	any := false
	for _, b := range BaseNames {
		pooled[b] = map[string]map[string][]float64{}
		for _, m := range BUCMAModels {
			pooled[b][m] = pooledGains(a, m+"-"+b, load)
			for _, g := range pooled[b][m] {
				any = any || len(g) > 0
			}
		}
	}
	r.p("### Figures 1–2: queue-position gain at submission by Su band (%%), as distributions\n\n")
	if !any {
		r.p("No queue-position gain recorded: the runs have no decision trace (`%s`).\n\n", expe.TraceFile)
		return false, nil
	}
	r.p("Gains of every submission, pooled over the seeds, by the owner's Su band at submission: `n` submissions, the quartiles ")
	r.p("(linear interpolation), the whiskers (Tukey's: the most extreme gains within 1.5 × IQR of the box) and the gains beyond them ")
	r.p("(*outliers*: how many, their share of the band, the range of the high ones). The paper prints FCFS's box plot (its Figure 1) and ")
	r.p("MIN-MIN's (Figure 2), of which its text gives the medians and a few words on the boxes (last column); it says EASY behaves like FCFS ")
	r.p("and MAX-MIN like MIN-MIN, so those rows are compared with FCFS's and MIN-MIN's words (marked ~).\n\n")
	for _, b := range BaseNames {
		like := PaperGainsLike[b]
		mark := ""
		if like != b {
			mark = "~"
		}
		r.p("**%s**\n\n| model | Su band | n | Q1 | median | Q3 | whiskers | outliers | paper |\n|---|---|---|---|---|---|---|---|---|\n", BaseTitle(b))
		for _, m := range BUCMAModels {
			for _, band := range analysis.SuBands {
				bx := analysis.Box(pooled[b][m][band])
				paper := "–"
				if pg, ok := PaperGains[like][m][band]; ok {
					paper = mark + "median " + pg.Text
					if n, ok := PaperGainNotes[like][band]; ok {
						paper += "; " + mark + n.Text
					}
				}
				if bx.N == 0 {
					r.p("| %s | %s | 0 | – | – | – | – | – | %s |\n", BaseTitle(m), band, paper)
					continue
				}
				if pg, ok := PaperGains[like][m][band]; ok {
					r.gainCells = append(r.gainCells, gainCell{fmt.Sprintf("%s %s Su %s, load %s", BaseTitle(b), BaseTitle(m), band, expe.FormatLoad(load)), bx.Median, pg.Value})
				}
				r.p("| %s | %s | %d | %.1f | %.1f | %.1f | %.1f – %.1f | %s | %s |\n", BaseTitle(m), band, bx.N, bx.Q1, bx.Median, bx.Q3,
					bx.LowWhisker, bx.HiWhisker, outlierText(bx), paper)
			}
		}
		r.p("\n")
		data := map[string]map[string][]float64{}
		paperMed := map[string]map[string]float64{}
		var series []string
		for _, m := range BUCMAModels {
			data[BaseTitle(m)] = pooled[b][m]
			paperMed[BaseTitle(m)] = map[string]float64{}
			for band, pg := range PaperGains[like][m] {
				paperMed[BaseTitle(m)][band] = pg.Value
			}
			series = append(series, BaseTitle(m))
		}
		name := r.figName("figure12_"+b, load)
		title := fmt.Sprintf("%s: queue-position gain by Su band, BUCMA5302 and BUCMA4303 (load %s)", BaseTitle(b), expe.FormatLoad(load))
		if like != b {
			title += fmt.Sprintf("; triangles: the paper's %s medians", BaseTitle(like))
		}
		if err := figures.BandBoxPlot(r.Fig(name), title, "queue-position gain at submission (%)", analysis.SuBands, series, data, paperMed); err != nil {
			return true, err
		}
		r.p("![%s](%s/%s.png)\n\n", title, report.FigDir, name)
	}
	r.lowBandOutliers(pooled, load)
	// The earlier figures, one per model with the four bases.
	for _, m := range BUCMAModels {
		data := map[string]map[string][]float64{}
		for _, b := range BaseNames {
			data[b] = pooled[b][m]
		}
		name := r.figName("gains_"+m, load)
		title := fmt.Sprintf("%s: queue-position gain by Su band (load %s)", BaseTitle(m), expe.FormatLoad(load))
		if err := figures.GainBoxPlot(r.Fig(name), title, BaseNames, titles(BaseNames), data); err != nil {
			return true, err
		}
		r.p("![%s](%s/%s.png)\n\n", title, report.FigDir, name)
	}
	r.claims(load)
	return true, nil
}

// outlierText prints a box's outliers: "12 (3.4 %), high 21.0–100.0".
func outlierText(b analysis.BoxStats) string {
	if b.Outliers == 0 {
		return "none"
	}
	s := fmt.Sprintf("%d (%.1f %%)", b.Outliers, 100*float64(b.Outliers)/float64(b.N))
	if b.OutHigh > 0 {
		s += fmt.Sprintf(", high %.1f–%.1f", b.OutHighMin, b.OutHighMax)
	}
	if b.OutLow > 0 {
		s += fmt.Sprintf(", %d low", b.OutLow)
	}
	return s
}

// lowBandOutliers compares the outliers of the 0–24 band under FCFS (and
// EASY) with the paper's "maxima in the 20 % – 60 % range counting the
// outliers".
func (r *reporter) lowBandOutliers(pooled map[string]map[string]map[string][]float64, load float64) {
	band := analysis.SuBands[0]
	note := PaperGainNotes["fcfs"][band]
	r.p("**The outliers of the 0–24 band.** The paper: under FCFS, the gains of the 0–24 band have their median at 3–4 %% and their maxima in ")
	r.p("the %g–%g %% range counting the outliers. Ours, every gain above the upper whisker of the band:\n\n", note.OutLo, note.OutHi)
	r.p("| base | model | n | median | upper whisker | high outliers | of which in %g–%g %% | above %g %% | maximum |\n|---|---|---|---|---|---|---|---|---|\n", note.OutLo, note.OutHi, note.OutHi)
	for _, b := range BaseNames {
		for _, m := range BUCMAModels {
			vals := pooled[b][m][band]
			bx := analysis.Box(vals)
			if bx.N == 0 {
				continue
			}
			in, above := 0, 0
			for _, v := range vals {
				if v > bx.HiWhisker && v >= note.OutLo && v <= note.OutHi {
					in++
				}
				if v > bx.HiWhisker && v > note.OutHi {
					above++
				}
			}
			r.p("| %s | %s | %d | %.1f | %.1f | %d (%.1f %%) | %d | %d | %.1f |\n", BaseTitle(b), BaseTitle(m), bx.N, bx.Median, bx.HiWhisker,
				bx.OutHigh, 100*float64(bx.OutHigh)/float64(bx.N), in, above, bx.Max)
		}
	}
	r.p("\n")
}

// seedMedian is the median gain of a band in one run (NaN without gains).
func seedMedian(x *report.RunData, band string) float64 {
	return metrics.Quantile(extra(x).Gains[band], 0.5)
}

// claimTest is one paired test of a claim: a difference per seed, its
// mean with its interval, the seeds that back its sign and its Wilcoxon
// signed-rank test.
type claimTest struct {
	label string
	diff  analysis.Estimate
	seeds string
	test  analysis.SignedRank
}

// newClaimTest sums up the per-seed differences d of a claim.
func newClaimTest(label string, d []float64) claimTest {
	return claimTest{label: label, diff: analysis.Estimate95(d), seeds: analysis.SeedsOf(d), test: analysis.WilcoxonSignedRank(d)}
}

// pairedTest compares f of x with f of ref per seed: the differences
// x − ref (not relative: the claims are about points and seconds).
func pairedTest(label string, x, ref []*report.RunData, f func(*report.RunData) float64) claimTest {
	var d []float64
	for i := range x {
		if x[i] != nil && ref[i] != nil {
			d = append(d, f(x[i])-f(ref[i]))
		}
	}
	return newClaimTest(label, d)
}

// holm marks which tests of a family differ at ClaimAlpha, family-wise.
func holm(tests []claimTest) []bool {
	p := make([]float64, len(tests))
	for i, t := range tests {
		p[i] = t.test.P
		if t.test.N == 0 {
			p[i] = math.NaN()
		}
	}
	return analysis.HolmRejects(p, ClaimAlpha)
}

func pText(t analysis.SignedRank) string {
	if t.N == 0 {
		return "–"
	}
	if t.P < 0.001 {
		return "< 0.001"
	}
	return fmt.Sprintf("%.3f", t.P)
}

// claims tests the paper's two textual claims on Figures 1–2 and Table 3.
func (r *reporter) claims(load float64) {
	a := r.a
	c := expe.Condition{Load: load}
	n := len(a.Plan.Seeds)
	r.p("#### The paper's two claims, tested over seeds\n\n")
	r.p("Each claim compares BUCMA5302 with BUCMA4303 on the same workload, seed by seed: a quantity is computed on each seed's two runs, ")
	r.p("and the differences over the seeds are tested with the **Wilcoxon signed-rank test** (two-sided, exact). Why this test: the pairs ")
	r.p("share their workload, so the test must be paired; the quantities (medians of gains bounded by 0 and 100, relative changes of waits with ")
	r.p("heavy tails) are not normal over %d seeds, which Student's paired t test would assume; the signed-rank test assumes only that the ", n)
	r.p("differences are symmetric about their centre, and unlike the sign test it weighs each difference by its size. Holm's procedure holds ")
	r.p("the family-wise error at %g %% over the cells of each claim. With n seeds the smallest possible p-value is 2/2ⁿ ", 100*ClaimAlpha)
	r.p("(%.3g here): ", 2/math.Pow(2, float64(n)))
	if 2/math.Pow(2, float64(n)) > ClaimAlpha {
		r.p("**too few seeds for any difference to be significant**; run more seeds (`--seeds 10`) before reading these tables.\n\n")
	} else {
		r.p("enough for a difference backed by every seed to show.\n\n")
	}

	// Claim 1: no real difference between the models on queue gains.
	r.p("**Claim 1: \"no real difference between BUCMA5302 and BUCMA4303 on the queue-position gains\"** (the paper, of its Figures 1–2). ")
	r.p("Per seed, the median gain of each band under each model; the difference BUCMA5302 − BUCMA4303 in points:\n\n")
	r.p("| base | Su band | BUCMA5302 − BUCMA4303 (points) | seeds | Wilcoxon p | differs (Holm) |\n|---|---|---|---|---|---|\n")
	var t1 []claimTest
	var at1 []string
	for _, b := range BaseNames {
		for _, band := range analysis.SuBands {
			t1 = append(t1, pairedTest(fmt.Sprintf("%s, Su %s", BaseTitle(b), band), a.ConditionRuns("bucma5302-"+b, c), a.ConditionRuns("bucma4303-"+b, c),
				func(x *report.RunData) float64 { return seedMedian(x, band) }))
			at1 = append(at1, b)
		}
	}
	rej1 := holm(t1)
	paperDiff, allDiff, paperCells, allCells := 0, 0, 0, 0
	widest := 0.0
	for i, t := range t1 {
		base, band, _ := strings.Cut(t.label, ", Su ")
		r.p("| %s | %s | %s | %s | %s | %s |\n", base, band, analysis.FmtEst(t.diff, 1, true), t.seeds, pText(t.test), map[bool]string{true: "**yes**", false: "no"}[rej1[i]])
		if t.test.N == 0 && t.diff.N == 0 {
			continue
		}
		allCells++
		paper := at1[i] == "fcfs" || at1[i] == "minmin"
		if paper {
			paperCells++
		}
		if rej1[i] {
			allDiff++
			if paper {
				paperDiff++
			}
		}
		if !math.IsNaN(t.diff.Half) {
			widest = math.Max(widest, math.Max(math.Abs(t.diff.Mean-t.diff.Half), math.Abs(t.diff.Mean+t.diff.Half)))
		}
	}
	r.p("\n")
	r.p("Verdict: the models' median gains differ significantly in %d of the %d cells of FCFS and MIN-MIN (the paper's figures) and in %d of %d over the four bases", paperDiff, paperCells, allDiff, allCells)
	switch {
	case allCells == 0:
		r.p(".\n\n")
	case paperDiff == 0:
		r.p("; the claim holds for the paper's figures at this scale (no difference detected")
		if widest > 0 {
			r.p("; every 95 %% interval of the mean difference lies within ±%.1f points", widest)
		}
		r.p(").\n\n")
	default:
		r.p(": the claim does not hold at this scale where a difference is detected (the cells marked **yes**).\n\n")
	}

	// Claim 2: 5302 has the larger amplitude.
	r.p("**Claim 2: \"BUCMA5302 has the larger amplitude\"** (the paper, of Table 3: \"better reductions for the more precise profiles, ")
	r.p("worse for the imprecise ones … a larger amplitude of the reductions for BUCMA5302, which punishes or rewards more according to the profile\"). ")
	r.p("The amplitude of a model over a base, per seed: the Table 3 change of the imprecise requests' mean wait minus that of the precise ones ")
	r.p("(points of %%; not computed on a seed where the base's wait of either profile is below %g s), and the same in seconds, ", analysis.FloorWait)
	r.p("the imprecise requests' mean wait minus the precise ones' under the model (no division). The paper's amplitudes are from its Table 3. ")
	r.p("Below, the difference BUCMA5302 − BUCMA4303 of the amplitudes: positive where BUCMA5302's is the larger.\n\n")
	r.p("| base | paper: 5302 / 4303 (points) | ours: BUCMA5302 − BUCMA4303 (points) | seeds | Wilcoxon p | in seconds | seeds | Wilcoxon p | verdict |\n|---|---|---|---|---|---|---|---|---|\n")
	var rel, abs []claimTest
	for _, b := range BaseNames {
		base := a.ConditionRuns(b, c)
		x5, x4 := a.ConditionRuns("bucma5302-"+b, c), a.ConditionRuns("bucma4303-"+b, c)
		// relative amplitude needs the base run of the same seed
		ampRel := func(runs []*report.RunData) []float64 {
			out := make([]float64, len(runs))
			for i, x := range runs {
				out[i] = math.NaN()
				if x == nil || base[i] == nil {
					continue
				}
				bi, bp := classWait("imprecise")(base[i]), classWait("precise")(base[i])
				if !(bi >= analysis.FloorWait && bp >= analysis.FloorWait) {
					continue
				}
				out[i] = analysis.Change(classWait("imprecise")(x), bi) - analysis.Change(classWait("precise")(x), bp)
			}
			return out
		}
		a5, a4 := ampRel(x5), ampRel(x4)
		var d []float64
		for i := range a5 {
			d = append(d, a5[i]-a4[i])
		}
		rel = append(rel, newClaimTest(b, d))
		abs = append(abs, pairedTest(b, x5, x4, func(x *report.RunData) float64 { return classWait("imprecise")(x) - classWait("precise")(x) }))
	}
	rejRel, rejAbs := holm(rel), holm(abs)
	holds, contra := 0, 0
	for i, b := range BaseNames {
		p5 := PaperTable3["bucma5302"]["imprecise"][b] - PaperTable3["bucma5302"]["precise"][b]
		p4 := PaperTable3["bucma4303"]["imprecise"][b] - PaperTable3["bucma4303"]["precise"][b]
		verdict := "not shown (no significant difference)"
		switch {
		case rel[i].test.N == 0 && rel[i].diff.N == 0:
			verdict = "no seed with both bases above the floor"
		case rejRel[i] && rel[i].diff.Mean > 0:
			verdict, holds = "**holds**", holds+1
		case rejRel[i]:
			verdict, contra = "**contradicted**: BUCMA4303's is the larger", contra+1
		}
		r.p("| %s | %+.1f / %+.1f | %s | %s | %s | %s | %s | %s | %s |\n", BaseTitle(b), p5, p4, analysis.FmtEst(rel[i].diff, 1, true), rel[i].seeds, pText(rel[i].test),
			analysis.FmtEst(abs[i].diff, 0, true), abs[i].seeds, pText(abs[i].test)+map[bool]string{true: " (differs, Holm)", false: ""}[rejAbs[i]], verdict)
	}
	r.p("\n")
	r.p("Verdict (Table 3 amplitude, Holm over the four bases): BUCMA5302's amplitude is significantly the larger over %d of the 4 bases, ", holds)
	r.p("significantly the smaller over %d, and not distinguishable over the others at this scale.\n\n", contra)
}
