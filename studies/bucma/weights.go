package bucma

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/expe/figures"
	"github.com/bucma-sched/bucma/expe/report"
	"github.com/bucma-sched/bucma/metrics"
)

// The weight exploration (plan bucma-weights): the paper chose BUCMA5302
// and BUCMA4303 "from a preliminary test of the weights" by the queue
// gains and the performance metrics they brought (bucma.txt, section 3).
// The plan runs every weighting of Eq. 2 on the 10 % grid of the simplex
// α + β + γ + δ = 1 over each base policy; the report draws the Pareto
// front of the queue gain against the waiting time and the makespan, says
// where 5302 and 4303 fall on it and which weightings this workload would
// have chosen.

// Plan names of the weight exploration and of the threshold sweep.
const (
	WeightsPlan   = "bucma-weights"
	ThresholdPlan = "walltime-trust-threshold"
)

// WeightStep is the grid's step, in tenths: 1 is steps of 10 %.
const WeightStep = 1

// Weighting is one point of the grid: α, β, γ, δ in tenths (summing to 10).
type Weighting [4]int

// WeightGrid lists the weightings of the 10 % grid of the simplex: α from
// 1 down to 0, then β, then γ, δ the rest. 286 points.
func WeightGrid() []Weighting {
	var out []Weighting
	for a := 10; a >= 0; a -= WeightStep {
		for b := 10 - a; b >= 0; b -= WeightStep {
			for c := 10 - a - b; c >= 0; c -= WeightStep {
				out = append(out, Weighting{a, b, c, 10 - a - b - c})
			}
		}
	}
	return out
}

// Name is the weighting's name in variant names: "w5-3-0-2".
func (w Weighting) Name() string {
	return fmt.Sprintf("w%d-%d-%d-%d", w[0], w[1], w[2], w[3])
}

// Option is the weighting as the bucma policy's weights option:
// "0.5,0.3,0,0.2".
func (w Weighting) Option() string {
	parts := make([]string, 4)
	for i, v := range w {
		parts[i] = strconv.FormatFloat(float64(v)/10, 'f', -1, 64)
	}
	return strings.Join(parts, ",")
}

// Title prints the weighting as the paper writes its models: "5302", or
// α β γ δ separated when one of them is 1 ("10 0 0 0").
func (w Weighting) Title() string {
	if slices.Contains(w[:], 10) {
		return fmt.Sprintf("%d %d %d %d", w[0], w[1], w[2], w[3])
	}
	return fmt.Sprintf("%d%d%d%d", w[0], w[1], w[2], w[3])
}

// parseWeighting reads a weights option back ("0.5,0.3,0,0.2").
func parseWeighting(s string) (Weighting, bool) {
	var w Weighting
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return w, false
	}
	sum := 0
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.Abs(f*10-math.Round(f*10)) > 1e-9 {
			return w, false
		}
		w[i] = int(math.Round(f * 10))
		sum += w[i]
	}
	return w, sum == 10
}

// PaperWeightings are the paper's two models on the grid.
var PaperWeightings = map[string]Weighting{"bucma5302": {5, 3, 0, 2}, "bucma4303": {4, 3, 0, 3}}

// weightRun is what the weights report keeps of a run: a few numbers, not
// the gains themselves (thousands of runs).
type weightRun struct {
	// BandMedian is the median queue-position gain of each Su band.
	BandMedian map[string]float64
	// ClassWait is the mean waiting time of the inserted requests of each
	// precision profile.
	ClassWait map[string]float64
}

func weightReadRun(a *report.Analysis, in *report.RunInput, rd *report.RunData) error {
	if err := readRun(a, in, rd); err != nil {
		return err
	}
	d := extra(rd)
	w := &weightRun{BandMedian: map[string]float64{}, ClassWait: map[string]float64{}}
	for b, g := range d.Gains {
		w.BandMedian[b] = metrics.Quantile(g, 0.5)
	}
	for c, st := range d.Classes {
		if st.Jobs > 0 {
			w.ClassWait[c] = st.MeanWait
		}
	}
	rd.Extra = w
	return nil
}

func wextra(rd *report.RunData) *weightRun { return rd.Extra.(*weightRun) }

