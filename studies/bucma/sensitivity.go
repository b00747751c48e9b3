package bucma

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/expe/figures"
	"github.com/bucma-sched/bucma/expe/report"
	"github.com/bucma-sched/bucma/metrics"
	"gonum.org/v1/gonum/stat"
)

// Sensitivity plans: the paper's two experiments (Table 3 with Figures 1-2,
// and Figures 3-4) run over conditions of the synthetic workload, one factor
// changed at a time from a reference condition, so that the report can say
// under which conditions the published signs appear.

// ---------------------------------------------------------------- cells

// signCell is one published change compared in sign with ours.
type signCell struct {
	Label string // short, for the heat map's columns
	Row   string // "imprecise", "medium", "precise" (Table 3), or the metric (Figures 3-4)
	Paper float64
	// x and ref name the variants; get is the quantity compared (its
	// relative change per seed), floor its floor, unit its unit.
	x, ref string
	get    func(*report.RunData) float64
	floor  float64
	unit   string
}

// Cell states of the heat map.
const (
	cellNone       = figures.SignNone
	cellAgree      = figures.SignAgree
	cellAgreeNS    = figures.SignAgreeNS
	cellOppositeNS = figures.SignOppositeNS
	cellOpposite   = figures.SignOpposite
)

func cellState(c analysis.Comparison, paper float64) int {
	e := c.Primary()
	if e.N == 0 || math.IsNaN(e.Mean) {
		return cellNone
	}
	sig := c.Significant()
	agree := (e.Mean < 0) == (paper < 0)
	switch {
	case agree && sig:
		return cellAgree
	case agree:
		return cellAgreeNS
	case sig:
		return cellOpposite
	}
	return cellOppositeNS
}

// table3Cells are the 24 cells of Table 3.
func table3Cells() []signCell {
	var out []signCell
	for _, m := range BUCMAModels {
		for _, c := range []string{"imprecise", "medium", "precise"} {
			for _, b := range BaseNames {
				out = append(out, signCell{
					Label: fmt.Sprintf("%s %s %s", strings.TrimPrefix(m, "bucma"), c[:3], BaseTitle(b)),
					Row:   c, Paper: PaperTable3[m][c][b], x: m + "-" + b, ref: b,
					get: classWait(c), floor: analysis.FloorWait, unit: "s",
				})
			}
		}
	}
	return out
}

// wtrustCells are the 12 cells of Figures 3-4.
func wtrustCells() []signCell {
	var out []signCell
	for _, m := range WtrustMetrics {
		for _, b := range BaseNames {
			out = append(out, signCell{
				Label: fmt.Sprintf("%s %s", m, BaseTitle(b)), Row: m, Paper: PaperWtrust[m][b].Value, x: "wtrust", ref: b,
				get: func(x *report.RunData) float64 { return wtrustMetric(m, x) }, floor: wtrustFloor(m), unit: wtrustUnit(m),
			})
		}
	}
	return out
}

// ---------------------------------------------------------------- report

// sensCase is what the report computes for one case.
type sensCase struct {
	c      expe.WorkloadCase
	cmps   []analysis.Comparison
	marks  []string // SaturatedMark where a run of the cell saturated
	states []int
}

// count is the number of cells in a state.
func (s sensCase) count(state int) int {
	n := 0
	for _, st := range s.states {
		if st == state {
			n++
		}
	}
	return n
}

func (s sensCase) agree(cells []signCell, row string) (n, of int) {
	for i, c := range cells {
		if row != "" && c.Row != row {
			continue
		}
		if s.states[i] == cellNone {
			continue
		}
		of++
		if s.states[i] == cellAgree || s.states[i] == cellAgreeNS {
			n++
		}
	}
	return n, of
}

