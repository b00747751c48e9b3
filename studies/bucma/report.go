package bucma

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/bucma-sched/bucma/expe"
)

type reporter struct {
	*expe.Report
	a *expe.Analysis
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
	if IsSensitivity(pl.Kind) {
		return r.sensitivity()
	}
	r.p("# %s\n\n", pl.Title)
	r.p("%s\n\n", pl.Description)
	jobs := "the generator's default number of"
	if pl.Workload.Jobs > 0 {
		jobs = fmt.Sprint(pl.Workload.Jobs)
	}
	steps := "none"
	if len(pl.Workload.Steps) > 0 {
		steps = strings.Join(pl.Workload.Steps, ", ")
	}
	r.p("- Plan `%s`: %d variants × %d seeds × %d load level(s) = %d runs; %d completed", pl.Name, len(pl.Variants), len(pl.Seeds), len(pl.Loads), len(pl.Expand()), len(a.Runs))
	if len(a.Missing) > 0 {
		r.p(" (**%d missing**: the numbers below use the completed runs only)", len(a.Missing))
	}
	r.p(".\n")
	r.p("- Platform `%s` (%d compute hosts); workload: `%s` generator with %s jobs, then %s; seeds %s; load levels %s.\n",
		pl.Platform, a.Hosts, pl.Workload.Generator, jobs, steps, expe.SeedList(pl.Seeds), expe.LoadList(pl.Loads))
	r.p("- Engines: %s.\n", strings.Join(r.engineNames(), ", "))
	r.p("- Values are means over seeds with the half-width of their 95 %% confidence interval (Student t, one value per seed: ")
	r.p("a change is computed on each seed's pair of runs, same workload, then averaged). The paper's value follows in parentheses.\n\n")
	r.p("Definitions: makespan = last finish − first submission (Batsim's `makespan` is max(finish_time)); waiting time = start − submission; ")
	r.p("slowdown = turnaround / execution; bounded slowdown = max(1, turnaround / max(execution, 10 s)); ")
	r.p("utilization = Σ res × execution / (hosts × makespan). Means are over the jobs that ran (rejected jobs excluded).\n\n")

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
		r.p("| model | profile | %s |\n|---|---|%s\n", strings.Join(titles(BaseNames), " | "), strings.Repeat("---|", len(BaseNames)))
		for _, m := range BUCMAModels {
			for _, c := range classes {
				r.p("| %s | %s |", BaseTitle(m), c)
				for _, b := range BaseNames {
					est := expe.Estimate95(a.Paired(m+"-"+b, b, load, func(x, ref *expe.RunData) float64 {
						return expe.Change(extra(x).Classes[c].MeanWait, extra(ref).Classes[c].MeanWait)
					}))
					paper, hasPaper := PaperTable3[m][c][b]
					cell := expe.FmtEst(est, 1, true)
					if hasPaper {
						cell += fmt.Sprintf(" (%s)", expe.FmtSigned(paper, 1))
						r.sign(fmt.Sprintf("Table 3, %s %s %s, load %s", BaseTitle(m), c, BaseTitle(b), expe.FormatLoad(load)), est, paper)
					}
					r.p(" %s |", cell)
				}
				r.p("\n")
			}
		}
		r.p("\n")
		// Figure: one bar group per base, one bar per profile, per model.
		for _, m := range BUCMAModels {
			bars := make([][]expe.Bar, len(classes))
			for ci, c := range classes {
				for _, b := range BaseNames {
					est := expe.Estimate95(a.Paired(m+"-"+b, b, load, func(x, ref *expe.RunData) float64 {
						return expe.Change(extra(x).Classes[c].MeanWait, extra(ref).Classes[c].MeanWait)
					}))
					paper, ok := PaperTable3[m][c][b]
					if !ok {
						paper = math.NaN()
					}
					bars[ci] = append(bars[ci], expe.Bar{Group: BaseTitle(b), Est: est, Paper: paper})
				}
			}
			name := r.figName("table3_"+m, load)
			title := fmt.Sprintf("%s: waiting-time change of the inserted requests (load %s)", BaseTitle(m), expe.FormatLoad(load))
			if err := expe.ChangeBarPlot(filepath.Join(a.Dir, expe.FigDir, name), title, "change vs base alone (%)", titles(BaseNames), classes, bars); err != nil {
				return err
			}
			r.p("![%s](%s/%s.png)\n\n", title, expe.FigDir, name)
		}
		r.p("Mean waiting time of the inserted requests (s), per variant:\n\n")
		r.p("| variant | %s |\n|---|%s\n", strings.Join(classes, " | "), strings.Repeat("---|", len(classes)))
		for _, v := range a.Plan.Variants {
			r.p("| %s |", v.Name)
			for _, c := range classes {
				est := expe.Estimate95(a.Values(v.Name, load, func(x *expe.RunData) float64 {
					if s, ok := extra(x).Classes[c]; ok {
						return s.MeanWait
					}
					return math.NaN()
				}))
				r.p(" %s |", expe.FmtEst(est, 0, false))
			}
			r.p("\n")
		}
		r.p("\n")
	}

	r.p("### Figures 1–2: median queue-position gain at submission by Su band (%%)\n\n")
	r.p("Gains pooled over the seeds; `n` is the number of submissions in the band. The paper gives FCFS and MIN-MIN; ")
	r.p("it says EASY behaves like FCFS and MAX-MIN like MIN-MIN, so those rows are compared with FCFS's and MIN-MIN's values (marked ~).\n\n")
	r.p("| base | model | %s |\n|---|---|%s\n", strings.Join(expe.SuBands, " | "), strings.Repeat("---|", len(expe.SuBands)))
	anyGain := false
	for _, b := range BaseNames {
		for _, m := range BUCMAModels {
			g := pooledGains(a, m+"-"+b, load)
			r.p("| %s | %s |", BaseTitle(b), BaseTitle(m))
			like := PaperGainsLike[b]
			for _, band := range expe.SuBands {
				vals := g[band]
				cell := "–"
				if len(vals) > 0 {
					anyGain = true
					med := expe.Quantile(vals, 0.5)
					cell = fmt.Sprintf("%.1f (n=%d)", med, len(vals))
					if pg, ok := PaperGains[like][m][band]; ok {
						mark := ""
						if like != b {
							mark = "~"
						}
						cell += fmt.Sprintf(" (%s%s)", mark, pg.Text)
						r.gainCells = append(r.gainCells, gainCell{fmt.Sprintf("%s %s Su %s, load %s", BaseTitle(b), BaseTitle(m), band, expe.FormatLoad(load)), med, pg.Value})
					}
				}
				r.p(" %s |", cell)
			}
			r.p("\n")
		}
	}
	r.p("\n")
	if !anyGain {
		r.p("No queue-position gain recorded: the runs have no decision trace (`%s`).\n\n", expe.TraceFile)
		return nil
	}
	r.p("Mean waiting time (s) of all jobs by the owner's Su band at submission (BUCMA runs; mean over seeds):\n\n")
	r.p("| variant | %s |\n|---|%s\n", strings.Join(expe.SuBands, " | "), strings.Repeat("---|", len(expe.SuBands)))
	for _, v := range a.Plan.Variants {
		if v.Model == "" {
			continue
		}
		r.p("| %s |", v.Name)
		for _, band := range expe.SuBands {
			est := expe.Estimate95(a.Values(v.Name, load, func(x *expe.RunData) float64 {
				if w, ok := extra(x).BandWait[band]; ok {
					return w
				}
				return math.NaN()
			}))
			r.p(" %s |", expe.FmtEst(est, 0, false))
		}
		r.p("\n")
	}
	r.p("\n")
	for _, m := range BUCMAModels {
		data := map[string]map[string][]float64{}
		for _, b := range BaseNames {
			data[b] = pooledGains(a, m+"-"+b, load)
		}
		name := r.figName("gains_"+m, load)
		title := fmt.Sprintf("%s: queue-position gain by Su band (load %s)", BaseTitle(m), expe.FormatLoad(load))
		if err := expe.GainBoxPlot(filepath.Join(a.Dir, expe.FigDir, name), title, BaseNames, titles(BaseNames), data); err != nil {
			return err
		}
		r.p("![%s](%s/%s.png)\n\n", title, expe.FigDir, name)
	}
	return nil
}