// spreadOf is a run's queue-gain spread: the median gain of the 75–100
// band minus that of the 0–24 band (points; NaN without both).
func spreadOf(x *report.RunData) float64 {
	hi, ok1 := wextra(x).BandMedian[analysis.SuBands[3]]
	lo, ok2 := wextra(x).BandMedian[analysis.SuBands[0]]
	if !ok1 || !ok2 {
		return math.NaN()
	}
	return hi - lo
}

func wClassWait(class string) func(*report.RunData) float64 {
	return func(x *report.RunData) float64 {
		if v, ok := wextra(x).ClassWait[class]; ok {
			return v
		}
		return math.NaN()
	}
}

// weightPoint is one weighting over one base, summed up over the seeds.
type weightPoint struct {
	w              Weighting
	variant        string
	spread         analysis.Estimate
	wait, makespan analysis.Comparison
	slowdown       analysis.Comparison
	imprecise      analysis.Comparison
	precise        analysis.Comparison
	sat            string // SaturatedMark when a run of the weighting or of the base alone saturated
	onWait, onMk   bool   // on the Pareto fronts
}

// waitObj and mkObj are the objectives of the fronts: the change against
// the base alone as the tables print it and the figures draw it (objOf).
func (p weightPoint) waitObj() float64 { return objOf(p.wait) }
func (p weightPoint) mkObj() float64   { return objOf(p.makespan) }

// objOf is a comparison's mean over the seeds of the per-seed change
// relative to the base alone (%), the estimate its seeds and significance
// are read from (expe.Comparison.Primary); over a near-zero base, the mean
// difference (every weighting of a base shares the base's runs, so a front
// compares one kind of number).
func objOf(c analysis.Comparison) float64 { return c.Primary().Mean }

// relOf is the x of the figures: the mean per-seed relative change (%),
// NaN over a near-zero base.
func relOf(c analysis.Comparison) float64 {
	if c.NearZero > 0 || c.Change.N == 0 {
		return math.NaN()
	}
	return c.Change.Mean
}

func (r *reporter) weightPoints(base string, load float64) []weightPoint {
	a := r.a
	c := expe.Condition{Load: load}
	ref := a.ConditionRuns(base, c)
	var pts []weightPoint
	for _, v := range a.Plan.Variants {
		if v.Base != base || v.Policy != "bucma" {
			continue
		}
		w, ok := parseWeighting(v.Options["weights"])
		if !ok {
			continue
		}
		x := a.ConditionRuns(v.Name, c)
		sp := make([]float64, 0, len(x))
		for _, rd := range x {
			if rd != nil {
				sp = append(sp, spreadOf(rd))
			}
		}
		pts = append(pts, weightPoint{
			w: w, variant: v.Name, spread: analysis.Estimate95(sp),
			wait:      report.CompareRuns(x, ref, func(x *report.RunData) float64 { return x.Metrics.MeanWait }, analysis.FloorWait),
			makespan:  report.CompareRuns(x, ref, func(x *report.RunData) float64 { return x.Metrics.Makespan }, analysis.FloorSeconds),
			slowdown:  report.CompareRuns(x, ref, func(x *report.RunData) float64 { return x.Metrics.MeanSlowdown }, analysis.FloorRatio),
			imprecise: report.CompareRuns(x, ref, wClassWait("imprecise"), analysis.FloorWait),
			precise:   report.CompareRuns(x, ref, wClassWait("precise"), analysis.FloorWait),
			sat:       report.MarkSaturated(x, ref),
		})
	}
	objs := func(f func(weightPoint) float64) [][]float64 {
		out := make([][]float64, len(pts))
		for i, p := range pts {
			out[i] = []float64{p.spread.Mean, f(p)}
		}
		return out
	}
	for _, i := range analysis.ParetoFront(objs(weightPoint.waitObj), []bool{true, false}) {
		pts[i].onWait = true
	}
	for _, i := range analysis.ParetoFront(objs(weightPoint.mkObj), []bool{true, false}) {
		pts[i].onMk = true
	}
	return pts
}