func (r *reporter) sensitivity() error {
	a := r.a
	pl := a.Plan
	bucma := pl.Kind == BucmaSensitivity
	cells := wtrustCells()
	what := "the 12 changes of Figures 3–4 (walltime-trust vs each base: makespan, mean waiting time, mean slowdown)"
	rows := WtrustMetrics
	if bucma {
		cells = table3Cells()
		what = "the 24 changes of Table 3 (mean waiting time of the inserted requests, BUCMA vs the base alone)"
		rows = []string{"imprecise", "medium", "precise"}
	}
	r.p("# %s\n\n%s\n\n", pl.Title, pl.Description)
	r.p("- Plan `%s`: %d variants × %d conditions × %d seeds = %d runs; %d completed", pl.Name, len(pl.Variants), len(pl.Cases), len(pl.Seeds), len(pl.Expand()), len(a.Runs))
	if len(a.Missing) > 0 {
		r.p(" (**%d missing**: the numbers below use the completed runs only)", len(a.Missing))
	}
	r.p(".\n- Platform `%s` unless the condition says otherwise; workload: `%s` generator with %s jobs, then %s; seeds %s.\n",
		pl.Platform, pl.Workload.Generator, jobsText(pl), strings.Join(pl.Workload.Steps, ", "), analysis.SeedList(pl.Seeds))
	r.p("- Engines: %s.\n", strings.Join(r.engineNames(), ", "))
	r.p("- For each condition, %s are computed as in the main report (one change per seed's pair of runs, then the mean and its 95 %% interval) ", what)
	r.p("and compared in sign with the paper's. A cell *agrees* when our mean has the paper's sign; it is *significant* when the 95 %% interval excludes 0. ")
	r.p("%s %s %s\n\n", analysis.FloorsNote(), analysis.SeedsNote(), analysis.SaturatedMarkNote())

	var sc []sensCase
	for _, c := range pl.Cases {
		s := sensCase{c: c}
		cond := expe.Condition{Case: c.Name}
		for _, cell := range cells {
			xr, rr := a.ConditionRuns(cell.x, cond), a.ConditionRuns(cell.ref, cond)
			cp := report.CompareRuns(xr, rr, cell.get, cell.floor)
			s.cmps = append(s.cmps, cp)
			s.marks = append(s.marks, report.MarkSaturated(xr, rr))
			s.states = append(s.states, cellState(cp, cell.Paper))
		}
		sc = append(sc, s)
	}

	r.p("## Agreement in sign with the paper, per condition\n\n")
	r.p("| condition | factor | same sign | same sign, significant | opposite, significant |")
	for _, row := range rows {
		r.p(" %s: same sign |", row)
	}
	r.p(" cells over a saturated run (%s) | cells over a near-zero base |", analysis.SaturatedMark)
	r.p("\n|---|---|---|---|---|%s---|---|\n", strings.Repeat("---|", len(rows)))
	best := -1.0
	for _, s := range sc {
		n, of := s.agree(cells, "")
		r.p("| %s | %s | **%d / %d** | %d | %d |", s.c.Title, s.c.Factor(), n, of, s.count(cellAgree), s.count(cellOpposite))
		for _, row := range rows {
			rn, rof := s.agree(cells, row)
			r.p(" %d / %d |", rn, rof)
		}
		sat, nz := 0, 0
		for i := range s.cmps {
			if s.marks[i] != "" {
				sat++
			}
			if s.cmps[i].NearZero > 0 {
				nz++
			}
		}
		r.p(" %d | %d |\n", sat, nz)
		if of > 0 {
			best = math.Max(best, float64(n)/float64(of))
		}
	}
	r.p("\n")
	r.p("With %d seeds, a cell is significant when the seeds agree on its side of 0; the other cells can change sign with the seeds: ", len(pl.Seeds))
	r.p("read the significant columns first.\n\n")

	name := "sensitivity_signs"
	title := "Sign of each published change, ours vs the paper's, per condition"
	labels := make([]string, len(cells))
	for i, c := range cells {
		labels[i] = c.Label
	}
	condLabels := make([]string, len(sc))
	grid := make([][]int, len(sc))
	for i, s := range sc {
		condLabels[i] = s.c.Title
		grid[i] = s.states
	}
	if err := figures.SignHeatMap(r.Fig(name), title, condLabels, labels, grid); err != nil {
		return err
	}
	r.p("![%s](%s/%s.png)\n\n", title, report.FigDir, name)
	r.p("Green: our change has the paper's sign (dark: significant); red: the opposite sign (dark: significant); grey: no data.\n\n")

	r.p("## Our changes per condition (%%; the paper's in the header)\n\n")
	r.p("| condition |")
	for _, c := range cells {
		r.p(" %s (%s) |", c.Label, analysis.FmtSigned(c.Paper, 1))
	}
	r.p("\n|---|%s\n", strings.Repeat("---|", len(cells)))
	for _, s := range sc {
		r.p("| %s |", s.c.Title)
		for i, cp := range s.cmps {
			r.p(" %s%s |", cp.Cell(0, cells[i].unit, 0), s.marks[i])
		}
		r.p("\n")
	}
	r.p("\n")

	r.factorEffects(sc, cells, rows, bucma)
	if bucma {
		r.bucmaWhy(sc, cells)
	} else {
		r.wtrustWhy(sc)
	}
	r.p("## Where the paper's signs hold\n\n")
	var holds, fewest []string
	least := len(cells) + 1
	for _, s := range sc {
		least = min(least, s.count(cellOpposite))
	}
	for _, s := range sc {
		n, of := s.agree(cells, "")
		if of > 0 && float64(n)/float64(of) >= best-1e-9 {
			holds = append(holds, fmt.Sprintf("%s (%d / %d)", s.c.Title, n, of))
		}
		if s.count(cellOpposite) == least {
			fewest = append(fewest, s.c.Title)
		}
	}
	r.p("- Most cells in the paper's sign: %s.\n", strings.Join(holds, "; "))
	r.p("- Fewest cells of the opposite sign with an interval excluding 0 (%d): %s.\n\n", least, strings.Join(fewest, "; "))
	return nil
}

