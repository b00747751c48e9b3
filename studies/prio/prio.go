// Package prio is the comparison of the priority functions (the prio-*
// policies) with and without backfilling: its plan, on the
// Lublin-Feitelson model or on a trace of the user's, and its report, the
// comparison report followed by the variants ranked.
package prio

import (
	_ "embed"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/expe/report"
)

// Plan is the name and kind of the plan.
const Plan = "prio"

//go:embed plan.yaml
var planFile []byte

// Register adds the plan and its report.
func Register(s *report.Studies) {
	cmp := report.ComparisonStudy()
	s.Register(report.Study{Kind: Plan, ReadRun: cmp.ReadRun, Report: func(r *report.Report) error {
		if err := cmp.Report(r); err != nil {
			return err
		}
		writeRanking(r)
		return nil
	}})
	s.AddPlan(Plan, planFile)
}

// The metrics the ranking shows: how each reads from a run, the floor of
// its relative changes, its precision, and whether lower is better.
type metric struct {
	title string
	value func(*report.RunData) float64
	floor float64
	prec  int
	lower bool
}

var (
	bsld        = metric{"mean bounded slowdown", func(x *report.RunData) float64 { return x.Metrics.MeanBSLD }, analysis.FloorRatio, 2, true}
	waiting     = metric{"mean waiting time (s)", func(x *report.RunData) float64 { return x.Metrics.MeanWait }, analysis.FloorWait, 0, true}
	utilization = metric{"utilization", func(x *report.RunData) float64 { return x.Metrics.Utilization }, analysis.FloorUtilization, 3, false}
)

// Backfill is the backfilling a variant's policy runs with (its backfill
// option, none by default).
func Backfill(v expe.Variant) string {
	if b := v.Options["backfill"]; b != "" {
		return b
	}
	return "none"
}

// ranked is a variant's means under one condition.
type ranked struct {
	v                expe.Variant
	bsld, wait, util analysis.Estimate
}

// rank orders the variants of a condition by mean bounded slowdown, then
// mean waiting time, then name; variants without a completed run are left
// out, those without a mean (no job ran) come last.
func rank(a *report.Analysis, c expe.Condition) []ranked {
	var out []ranked
	for _, v := range a.Plan.Variants {
		if len(a.ConditionValues(v.Name, c, bsld.value)) == 0 {
			continue
		}
		est := func(m metric) analysis.Estimate {
			return analysis.Estimate95(a.ConditionValues(v.Name, c, m.value))
		}
		out = append(out, ranked{v: v, bsld: est(bsld), wait: est(waiting), util: est(utilization)})
	}
	sort.SliceStable(out, func(i, j int) bool {
		// A mean that is not a number (no job ran) comes last.
		if a, b := math.IsNaN(out[i].bsld.Mean), math.IsNaN(out[j].bsld.Mean); a != b {
			return b
		}
		if out[i].bsld.Mean != out[j].bsld.Mean {
			return out[i].bsld.Mean < out[j].bsld.Mean
		}
		if out[i].wait.Mean != out[j].wait.Mean {
			return out[i].wait.Mean < out[j].wait.Mean
		}
		return out[i].v.Name < out[j].v.Name
	})
	return out
}

// conditionTitle names a condition: its workload case and its load level,
// as the comparison report does.
func conditionTitle(p expe.Plan, c expe.Condition) string {
	var parts []string
	if c.Case != "" {
		parts = append(parts, "case "+c.Case)
	}
	if p.HasLoads() {
		parts = append(parts, "load level "+expe.FormatLoad(c.Load))
	}
	if len(parts) == 0 {
		return "the workload's own load"
	}
	return strings.Join(parts, ", ")
}

// writeRanking appends the ranking: per condition, the variants by mean
// bounded slowdown with their paired changes against the baseline, what
// backfilling changes for each function; then the ranks across the
// conditions.
func writeRanking(r *report.Report) {
	a := r.A
	p := a.Plan
	base := p.BaselineVariant()
	r.P("# Ranking\n\n")
	r.P("Per condition, the variants in the order of their mean bounded slowdown (mean over the seeds; ties by mean waiting time), ")
	r.P("with their paired change against `%s` on each seed's workload (relative change averaged over the seeds ± 95 %% interval, ", base)
	r.P("seeds backing its sign, `*` significant at 95 %%, † a saturated run on either side). A rank says where a mean falls: ")
	r.P("two variants whose paired change is not significant are not told apart by the campaign.\n\n")
	ranks := map[string][]int{}
	conds := p.Conditions()
	for _, c := range conds {
		rs := rank(a, c)
		if len(rs) == 0 {
			continue
		}
		r.P("## %s\n\n", conditionTitle(p, c))
		r.P("| rank | variant | %s | %s | %s | bounded slowdown against `%s` | waiting time against `%s` | saturated runs |\n", bsld.title, waiting.title, utilization.title, base, base)
		r.P("|---|---|---|---|---|---|---|---|\n")
		for i, x := range rs {
			ranks[x.v.Name] = append(ranks[x.v.Name], i+1)
			bs, ws := "(baseline)", "(baseline)"
			if x.v.Name != base {
				bs, ws = change(a, x.v.Name, base, c, bsld), change(a, x.v.Name, base, c, waiting)
			}
			n, of, _ := report.SaturationCount(a.ConditionRuns(x.v.Name, c))
			r.P("| %d | %s | %s | %s | %s | %s | %s | %d of %d |\n", i+1, x.v.Name, analysis.FmtEst(x.bsld, bsld.prec, false),
				analysis.FmtEst(x.wait, waiting.prec, false), analysis.FmtEst(x.util, utilization.prec, false), bs, ws, n, of)
		}
		r.P("\n")
		writeFindings(r, c, rs)
	}
	if len(conds) > 1 {
		writeRanksAcross(r, conds, ranks)
	}
}

