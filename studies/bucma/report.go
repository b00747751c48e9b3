package bucma

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/expe/figures"
	"github.com/bucma-sched/bucma/expe/report"
	"github.com/bucma-sched/bucma/metrics"
)

type reporter struct {
	*report.Report
	a *report.Analysis
	// agreement bookkeeping for "where and why we differ"
	signCells, signAgree int
	signMiss             []string // opposite sign, 95 % interval excluding 0
	signUnsure           []string // opposite sign, interval containing 0
	gainCells            []gainCell
}

type gainCell struct {
	label       string
	ours, paper float64
}

func (r *reporter) p(format string, args ...any) { r.P(format, args...) }

func (r *reporter) write() error {
	a := r.a
	pl := a.Plan
	switch {
	case IsSensitivity(pl.Kind):
		return r.sensitivity()
	case pl.Kind == WeightsPlan:
		return r.weights()
	case pl.Kind == ThresholdPlan:
		return r.threshold()
	}
	r.planHeader()
	r.p("- Values are means over seeds with the half-width of their 95 %% confidence interval (Student t, one value per seed: ")
	r.p("a change is computed on each seed's pair of runs, same workload, then averaged). The paper's value follows in parentheses.\n\n")
	r.p("Definitions: %s\n\n", analysis.DefinitionsNote())

	for _, load := range pl.Loads {
		if len(pl.Loads) > 1 {
			r.p("## Load %s\n\n", expe.FormatLoad(load))
		}
		var err error
		switch pl.Kind {
		case "bucma-model":
			err = r.bucmaModel(load)
		case "walltime-trust":
			err = r.wtrust(load)
		}
		if err != nil {
			return err
		}
		r.variantTable(load)
	}
	if pl.Kind == "walltime-trust" && len(pl.Loads) > 1 {
		if err := r.wtrustSweep(); err != nil {
			return err
		}
	}
	r.differences()
	return nil
}

func (r *reporter) figName(name string, load float64) string {
	return name + "_load" + expe.FormatLoad(load)
}

// ---------------------------------------------------------------- BUCMA model