// ---------------------------------------------------------------- walltime trust

func (r *reporter) wtrustChange(metric, base string, load float64) expe.Estimate {
	return expe.Estimate95(r.a.Paired("wtrust", base, load, func(x, ref *expe.RunData) float64 {
		return expe.Change(wtrustMetric(metric, x), wtrustMetric(metric, ref))
	}))
}

var wtrustTitles = map[string]string{"makespan": "makespan", "waiting": "mean waiting time", "slowdown": "mean slowdown"}

func (r *reporter) wtrust(load float64) error {
	a := r.a
	r.p("### Figures 3–4: walltime-trust relative to each base (%%; negative = reduction)\n\n")
	r.p("| metric | %s |\n|---|%s\n", strings.Join(titles(BaseNames), " | "), strings.Repeat("---|", len(BaseNames)))
	for _, m := range WtrustMetrics {
		r.p("| %s |", wtrustTitles[m])
		for _, b := range BaseNames {
			est := r.wtrustChange(m, b, load)
			pg := PaperWtrust[m][b]
			r.p(" %s (%s) |", expe.FmtEst(est, 1, true), pg.Text)
			r.sign(fmt.Sprintf("Figures 3–4, %s vs %s, load %s", wtrustTitles[m], BaseTitle(b), expe.FormatLoad(load)), est, pg.Value)
		}
		r.p("\n")
	}
	r.p("\n")
	for _, m := range WtrustMetrics {
		var bars []expe.Bar
		for _, b := range BaseNames {
			bars = append(bars, expe.Bar{Group: BaseTitle(b), Est: r.wtrustChange(m, b, load), Paper: PaperWtrust[m][b].Value})
		}
		name := r.figName("wtrust_"+m, load)
		title := fmt.Sprintf("walltime-trust vs base: %s (load %s)", wtrustTitles[m], expe.FormatLoad(load))
		if err := expe.ChangeBarPlot(filepath.Join(a.Dir, expe.FigDir, name), title, "change vs base (%)", titles(BaseNames), []string{"walltime-trust"}, [][]expe.Bar{bars}); err != nil {
			return err
		}
		r.p("![%s](%s/%s.png)\n\n", title, expe.FigDir, name)
	}
	return nil
}

