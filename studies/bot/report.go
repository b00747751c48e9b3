package bot

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/expe/figures"
	"github.com/bucma-sched/bucma/expe/report"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/workloads"
)

// botCell gathers one quantity over the seeds of a case and variant.
func botCell(runs []*botRun, f func(*botRun) float64) analysis.Estimate {
	xs := make([]float64, len(runs))
	for i, br := range runs {
		xs[i] = f(br)
	}
	return analysis.Estimate95(xs)
}

// botPaired collects f over the seeds where both xs and ys have a run.
func botPaired(xs, ys []*botRun, f func(x, y *botRun) float64) []float64 {
	var out []float64
	for _, x := range xs {
		for _, y := range ys {
			if x.seed == y.seed {
				out = append(out, f(x, y))
			}
		}
	}
	return out
}

// botOf returns a function reading the BoT of that name in a run.
func botOf(name string, f func(*botBoTRun) float64) func(*botRun) float64 {
	return func(br *botRun) float64 {
		if b := br.bots[name]; b != nil {
			return f(b)
		}
		return math.NaN()
	}
}

// fmtBotEst prints an estimate: the mean alone when every seed gave the
// same value, else with its 95 % half-width.
func fmtBotEst(e analysis.Estimate, prec int, signed bool) string {
	if math.Abs(e.Mean) < 0.5*math.Pow(10, -float64(prec)) {
		e.Mean = 0 // no "-0.0"
	}
	if e.N > 0 && !math.IsNaN(e.Half) && e.Half < 0.5*math.Pow(10, -float64(prec)) {
		e.Half = math.NaN()
	}
	return analysis.FmtEst(e, prec, signed)
}

// fmtBotDiff prints a difference from the Consolidado (or the predicted
// end): expe.NearZero when no seed had a base above the floor.
func fmtBotDiff(e analysis.Estimate, prec int) string {
	if e.N == 0 {
		return analysis.NearZero
	}
	return fmtBotEst(e, prec, true)
}

// botSpread is the largest difference, over the cases whose BoTs are all
// published, between the makespans of one variant's seeds (they should all
// be equal: nothing is drawn).
func botSpread(cases []expe.WorkloadCase, runs map[string]map[string][]*botRun) float64 {
	spread := 0.0
	for _, c := range cases {
		if !botPublished(c) {
			continue
		}
		for _, rs := range runs[c.Name] {
			for name := range botCaseBots(c) {
				lo, hi := math.Inf(1), math.Inf(-1)
				for _, br := range rs {
					if b := br.bots[name]; b != nil {
						lo, hi = math.Min(lo, b.end), math.Max(hi, b.end)
					}
				}
				if hi-lo > 1e-6 {
					spread = math.Max(spread, hi-lo)
				}
			}
		}
	}
	return spread
}

// botCaseBots is the set of the canonical BoT names of a case.
func botCaseBots(c expe.WorkloadCase) map[string]bool {
	out := map[string]bool{}
	for _, n := range strings.Split(c.Param("bots"), ",") {
		n = strings.TrimSpace(n)
		if b, ok := workloads.NamedBoT(n); ok {
			n = b.Name
		} else if p := workloads.BotProfileName(n); p != "" {
			n = p
		}
		out[n] = true
	}
	return out
}

// botPublished says whether every BoT of a case is published (the runs do
// not depend on the seed).
func botPublished(c expe.WorkloadCase) bool {
	for _, n := range strings.Split(c.Param("bots"), ",") {
		if _, ok := workloads.NamedBoT(n); !ok {
			return false
		}
	}
	return !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(c.Param("bot_arrivals"))), "I")
}

// botHasVariant says whether the plan has that variant.
func (r *reporter) botHasVariant(name string) bool {
	for _, v := range r.a.Plan.Variants {
		if v.Name == name {
			return true
		}
	}
	return false
}

func (r *reporter) bot() error {
	a := r.a
	pl := a.Plan
	runs, err := r.botRuns()
	if err != nil {
		return err
	}
	r.Intro(fmt.Sprintf("%d variants × %d cases × %d seeds", len(pl.Variants), len(pl.Cases), len(pl.Seeds)), "the numbers below use the completed runs only")
	engines, wall, _ := r.RunInfos()
	r.p("- Engines: %s (compute sharing and energy on). Wall time of the runs: %s in all.\n", strings.Join(engines, ", "), analysis.FmtDuration(wall))
	r.p("- Variants: ")
	var vs []string
	for _, v := range pl.Variants {
		t := botVariantTitles[v.Name]
		if t == "" {
			t = v.Policy
		}
		vs = append(vs, fmt.Sprintf("`%s`, %s", v.Name, t))
	}
	r.p("%s. Options: %s.\n", strings.Join(vs, "; "), botOptionsText(pl.Variants))
	r.p("- 1 step = %g s (5 min). *Consolidado* is T × 5 min, T the length in steps of the BoT's consolidated plan ", BotStep)
	r.p("(Algorithm 1 on the BoT's VMs, cíclico, lowest cost first, the whole application delayed a step when a job is deferred), ")
	r.p("computed here from the BoT. *Makespan* of a BoT = end of its last step − its arrival, in minutes, a step ending at the later of ")
	r.p("its job's end and its start + 300 s (the thesis' load generators hold c %% of a core for the whole step; alone on a core, the ")
	r.p("simulated job computes its c/100 × 300 Gflop in c %% of the step). *Difference* = ")
	r.p("(makespan − Consolidado) / Consolidado × 100, the thesis' formula. *Migrations*: two consecutive rows of a VM (the `vm=` of each ")
	r.p("job's metadata) on cores of different nodes. The published BoTs (H1, H2) do not depend on the seed: one value; the drawn ones ")
	r.p("(profiles, production) are means over the seeds %s ± the half-width of their 95 %% confidence interval. ", analysis.SeedList(pl.Seeds))
	r.p("The thesis' value follows in parentheses. ")
	r.p("A difference is not computed over a Consolidado or a predicted end below %g s (%s).\n", analysis.FloorSeconds, analysis.NearZero)
	r.p("- %s\n", report.SaturationSummary(a, true))
	if s := botSpread(pl.Cases, runs); s > 0 {
		r.p("- **The seeds of a published BoT gave different makespans** (by up to %.1f s): the runs are not deterministic.\n", s)
	}
	r.p("\n")
	if err := r.botTrivial(runs, "h1-", 7); err != nil {
		return err
	}
	if err := r.botTrivial(runs, "h2-", 8); err != nil {
		return err
	}
	if err := r.botProfiles(runs); err != nil {
		return err
	}
	r.botProduction(runs)
	r.botEnergy(runs)
	r.botWhy(runs)
	return nil
}