// weights writes the weight exploration's report.
func (r *reporter) weights() error {
	pl := r.a.Plan
	r.planHeader()
	r.p("\n")
	r.p("The paper chose its two models \"through the results that brought the most interesting gains in queue positioning and ")
	r.p("improvements in the performance metrics\" of a preliminary test of the weights (section 3), without giving that test. ")
	r.p("Here every weighting of Eq. 2 on the 10 %% grid of α + β + γ + δ = 1 runs over each base policy:\n\n")
	r.p("- **queue-gain spread** (points): per run, the median queue-position gain at submission of the jobs whose owner's Su is 75–100, ")
	r.p("minus that of the 0–24 band: how much BUCMA moves trusted users ahead of untrusted ones (the paper's Figures 1–2 in one number; ")
	r.p("the base alone records no gain); mean over the seeds ± 95 %% interval;\n")
	r.p("- **performance**: the mean waiting time, the makespan and the mean slowdown of all jobs, and the mean waiting time of the inserted ")
	r.p("imprecise and precise requests (Table 3), each against the base alone on each seed's pair of runs: the change relative ")
	r.p("to the base (%%) averaged over the seeds ± its 95 %% interval, the seeds that back its sign. %s %s %s\n\n", analysis.FloorsNote(), analysis.SeedsNote(), analysis.SaturatedMarkNote())
	r.p("A weighting is on the **Pareto front** of a base when no other weighting has both a larger spread and a lower mean waiting time ")
	r.p("(or makespan) over that base. The fronts use the mean changes over the seeds, as the figures draw them; the tables give their intervals.\n\n")

	for _, load := range pl.Loads {
		if len(pl.Loads) > 1 {
			r.p("## Load %s\n\n", expe.FormatLoad(load))
		}
		if err := r.weightsAt(load); err != nil {
			return err
		}
	}
	return nil
}

func (r *reporter) weightsAt(load float64) error {
	a := r.a
	c := expe.Condition{Load: load}
	r.p("### The base policies alone\n\n%s\n\n| base | mean wait (s) | makespan (s) | utilization | offered load | saturated |\n|---|---|---|---|---|---|\n", analysis.SaturationNote())
	for _, b := range BaseNames {
		get := func(f func(*report.RunData) float64) string {
			return analysis.FmtEst(analysis.Estimate95(a.ConditionValues(b, c, f)), 0, false)
		}
		r.p("| %s | %s | %s | %s | %s | %s |\n", BaseTitle(b), get(func(x *report.RunData) float64 { return x.Metrics.MeanWait }),
			get(func(x *report.RunData) float64 { return x.Metrics.Makespan }),
			analysis.FmtEst(analysis.Estimate95(a.ConditionValues(b, c, func(x *report.RunData) float64 { return x.Metrics.Utilization })), 3, false),
			analysis.FmtEst(analysis.Estimate95(a.ConditionValues(b, c, func(x *report.RunData) float64 { return x.Saturation.Offered })), 2, false),
			report.SaturationText(a.ConditionRuns(b, c)))
	}
	r.p("\nA change against a saturated base is marked %s: its sign holds, its size depends on the trace's length.\n\n", analysis.SaturatedMark)

	all := map[string][]weightPoint{}
	for _, b := range BaseNames {
		all[b] = r.weightPoints(b, load)
	}
	// Figures: one per performance metric, a panel per base.
	for _, metric := range []string{"waiting", "makespan"} {
		var panels []figures.ParetoPanel
		for _, b := range BaseNames {
			pn := figures.ParetoPanel{Title: BaseTitle(b), XLabel: wtrustTitles[metric] + " vs base alone (%)", YLabel: "queue-gain spread (points)", XRef: 0}
			for _, p := range all[b] {
				cp, front := p.wait, p.onWait
				if metric == "makespan" {
					cp, front = p.makespan, p.onMk
				}
				label := ""
				for m, w := range PaperWeightings {
					if w == p.w {
						label = BaseTitle(m)
					}
				}
				pn.Points = append(pn.Points, figures.ParetoPoint{X: relOf(cp), Y: p.spread.Mean, Front: front, Label: label})
			}
			panels = append(panels, pn)
		}
		name := fmt.Sprintf("pareto_%s_load%s", metric, expe.FormatLoad(load))
		title := fmt.Sprintf("Queue-gain spread against the %s, every weighting of the 10 %% grid (load %s)", wtrustTitles[metric], expe.FormatLoad(load))
		if err := figures.ParetoFigure(r.Fig(name), title, panels, 2); err != nil {
			return err
		}
		r.p("![%s](%s/%s.png)\n\n", title, report.FigDir, name)
	}
	r.p("Grey: every weighting; blue: the Pareto front; the paper's two models marked; dashed: the base alone (0 %%). ")
	r.p("A weighting over a near-zero base has no x and is not drawn.\n\n")

	r.paperModelsOnFront(all)
	for _, b := range BaseNames {
		r.frontTable(b, all[b])
	}
	r.weightEffects(all)
	r.chosenWeightings(all)
	return nil
}

