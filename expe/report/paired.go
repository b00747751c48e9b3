package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/analysis"
)

// CompareRuns compares f over paired runs (x, ref: the runs of one seed
// each, nil where a run is missing; pairs with a missing side are left
// out).
func CompareRuns(x, ref []*RunData, f func(*RunData) float64, floor float64) analysis.Comparison {
	var xs, rs []float64
	for i := range x {
		if i < len(ref) && x[i] != nil && ref[i] != nil {
			xs, rs = append(xs, f(x[i])), append(rs, f(ref[i]))
		}
	}
	return analysis.Compare(xs, rs, floor)
}

// SaturationCount counts the saturated runs among rds (nil runs are left
// out) and gives the first one's reason.
func SaturationCount(rds []*RunData) (n, of int, why string) {
	for _, x := range rds {
		if x == nil {
			continue
		}
		of++
		if sat, reason := x.Saturation.Saturated(); sat {
			n++
			if why == "" {
				why = fmt.Sprintf("seed %d: %s", x.Run.Seed, reason)
				if x.Run.Copy > 0 {
					why = fmt.Sprintf("seed %d, copy %d: %s", x.Run.Seed, x.Run.Copy, reason)
				}
			}
		}
	}
	return n, of, why
}

// SaturationText says how many runs were saturated, and why (the first
// one's reason): "no", or "**yes**, 3 of 10 runs (seed 2: ...)".
func SaturationText(rds []*RunData) string {
	n, of, why := SaturationCount(rds)
	if n == 0 {
		return "no"
	}
	return fmt.Sprintf("**yes**, %d of %d runs (%s)", n, of, why)
}

// MarkSaturated returns SaturatedMark when any of the runs is saturated,
// else "".
func MarkSaturated(runs ...[]*RunData) string {
	for _, rs := range runs {
		if n, _, _ := SaturationCount(rs); n > 0 {
			return analysis.SaturatedMark
		}
	}
	return ""
}

// ConditionRuns lists the runs of a variant under a condition, one per
// seed of the plan (per seed and copy for a plan that shakes its
// workloads, see Slots; nil where the run is not done).
func (a *Analysis) ConditionRuns(variant string, c expe.Condition) []*RunData {
	slots := a.Slots()
	out := make([]*RunData, len(slots))
	for i, s := range slots {
		out[i] = a.LookupSlot(variant, c, s)
	}
	return out
}

// CompareVariants compares f of variant x with reference ref under a
// condition, on each seed's pair of runs (each seed and copy's).
func (a *Analysis) CompareVariants(x, ref string, c expe.Condition, f func(*RunData) float64, floor float64) analysis.Comparison {
	return CompareRuns(a.ConditionRuns(x, c), a.ConditionRuns(ref, c), f, floor)
}

// CopySigns counts, for a plan that shakes its workloads, the copies on
// which the paired difference of f between variant x and reference ref,
// compared over the seeds on that copy alone, has the sign sign: holds of
// the n copies with at least one pair of runs done. n is 0 without
// shaking.
func (a *Analysis) CopySigns(x, ref string, c expe.Condition, f func(*RunData) float64, floor float64, sign int) (holds, n int) {
	if a.Plan.Shake == nil {
		return 0, 0
	}
	for _, cp := range a.Plan.Copies() {
		var xs, rs []*RunData
		for _, s := range a.Plan.Seeds {
			xs = append(xs, a.LookupSlot(x, c, Slot{s, cp}))
			rs = append(rs, a.LookupSlot(ref, c, Slot{s, cp}))
		}
		k := CompareRuns(xs, rs, f, floor)
		if k.N() == 0 {
			continue
		}
		n++
		if k.Sign() == sign {
			holds++
		}
	}
	return holds, n
}

// CopiesText is how a report prints CopySigns: "{7/10 copies}", with "at
// 0" for a mean difference of 0; "" without shaking.
func CopiesText(holds, n, sign int) string {
	if n == 0 {
		return ""
	}
	if sign == 0 {
		return fmt.Sprintf("{%d/%d copies at 0}", holds, n)
	}
	return fmt.Sprintf("{%d/%d copies}", holds, n)
}

// SaturationSummary is a paragraph on the saturation of every run of the
// analysis: how many runs are saturated and of which variants, and how
// many have every job submitted at once (no submission span: the test does
// not apply); marked says whether the report marks the values over a
// saturated run (SaturatedMark).
func SaturationSummary(a *Analysis, marked bool) string {
	var sat, noSpan, total int
	byVariant := map[string]int{}
	for _, rd := range a.Runs {
		total++
		if math.IsNaN(rd.Saturation.Offered) {
			noSpan++
		}
		if s, _ := rd.Saturation.Saturated(); s {
			sat++
			byVariant[rd.Run.Variant.Name]++
		}
	}
	s := fmt.Sprintf("**Saturation.** %d of %d runs saturated", sat, total)
	if sat > 0 {
		var parts []string
		for _, v := range slices.Sorted(maps.Keys(byVariant)) {
			parts = append(parts, fmt.Sprintf("%s: %d", v, byVariant[v]))
		}
		s += " (" + strings.Join(parts, ", ")
		if marked {
			s += "; values over them are marked " + analysis.SaturatedMark
		}
		s += ")"
	}
	s += "."
	if noSpan > 0 {
		s += fmt.Sprintf(" %d of them have every job submitted at once or no known host count: no submission span, so the test does not apply "+
			"(their workload is a fixed demand, not a trace whose length the means could follow).", noSpan)
	}
	return s + " " + analysis.SaturationNote()
}
