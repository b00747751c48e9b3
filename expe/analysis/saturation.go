package analysis

import (
	"fmt"
	"math"

	"github.com/bucma-sched/bucma/metrics"
)

// Saturation says whether a run kept up with the work its workload offered.
// A policy's means over a run that did not are the trace's length as much
// as the policy: every job waits behind a queue that only grows.
type Saturation struct {
	// Offered is the offered load as the run shows it: the busy host-time
	// (Metrics.Busy) over hosts × (last submission − first submission) of
	// the jobs that ran; without compute sharing, Σ res × execution time
	// over the same (NaN when every job is submitted at once or the busy
	// host-time is unknown).
	Offered float64
	// Utilization is Metrics.Utilization: the same busy host-time over
	// hosts × the makespan, so that Utilization / Offered = submission
	// span / makespan.
	Utilization float64
	// EarlyWait and LateWait are the mean waiting times of the jobs
	// submitted in the first and the last of SaturationParts equal parts of
	// the submission span, MidWait the largest of the parts in between
	// (NaN with fewer than MinPartJobs jobs in a part); MeanExec is the
	// jobs' mean execution time.
	EarlyWait, MidWait, LateWait, MeanExec float64
}

// Saturation thresholds, as the reports state them.
const (
	// SaturatedUtilization: a run whose utilization is below this share
	// of its offered load lasted more than twice its submission span (U /
	// offered = span / makespan).
	SaturatedUtilization = 0.5
	// SaturatedWaitGrowth and SaturatedWaitMargin: the jobs of the last
	// part waited more than this factor times as long as those of the
	// first, and longer by more than the jobs' mean execution time (at
	// least this many seconds), and longer than those of every part in
	// between: the queue grows through the whole run, not through a busy
	// stretch the run recovers from.
	SaturatedWaitGrowth = 2.0
	SaturatedWaitMargin = 60.0
	// SaturationParts is the number of equal parts of the submission span
	// the waits are compared over.
	SaturationParts = 5
	// MinPartJobs is the fewest jobs a part needs for its mean wait to be
	// compared.
	MinPartJobs = 10
)

// SaturationOf measures a run from its jobs file's rows and its metrics
// (Compute).
func SaturationOf(rows []JobRow, m Metrics) Saturation {
	s := Saturation{Offered: math.NaN(), Utilization: math.NaN(), EarlyWait: math.NaN(), MidWait: math.NaN(), LateWait: math.NaN(), MeanExec: math.NaN()}
	first, last := math.Inf(1), math.Inf(-1)
	exec, n := 0.0, 0
	for i := range rows {
		j := &rows[i]
		if j.Rejected() {
			continue
		}
		first, last = math.Min(first, j.Submit), math.Max(last, j.Submit)
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
	s.Offered = metrics.Utilization(m.Busy, m.Hosts, last-first)
	span := last - first
	parts := make([][]float64, SaturationParts)
	for i := range rows {
		j := &rows[i]
		if j.Rejected() {
			continue
		}
		k := min(SaturationParts-1, int(float64(SaturationParts)*(j.Submit-first)/span))
		parts[k] = append(parts[k], j.Wait)
	}
	for _, p := range parts {
		if len(p) < MinPartJobs {
			return s
		}
	}
	s.EarlyWait, s.LateWait = mean(parts[0]), mean(parts[SaturationParts-1])
	s.MidWait = math.Inf(-1)
	for _, p := range parts[1 : SaturationParts-1] {
		s.MidWait = math.Max(s.MidWait, mean(p))
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
	if s.LateWait > SaturatedWaitGrowth*s.EarlyWait && s.LateWait > s.EarlyWait+math.Max(SaturatedWaitMargin, s.MeanExec) && !(s.MidWait >= s.LateWait) {
		return true, fmt.Sprintf("the queue grows: mean wait %.0f s in the first fifth of the submissions, %.0f s in the last, the longest", s.EarlyWait, s.LateWait)
	}
	return false, ""
}

// DefinitionsNote is the sentence a report gives for the definitions of
// its metrics: those of package metrics, and the offered load.
func DefinitionsNote() string {
	return metrics.Definitions() + " Offered load = busy host-time / (hosts × (last submission − first submission)), " +
		"over the jobs that ran: the utilization the run would have had had it lasted its submission span."
}

// SaturationNote is the sentence a report gives to say what "saturated"
// means.
func SaturationNote() string {
	return fmt.Sprintf("*Saturated*: the run did not keep up with its workload — its utilization is below %g × its offered load "+
		"(it lasted more than %g times its submission span), or, the submission span cut in %d equal parts, the jobs submitted in the "+
		"last part waited on average more than %g times as long as those of the first, longer by more than the jobs' mean execution "+
		"time (and %g s), and longer than those of any other part: the queue grows through the whole run (a busy stretch the run "+
		"recovers from does not count). Means over a saturated run depend on the trace's length as much as on the policy.",
		SaturatedUtilization, 1/SaturatedUtilization, SaturationParts, SaturatedWaitGrowth, SaturatedWaitMargin)
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