func (r *reporter) bucmaModel(load float64) error {
	a := r.a
	classes := classesOf(a)
	r.p("### Table 3: change of the mean waiting time of the inserted requests, BUCMA vs the base alone (%%)\n\n")
	if len(classes) == 0 {
		r.p("No job of the workload has a `profile_class` field: this table needs the inserted requests (workload step `bucma-insert`).\n\n")
	} else {
		r.p("Each cell: the change of the mean waiting time of the profile's 100 inserted requests, computed on each seed's pair of runs ")
		r.p("(BUCMA over the base, the base alone; same workload) and averaged over the seeds, ± its 95 %% interval; then the seeds that back its sign; ")
		r.p("the paper's value in parentheses. %s %s %s\n\n", analysis.FloorsNote(), analysis.SeedsNote(), analysis.SaturatedMarkNote())
		r.p("| model | profile | %s |\n|---|---|%s\n", strings.Join(titles(BaseNames), " | "), strings.Repeat("---|", len(BaseNames)))
		for _, m := range BUCMAModels {
			for _, c := range classes {
				r.p("| %s | %s |", BaseTitle(m), c)
				for _, b := range BaseNames {
					cp := r.table3Cmp(m, c, b, load)
					cell := cp.Cell(1, "s", 0) + r.satMark(m+"-"+b, b, load)
					if paper, ok := PaperTable3[m][c][b]; ok {
						r.sign(fmt.Sprintf("Table 3, %s %s %s, load %s", BaseTitle(m), c, BaseTitle(b), expe.FormatLoad(load)), cp, paper, cell)
						cell += fmt.Sprintf(" (%s)", analysis.FmtSigned(paper, 1))
					}
					r.p(" %s |", cell)
				}
				r.p("\n")
			}
		}
		r.p("\n")
		// Figure: one bar group per base, one bar per profile, per model.
		for _, m := range BUCMAModels {
			bars := make([][]figures.Bar, len(classes))
			for ci, c := range classes {
				for _, b := range BaseNames {
					paper, ok := PaperTable3[m][c][b]
					if !ok {
						paper = math.NaN()
					}
					bars[ci] = append(bars[ci], figures.Bar{Group: BaseTitle(b), Est: r.table3Cmp(m, c, b, load).Change, Paper: paper})
				}
			}
			name := r.figName("table3_"+m, load)
			title := fmt.Sprintf("%s: waiting-time change of the inserted requests (load %s)", BaseTitle(m), expe.FormatLoad(load))
			if err := figures.ChangeBarPlot(filepath.Join(a.Dir, report.FigDir, name), title, "change vs base alone (%)", titles(BaseNames), classes, bars); err != nil {
				return err
			}
			r.p("![%s](%s/%s.png)\n\n", title, report.FigDir, name)
		}
		r.p("A cell over a near-zero base (%s) has no bar.\n\n", analysis.NearZero)
		r.p("Mean waiting time of the inserted requests (s), per variant:\n\n")
		r.p("| variant | %s |\n|---|%s\n", strings.Join(classes, " | "), strings.Repeat("---|", len(classes)))
		for _, v := range a.Plan.Variants {
			r.p("| %s |", v.Name)
			for _, c := range classes {
				est := analysis.Estimate95(a.Values(v.Name, load, func(x *report.RunData) float64 {
					if s, ok := extra(x).Classes[c]; ok {
						return s.MeanWait
					}
					return math.NaN()
				}))
				r.p(" %s |", analysis.FmtEst(est, 0, false))
			}
			r.p("\n")
		}
		r.p("\n")
	}

	anyGain, err := r.figures12(load)
	if err != nil || !anyGain {
		return err
	}
	r.p("Mean waiting time (s) of all jobs by the owner's Su band at submission (BUCMA runs; mean over seeds):\n\n")
	r.p("| variant | %s |\n|---|%s\n", strings.Join(analysis.SuBands, " | "), strings.Repeat("---|", len(analysis.SuBands)))
	for _, v := range a.Plan.Variants {
		if v.Model == "" {
			continue
		}
		r.p("| %s |", v.Name)
		for _, band := range analysis.SuBands {
			est := analysis.Estimate95(a.Values(v.Name, load, func(x *report.RunData) float64 {
				if w, ok := extra(x).BandWait[band]; ok {
					return w
				}
				return math.NaN()
			}))
			r.p(" %s |", analysis.FmtEst(est, 0, false))
		}
		r.p("\n")
	}
	r.p("\n")
	return nil
}

// ---------------------------------------------------------------- walltime trust

// wtrustCmp compares walltime-trust with a base on a Figures 3–4 metric.
func (r *reporter) wtrustCmp(metric, base string, load float64) analysis.Comparison {
	return r.a.CompareVariants("wtrust", base, expe.Condition{Load: load}, func(x *report.RunData) float64 { return wtrustMetric(metric, x) }, wtrustFloor(metric))
}

// wtrustFloor is the floor of the relative changes of a Figures 3–4 metric.
func wtrustFloor(metric string) float64 {
	switch metric {
	case "slowdown":
		return analysis.FloorRatio
	case "waiting":
		return analysis.FloorWait
	}
	return analysis.FloorSeconds
}

var wtrustTitles = map[string]string{"makespan": "makespan", "waiting": "mean waiting time", "slowdown": "mean slowdown"}

