package expe

import (
	"fmt"
	"math"
)

// Saturation says whether a run kept up with the work its workload offered.
// A policy's means over a run that did not are the trace's length as much
// as the policy: every job waits behind a queue that only grows.
type Saturation struct {
	// Offered is the offered load as the run shows it: Σ res × execution
	// time / (hosts × (last submission − first submission)), over the jobs
	// that ran (NaN when every job is submitted at once or the hosts are
	// unknown).
	Offered float64
	// Utilization is Metrics.Utilization: the same work over the makespan.
	Utilization float64
	// EarlyWait and LateWait are the mean waiting times of the jobs
	// submitted in the first and the last third of the submission span
	// (NaN with fewer than MinThirdJobs jobs in either); MeanExec is the
	// jobs' mean execution time.
	EarlyWait, LateWait, MeanExec float64
}

// Saturation thresholds, as the reports state them.
const (
	// SaturatedUtilization: a run whose utilization is below this share
	// of its offered load lasted more than twice its submission span (U /
	// offered = span / makespan).
	SaturatedUtilization = 0.5
	// SaturatedWaitGrowth and SaturatedWaitMargin: the jobs of the last
	// third waited more than this factor times as long as those of the
	// first third, and longer by more than the jobs' mean execution time
	// (at least this many seconds).
	SaturatedWaitGrowth = 2.0
	SaturatedWaitMargin = 60.0
	// MinThirdJobs is the fewest jobs a third needs for its mean wait to
	// be compared.
	MinThirdJobs = 10
)

// SaturationOf measures a run from its jobs file's rows and its metrics
// (Compute).
func SaturationOf(rows []JobRow, m Metrics) Saturation {
	s := Saturation{Offered: math.NaN(), Utilization: math.NaN(), EarlyWait: math.NaN(), LateWait: math.NaN(), MeanExec: math.NaN()}
	first, last := math.Inf(1), math.Inf(-1)
	area, exec, n := 0.0, 0.0, 0
	for i := range rows {
		j := &rows[i]
		if j.Rejected() {
			continue
		}
		first, last = math.Min(first, j.Submit), math.Max(last, j.Submit)
		area += float64(j.Res) * j.Exec
		exec += j.Exec
		n++
	}
	if n > 0 {
		s.MeanExec = exec / float64(n)
	}
	if !(last > first) {
		return s
	}
	s.Utilization = m.Utilization
	if m.Hosts > 0 {
		s.Offered = area / (float64(m.Hosts) * (last - first))
	}
	span := last - first
	var early, late []float64
	for i := range rows {
		j := &rows[i]
		if j.Rejected() {
			continue
		}
		switch {
		case j.Submit < first+span/3:
			early = append(early, j.Wait)
		case j.Submit >= last-span/3:
			late = append(late, j.Wait)
		}
	}
	if len(early) >= MinThirdJobs && len(late) >= MinThirdJobs {
		s.EarlyWait, s.LateWait = mean(early), mean(late)
	}
	return s
}

func mean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// Saturated reports whether the run did not keep up with its workload, and
// why: its utilization far below its offered load, or its queue growing
// through the run (see the thresholds).
func (s Saturation) Saturated() (bool, string) {
	if s.Offered > 0 && s.Utilization < SaturatedUtilization*s.Offered {
		return true, fmt.Sprintf("utilization %.2f against an offered load of %.2f", s.Utilization, s.Offered)
	}
	if s.LateWait > SaturatedWaitGrowth*s.EarlyWait && s.LateWait > s.EarlyWait+math.Max(SaturatedWaitMargin, s.MeanExec) {
		return true, fmt.Sprintf("the queue grows: mean wait %.0f s in the first third of the submissions, %.0f s in the last", s.EarlyWait, s.LateWait)
	}
	return false, ""
}

// SaturationNote is the sentence a report gives to say what "saturated"
// means.
func SaturationNote() string {
	return fmt.Sprintf("*Saturated*: the run did not keep up with its workload — its utilization is below %g × its offered load "+
		"(it lasted more than %g times its submission span), or the jobs submitted in the last third of the span waited on average "+
		"more than %g times as long as those of the first third, and longer by more than the jobs' mean execution time (and %g s): "+
		"the queue grows through the run. Means over a saturated run depend on the trace's length as much as on the policy.",
		SaturatedUtilization, 1/SaturatedUtilization, SaturatedWaitGrowth, SaturatedWaitMargin)
}

// NearZero is the text a report prints for a relative difference over a
// base too close to 0 to divide by.
const NearZero = "n/a (base ≈ 0)"

// Relative prints diff relative to base in percent ("+12.3 %"), or
// NearZero when |base| is below floor: a change over a base of a few
// seconds' wait says nothing.
func Relative(diff, base, floor float64, prec int) string {
	if math.IsNaN(diff) || math.IsNaN(base) {
		return "n/a"
	}
	if math.Abs(base) < floor {
		return NearZero
	}
	return fmt.Sprintf("%+.*f %%", prec, 100*diff/base)
}

// RelativeEst prints a paired difference's estimate relative to the base's
// mean, its interval scaled alike ("+12.3 ± 4.0 %"), or NearZero.
func RelativeEst(diff Estimate, base, floor float64, prec int) string {
	if diff.N == 0 || math.IsNaN(diff.Mean) || math.IsNaN(base) {
		return "n/a"
	}
	if math.Abs(base) < floor {
		return NearZero
	}
	s := fmt.Sprintf("%+.*f", prec, 100*diff.Mean/base)
	if !math.IsNaN(diff.Half) {
		s += fmt.Sprintf(" ± %.*f", prec, 100*diff.Half/math.Abs(base))
	}
	return s + " %"
}