// wcell prints a weighting's comparison: the mean per-seed change against
// the base alone (the estimate its seeds and significance refer to), the
// seeds, the saturation mark; over a near-zero base, the difference.
func wcell(cp analysis.Comparison, mark string) string {
	return cp.Cell(1, "s", 0) + mark
}

func joinSpace(a, b string) string {
	if b == "" {
		return a
	}
	return a + " " + b
}

// paperModelsOnFront says where 5302 and 4303 fall on each front.
func (r *reporter) paperModelsOnFront(all map[string][]weightPoint) {
	r.p("### Where BUCMA5302 and BUCMA4303 fall\n\n")
	r.p("For each base and front: the model's spread and change; whether it is on the front; how many weightings dominate it (a larger spread ")
	r.p("and a lower mean); the largest spread of a weighting that is at least as good on the metric, and the best change of a weighting ")
	r.p("whose spread is at least the model's.\n\n")
	r.p("| base | model | spread (points) | metric | change vs base | on the front | dominated by | best spread at ≤ its change | best change at ≥ its spread |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, b := range BaseNames {
		pts := all[b]
		for _, m := range BUCMAModels {
			i := slices.IndexFunc(pts, func(p weightPoint) bool { return p.w == PaperWeightings[m] })
			if i < 0 {
				r.p("| %s | %s | not in the plan | | | | | | |\n", BaseTitle(b), BaseTitle(m))
				continue
			}
			me := pts[i]
			for _, metric := range []string{"waiting", "makespan"} {
				obj, cp, on := me.waitObj(), me.wait, me.onWait
				get := weightPoint.waitObj
				cmpOf := func(p weightPoint) analysis.Comparison { return p.wait }
				if metric == "makespan" {
					obj, cp, on = me.mkObj(), me.makespan, me.onMk
					get = weightPoint.mkObj
					cmpOf = func(p weightPoint) analysis.Comparison { return p.makespan }
				}
				dom := 0
				bestSpread, bestObj := me.spread.Mean, obj
				bestCmp := cp
				for _, p := range pts {
					if analysis.Dominates([]float64{p.spread.Mean, get(p)}, []float64{me.spread.Mean, obj}, []bool{true, false}) {
						dom++
					}
					if get(p) <= obj && p.spread.Mean > bestSpread {
						bestSpread = p.spread.Mean
					}
					if p.spread.Mean >= me.spread.Mean && get(p) < bestObj {
						bestObj, bestCmp = get(p), cmpOf(p)
					}
				}
				r.p("| %s | %s | %s | %s | %s | %s | %d | %.1f | %s |\n", BaseTitle(b), BaseTitle(m), analysis.FmtEst(me.spread, 1, false), wtrustTitles[metric],
					wcell(cp, me.sat), map[bool]string{true: "**yes**", false: "no"}[on], dom, bestSpread, bestCmp.ChangeText(1))
			}
		}
	}
	r.p("\n")
}