// botOptionsText sums up the variants' options.
func botOptionsText(vs []expe.Variant) string {
	var parts []string
	for _, v := range vs {
		parts = append(parts, fmt.Sprintf("`%s` %s", v.Name, strings.Join(v.OptionArgs(), " ")))
	}
	return strings.Join(parts, "; ")
}

// botCasesWithPrefix lists the plan's cases whose name starts with prefix.
func (r *reporter) botCasesWithPrefix(prefix string) []expe.WorkloadCase {
	var out []expe.WorkloadCase
	for _, c := range r.a.Plan.Cases {
		if strings.HasPrefix(c.Name, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// botSingle is the BoT of a one-BoT case.
func botSingle(c expe.WorkloadCase) string {
	for n := range botCaseBots(c) {
		return n
	}
	return ""
}

// botTrivial writes Table 7 (prefix h1-) or Table 8 (h2-).
func (r *reporter) botTrivial(runs map[string]map[string][]*botRun, prefix string, table int) error {
	cases := r.botCasesWithPrefix(prefix)
	if len(cases) == 0 {
		return nil
	}
	if table == 7 {
		r.p("## Table 7: trivial case 1, light tasks on many resources (36 cores)\n\n")
		r.p("Each BoT alone on 10 VMs, on the 9 nodes × 4 cores of `bot`. The thesis expects the real time to equal the consolidated one ")
		r.p("(its Hypothesis 1); its Real is the mean of 10 executions.\n\n")
	} else {
		r.p("## Table 8: trivial case 2, heavy tasks on few resources (8 cores)\n\n")
		r.p("Each BoT alone on the VMs the thesis gives it (enough for its parallelism), on the 2 nodes × 4 cores of `bot-2nodes`. ")
		r.p("The thesis expects a delay growing with the VMs per core (its Hypothesis 2).\n\n")
	}
	variants := r.a.Plan.Variants
	r.p("| BoT | VMs | tasks | T (steps) | Consolidado, min | thesis Real, min (difference) |")
	for _, v := range variants {
		r.p(" %s, min (difference) |", v.Name)
	}
	r.p(" migrations, %s |\n|---|---|---|---|---|---|%s---|\n", BotThresholdVariant, strings.Repeat("---|", len(variants)))
	var groups []string
	series := []string{"Consolidado"}
	for _, v := range variants {
		series = append(series, v.Name)
	}
	bars := make([][]figures.Bar, len(series))
	for _, c := range cases {
		name := botSingle(c)
		paper := botPaperTrivial[name]
		rs := runs[c.Name]
		var info *botInfo
		for _, v := range variants {
			if len(rs[v.Name]) > 0 {
				info = rs[v.Name][0].bots[name].info
				break
			}
		}
		groups = append(groups, name)
		if info == nil {
			r.p("| %s | (runs missing) |%s\n", name, strings.Repeat(" |", 5+len(variants)))
			for i := range bars {
				bars[i] = append(bars[i], figures.Bar{Group: name, Est: analysis.Estimate{Mean: math.NaN(), Half: math.NaN()}, Paper: math.NaN()})
			}
			continue
		}
		cons := float64(info.plan.T) * BotStep / 60
		r.p("| %s | %d (%d) | %d | %d | %.0f (%.0f) | %.0f (%+.2f %%) |", name, info.vms, paper.vms, info.tasks, info.plan.T, cons, paper.cons, paper.real, paper.diff)
		bars[0] = append(bars[0], figures.Bar{Group: name, Est: analysis.Estimate{N: 1, Mean: cons, Half: math.NaN()}, Paper: paper.cons})
		for vi, v := range variants {
			mk := botCell(rs[v.Name], botOf(name, (*botBoTRun).makespan))
			df := botCell(rs[v.Name], botOf(name, (*botBoTRun).diff))
			r.p(" %s (%s %%) |", fmtBotEst(mk, 1, false), fmtBotDiff(df, 1))
			p := math.NaN()
			if v.Name == BotConsolidationVariant || v.Name == BotThresholdVariant {
				p = paper.real
			}
			bars[vi+1] = append(bars[vi+1], figures.Bar{Group: name, Est: mk, Paper: p})
		}
		mig := botCell(rs[BotThresholdVariant], botOf(name, func(b *botBoTRun) float64 { return float64(b.moves.Nodes) }))
		if paper.migrations >= 0 {
			r.p(" %s (%d) |\n", fmtBotEst(mig, 0, false), paper.migrations)
		} else {
			r.p(" %s (none observed) |\n", fmtBotEst(mig, 0, false))
		}
	}
	r.p("\n")
	fig := fmt.Sprintf("bot-table%d", table)
	title := map[int]string{7: "Trivial case 1: light BoTs on 36 cores", 8: "Trivial case 2: heavy BoTs on 8 cores"}[table]
	if err := figures.PaperBarPlot(filepath.Join(r.a.Dir, report.FigDir, fig), title, "minutes", groups, series, bars, "thesis (Consolidado, Real)"); err != nil {
		return err
	}
	r.p("![%s](%s/%s.png)\n\nBars: our Consolidado and makespans; triangles: the thesis' Consolidado and Real (the thesis' Real beside the application level and the system level).\n\n", title, report.FigDir, fig)
	return nil
}

// botProfileRuns are the application-level runs of a profile on the
// idle cluster, else under the first external load the plan has (the
// BoT is the same under every external load).
func (r *reporter) botProfileRuns(runs map[string]map[string][]*botRun, p string) []*botRun {
	if rs := runs[BotProfileCase(p, 0)][BotConsolidationVariant]; len(rs) > 0 {
		return rs
	}
	for _, c := range r.botCasesWithPrefix(p + "-bg") {
		if rs := runs[c.Name][BotConsolidationVariant]; len(rs) > 0 {
			return rs
		}
	}
	return nil
}

// botProfiles writes Tables 10 to 12.
func (r *reporter) botProfiles(runs map[string]map[string][]*botRun) error {
	var profiles []string
	for _, p := range BotProfiles {
		if len(r.botCasesWithPrefix(p+"-bg")) > 0 {
			profiles = append(profiles, p)
		}
	}
	if len(profiles) == 0 {
		return nil
	}
	r.p("## Tables 10 and 11: user profiles under external load, without and with the system level\n\n")
	r.p("The profiles of Table 9 (Q10 N4^10 S1^3 I1^2, cost L2^10, L10^50 and L20^75), drawn from their classes with each seed ")
	r.p("(workloads.GenerateBoT): the thesis publishes their classes, not the BoTs. Each runs on its VMs (3, 24, 24) on the 36 cores ")
	r.p("of `bot` while every core carries an external load of 0, 50 or 75 %% of its capacity (one job per core and step, as stress-ng ")
	r.p("started before the VMs). Table 10 is the application level alone (`%s`), Table 11 adds the system level (`%s`).\n\n", BotConsolidationVariant, BotThresholdVariant)
	r.p("| profile | VMs | tasks | T (steps) | Consolidado, min |\n|---|---|---|---|---|\n")
	for _, p := range profiles {
		rs := r.botProfileRuns(runs, p)
		paper := botPaperProfiles[p]
		vms := botCell(rs, botOf(p, func(b *botBoTRun) float64 { return float64(b.info.vms) }))
		tasks := botCell(rs, botOf(p, func(b *botBoTRun) float64 { return float64(b.info.tasks) }))
		t := botCell(rs, botOf(p, func(b *botBoTRun) float64 { return float64(b.info.plan.T) }))
		cons := botCell(rs, botOf(p, (*botBoTRun).consolidated))
		r.p("| %s | %s (%d) | %s (%d) | %s | %s (%.0f) |\n", p, fmtBotEst(vms, 0, false), paper.vms, fmtBotEst(tasks, 1, false), paper.tasks,
			fmtBotEst(t, 1, false), fmtBotEst(cons, 1, false), paper.cons)
	}
	r.p("\n")
	r.p("Makespan (min) and difference from the Consolidado (%%) by external load; Table 10 and Table 11 in parentheses:\n\n")
	r.p("| profile | external load | without system level | difference | with system level | difference | migrations (Table 12) |")
	others := []string{}
	for _, v := range r.a.Plan.Variants {
		if v.Name != BotConsolidationVariant && v.Name != BotThresholdVariant {
			others = append(others, v.Name)
			r.p(" %s | difference |", v.Name)
		}
	}
	r.p("\n|---|---|---|---|---|---|---|%s\n", strings.Repeat("---|---|", len(others)))
	var groups []string
	series := []string{"without system level", "with system level"}
	series = append(series, others...)
	bars := make([][]figures.Bar, len(series))
	for _, p := range profiles {
		paper := botPaperProfiles[p]
		for bi, bg := range BotBackgrounds {
			c := BotProfileCase(p, bg)
			if _, ok := r.a.Plan.Case(c); !ok {
				continue
			}
			rs := runs[c]
			groups = append(groups, fmt.Sprintf("%s %d%%", p, bg))
			wo := botCell(rs[BotConsolidationVariant], botOf(p, (*botBoTRun).makespan))
			wod := botCell(rs[BotConsolidationVariant], botOf(p, (*botBoTRun).diff))
			wi := botCell(rs[BotThresholdVariant], botOf(p, (*botBoTRun).makespan))
			wid := botCell(rs[BotThresholdVariant], botOf(p, (*botBoTRun).diff))
			mig := botCell(rs[BotThresholdVariant], botOf(p, func(b *botBoTRun) float64 { return float64(b.moves.Nodes) }))
			r.p("| %s | %d %% | %s (%.0f) | %s (%+.1f) | %s (%.0f) | %s (%+.1f) | %s (%d) |", p, bg,
				fmtBotEst(wo, 1, false), paper.without[bi], fmtBotDiff(wod, 1), paper.diffWithout[bi],
				fmtBotEst(wi, 1, false), paper.with[bi], fmtBotDiff(wid, 1), paper.diffWith[bi], fmtBotEst(mig, 1, false), paper.migrations[bi])
			bars[0] = append(bars[0], figures.Bar{Group: c, Est: wod, Paper: paper.diffWithout[bi]})
			bars[1] = append(bars[1], figures.Bar{Group: c, Est: wid, Paper: paper.diffWith[bi]})
			for oi, o := range others {
				mk := botCell(rs[o], botOf(p, (*botBoTRun).makespan))
				df := botCell(rs[o], botOf(p, (*botBoTRun).diff))
				r.p(" %s | %s |", fmtBotEst(mk, 1, false), fmtBotDiff(df, 1))
				bars[2+oi] = append(bars[2+oi], figures.Bar{Group: c, Est: df, Paper: math.NaN()})
			}
			r.p("\n")
		}
	}
	r.p("\n")
	fig := "bot-profiles"
	if err := figures.PaperBarPlot(filepath.Join(r.a.Dir, report.FigDir, fig), "User profiles: difference from the Consolidado", "difference (%)", groups, series, bars, "thesis (Tables 10, 11)"); err != nil {
		return err
	}
	r.p("![User profiles](%s/%s.png)\n\nBars: our differences (95 %% intervals over the seeds); triangles: the thesis' (Table 10 beside the application level, Table 11 beside the system level).\n\n", report.FigDir, fig)
	return nil
}

// botProduction writes Table 14.
func (r *reporter) botProduction(runs map[string]map[string][]*botRun) {
	c, ok := r.a.Plan.Case(BotProductionCase)
	if !ok {
		return
	}
	rs := runs[c.Name]
	r.p("## Table 14: production, ten BoTs arriving one after the other\n\n")
	r.p("UP-1 to UP-10 drawn from the classes of Table 13 with each seed, on 4, 8 or 10 VMs (5, 10 or 20 quadruples), each consolidated ")
	r.p("alone and arriving at the date Table 14 gives it; all share the 36 cores of `bot`. Dates in minutes from the first arrival; ")
	r.p("*predicted end* = arrival + Consolidado; *difference* = (end − predicted end) / predicted end, the thesis' formula (on dates); ")
	r.p("*on durations* = (end − predicted end) / Consolidado.\n\n")
	variants := []string{BotConsolidationVariant, BotThresholdVariant}
	r.p("| BoT | tasks | arrival | VMs | T (steps) | predicted end |")
	for _, v := range variants {
		r.p(" end, %s | difference (%%) | on durations (%%) |", v)
	}
	r.p("\n|---|---|---|---|---|---|%s\n", strings.Repeat("---|---|---|", len(variants)))
	for _, name := range botProductionOrder {
		if !botCaseBots(c)[name] {
			continue
		}
		paper := botPaperProduction[name]
		ref := rs[BotConsolidationVariant]
		tasks := botCell(ref, botOf(name, func(b *botBoTRun) float64 { return float64(b.info.tasks) }))
		arr := botCell(ref, botOf(name, func(b *botBoTRun) float64 { return b.info.arrival / 60 }))
		vms := botCell(ref, botOf(name, func(b *botBoTRun) float64 { return float64(b.info.vms) }))
		t := botCell(ref, botOf(name, func(b *botBoTRun) float64 { return float64(b.info.plan.T) }))
		pred := botCell(ref, botOf(name, func(b *botBoTRun) float64 { return b.info.arrival/60 + b.consolidated() }))
		r.p("| %s | %s (%d) | %s (%.0f) | %s (%d) | %s | %s (%.0f) |", name, fmtBotEst(tasks, 1, false), paper.tasks, fmtBotEst(arr, 0, false), paper.arrival,
			fmtBotEst(vms, 0, false), paper.vms, fmtBotEst(t, 1, false), fmtBotEst(pred, 1, false), paper.pred)
		for i, v := range variants {
			end := botCell(rs[v], botOf(name, func(b *botBoTRun) float64 { return b.end / 60 }))
			df := botCell(rs[v], botOf(name, func(b *botBoTRun) float64 {
				p := b.info.arrival/60 + b.consolidated()
				if p*60 < analysis.FloorSeconds {
					return math.NaN()
				}
				return 100 * (b.end/60 - p) / p
			}))
			dd := botCell(rs[v], botOf(name, func(b *botBoTRun) float64 { return b.diff() }))
			mark := botSatMark(rs[v])
			if i == 0 {
				r.p(" %s (%.0f) | %s (%+.2f) | %s (%+.1f) |", fmtBotEst(end, 1, false)+mark, paper.real, fmtBotDiff(df, 1)+mark, paper.diff,
					fmtBotDiff(dd, 1)+mark, 100*(paper.real-paper.pred)/(paper.pred-paper.arrival))
			} else {
				r.p(" %s | %s | %s |", fmtBotEst(end, 1, false)+mark, fmtBotDiff(df, 1)+mark, fmtBotDiff(dd, 1)+mark)
			}
		}
		r.p("\n")
	}
	last := func(v string) analysis.Estimate {
		return botCell(rs[v], func(br *botRun) float64 {
			end := 0.0
			for _, b := range br.bots {
				end = math.Max(end, b.end)
			}
			return end / 60
		})
	}
	r.p("\nEvery BoT has ended at minute %s (application level) and %s (system level); the thesis: 576.\n\n",
		fmtBotEst(last(BotConsolidationVariant), 1, false), fmtBotEst(last(BotThresholdVariant), 1, false))
}

// botEnergy writes the energy of every variant and case (no thesis
// counterpart).
func (r *reporter) botEnergy(runs map[string]map[string][]*botRun) {
	r.p("## Energy (new: the thesis measures none)\n\n")
	r.p("Energy consumed by the whole platform during the whole run (Batsim's `consumed_joules`, in kWh), the external load included, ")
	r.p("with the wattages of the platform%s. ", botWatts(filepath.Join(r.a.Dir, expe.PlatformFile)))
	r.p("This table is new, not a reproduction: the thesis reports no energy. The energy saved is the paired change (each seed's two runs), ")
	r.p("negated, with the seeds that back its sign (%s); it is not computed over an energy below %g J.\n\n", analysis.SeedsNote(), BotFloorJoules)
	variants := r.a.Plan.Variants
	r.p("| case |")
	for _, v := range variants {
		r.p(" %s |", v.Name)
	}
	hasPower := r.botHasVariant(BotThresholdPowerVariant) && r.botHasVariant(BotThresholdVariant)
	if hasPower {
		r.p(" saved by switching off (%%) |")
	}
	r.p("\n|---|%s", strings.Repeat("---|", len(variants)))
	if hasPower {
		r.p("---|")
	}
	r.p("\n")
	for _, c := range r.a.Plan.Cases {
		r.p("| %s |", c.Name)
		for _, v := range variants {
			e := botCell(runs[c.Name][v.Name], func(br *botRun) float64 { return br.joules / 3.6e6 })
			r.p(" %s |", fmtBotEst(e, 3, false))
		}
		if hasPower {
			var on, off []float64
			for _, x := range runs[c.Name][BotThresholdVariant] {
				for _, y := range runs[c.Name][BotThresholdPowerVariant] {
					if x.seed == y.seed {
						on, off = append(on, x.joules), append(off, y.joules)
					}
				}
			}
			cp := analysis.Compare(off, on, BotFloorJoules)
			mark := botSatMark(runs[c.Name][BotThresholdVariant], runs[c.Name][BotThresholdPowerVariant])
			if cp.NearZero > 0 {
				r.p(" %s%s |", analysis.NearZero, mark)
			} else {
				r.p(" %s %s%s |", fmtBotEst(analysis.Estimate{N: cp.Change.N, Mean: -cp.Change.Mean, Half: cp.Change.Half}, 1, true), cp.SeedsText(), mark)
			}
		}
		r.p("\n")
	}
	r.p("\n")
}

// botWatts describes the wattages of a platform's first host (its
// wattage_per_state and sleep_pstates properties): "" when it has none.
func botWatts(path string) string {
	p, err := platforms.Load(path)
	if err != nil || len(p.Hosts) == 0 {
		return ""
	}
	h := p.Hosts[0]
	states := strings.Split(h.Properties["wattage_per_state"], ",")
	watts := func(i int) []float64 {
		if i < 0 || i >= len(states) {
			return nil
		}
		var out []float64
		for _, f := range strings.Split(strings.TrimSpace(states[i]), ":") {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				return nil
			}
			out = append(out, v)
		}
		return out
	}
	w0 := watts(0)
	if len(w0) < 2 {
		return ""
	}
	text := fmt.Sprintf(" (per core: idle %.2f W, busy %.2f W", w0[0], w0[len(w0)-1])
	if sp := strings.Split(h.Properties["sleep_pstates"], ":"); len(sp) > 0 {
		if i, err := strconv.Atoi(strings.TrimSpace(sp[0])); err == nil {
			if ws := watts(i); len(ws) > 0 {
				text += fmt.Sprintf(", asleep %.2f W", ws[0])
			}
		}
	}
	return text + ")"
}

// botWhy explains, from the runs, where and why the campaign leaves the
// thesis.
func (r *reporter) botWhy(runs map[string]map[string][]*botRun) {
	r.p("## Where and why we differ\n\n")
	single := func(c expe.WorkloadCase, v string) *botBoTRun {
		rs := runs[c.Name][v]
		if len(rs) == 0 {
			return nil
		}
		return rs[0].bots[botSingle(c)]
	}
	// Trivial case 1: no VM overhead in the simulator.
	if cases := r.botCasesWithPrefix("h1-"); len(cases) > 0 {
		exact, n, maxDev := 0, 0, 0.0
		var ours, theirs []string
		for _, c := range cases {
			b := single(c, BotConsolidationVariant)
			if b == nil {
				continue
			}
			n++
			dev := math.Abs(b.makespan() - b.consolidated())
			maxDev = math.Max(maxDev, dev)
			if dev < 0.01 {
				exact++
			}
			name := botSingle(c)
			ours = append(ours, fmt.Sprintf("%s %s %%", name, fmtBotDiff(analysis.Estimate95([]float64{b.diff()}), 1)))
			theirs = append(theirs, fmt.Sprintf("%+.1f %%", botPaperTrivial[name].diff))
		}
		if n > 0 {
			r.p("- **Trivial case 1: no VM overhead.** Our makespan equals the Consolidado for %d of %d BoTs (largest deviation %.2f min; %s); ", exact, n, maxDev, strings.Join(ours, ", "))
			r.p("the thesis' Real is %s above it. The thesis attributes its excess to the cost of running VMs (hypervisor, VM ", strings.Join(theirs, ", "))
			r.p("management) on a cluster with cores to spare: the simulator models no VM overhead, a VM's row of c %% on an otherwise idle ")
			r.p("core computes c/100 × 300 Gflop at 1 Gflop/s and ends within its 300-s step, so the replay is the plan exactly. ")
			var early []string
			for _, c := range cases {
				if b := single(c, BotPackingVariant); b != nil && b.makespan() < float64(b.info.uncontended)*BotStep/60-0.01 {
					early = append(early, fmt.Sprintf("%s %.1f min against %d", botSingle(c), b.makespan(), b.info.uncontended*int(BotStep)/60))
				}
			}
			if len(early) > 0 {
				r.p("`%s` ends before the uncontended execution (%s): it lets a later quadruple start once the earlier tasks' steps ", BotPackingVariant, strings.Join(early, "; "))
				r.p("have ended, and a step of c %% alone on its core ends after c %% of the step, so the later quadruples start early. ")
			}
			var migs []string
			for _, c := range cases {
				if b := single(c, BotThresholdVariant); b != nil {
					migs = append(migs, fmt.Sprintf("%s %d", botSingle(c), b.moves.Nodes))
				}
			}
			if len(migs) > 0 {
				r.p("With the system level the VMs migrate %s times (the thesis observed none): 10 VMs spread over 9 nodes leave ", strings.Join(migs, ", "))
				r.p("nodes holding one VM, at most 25 %% of a node's 4 cores; at 20 %% or less the node is idle for the system level, which hands ")
				r.p("its VM to an intermediate node.")
			}
			r.p("\n")
		}
	}
	// Trivial case 2: processor sharing on 8 cores.
	if cases := r.botCasesWithPrefix("h2-"); len(cases) > 0 {
		r.p("- **Trivial case 2: VMs sharing 8 cores.** With more VMs than cores, several VMs share a core; when the loads of a core's VMs ")
		r.p("add up to more than 100 %%, SimGrid shares the core among their jobs and the row lasts longer than its step; a VM's next row ")
		r.p("waits for its previous one, so the delays accumulate. The fluid bound below assumes the 8 cores perfectly shared: a row of total ")
		r.p("load L lasts max(1, L / 800 %%) steps.\n\n")
		r.p("  | BoT | VMs per core | mean row load / 8 cores | fluid bound, min | ours (application level), min | ours (system level), min | thesis Real, min |\n  |---|---|---|---|---|---|---|\n")
		var diffs, paperDiffs []float64
		var rowLoads []string
		for _, c := range cases {
			b := single(c, BotConsolidationVariant)
			if b == nil {
				continue
			}
			name := botSingle(c)
			fluid, mean := 0.0, 0.0
			for _, row := range b.info.plan.Loads {
				sum := 0
				for _, l := range row {
					sum += l
				}
				fluid += math.Max(1, float64(sum)/800)
				mean += float64(sum) / 800 / float64(len(b.info.plan.Loads))
			}
			with := math.NaN()
			if t := single(c, BotThresholdVariant); t != nil {
				with = t.makespan()
			}
			r.p("  | %s | %.2f | %.2f | %.1f | %.1f | %s | %.0f |\n", name, float64(b.info.vms)/8, mean, fluid*BotStep/60, b.makespan(),
				fmtBotEst(analysis.Estimate{N: 1, Mean: with, Half: math.NaN()}, 1, false), botPaperTrivial[name].real)
			rowLoads = append(rowLoads, fmt.Sprintf("%.0f %%", 100*mean))
			diffs = append(diffs, b.diff())
			paperDiffs = append(paperDiffs, botPaperTrivial[name].diff)
		}
		grows := len(diffs) > 1
		for i := 1; i < len(diffs); i++ {
			grows = grows && diffs[i] > diffs[i-1]
		}
		var ds []string
		for i := range diffs {
			ds = append(ds, fmt.Sprintf("%+.1f %% (thesis %+.1f %%)", diffs[i], paperDiffs[i]))
		}
		r.p("\n  ")
		switch {
		case len(diffs) < 2:
			r.p("Our difference: %s.", strings.Join(ds, ", "))
		case grows:
			r.p("The delay grows with the VMs per core, the thesis' Hypothesis 2: holds (%s).", strings.Join(ds, ", "))
		default:
			r.p("The delay grows with the VMs per core, the thesis' Hypothesis 2: **does not hold** (%s).", strings.Join(ds, ", "))
		}
		r.p(" The thesis' delays also carry its VM overhead (about 15 %%, trivial case 1) and the cost of its live migrations, neither modelled here.\n")
		for _, c := range cases {
			b := single(c, BotConsolidationVariant)
			if b == nil || len(b.info.plan.Contention) == 0 {
				continue
			}
			deferred := 0
			for _, row := range b.info.plan.Contention {
				deferred += len(b.info.plan.Deferred[row])
			}
			r.p("- **%s: %d contention step(s).** At plan row(s) %v, %d job(s) do not fit the %d VMs (the thesis' \"enough\" VMs are fewer than the ", botSingle(c), len(b.info.plan.Contention), b.info.plan.Contention, deferred, b.info.vms)
			r.p("peak of tasks), the whole application waits a step: T = %d steps against %d uncontended, %.0f min, the thesis' Consolidado.\n",
				b.info.plan.T, b.info.uncontended, b.consolidated())
		}
		var migs []string
		for _, c := range cases {
			if b := single(c, BotThresholdVariant); b != nil {
				migs = append(migs, fmt.Sprintf("%s %d (thesis %d)", botSingle(c), b.moves.Nodes, botPaperTrivial[botSingle(c)].migrations))
			}
		}
		if len(migs) > 0 {
			r.p("- **Migrations on 2 nodes**: %s. The system level moves a VM off a node at 80 %% or more only to a node that stays under ", strings.Join(migs, ", "))
			r.p("80 %% with it; the rows of the H2 BoTs load the 8 cores at %s on average (table above), so such a node is rare. ", strings.Join(rowLoads, ", "))
			r.p("The thesis' migrations follow its measured loads and its OpenStack placement; a migration costs nothing here.\n")
		}
	}
	r.botWhyProfiles(runs)
	r.botWhyProduction(runs)
	// External load outlasting the BoTs.
	late := 0
	total := 0
	for _, c := range r.a.Plan.Cases {
		if c.Fields.Float("background") == 0 {
			continue
		}
		for _, rs := range runs[c.Name] {
			for _, br := range rs {
				for _, b := range br.bots {
					total++
					if b.end > br.bgEnd {
						late++
					}
				}
			}
		}
	}
	if total > 0 {
		if late == 0 {
			r.p("- The external load (twice the predicted end plus 4 steps) outlasts every BoT of the %d BoT runs that have one.\n", total)
		} else {
			r.p("- **%d of the %d BoT runs with an external load outlasted it**: their last steps ran on unloaded cores.\n", late, total)
		}
	}
	r.p("- **What the simulator leaves out.** No VM boot, hypervisor or live-migration cost; the thesis' OpenStack Filter placement ")
	r.p("is replaced by the policies' placement (a VM to the core with the fewest VMs, on the node with the fewest); the loads the system ")
	r.p("level sees are the planned ones, not measured ones; stress-ng's external load is a job per core and step sharing the core.\n")
}

// botWhyProfiles checks the thesis' findings on the user profiles.
func (r *reporter) botWhyProfiles(runs map[string]map[string][]*botRun) {
	type cell struct{ wo, wi analysis.Estimate }
	get := func(p string, bg int) (cell, bool) {
		c := BotProfileCase(p, bg)
		if _, ok := r.a.Plan.Case(c); !ok {
			return cell{}, false
		}
		rs := runs[c]
		return cell{botCell(rs[BotConsolidationVariant], botOf(p, (*botBoTRun).makespan)), botCell(rs[BotThresholdVariant], botOf(p, (*botBoTRun).makespan))}, true
	}
	// paired change with − without, per seed
	changes := func(p string, bg int) []float64 {
		c := BotProfileCase(p, bg)
		return botPaired(runs[c][BotThresholdVariant], runs[c][BotConsolidationVariant], func(x, y *botRun) float64 {
			bx, by := x.bots[p], y.bots[p]
			if bx == nil || by == nil {
				return math.NaN()
			}
			return bx.makespan() - by.makespan()
		})
	}
	if _, ok := get("leve", 0); !ok {
		if _, ok := get("mediano", 0); !ok {
			return
		}
	}
	verdict := func(e analysis.Estimate, want int) string {
		// want: 0 no effect, 1 slower with, -1 faster with
		sig := !math.IsNaN(e.Half) && math.Abs(e.Mean) > e.Half
		switch {
		case e.N == 0:
			return "n/a"
		case want == 0 && (!sig || math.Abs(e.Mean) < 0.5):
			return "holds"
		case want != 0 && sig && (e.Mean > 0) == (want > 0):
			return "holds"
		case want != 0 && !sig && (e.Mean > 0) == (want > 0) && e.Mean != 0:
			return "same direction, not significant"
		}
		return "**does not hold**"
	}
	r.p("- **The system level on the user profiles** (makespan with − without, min, paired by seed, then the seeds that back its sign, ")
	r.p("`*` when its 95 %% interval excludes 0; the thesis' findings, Sec. 6.4):\n")
	claims := []struct {
		p    string
		bg   int
		want int
		what string
	}{
		{"leve", 0, 0, "no influence on a light BoT"}, {"leve", 50, 0, "no influence on a light BoT"}, {"leve", 75, 0, "no influence on a light BoT"},
		{"mediano", 50, 1, "harmful at intermediate load"}, {"mediano", 75, 1, "harmful at intermediate load"}, {"pesado", 50, 1, "harmful at intermediate load"},
		{"pesado", 75, -1, "a gain at extreme load (96 → 90 min)"},
	}
	for _, cl := range claims {
		if _, ok := get(cl.p, cl.bg); !ok {
			continue
		}
		xs := changes(cl.p, cl.bg)
		e := analysis.Estimate95(xs)
		pp := botPaperProfiles[cl.p]
		bi := slices.Index(BotBackgrounds, cl.bg)
		r.p("  - %s at %d %%: %s: %s min %s (thesis %+.0f): %s.\n", cl.p, cl.bg, cl.what, fmtBotEst(e, 1, true), analysis.SeedsOf(xs), pp.with[bi]-pp.without[bi], verdict(e, cl.want))
	}
	// Cores shared by two VMs.
	shared := func(p string, bg int, v string) analysis.Estimate {
		return botCell(runs[BotProfileCase(p, bg)][v], botOf(p, func(b *botBoTRun) float64 {
			if b.vmRows == 0 {
				return math.NaN()
			}
			return 100 * float64(b.sharedRows) / float64(b.vmRows)
		}))
	}
	migs := func(p string, bg int) analysis.Estimate {
		return botCell(runs[BotProfileCase(p, bg)][BotThresholdVariant], botOf(p, func(b *botBoTRun) float64 { return float64(b.moves.Nodes) }))
	}
	var sh []string
	for _, p := range []string{"mediano", "pesado"} {
		if _, ok := get(p, 0); !ok {
			continue
		}
		sh = append(sh, fmt.Sprintf("%s %s %% without the system level, %s %% with it (%s migrations; change %s min, thesis %+.0f)", p,
			fmtBotEst(shared(p, 0, BotConsolidationVariant), 1, false), fmtBotEst(shared(p, 0, BotThresholdVariant), 1, false),
			fmtBotEst(migs(p, 0), 1, false), fmtBotEst(analysis.Estimate95(changes(p, 0)), 1, true)+" "+analysis.SeedsOf(changes(p, 0)), botPaperProfiles[p].with[0]-botPaperProfiles[p].without[0]))
	}
	if len(sh) > 0 {
		sharing := false
		for _, p := range []string{"mediano", "pesado"} {
			if _, ok := get(p, 0); ok && shared(p, 0, BotThresholdVariant).Mean > shared(p, 0, BotConsolidationVariant).Mean+0.5 {
				sharing = true
			}
		}
		if sharing {
			r.p("- **The system level on an idle cluster shares cores.** VM rows that shared their core with another VM's row, idle cluster: %s. ", strings.Join(sh, "; "))
			r.p("Some VMs moved onto cores that held a VM already (no core of their own was left on the destination); two VM rows whose loads add ")
			r.p("up to more than 100 %% then share the core and last longer than a step. The thesis ran at most one VM per physical core, and its ")
			r.p("Table 11 is within a minute of Table 10 on the idle cluster.\n")
		} else {
			r.p("- **The system level on an idle cluster keeps a VM per core.** VM rows that shared their core with another VM's row, idle cluster: %s. ", strings.Join(sh, "; "))
			r.p("The system level moves a VM only to a core without one when the destination has such a core (an idle node's VMs only to a node ")
			r.p("with a free core for each), as the thesis ran at most one VM per physical core: the makespans stay those of the application ")
			r.p("level, as the thesis' Table 11 stays within a minute of its Table 10 on the idle cluster.\n")
		}
	}
	var mt []string
	for _, p := range []string{"mediano", "pesado"} {
		var ours, theirs []string
		for bi, bg := range BotBackgrounds {
			if _, ok := get(p, bg); ok {
				ours = append(ours, fmt.Sprintf("%.1f", migs(p, bg).Mean))
				theirs = append(theirs, strconv.Itoa(botPaperProfiles[p].migrations[bi]))
			}
		}
		if len(ours) > 1 {
			mt = append(mt, fmt.Sprintf("%s %s (thesis %s)", p, strings.Join(ours, " → "), strings.Join(theirs, " → ")))
		}
	}
	if len(mt) > 0 {
		r.p("- **Migrations against the external load (Table 12)**: %s. A node's average load is at least the external load, and a VM ", strings.Join(mt, "; "))
		r.p("moves only to a node that stays under 80 %% with it: at 75 %% on 4 cores only a VM row under 20 %% of a core fits anywhere, so ours ")
		r.p("fall as the external load rises; the thesis' script acted on loads it measured, and its counts rise for the medium profile.\n")
	}
	// How much the external load delays a VM row.
	perRow := map[string]string{}
	var long []string
	for _, p := range BotProfiles {
		prs := r.botProfileRuns(runs, p)
		if len(prs) == 0 {
			continue
		}
		jobs := botCell(prs, botOf(p, func(b *botBoTRun) float64 {
			_, js := b.info.cells()
			t := 0
			for _, j := range js {
				t += j
			}
			return float64(t) / float64(len(js))
		}))
		perRow[p] = fmt.Sprintf("%.1f", jobs.Mean)
		var parts []string
		for _, bg := range BotBackgrounds {
			if _, ok := get(p, bg); !ok {
				continue
			}
			e := botCell(runs[BotProfileCase(p, bg)][BotConsolidationVariant], botOf(p, func(b *botBoTRun) float64 {
				if b.vmRows == 0 {
					return math.NaN()
				}
				return 100 * float64(b.longRows) / float64(b.vmRows)
			}))
			parts = append(parts, fmt.Sprintf("%.1f %% at %d %%", e.Mean, bg))
		}
		long = append(long, fmt.Sprintf("%s %s (%s task steps per row)", p, strings.Join(parts, ", "), perRow[p]))
	}
	if len(long) > 0 {
		r.p("- **How the external load delays a VM** (application level): rows that lasted more than a step, by external load: %s. ", strings.Join(long, "; "))
		r.p("The external load is one job per core and step; SimGrid shares a core equally among the jobs running on it, so a row of ")
		r.p("many light task steps keeps most of the core and ends within its step, while a row of one or two heavy task steps gets half of ")
		r.p("the core or less and overruns; the VM's next row waits for it. The delay grows with the profile's cost and the external load, as ")
		r.p("in Table 10.\n")
	}
	if c0, ok := get("leve", 0); ok {
		if c75, ok := get("leve", 75); ok {
			r.p("- **The light BoT under external load**: %s min idle, %s min at 75 %% (thesis: 93 and 86, faster under load, which it does not ",
				fmtBotEst(c0.wo, 1, false), fmtBotEst(c75.wo, 1, false))
			r.p("explain). Here an external load can only slow a VM down, and it barely slows the light one (see above).\n")
		}
	}
	var sizes []string
	for _, p := range BotProfiles {
		rs := r.botProfileRuns(runs, p)
		if len(rs) == 0 {
			continue
		}
		tasks := botCell(rs, botOf(p, func(b *botBoTRun) float64 { return float64(b.info.tasks) }))
		t := botCell(rs, botOf(p, func(b *botBoTRun) float64 { return float64(b.info.plan.T) }))
		pp := botPaperProfiles[p]
		sizes = append(sizes, fmt.Sprintf("%s %.1f tasks, T %.1f steps (thesis %d tasks, %.0f steps)", p, tasks.Mean, t.Mean, pp.tasks, pp.cons/5))
	}
	if len(sizes) > 0 {
		r.p("- **Drawn profiles, not the thesis' BoTs**: %s. The thesis publishes the classes only, in a notation a Weibull law cannot ", strings.Join(sizes, "; "))
		r.p("follow as written (negative shapes, the scale read as a mode); our generator reads it explicitly (workloads.GenerateBoT). ")
		r.p("Compare the differences, not the minutes.\n")
	}
}

// botWhyProduction explains the production case from the runs.
func (r *reporter) botWhyProduction(runs map[string]map[string][]*botRun) {
	c, ok := r.a.Plan.Case(BotProductionCase)
	if !ok || len(runs[c.Name][BotConsolidationVariant]) == 0 {
		return
	}
	rs := runs[c.Name][BotConsolidationVariant]
	// The VMs planned at once: each BoT's VMs from its arrival to its
	// predicted end.
	peak := botCell(rs, func(br *botRun) float64 {
		type ev struct {
			t float64
			n int
		}
		var evs []ev
		for _, b := range br.bots {
			evs = append(evs, ev{b.info.arrival, b.info.vms}, ev{b.info.arrival + float64(b.info.plan.T)*BotStep, -b.info.vms})
		}
		slices.SortFunc(evs, func(a, b ev) int { return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.n, b.n)) })
		n, most := 0, 0
		for _, e := range evs {
			n += e.n
			most = max(most, n)
		}
		return float64(most)
	})
	mean := botCell(rs, func(br *botRun) float64 {
		t := 0.0
		for _, b := range br.bots {
			t += b.diff() / float64(len(br.bots))
		}
		return t
	})
	var late []string
	for _, name := range botProductionOrder {
		e := botCell(rs, botOf(name, (*botBoTRun).diff))
		if e.Mean > 1 {
			late = append(late, fmt.Sprintf("%s %+.1f %%", name, e.Mean))
		}
	}
	hosts := r.a.HostsOf(expe.Run{Case: c.Name})
	lo, hi := math.Inf(1), math.Inf(-1)
	for name, up := range botPaperProduction {
		if name == "UP-1" {
			continue
		}
		d := 100 * (up.real - up.pred) / (up.pred - up.arrival)
		lo, hi = math.Min(lo, d), math.Max(hi, d)
	}
	r.p("- **Production**: with the application level our BoTs end %s %% after their predicted end on average, on durations (the thesis: ", fmtBotEst(mean, 1, true))
	r.p("%.1f to %.1f %%, about its VM overhead again, UP-1 aside: its predicted end, 5 minutes after its arrival for 8 tasks, is ", lo, hi)
	r.p("not plausible). Up to %s VMs are planned at once against %d cores, so the BoTs that overlap the most share cores", fmtBotEst(peak, 1, false), hosts)
	if len(late) > 0 {
		r.p(" and end late (%s)", strings.Join(late, ", "))
	}
	r.p(". The thesis' differences on dates shrink for the late arrivals because their dates are large, not because they ran better.\n")
}

// ---------------------------------------------------------------- figure
