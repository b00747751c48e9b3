package expe

import (
	"math"
	"sort"
)

// BSLDThreshold is τ of the bounded slowdown, in seconds: 10 s, the
// literature's usual threshold (Feitelson et al., "Theory and practice in
// parallel job scheduling", 1997).
const BSLDThreshold = 10.0

// Final states of Batsim's jobs: the one of a job that completed, and those
// that end a job before its work is done.
const (
	SuccessState = "COMPLETED_SUCCESSFULLY"

	KilledState   = "COMPLETED_KILLED"           // killed by the scheduler
	WalltimeState = "COMPLETED_WALLTIME_REACHED" // killed at its walltime
)

// Metrics summarises one run.
//
// Definitions (over the jobs that ran, i.e. every row with times; rejected
// jobs only count in Rejected and in FirstSubmit):
//
//   - Makespan = last finish_time − first submission_time. Batsim's own
//     "makespan" (BatsimMakespan) is max(finish_time), a date: it also counts
//     the idle time before the first submission, so it only equals ours when
//     the first job is submitted at 0.
//   - waiting time = starting_time − submission_time (Batsim's waiting_time).
//   - slowdown = turnaround_time / execution_time; jobs with a zero execution
//     time are left out of MeanSlowdown.
//   - bounded slowdown = max(1, turnaround / max(execution, τ)), τ = 10 s.
//   - Utilization = Σ res × execution / (hosts × Makespan).
//
// Means are over the jobs that ran (Batsim's _schedule.csv divides by the
// number of jobs including rejected ones).
type Metrics struct {
	Jobs     int // rows in the file
	Ran      int // jobs with times (finished in any final state)
	Rejected int
	Success  int // COMPLETED_SUCCESSFULLY
	// Killed counts the jobs that ran and were killed, by the scheduler
	// (KilledState) or at their walltime (WalltimeState).
	Killed int

	FirstSubmit    float64
	LastFinish     float64
	Makespan       float64
	BatsimMakespan float64

	MeanWait       float64
	MedianWait     float64
	P95Wait        float64 // 95th percentile (linear interpolation, as Quantile)
	MaxWait        float64
	MeanTurnaround float64
	MeanSlowdown   float64
	MaxSlowdown    float64
	MeanBSLD       float64
	Utilization    float64 // NaN when the number of hosts is unknown (0)
	Hosts          int
}

// JobSlowdown is turnaround / execution (NaN when execution is 0).
func JobSlowdown(j *JobRow) float64 {
	if j.Exec <= 0 {
		return math.NaN()
	}
	return j.Turnaround / j.Exec
}

// JobBSLD is the bounded slowdown with threshold BSLDThreshold.
func JobBSLD(j *JobRow) float64 {
	return math.Max(1, j.Turnaround/math.Max(j.Exec, BSLDThreshold))
}

// Compute computes the metrics of a run; hosts is the number of compute
// hosts of the platform (0 when unknown: Utilization is then NaN).
func Compute(rows []JobRow, hosts int) Metrics {
	m := Metrics{Jobs: len(rows), Hosts: hosts, FirstSubmit: math.NaN(), LastFinish: math.NaN()}
	var sumWait, sumTA, sumSD, sumBSLD, area float64
	nSD := 0
	waits := make([]float64, 0, len(rows))
	for i := range rows {
		j := &rows[i]
		if math.IsNaN(m.FirstSubmit) || j.Submit < m.FirstSubmit {
			m.FirstSubmit = j.Submit
		}
		if j.Rejected() {
			m.Rejected++
			continue
		}
		m.Ran++
		if j.Success {
			m.Success++
		}
		if j.FinalState == KilledState || j.FinalState == WalltimeState {
			m.Killed++
		}
		if math.IsNaN(m.LastFinish) || j.Finish > m.LastFinish {
			m.LastFinish = j.Finish
		}
		sumWait += j.Wait
		waits = append(waits, j.Wait)
		m.MaxWait = math.Max(m.MaxWait, j.Wait)
		sumTA += j.Turnaround
		if sd := JobSlowdown(j); !math.IsNaN(sd) {
			sumSD += sd
			nSD++
			m.MaxSlowdown = math.Max(m.MaxSlowdown, sd)
		}
		sumBSLD += JobBSLD(j)
		area += float64(j.Res) * j.Exec
	}
	if m.Ran == 0 {
		m.MeanWait, m.MeanTurnaround, m.MeanSlowdown, m.MeanBSLD = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		m.MedianWait, m.P95Wait = math.NaN(), math.NaN()
		m.Makespan, m.BatsimMakespan, m.Utilization = math.NaN(), math.NaN(), math.NaN()
		return m
	}
	n := float64(m.Ran)
	m.MeanWait = sumWait / n
	m.MedianWait = Quantile(waits, 0.5)
	m.P95Wait = Quantile(waits, 0.95)
	m.MeanTurnaround = sumTA / n
	m.MeanBSLD = sumBSLD / n
	m.MeanSlowdown = math.NaN()
	if nSD > 0 {
		m.MeanSlowdown = sumSD / float64(nSD)
	}
	m.BatsimMakespan = m.LastFinish
	m.Makespan = m.LastFinish - m.FirstSubmit
	m.Utilization = math.NaN()
	if hosts > 0 && m.Makespan > 0 {
		m.Utilization = area / (float64(hosts) * m.Makespan)
	}
	return m
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

// Quantile returns the q-quantile (0 ≤ q ≤ 1) of xs by linear interpolation
// between order statistics (xs is not modified); NaN for an empty slice.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	return s[lo] + (s[hi]-s[lo])*(pos-float64(lo))
}

// Change is the relative change of x against a reference, in percent
// (NaN when the reference is 0 or either value is NaN).
func Change(x, ref float64) float64 {
	if ref == 0 || math.IsNaN(ref) || math.IsNaN(x) {
		return math.NaN()
	}
	return (x - ref) / ref * 100
}