// frontTable lists the weightings on either front of a base.
func (r *reporter) frontTable(b string, pts []weightPoint) {
	var front []weightPoint
	for _, p := range pts {
		if p.onWait || p.onMk {
			front = append(front, p)
		}
	}
	sort.Slice(front, func(i, j int) bool { return front[i].spread.Mean > front[j].spread.Mean })
	r.p("### %s: the weightings on the fronts\n\n", BaseTitle(b))
	r.p("%d of %d weightings are on the waiting-time front, %d on the makespan front; by spread, largest first. α β γ δ in tenths. ",
		count(pts, func(p weightPoint) bool { return p.onWait }), len(pts), count(pts, func(p weightPoint) bool { return p.onMk }))
	r.p("Over all %d, the mean waiting time changes significantly (95 %%) under %d weightings (%d longer), the makespan under %d (%d longer): ",
		len(pts), count(pts, func(p weightPoint) bool { return p.wait.Significant() }), count(pts, func(p weightPoint) bool { return p.wait.Significant() && p.wait.Sign() > 0 }),
		count(pts, func(p weightPoint) bool { return p.makespan.Significant() }), count(pts, func(p weightPoint) bool { return p.makespan.Significant() && p.makespan.Sign() > 0 }))
	r.p("a front drawn through changes that are not significant orders noise. The mean changes range over %s for the waiting time, ", changeRange(pts, func(p weightPoint) analysis.Comparison { return p.wait }))
	r.p("over %s for the makespan.\n\n", changeRange(pts, func(p weightPoint) analysis.Comparison { return p.makespan }))
	r.p("| α β γ δ | front | spread (points) | mean wait | makespan | mean slowdown | imprecise requests' wait | precise requests' wait |\n|---|---|---|---|---|---|---|---|\n")
	for _, p := range front {
		var on []string
		if p.onWait {
			on = append(on, "wait")
		}
		if p.onMk {
			on = append(on, "makespan")
		}
		name := p.w.Title()
		for m, w := range PaperWeightings {
			if w == p.w {
				name += " (" + BaseTitle(m) + ")"
			}
		}
		r.p("| %s | %s | %s | %s | %s | %s | %s | %s |\n", name, strings.Join(on, ", "), analysis.FmtEst(p.spread, 1, false),
			wcell(p.wait, p.sat), wcell(p.makespan, p.sat), wcell(p.slowdown, p.sat), wcell(p.imprecise, p.sat), wcell(p.precise, p.sat))
	}
	r.p("\n")
}

// changeRange prints the smallest and the largest mean relative change
// (relOf) of one metric over the weightings of a base ("−12.0 to +3.4 %"),
// and how many weightings had a near-zero base.
func changeRange(pts []weightPoint, metric func(weightPoint) analysis.Comparison) string {
	lo, hi, nz := math.Inf(1), math.Inf(-1), 0
	for _, p := range pts {
		x := relOf(metric(p))
		if math.IsNaN(x) {
			nz++
			continue
		}
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	if math.IsInf(lo, 1) {
		return analysis.NearZero
	}
	s := fmt.Sprintf("%+.1f to %+.1f %%", lo, hi)
	if nz > 0 {
		s += fmt.Sprintf(" (%d over a near-zero base: not counted)", nz)
	}
	return s
}

// plural says "1 pair", "2 pairs".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func count[T any](xs []T, f func(T) bool) int {
	n := 0
	for _, x := range xs {
		if f(x) {
			n++
		}
	}
	return n
}

// weightEffects gives the rank correlation of each weight with the spread
// and the waiting-time change, per base.
func (r *reporter) weightEffects(all map[string][]weightPoint) {
	r.p("### What each weight does\n\n")
	r.p("Rank correlation (Spearman) over the weightings of each weight with the queue-gain spread and with the mean waiting time's change against the base:\n\n")
	r.p("| base | α: spread | β: spread | γ: spread | δ: spread | α: wait | β: wait | γ: wait | δ: wait |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, b := range BaseNames {
		pts := all[b]
		r.p("| %s |", BaseTitle(b))
		for _, y := range []func(weightPoint) float64{func(p weightPoint) float64 { return p.spread.Mean }, weightPoint.waitObj} {
			for k := 0; k < 4; k++ {
				xs, ys := make([]float64, len(pts)), make([]float64, len(pts))
				for i, p := range pts {
					xs[i], ys[i] = float64(p.w[k]), y(p)
				}
				r.p(" %s |", fmtF(Spearman(xs, ys), 2))
			}
		}
		r.p("\n")
	}
	r.p("\n")
}