func jobsText(pl expe.Plan) string {
	if pl.Workload.Jobs > 0 {
		return fmt.Sprint(pl.Workload.Jobs)
	}
	return "the generator's default number of"
}

// factorEffects says, for each factor, how each row's agreement moves with
// its levels, and names the factors that flip a row.
func (r *reporter) factorEffects(sc []sensCase, cells []signCell, rows []string, bucma bool) {
	ref := sc[0]
	r.p("## Which factor flips which row\n\n")
	r.p("Cells in the paper's sign per row, at the reference and at each level of each factor (a row *flips* when a level moves at least half of its cells to the other side compared with the reference):\n\n")
	r.p("| factor | level |")
	for _, row := range rows {
		r.p(" %s |", row)
	}
	r.p("\n|---|---|%s\n", strings.Repeat("---|", len(rows)))
	r.p("| reference | reference |")
	for _, row := range rows {
		n, of := ref.agree(cells, row)
		r.p(" %d / %d |", n, of)
	}
	r.p("\n")
	type flip struct {
		factor, level, row string
		from, to, of       int
	}
	var flips []flip
	for _, s := range sc[1:] {
		r.p("| %s | %s |", s.c.Factor(), s.c.Title)
		for _, row := range rows {
			n, of := s.agree(cells, row)
			n0, _ := ref.agree(cells, row)
			mark := ""
			if of > 0 && 2*abs(n-n0) >= of {
				mark = " **flips**"
				flips = append(flips, flip{s.c.Factor(), s.c.Title, row, n0, n, of})
			}
			r.p(" %d / %d%s |", n, of, mark)
		}
		r.p("\n")
	}
	r.p("\n")
	if len(flips) == 0 {
		r.p("No single factor flips a row: the agreement per row moves by less than half of its cells at every level.\n\n")
		return
	}
	for _, f := range flips {
		r.p("- **%s**: %s moves the %s row from %d to %d of %d cells in the paper's sign.\n", f.factor, f.level, f.row, f.from, f.to, f.of)
	}
	r.p("\n")
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// bucmaWhy shows, per condition, the quantities that decide where BUCMA puts
// an inserted request, and how they go with the imprecise row's sign.
func (r *reporter) bucmaWhy(sc []sensCase, cells []signCell) {
	a := r.a
	r.p("## Why: what the imprecise requests meet, per condition\n\n")
	r.p("BUCMA puts a request before a waiting job when its Sf is higher; an imprecise request (Su pinned to 0, walltime 1 h) gains ")
	r.p("through the walltime term when the other jobs ask for more than 1 h, and loses through the score term to jobs whose owners score above 0. ")
	r.p("Whether that placement makes it wait more than under the base alone also depends on how long the base lets the queue grow. ")
	r.p("Columns (means over seeds; BUCMA = BUCMA5302): the share of the trace's jobs asking for at most 1 h; the mean Su of their owners at submission ")
	r.p("under BUCMA over FCFS; the median queue-position gain of the imprecise requests at submission under BUCMA over FCFS and over EASY; ")
	r.p("the mean waiting time of the imprecise requests under FCFS alone and under BUCMA over FCFS; the utilization of FCFS alone and of BUCMA over FCFS; ")
	r.p("the change of that wait (the Table 3 cell BUCMA5302 / imprecise / FCFS, paper %s %%); and the imprecise row's cells in the paper's sign.\n\n", analysis.FmtSigned(PaperTable3["bucma5302"]["imprecise"]["fcfs"], 1))
	r.p("| condition | trace jobs ≤ 1 h | their owners' Su | imprecise gain, FCFS (%%) | imprecise gain, EASY (%%) | imprecise wait FCFS (s) | imprecise wait BUCMA-FCFS (s) | utilization FCFS | utilization BUCMA-FCFS | change (%%) | imprecise row |\n")
	r.p("|---|---|---|---|---|---|---|---|---|---|---|\n")
	cellIdx := -1
	for i, c := range cells {
		if c.x == "bucma5302-fcfs" && c.Row == "imprecise" {
			cellIdx = i
		}
	}
	type point struct{ short, su, gain, util, agree, change float64 }
	var pts []point
	for _, s := range sc {
		c := s.c.Name
		mean := func(v string, f func(*report.RunData) float64) float64 {
			return analysis.Estimate95(a.CaseValues(v, c, f)).Mean
		}
		gain := func(v string) float64 {
			var all []float64
			for _, seed := range a.Plan.Seeds {
				if rd := a.GetCase(v, c, seed); rd != nil {
					all = append(all, extra(rd).ClassGains["imprecise"]...)
				}
			}
			return metrics.Quantile(all, 0.5)
		}
		short := mean("fcfs", func(x *report.RunData) float64 { return extra(x).OtherShortWall })
		su := mean("bucma5302-fcfs", func(x *report.RunData) float64 { return extra(x).OtherSu })
		gF, gE := gain("bucma5302-fcfs"), gain("bucma5302-easy")
		wait := func(v string) float64 {
			return mean(v, func(x *report.RunData) float64 {
				if g, ok := extra(x).Classes["imprecise"]; ok {
					return g.MeanWait
				}
				return math.NaN()
			})
		}
		uF := mean("fcfs", func(x *report.RunData) float64 { return x.Metrics.Utilization })
		uB := mean("bucma5302-fcfs", func(x *report.RunData) float64 { return x.Metrics.Utilization })
		n, of := s.agree(cells, "imprecise")
		change, changeText := math.NaN(), "n/a"
		if cellIdx >= 0 {
			change, changeText = s.cmps[cellIdx].Change.Mean, s.cmps[cellIdx].Cell(0, "s", 0)+s.marks[cellIdx]
		}
		cond := expe.Condition{Case: c}
		r.p("| %s | %s | %s | %s | %s | %s | %s | %s%s | %s%s | %s | %d / %d |\n", s.c.Title, fmtF(short, 2), fmtF(su, 1), fmtF(gF, 1), fmtF(gE, 1),
			fmtF(wait("fcfs"), 0), fmtF(wait("bucma5302-fcfs"), 0), fmtF(uF, 3), report.MarkSaturated(a.ConditionRuns("fcfs", cond)),
			fmtF(uB, 3), report.MarkSaturated(a.ConditionRuns("bucma5302-fcfs", cond)), changeText, n, of)
		if of > 0 {
			pts = append(pts, point{short, su, gF, uB - uF, float64(n) / float64(of), change})
		}
	}
	r.p("\n")
	if len(pts) < 3 {
		return
	}
	col := func(f func(point) float64) []float64 {
		out := make([]float64, len(pts))
		for i, p := range pts {
			out[i] = f(p)
		}
		return out
	}
	quantities := []struct {
		name string
		f    func(point) float64
	}{
		{"the share of trace jobs asking for at most 1 h", func(p point) float64 { return p.short }},
		{"their owners' mean Su", func(p point) float64 { return p.su }},
		{"the imprecise requests' median gain over FCFS", func(p point) float64 { return p.gain }},
		{"the utilization BUCMA-FCFS adds to FCFS alone", func(p point) float64 { return p.util }},
	}
	ag := col(func(p point) float64 { return p.agree })
	ch := col(func(p point) float64 { return p.change })
	r.p("Rank correlation (Spearman) over the %d conditions of each quantity with the change of the imprecise requests' wait under BUCMA5302 over FCFS, ", len(pts))
	r.p("and with the imprecise row's share of cells in the paper's sign:\n\n")
	r.p("| quantity | with the change | with the row's agreement |\n|---|---|---|\n")
	for _, q := range quantities {
		r.p("| %s | %s | %s |\n", q.name, fmtF(Spearman(col(q.f), ch), 2), fmtF(Spearman(col(q.f), ag), 2))
	}
	r.p("\n")
	// The quantity that goes most closely with the change, measured.
	bestQ, bestRho := "", 0.0
	for _, q := range quantities {
		if rho := Spearman(col(q.f), ch); !math.IsNaN(rho) && math.Abs(rho) > math.Abs(bestRho) {
			bestQ, bestRho = q.name, rho
		}
	}
	if bestQ != "" {
		r.p("Over these conditions, the change of the imprecise requests' wait under BUCMA5302 over FCFS goes most closely with %s (ρ = %.2f).\n\n", bestQ, bestRho)
	}
}

// wtrustWhy shows, per condition, how saturated the bases are: the paper's
// makespan gains need a saturated platform (experiments.md §2).
func (r *reporter) wtrustWhy(sc []sensCase) {
	a := r.a
	r.p("## Why: how saturated each base is, per condition\n\n")
	r.p("Utilization and mean waiting time (s) of each base alone and of walltime-trust, and walltime-trust's median and longest wait (means over seeds; ")
	r.p("%s: the variant saturated in at least one seed).\n\n", analysis.SaturatedMark)
	r.p("| condition |")
	for _, b := range append(append([]string(nil), BaseNames...), "wtrust") {
		r.p(" %s util. | %s wait |", BaseTitle(b), BaseTitle(b))
	}
	r.p(" walltime-trust median / max wait |\n|---|%s---|\n", strings.Repeat("---|---|", len(BaseNames)+1))
	for _, s := range sc {
		c := s.c.Name
		mean := func(v string, f func(*report.RunData) float64) float64 {
			return analysis.Estimate95(a.CaseValues(v, c, f)).Mean
		}
		r.p("| %s |", s.c.Title)
		for _, b := range append(append([]string(nil), BaseNames...), "wtrust") {
			r.p(" %s%s | %s |", fmtF(mean(b, func(x *report.RunData) float64 { return x.Metrics.Utilization }), 3),
				report.MarkSaturated(a.ConditionRuns(b, expe.Condition{Case: c})),
				fmtF(mean(b, func(x *report.RunData) float64 { return x.Metrics.MeanWait }), 0))
		}
		r.p(" %s / %s |\n", fmtF(mean("wtrust", func(x *report.RunData) float64 { return x.Metrics.MedianWait }), 0),
			fmtF(mean("wtrust", func(x *report.RunData) float64 { return x.Metrics.MaxWait }), 0))
	}
	r.p("\n")
}

func fmtF(v float64, prec int) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.*f", prec, v)
}

// Spearman is the rank correlation of x and y (ties get their mean rank);
// NaN pairs are left out, NaN when fewer than 3 pairs remain or a side is
// constant.
func Spearman(x, y []float64) float64 {
	var xs, ys []float64
	for i := range x {
		if i < len(y) && !math.IsNaN(x[i]) && !math.IsNaN(y[i]) {
			xs, ys = append(xs, x[i]), append(ys, y[i])
		}
	}
	if len(xs) < 3 {
		return math.NaN()
	}
	rx, ry := ranks(xs), ranks(ys)
	if stat.Variance(rx, nil) == 0 || stat.Variance(ry, nil) == 0 {
		return math.NaN()
	}
	return stat.Correlation(rx, ry, nil)
}

// ranks gives 1-based ranks, ties the mean of their ranks.
func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	out := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
			j++
		}
		rank := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			out[idx[k]] = rank
		}
		i = j + 1
	}
	return out
}