func (r *reporter) wtrust(load float64) error {
	a := r.a
	r.p("### Figures 3–4: walltime-trust relative to each base (%%; negative = reduction)\n\n")
	r.p("Each cell: the change computed on each seed's pair of runs and averaged over the seeds, ± its 95 %% interval, then the seeds that back its sign; ")
	r.p("the paper's value in parentheses. %s %s %s\n\n", analysis.FloorsNote(), analysis.SeedsNote(), analysis.SaturatedMarkNote())
	r.p("| metric | %s |\n|---|%s\n", strings.Join(titles(BaseNames), " | "), strings.Repeat("---|", len(BaseNames)))
	for _, m := range WtrustMetrics {
		r.p("| %s |", wtrustTitles[m])
		for _, b := range BaseNames {
			cp := r.wtrustCmp(m, b, load)
			pg := PaperWtrust[m][b]
			cell := cp.Cell(1, wtrustUnit(m), 0) + r.satMark("wtrust", b, load)
			r.p(" %s (%s) |", cell, pg.Text)
			r.sign(fmt.Sprintf("Figures 3–4, %s vs %s, load %s", wtrustTitles[m], BaseTitle(b), expe.FormatLoad(load)), cp, pg.Value, cell)
		}
		r.p("\n")
	}
	r.p("\n")
	for _, m := range WtrustMetrics {
		var bars []figures.Bar
		for _, b := range BaseNames {
			bars = append(bars, figures.Bar{Group: BaseTitle(b), Est: r.wtrustCmp(m, b, load).Change, Paper: PaperWtrust[m][b].Value})
		}
		name := r.figName("wtrust_"+m, load)
		title := fmt.Sprintf("walltime-trust vs base: %s (load %s)", wtrustTitles[m], expe.FormatLoad(load))
		if err := figures.ChangeBarPlot(filepath.Join(a.Dir, report.FigDir, name), title, "change vs base (%)", titles(BaseNames), []string{"walltime-trust"}, [][]figures.Bar{bars}); err != nil {
			return err
		}
		r.p("![%s](%s/%s.png)\n\n", title, report.FigDir, name)
	}
	return nil
}

// wtrustUnit is the unit of a Figures 3–4 metric's absolute difference.
func wtrustUnit(metric string) string {
	if metric == "slowdown" {
		return ""
	}
	return "s"
}

func (r *reporter) wtrustSweep() error {
	r.p("## Gains against load\n\n")
	for _, m := range WtrustMetrics {
		ests := make([][]analysis.Estimate, len(BaseNames))
		for bi, b := range BaseNames {
			for _, l := range r.a.Plan.Loads {
				ests[bi] = append(ests[bi], r.wtrustCmp(m, b, l).Change)
			}
		}
		name := "wtrust_" + m + "_vs_load"
		title := fmt.Sprintf("walltime-trust vs each base: %s against load", wtrustTitles[m])
		if err := figures.ChangeLinePlot(filepath.Join(r.a.Dir, report.FigDir, name), title, "offered load", "change vs base (%)", r.a.Plan.Loads, titles(BaseNames), ests); err != nil {
			return err
		}
		r.p("![%s](%s/%s.png)\n\n", title, report.FigDir, name)
		r.p("Change of the %s, walltime-trust vs each base (%%), by load level:\n\n", wtrustTitles[m])
		r.p("| load | %s |\n|---|%s\n", strings.Join(titles(BaseNames), " | "), strings.Repeat("---|", len(BaseNames)))
		for _, l := range r.a.Plan.Loads {
			r.p("| %s |", expe.FormatLoad(l))
			for _, b := range BaseNames {
				r.p(" %s%s |", r.wtrustCmp(m, b, l).Cell(1, wtrustUnit(m), 0), r.satMark("wtrust", b, l))
			}
			r.p("\n")
		}
		r.p("\n")
	}
	return nil
}

// ---------------------------------------------------------------- common