// chosenWeightings applies the paper's criterion, as far as it is stated,
// to this workload: the largest queue gains without a performance metric
// made worse. A metric counts as made worse where its change against the
// base alone is positive and significant at 95 %: with a few seeds the
// makespan moves within a percent either way under most weightings, and
// counting the sign of a mean alone would put first the weightings that do
// not reorder the queue at all (β = 1: the base's own order, spread 0).
func (r *reporter) chosenWeightings(all map[string][]weightPoint) {
	type choice struct {
		w        Weighting
		worse    int // (base, metric) pairs made significantly worse
		better   int // (base, metric) pairs made significantly better
		above    int // (base, metric) pairs whose mean change is positive, significant or not
		spread   float64
		onFronts int
		perBase  []weightPoint
	}
	byW := map[Weighting]*choice{}
	var order []*choice
	for _, b := range BaseNames {
		for _, p := range all[b] {
			ch, ok := byW[p.w]
			if !ok {
				ch = &choice{w: p.w}
				byW[p.w] = ch
				order = append(order, ch)
			}
			ch.perBase = append(ch.perBase, p)
		}
	}
	for _, ch := range order {
		sp := 0.0
		for _, p := range ch.perBase {
			for _, cp := range []analysis.Comparison{p.wait, p.makespan} {
				if objOf(cp) > 0 {
					ch.above++
				}
				if cp.Significant() {
					if cp.Sign() > 0 {
						ch.worse++
					} else {
						ch.better++
					}
				}
			}
			if p.onWait {
				ch.onFronts++
			}
			if p.onMk {
				ch.onFronts++
			}
			sp += p.spread.Mean
		}
		ch.spread = sp / float64(len(ch.perBase))
	}
	// bySign ranks by the mean changes' signs alone: the reading the
	// report does not take, printed to show what it would choose.
	bySign := append([]*choice(nil), order...)
	sort.SliceStable(bySign, func(i, j int) bool {
		if bySign[i].above != bySign[j].above {
			return bySign[i].above < bySign[j].above
		}
		return bySign[i].spread > bySign[j].spread
	})
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].worse != order[j].worse {
			return order[i].worse < order[j].worse
		}
		return order[i].spread > order[j].spread
	})
	r.p("### Which weightings this workload would have chosen\n\n")
	r.p("The paper's criterion, as far as it states it: the largest gains in queue position with improvements in the performance metrics. ")
	r.p("Read here as: first the weightings that make neither the mean waiting time nor the makespan significantly worse (a positive change whose ")
	r.p("95 %% interval excludes 0) over any of the %d bases (fewest (base, metric) pairs made worse), then the largest queue-gain spread ", len(BaseNames))
	r.p("averaged over the bases. A change within its interval of 0 does not count: with few seeds the makespan moves within a percent either way, ")
	r.p("and the sign of its mean is noise (the reading by the signs of the means alone follows the table). The first ten, and the paper's models:\n\n")
	r.p("| rank | α β γ δ | pairs made worse (of %d) | pairs made better | mean spread (points) | on the fronts (of %d) |", 2*len(BaseNames), 2*len(BaseNames))
	for _, b := range BaseNames {
		r.p(" %s: wait | %s: makespan |", BaseTitle(b), BaseTitle(b))
	}
	r.p("\n|---|---|---|---|---|---|%s\n", strings.Repeat("---|---|", len(BaseNames)))
	for i, ch := range order {
		paper := ""
		for m, w := range PaperWeightings {
			if w == ch.w {
				paper = " (" + BaseTitle(m) + ")"
			}
		}
		if i >= 10 && paper == "" {
			continue
		}
		r.p("| %d | %s%s | %d | %d | %.1f | %d |", i+1, ch.w.Title(), paper, ch.worse, ch.better, ch.spread, ch.onFronts)
		for _, p := range ch.perBase {
			r.p(" %s | %s |", wcell(p.wait, p.sat), wcell(p.makespan, p.sat))
		}
		r.p("\n")
	}
	r.p("\n")
	if len(order) > 0 {
		best := order[0]
		r.p("By this reading, this workload would have chosen **%s** (α = %.1f, β = %.1f, γ = %.1f, δ = %.1f). ", best.w.Title(),
			float64(best.w[0])/10, float64(best.w[1])/10, float64(best.w[2])/10, float64(best.w[3])/10)
		for _, m := range BUCMAModels {
			for i, ch := range order {
				if ch.w == PaperWeightings[m] {
					r.p("%s ranks %d of %d (%s made worse). ", BaseTitle(m), i+1, len(order), plural(ch.worse, "pair"))
				}
			}
		}
		r.p("The ranking uses means over the seeds; neighbouring ranks whose intervals overlap (the front tables) are not distinguishable.\n\n")
		alt := bySign[0]
		r.p("Counting instead every positive mean change as made worse, significant or not, would choose **%s** (%s with a positive mean, ", alt.w.Title(), plural(alt.above, "pair"))
		r.p("mean spread %.1f points", alt.spread)
		if alt.w == (Weighting{0, 10, 0, 0}) {
			r.p(": β = 1 alone keeps the base's order and moves no one in the queue")
		}
		r.p(").\n\n")
	}
}