func (r *reporter) wtrustSweep() error {
	r.p("## Gains against load\n\n")
	for _, m := range WtrustMetrics {
		ests := make([][]expe.Estimate, len(BaseNames))
		for bi, b := range BaseNames {
			for _, l := range r.a.Plan.Loads {
				ests[bi] = append(ests[bi], r.wtrustChange(m, b, l))
			}
		}
		name := "wtrust_" + m + "_vs_load"
		title := fmt.Sprintf("walltime-trust vs each base: %s against load", wtrustTitles[m])
		if err := expe.ChangeLinePlot(filepath.Join(r.a.Dir, expe.FigDir, name), title, "offered load", "change vs base (%)", r.a.Plan.Loads, titles(BaseNames), ests); err != nil {
			return err
		}
		r.p("![%s](%s/%s.png)\n\n", title, expe.FigDir, name)
		r.p("Change of the %s, walltime-trust vs each base (%%), by load level:\n\n", wtrustTitles[m])
		r.p("| load | %s |\n|---|%s\n", strings.Join(titles(BaseNames), " | "), strings.Repeat("---|", len(BaseNames)))
		for _, l := range r.a.Plan.Loads {
			r.p("| %s |", expe.FormatLoad(l))
			for _, b := range BaseNames {
				r.p(" %s |", expe.FmtEst(r.wtrustChange(m, b, l), 1, true))
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
	r.p("| variant | runs | makespan (s) | mean wait (s) | median wait (s) | p95 wait (s) | max wait (s) | mean slowdown | mean bounded slowdown | utilization |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, v := range a.Plan.Variants {
		get := func(f func(*expe.RunData) float64) expe.Estimate { return expe.Estimate95(a.Values(v.Name, load, f)) }
		mk := get(func(x *expe.RunData) float64 { return x.Metrics.Makespan })
		r.p("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", v.Name, mk.N, expe.FmtEst(mk, 0, false),
			expe.FmtEst(get(func(x *expe.RunData) float64 { return x.Metrics.MeanWait }), 0, false),
			expe.FmtEst(get(func(x *expe.RunData) float64 { return x.Metrics.MedianWait }), 0, false),
			expe.FmtEst(get(func(x *expe.RunData) float64 { return x.Metrics.P95Wait }), 0, false),
			expe.FmtEst(get(func(x *expe.RunData) float64 { return x.Metrics.MaxWait }), 0, false),
			expe.FmtEst(get(func(x *expe.RunData) float64 { return x.Metrics.MeanSlowdown }), 1, false),
			expe.FmtEst(get(func(x *expe.RunData) float64 { return x.Metrics.MeanBSLD }), 1, false),
			expe.FmtEst(get(func(x *expe.RunData) float64 { return x.Metrics.Utilization }), 3, false))
	}
	r.p("\n")
}

func (r *reporter) sign(label string, ours expe.Estimate, paper float64) {
	if math.IsNaN(ours.Mean) {
		return
	}
	r.signCells++
	if (ours.Mean < 0) == (paper < 0) {
		r.signAgree++
		return
	}
	line := fmt.Sprintf("%s: ours %s, paper %s", label, expe.FmtEst(ours, 1, true), expe.FmtSigned(paper, 1))
	if !math.IsNaN(ours.Half) && math.Abs(ours.Mean) > ours.Half {
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
	r.p("(sizes, run times, walltime accuracy per user class, daily cycle) replaces it. Queue lengths at the inserted requests' submissions, ")
	r.p("and therefore every waiting-time ratio, depend on the exact arrival pattern.\n")
	r.p("- *Load level.* The changes, above all makespan gains, only appear when the platform is saturated; the paper does not state the load of ")
	r.p("its trace. Compare load levels with `--loads` (e.g. `--loads 0.7,0.85,1.0`).\n")
	r.p("- *The walltime term.* The inserted requests ask for 1 h, short next to most walltimes of the workload, so BUCMA's δ·(1 − W/MaxW) term ")
	r.p("moves them forward whatever their owner's score: where the base policy alone lets the queue grow long (FCFS, EASY at high load), even ")
	r.p("the Su = 0 requests can wait less under BUCMA than under the base alone.\n")
	r.p("- *The scores of the trace's users.* An inserted imprecise request (Su = 0) is overtaken by every job whose owner scores higher: ")
	r.p("the more precise the trace's users, the longer it waits under BUCMA. `bucma expe run bucma-sensitivity` maps this: with a ")
	r.p("mostly precise user population the imprecise row takes the paper's sign (docs/reproducing.md).\n")
	r.p("- *Small denominators.* Table 3 divides by the mean waiting time of 100 requests under the base policy alone; when that mean is a few ")
	r.p("seconds (MIN-MIN starts the short inserted requests almost at once), the relative change is huge and noisy, as the paper's +2053 %% shows.\n")
	r.p("- *Model decisions.* Where the paper is silent (the base policy's priority term Ab, ties, host choice, Su of unseen users = 50, gain not ")
	r.p("recorded for a queue of one), bucma follows the decisions documented in its algorithm specification; the paper's extended Batsim ")
	r.p("and Python scheduler may have made others.\n")
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
		mean := func(v string, f func(*expe.RunData) float64) float64 {
			return expe.Estimate95(a.Values(v, load, f)).Mean
		}
		med := func(x *expe.RunData) float64 { return x.Metrics.MedianWait }
		mx := func(x *expe.RunData) float64 { return x.Metrics.MaxWait }
		avg := func(x *expe.RunData) float64 { return x.Metrics.MeanWait }
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
				for _, band := range expe.SuBands {
					if len(g[band]) == 0 {
						continue
					}
					med := expe.Quantile(g[band], 0.5)
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