func (r *reporter) variantTable(load float64) {
	a := r.a
	r.p("### Every variant (absolute values, load %s)\n\n", expe.FormatLoad(load))
	r.p("%s\n\n", analysis.SaturationNote())
	r.p("| variant | runs | makespan (s) | mean wait (s) | median wait (s) | p95 wait (s) | max wait (s) | mean slowdown | mean bounded slowdown | utilization | offered load | saturated |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, v := range a.Plan.Variants {
		get := func(f func(*report.RunData) float64) analysis.Estimate {
			return analysis.Estimate95(a.Values(v.Name, load, f))
		}
		mk := get(func(x *report.RunData) float64 { return x.Metrics.Makespan })
		r.p("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", v.Name, mk.N, analysis.FmtEst(mk, 0, false),
			analysis.FmtEst(get(func(x *report.RunData) float64 { return x.Metrics.MeanWait }), 0, false),
			analysis.FmtEst(get(func(x *report.RunData) float64 { return x.Metrics.MedianWait }), 0, false),
			analysis.FmtEst(get(func(x *report.RunData) float64 { return x.Metrics.P95Wait }), 0, false),
			analysis.FmtEst(get(func(x *report.RunData) float64 { return x.Metrics.MaxWait }), 0, false),
			analysis.FmtEst(get(func(x *report.RunData) float64 { return x.Metrics.MeanSlowdown }), 1, false),
			analysis.FmtEst(get(func(x *report.RunData) float64 { return x.Metrics.MeanBSLD }), 1, false),
			analysis.FmtEst(get(func(x *report.RunData) float64 { return x.Metrics.Utilization }), 3, false),
			analysis.FmtEst(get(func(x *report.RunData) float64 { return x.Saturation.Offered }), 2, false),
			report.SaturationText(a.ConditionRuns(v.Name, expe.Condition{Load: load})))
	}
	r.p("\n")
}

// satMark marks a value comparing variant x with ref at a load when a run
// of either saturated.
func (r *reporter) satMark(x, ref string, load float64) string {
	c := expe.Condition{Load: load}
	return report.MarkSaturated(r.a.ConditionRuns(x, c), r.a.ConditionRuns(ref, c))
}

// table3Cmp compares the mean waiting time of a profile's inserted requests
// under BUCMA model m over base b with the base alone.
func (r *reporter) table3Cmp(m, class, b string, load float64) analysis.Comparison {
	return r.a.CompareVariants(m+"-"+b, b, expe.Condition{Load: load}, classWait(class), analysis.FloorWait)
}

// classWait is the mean waiting time of a precision profile's jobs in a run
// (NaN when the run has none).
func classWait(class string) func(*report.RunData) float64 {
	return func(x *report.RunData) float64 {
		if s, ok := extra(x).Classes[class]; ok && s.Jobs > 0 {
			return s.MeanWait
		}
		return math.NaN()
	}
}

func (r *reporter) sign(label string, ours analysis.Comparison, paper float64, cell string) {
	e := ours.Primary()
	if e.N == 0 || math.IsNaN(e.Mean) {
		return
	}
	r.signCells++
	if (e.Mean < 0) == (paper < 0) {
		r.signAgree++
		return
	}
	line := fmt.Sprintf("%s: ours %s, paper %s", label, cell, analysis.FmtSigned(paper, 1))
	if ours.Significant() {
		r.signMiss = append(r.signMiss, line)
	} else {
		r.signUnsure = append(r.signUnsure, line)
	}
}