// planHeader writes the title, description and sizes of a plan with load
// levels and no cases (the main reports' and the explorations'), as a
// list the caller may go on with.
func (r *reporter) planHeader() {
	a := r.a
	pl := a.Plan
	r.p("# %s\n\n%s\n\n", pl.Title, pl.Description)
	r.p("- Plan `%s`: %d variants × %d seeds × %d load level(s) = %d runs; %d completed", pl.Name, len(pl.Variants), len(pl.Seeds), len(pl.Loads), len(pl.Expand()), len(a.Runs))
	if len(a.Missing) > 0 {
		r.p(" (**%d missing**: the numbers below use the completed runs only)", len(a.Missing))
	}
	steps := "none"
	if len(pl.Workload.Steps) > 0 {
		steps = strings.Join(pl.Workload.Steps, ", ")
	}
	r.p(".\n- Platform `%s` (%d compute hosts); workload: `%s` generator with %s jobs, then %s; seeds %s; load levels %s.\n",
		pl.Platform, a.Hosts, pl.Workload.Generator, jobsText(pl), steps, analysis.SeedList(pl.Seeds), expe.LoadList(pl.Loads))
	r.loadNote()
	r.p("- Engines: %s.\n", strings.Join(r.engineNames(), ", "))
}

// loadNote says what a load level of the lille generator is beside the
// offered load the runs show: the generator spaces the arrivals so that Σ
// res × run time at its reference speed (the platform's slowest host
// unless the plan sets ref_speed) over hosts × the span of the arrivals is
// the level, and a job on a faster host runs for less than its run time.
func (r *reporter) loadNote() {
	a := r.a
	pl := a.Plan
	if pl.Workload.Generator != "lille" || a.Platform == nil || len(a.Platform.Hosts) == 0 {
		return
	}
	slow, fast := math.Inf(1), 0.0
	for _, h := range a.Platform.Hosts {
		slow, fast = math.Min(slow, h.Speed), math.Max(fast, h.Speed)
	}
	ref, which := pl.Workload.Fields.Float("ref_speed"), "the plan's ref_speed"
	if !(ref > 0) {
		ref, which = slow, "the platform's slowest host"
	}
	r.p("- A load level is the generator's: Σ res × run time at its reference speed (%.4g Gflop/s, %s) over %d hosts × the span of ", ref/1e9, which, a.Hosts)
	r.p("the arrivals.")
	if !(fast > ref) {
		r.p("\n")
		return
	}
	var levels []string
	for _, l := range pl.Loads {
		var xs []float64
		for _, v := range pl.Variants {
			xs = append(xs, a.Values(v.Name, l, func(x *report.RunData) float64 { return x.Saturation.Offered })...)
		}
		xs = slices.DeleteFunc(xs, func(x float64) bool { return math.IsNaN(x) })
		if len(xs) > 0 {
			levels = append(levels, fmt.Sprintf("%.2f to %.2f at level %s", slices.Min(xs), slices.Max(xs), expe.FormatLoad(l)))
		}
	}
	r.p(" A job on a faster host (up to %.4g Gflop/s, %.2f times the reference) runs for less than its run time, so the offered load the ", fast/1e9, fast/ref)
	r.p("runs show (busy host-time over hosts × submission span, the tables' *offered load*) is below the level")
	if len(levels) > 0 {
		r.p(": %s in these runs", strings.Join(levels, ", "))
	}
	r.p("; it depends on the hosts each policy gives the jobs.\n")
}