// change is the paired change of metric m of x against ref, as a table
// cell with its saturation mark.
func change(a *report.Analysis, x, ref string, c expe.Condition, m metric) string {
	cp := a.CompareVariants(x, ref, c, m.value, m.floor)
	return cp.Cell(1, "", m.prec) + report.MarkSaturated(a.ConditionRuns(x, c), a.ConditionRuns(ref, c))
}

// writeFindings says what a condition's ranking shows: the best variant by
// each metric, how many variants the baseline is beaten by, and what each
// backfilling does to each function against the one before it.
func writeFindings(r *report.Report, c expe.Condition, rs []ranked) {
	a := r.A
	base := a.Plan.BaselineVariant()
	best := func(m metric, of func(ranked) analysis.Estimate) string {
		i := -1
		for j := range rs {
			v := of(rs[j]).Mean
			if math.IsNaN(v) {
				continue
			}
			if i < 0 || (m.lower && v < of(rs[i]).Mean) || (!m.lower && v > of(rs[i]).Mean) {
				i = j
			}
		}
		if i < 0 {
			return "none (no value)"
		}
		return fmt.Sprintf("`%s` (%s)", rs[i].v.Name, analysis.FmtEst(of(rs[i]), m.prec, false))
	}
	r.P("- Best mean bounded slowdown: %s; best mean waiting time: %s; highest utilization: %s.\n",
		best(bsld, func(x ranked) analysis.Estimate { return x.bsld }), best(waiting, func(x ranked) analysis.Estimate { return x.wait }),
		best(utilization, func(x ranked) analysis.Estimate { return x.util }))
	var better, worse []string
	for _, x := range rs {
		if x.v.Name == base {
			continue
		}
		cp := a.CompareVariants(x.v.Name, base, c, bsld.value, bsld.floor)
		if !cp.Significant() {
			continue
		}
		if cp.Sign() < 0 {
			better = append(better, "`"+x.v.Name+"`")
		} else {
			worse = append(worse, "`"+x.v.Name+"`")
		}
	}
	r.P("- Against `%s`, significantly lower mean bounded slowdown: %s; significantly higher: %s.\n", base, list(better), list(worse))
	// Each function's backfillings, in the plan's order, each against
	// the one before it (none, then EASY, then conservative).
	byPolicy := map[string][]expe.Variant{}
	var policies []string
	for _, v := range a.Plan.Variants {
		if !slices.Contains(policies, v.Policy) {
			policies = append(policies, v.Policy)
		}
		byPolicy[v.Policy] = append(byPolicy[v.Policy], v)
	}
	type step struct{ from, to string }
	counts := map[step][3]int{} // lower (significant), higher (significant), not significant
	var steps []step
	for _, pol := range policies {
		vs := byPolicy[pol]
		for i := 1; i < len(vs); i++ {
			s := step{Backfill(vs[i-1]), Backfill(vs[i])}
			if _, seen := counts[s]; !seen {
				steps = append(steps, s)
			}
			k := counts[s]
			cp := a.CompareVariants(vs[i].Name, vs[i-1].Name, c, bsld.value, bsld.floor)
			switch {
			case cp.N() == 0:
				continue
			case cp.Significant() && cp.Sign() < 0:
				k[0]++
			case cp.Significant() && cp.Sign() > 0:
				k[1]++
			default:
				k[2]++
			}
			counts[s] = k
		}
	}
	for _, s := range steps {
		k := counts[s]
		r.P("- Backfilling %s against %s, per function (paired on the seeds): lower mean bounded slowdown for %d, higher for %d (significant at 95 %%), not told apart for %d.\n",
			s.to, s.from, k[0], k[1], k[2])
	}
	r.P("\n")
}

func list(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return fmt.Sprintf("%d (%s)", len(names), strings.Join(names, ", "))
}

// writeRanksAcross tabulates each variant's rank under every condition, in
// the order of their mean rank.
func writeRanksAcross(r *report.Report, conds []expe.Condition, ranks map[string][]int) {
	p := r.A.Plan
	type row struct {
		name string
		mean float64
	}
	var rows []row
	for _, v := range p.Variants {
		rk := ranks[v.Name]
		if len(rk) != len(conds) {
			continue // not ranked under every condition
		}
		sum := 0
		for _, x := range rk {
			sum += x
		}
		rows = append(rows, row{v.Name, float64(sum) / float64(len(rk))})
	}
	if len(rows) == 0 {
		return
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].mean < rows[j].mean })
	r.P("## Ranks across the conditions\n\nThe rank of each variant by mean bounded slowdown under each condition, in the order of their mean rank.\n\n| variant |")
	for _, c := range conds {
		r.P(" %s |", conditionTitle(p, c))
	}
	r.P(" mean rank |\n|---|%s---|\n", strings.Repeat("---|", len(conds)))
	for _, x := range rows {
		r.P("| %s |", x.name)
		for _, k := range ranks[x.name] {
			r.P(" %d |", k)
		}
		r.P(" %s |\n", fmtRank(x.mean))
	}
	r.P("\n")
}

func fmtRank(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}