func (r *reporter) differences() {
	r.p("## Where and why we differ\n\n")
	if r.signCells > 0 {
		r.p("**Direction.** %d of %d published changes have the same sign here (%.0f %%); %d have the opposite sign with a 95 %% interval that excludes 0, ",
			r.signAgree, r.signCells, 100*float64(r.signAgree)/float64(r.signCells), len(r.signMiss))
		r.p("%d the opposite sign but an interval that contains 0 (or a single seed): no significant difference in direction.\n\n", len(r.signUnsure))
		if len(r.signMiss) > 0 {
			r.p("Opposite sign, significant:\n\n")
			for _, m := range r.signMiss {
				r.p("- %s\n", m)
			}
			r.p("\n")
		}
		if len(r.signUnsure) > 0 {
			r.p("Opposite sign, not significant:\n\n")
			for _, m := range r.signUnsure {
				r.p("- %s\n", m)
			}
			r.p("\n")
		}
	}
	if len(r.gainCells) > 0 {
		within, far := 0, []string{}
		for _, g := range r.gainCells {
			if math.Abs(g.ours-g.paper) <= 15 {
				within++
			} else {
				far = append(far, fmt.Sprintf("%s: median %.1f vs paper ≈%.1f", g.label, g.ours, g.paper))
			}
		}
		r.p("**Queue-position gains.** %d of %d medians are within 15 points of the paper's.", within, len(r.gainCells))
		if len(far) > 0 {
			r.p(" Further away:\n\n")
			for _, f := range far {
				r.p("- %s\n", f)
			}
		}
		r.p("\n")
		r.p("The paper's main claim on gains is that they grow with the owner's score: %s\n\n", r.monotoneGains())
	}
	r.p("**Known causes of differences.**\n\n")
	r.p("- *Synthetic workload.* The Lille 2020 trace (7056 requests) is not public; a seeded synthetic stand-in with the same shape ")
	r.p("(sizes, run times, walltime accuracy per user class, daily cycle) replaces it. Queue lengths, and therefore every waiting-time ")
	r.p("ratio, depend on the exact arrival pattern.\n")
	r.p("- *Load level.* The changes, above all makespan gains, only appear when the platform is saturated; the paper does not state the load of ")
	r.p("its trace. Compare load levels with `--loads` (e.g. `--loads 0.7,0.85,1.0`); the offered load the runs show is below the level (see above).\n")
	if r.a.Plan.Kind == "bucma-model" {
		r.p("- *The walltime term.* The inserted requests ask for 1 h, short next to most walltimes of the workload, so BUCMA's δ·(1 − W/MaxW) term ")
		r.p("moves them forward whatever their owner's score: where the base policy alone lets the queue grow long (FCFS, EASY at high load), even ")
		r.p("the Su = 0 requests can wait less under BUCMA than under the base alone.\n")
		r.p("- *The scores of the trace's users.* An inserted imprecise request (Su = 0) is overtaken by every job whose owner scores higher: ")
		r.p("the more precise the trace's users, the longer it waits under BUCMA. `bucma expe run bucma-sensitivity` maps this: with a ")
		r.p("mostly precise user population the imprecise row takes the paper's sign (docs/reproducing.md).\n")
		r.p("- *Small denominators.* Table 3 divides by the mean waiting time of 100 requests under the base policy alone; when that mean is a few ")
		r.p("seconds (MIN-MIN starts the short inserted requests almost at once), the relative change is huge and noisy, as the paper's +2053 %% shows; ")
		r.p("below %g s on a seed it is not computed at all (%s) and the cell gives the difference in seconds.\n", analysis.FloorWait, analysis.NearZero)
	} else {
		r.p("- *Precise walltimes.* The workload's walltimes are drawn precise (W = Te / U(0.85, 1.0): P between 85 and 100, the platform ")
		r.p("walltime-trust is designed for); the W × res order, hence every change, depends on the drawn walltimes and sizes. ")
		r.p("`bucma expe run walltime-trust-sensitivity` varies the workload's conditions.\n")
		r.p("- *The threshold.* Algorithm 1's 80 %% of free hosts was chosen on the paper's trace; `bucma expe run walltime-trust-threshold` ")
		r.p("sweeps it on ours.\n")
	}
	r.p("- *Saturation.* A base policy that does not keep up with the offered load (%s in the tables) lets its queue grow with the trace: ", analysis.SaturatedMark)
	r.p("its mean wait, and every change against it, then measures the trace's length as much as the policies.\n")
	if r.a.Plan.Kind == "bucma-model" {
		r.p("- *Model decisions.* Where the paper is silent (the base policy's priority term Ab, ties, host choice, Su of unseen users = 50, gain not ")
		r.p("recorded for a queue of one), bucma follows the decisions documented in its algorithm specification; the paper's extended Batsim ")
		r.p("and Python scheduler may have made others.\n")
	} else {
		r.p("- *Algorithm decisions.* Where the paper is ambiguous or silent (Algorithm 1's \"free resources > 80 %%\" against its prose's ")
		r.p("\"80 %% or more\", read as at least 80 %%; a running job's expected end is its start + W whatever its hosts' speed), bucma follows ")
		r.p("the decisions documented in its algorithm specification; the paper's extended Batsim and Python scheduler may have made others.\n")
	}
	r.p("- *Seeds.* With few seeds (`--quick`) the confidence intervals are wide; a sign disagreement inside an interval that contains 0 is not significant.\n")
	r.starvation()
}

