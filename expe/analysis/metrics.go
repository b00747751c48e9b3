package analysis

import (
	"math"

	"github.com/bucma-sched/bucma/metrics"
)

// Metrics summarises one run, with the definitions of package metrics
// (makespan = last finish − first submission; utilization = busy
// host-time / (hosts × makespan), a host being busy while at least one job
// runs on it; means over the jobs that ran). The busy host-time is read
// from each row's allocated_resources, starting_time and execution_time.
type Metrics = metrics.Summary

// JobSlowdown is turnaround / execution (NaN when execution is 0).
func JobSlowdown(j *JobRow) float64 { return metrics.Slowdown(j.Turnaround, j.Exec) }

// JobBSLD is the bounded slowdown with threshold metrics.BSLDThreshold.
func JobBSLD(j *JobRow) float64 { return metrics.BoundedSlowdown(j.Turnaround, j.Exec) }

// metricsJob is the row as package metrics reads it.
func (r *JobRow) metricsJob() metrics.Job {
	return metrics.Job{Submit: r.Submit, State: r.FinalState, Ran: !r.Rejected(), Start: r.Start, Exec: r.Exec,
		Finish: r.Finish, Wait: r.Wait, Turnaround: r.Turnaround, Success: r.Success}
}

// Compute computes the metrics of a run; hosts is the number of compute
// hosts of the platform (0 when unknown: Utilization is then NaN, as it is
// when a job that ran has no readable allocated_resources).
func Compute(rows []JobRow, hosts int) Metrics {
	acc := metrics.Acc{KeepWaits: true}
	spans := make([]metrics.Span, 0, len(rows))
	busyKnown := hosts > 0
	for i := range rows {
		j := &rows[i]
		mj := j.metricsJob()
		acc.Add(&mj)
		if !mj.Ran || !busyKnown {
			continue
		}
		h, err := j.Hosts()
		if err != nil || len(h) == 0 {
			busyKnown = false
			continue
		}
		spans = append(spans, metrics.Span{Start: j.Start, End: j.Start + j.Exec, Hosts: h})
	}
	busy := math.NaN()
	if busyKnown {
		busy = metrics.BusyTime(spans, hosts)
	}
	return acc.Summary(busy, hosts)
}

// GroupStats is the summary of one group of jobs (a precision profile, a
// user, ...).
type GroupStats struct {
	Jobs         int // jobs of the group that ran
	MeanWait     float64
	MeanSlowdown float64
	MeanBSLD     float64
}

// ByGroup computes per-group statistics; group maps a job id to its group
// ("" = no group: the job is left out).
func ByGroup(rows []JobRow, group map[string]string) map[string]GroupStats {
	type acc struct {
		n, nSD         int
		wait, sd, bsld float64
	}
	accs := map[string]*acc{}
	for i := range rows {
		j := &rows[i]
		if j.Rejected() {
			continue
		}
		g := group[j.ID]
		if g == "" {
			continue
		}
		a := accs[g]
		if a == nil {
			a = &acc{}
			accs[g] = a
		}
		a.n++
		a.wait += j.Wait
		a.bsld += JobBSLD(j)
		if sd := JobSlowdown(j); !math.IsNaN(sd) {
			a.sd += sd
			a.nSD++
		}
	}
	out := make(map[string]GroupStats, len(accs))
	for g, a := range accs {
		s := GroupStats{Jobs: a.n, MeanWait: a.wait / float64(a.n), MeanBSLD: a.bsld / float64(a.n), MeanSlowdown: math.NaN()}
		if a.nSD > 0 {
			s.MeanSlowdown = a.sd / float64(a.nSD)
		}
		out[g] = s
	}
	return out
}

// SuBands are the score bands of the paper's Figures 1–2.
var SuBands = []string{"0-24", "25-49", "50-74", "75-100"}

// SuBand returns the band of a score (scores are integers in [0, 100];
// anything outside is clamped).
func SuBand(su float64) string {
	switch {
	case su < 25:
		return SuBands[0]
	case su < 50:
		return SuBands[1]
	case su < 75:
		return SuBands[2]
	}
	return SuBands[3]
}

// GainsByBand groups the recorded queue-position gains of a decision trace
// by the Su band at submission. Rows without a gain are left out.
func GainsByBand(trace []TraceRow) map[string][]float64 {
	out := map[string][]float64{}
	for _, t := range trace {
		if !t.HasGain || math.IsNaN(t.Su) {
			continue
		}
		b := SuBand(t.Su)
		out[b] = append(out[b], t.Gain)
	}
	return out
}

// WaitsByBand groups the waiting times of a decision trace by the Su band
// at submission (jobs that never started or without a recorded Su are left
// out).
func WaitsByBand(trace []TraceRow) map[string][]float64 {
	out := map[string][]float64{}
	for _, t := range trace {
		if math.IsNaN(t.Wait) || math.IsNaN(t.Su) {
			continue
		}
		b := SuBand(t.Su)
		out[b] = append(out[b], t.Wait)
	}
	return out
}

// Change is the relative change of x against a reference, in percent
// (NaN when the reference is 0 or either value is NaN).
func Change(x, ref float64) float64 {
	if ref == 0 || math.IsNaN(ref) || math.IsNaN(x) {
		return math.NaN()
	}
	return (x - ref) / ref * 100
}