// starvation adds, when the campaign ran wtrust and easy, how their waiting
// times are distributed: walltime-trust has no guard against jobs being
// passed over indefinitely, so a few very long waits can outweigh shorter
// waits for most jobs in the mean.
func (r *reporter) starvation() {
	a := r.a
	for _, load := range a.Plan.Loads {
		mean := func(v string, f func(*report.RunData) float64) float64 {
			return analysis.Estimate95(a.Values(v, load, f)).Mean
		}
		med := func(x *report.RunData) float64 { return x.Metrics.MedianWait }
		mx := func(x *report.RunData) float64 { return x.Metrics.MaxWait }
		avg := func(x *report.RunData) float64 { return x.Metrics.MeanWait }
		wm, em := mean("wtrust", med), mean("easy", med)
		if math.IsNaN(wm) || math.IsNaN(em) {
			return
		}
		if !(wm < em && mean("wtrust", avg) > mean("easy", avg) && mean("wtrust", mx) > mean("easy", mx)) {
			continue // the pattern below is not what this load shows
		}
		r.p("- *No starvation guard in walltime-trust (load %s).* Its median waiting time is %.0f s against EASY's %.0f s, but its longest wait "+
			"is %.0f s against %.0f s and its mean %.0f s against %.0f s: jobs passed over again and again by the W×res order weigh on the mean. "+
			"Compare the median and tail columns of the tables above.\n",
			expe.FormatLoad(load), wm, em, mean("wtrust", mx), mean("easy", mx), mean("wtrust", avg), mean("easy", avg))
	}
}

func (r *reporter) monotoneGains() string {
	ok, total := 0, 0
	var bad []string
	for _, b := range BaseNames {
		for _, m := range BUCMAModels {
			for _, load := range r.a.Plan.Loads {
				g := pooledGains(r.a, m+"-"+b, load)
				prev := math.Inf(-1)
				mono, n := true, 0
				for _, band := range analysis.SuBands {
					if len(g[band]) == 0 {
						continue
					}
					med := metrics.Quantile(g[band], 0.5)
					if med < prev {
						mono = false
					}
					prev = med
					n++
				}
				if n < 2 {
					continue
				}
				total++
				if mono {
					ok++
				} else {
					bad = append(bad, fmt.Sprintf("%s over %s (load %s)", BaseTitle(m), BaseTitle(b), expe.FormatLoad(load)))
				}
			}
		}
	}
	if total == 0 {
		return "not enough bands with data to tell."
	}
	s := fmt.Sprintf("the median gain does not decrease from one band to the next in %d of %d (model, base) pairs.", ok, total)
	if len(bad) > 0 {
		s += " It does decrease somewhere for " + strings.Join(bad, ", ") + "."
	}
	return s
}

// ---------------------------------------------------------------- formatting

func titles(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = BaseTitle(n)
	}
	return out
}

// engineNames lists the engines of the completed runs.
func (r *reporter) engineNames() []string {
	engines, _, _ := r.RunInfos()
	return engines
}
