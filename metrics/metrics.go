// Package metrics defines the metrics bucma gives of a run: the summary
// of bucma simulate, the campaign reports and their results.csv compute
// them here, with one definition per name. A job is one row of Batsim's
// _jobs.csv (the pieces of a preempted job, resubmitted as jobs of their
// own, count as jobs); a job ran when the row has times (rejected jobs
// have none).
//
//   - makespan = last finish time − first submission time (over every
//     job, rejected ones included, for the submission). Batsim's own
//     "makespan" (_schedule.csv) is the last finish time, a date: it also
//     counts the time before the first submission. Summary.LastFinish is
//     that date.
//   - waiting time = start − submission; turnaround = finish − submission.
//   - slowdown = turnaround / execution time (jobs of zero execution time
//     left out of its mean); bounded slowdown = max(1, turnaround /
//     max(execution, BSLDThreshold)).
//   - utilization = busy host-time / (compute hosts × makespan), a
//     fraction in [0, 1]. A compute host is busy while at least one job
//     runs on it: under compute sharing several jobs on one host count it
//     once (Batsim's time_computing of _schedule.csv measures the same
//     host-time), and a killed piece counts until its kill. The
//     denominator counts every compute host for the whole makespan
//     whatever its power state (asleep, switching, unavailable): the
//     platform's capacity. Storage hosts are not counted.
//
// Means are over the jobs that ran; killed jobs (by the scheduler or at
// their walltime) ran and count. Batsim's _schedule.csv divides its means
// by every job, rejected ones included: its mean_waiting_time and
// mean_slowdown are not these.
package metrics

import (
	"fmt"
	"math"
	"sort"
)

// BSLDThreshold is τ of the bounded slowdown, in seconds: 10 s, the
// literature's usual threshold (Feitelson et al., "Theory and practice in
// parallel job scheduling", 1997).
const BSLDThreshold = 10.0

// Final states of Batsim's jobs: the one of a job that completed, those
// that end a job before its work is done, and the one of a job that never
// ran.
const (
	SuccessState  = "COMPLETED_SUCCESSFULLY"
	KilledState   = "COMPLETED_KILLED"           // killed by the scheduler
	WalltimeState = "COMPLETED_WALLTIME_REACHED" // killed at its walltime
	RejectedState = "REJECTED"
)

// Definitions is the sentence a report gives for the definitions above.
func Definitions() string {
	return fmt.Sprintf("waiting time = start − submission; turnaround = finish − submission; slowdown = turnaround / execution; "+
		"bounded slowdown = max(1, turnaround / max(execution, %g s)), the threshold of %g s being the literature's usual one "+
		"(Feitelson et al., 1997); makespan = last finish − first submission (Batsim's `makespan` is the last finish, a date); "+
		"utilization = busy host-time / (compute hosts × makespan), a host being busy while at least one job runs on it "+
		"(jobs sharing a host count it once; hosts asleep or switched off count in the capacity); killed jobs: ended by the "+
		"scheduler (`%s`) or at their walltime (`%s`). Means are over the jobs that ran (rejected jobs excluded; the pieces of "+
		"a preempted job count as jobs).", BSLDThreshold, BSLDThreshold, KilledState, WalltimeState)
}

// Slowdown is turnaround / execution (NaN when execution is not > 0).
func Slowdown(turnaround, exec float64) float64 {
	if !(exec > 0) {
		return math.NaN()
	}
	return turnaround / exec
}

// BoundedSlowdown is max(1, turnaround / max(execution, BSLDThreshold)).
func BoundedSlowdown(turnaround, exec float64) float64 {
	return math.Max(1, turnaround/math.Max(exec, BSLDThreshold))
}

// Makespan is last finish − first submission.
func Makespan(firstSubmit, lastFinish float64) float64 { return lastFinish - firstSubmit }

// Utilization is busy host-seconds over hosts × makespan (NaN when either
// is not > 0).
func Utilization(busy float64, hosts int, makespan float64) float64 {
	if hosts <= 0 || !(makespan > 0) {
		return math.NaN()
	}
	return busy / (float64(hosts) * makespan)
}

// Job is what the metrics read of one job: a row of _jobs.csv.
type Job struct {
	Submit float64
	// State is the final state (SuccessState, ...).
	State string
	// Ran is false for a job that never ran (rejected): the fields below
	// are then not read.
	Ran                 bool
	Start, Exec, Finish float64
	Wait, Turnaround    float64
	Success             bool
}

// Killed reports whether a final state ends a job before its work is
// done (KilledState, WalltimeState).
func Killed(state string) bool { return state == KilledState || state == WalltimeState }

// Summary is the metrics of a run (see the package's definitions).
type Summary struct {
	Jobs     int // rows
	Ran      int // jobs with times (finished in any final state)
	Rejected int
	Success  int // SuccessState
	// Killed counts the jobs that ran and were killed, by the scheduler
	// (KilledState) or at their walltime (WalltimeState).
	Killed int

	FirstSubmit float64 // NaN without a job
	LastFinish  float64 // the last finish time, a date (Batsim's "makespan"); NaN without a job that ran
	Makespan    float64

	MeanWait       float64
	MedianWait     float64 // NaN unless the waits were kept (Acc.KeepWaits)
	P95Wait        float64 // 95th percentile (linear interpolation, as Quantile); as MedianWait
	MaxWait        float64
	MeanTurnaround float64
	MeanSlowdown   float64
	MaxSlowdown    float64
	MeanBSLD       float64
	// Busy is the busy host-time (host-seconds): the time each compute
	// host ran at least one job, summed over the hosts.
	Busy        float64
	Utilization float64 // NaN when the number of hosts is unknown (0)
	Hosts       int
}

// Acc accumulates jobs, in any order, into a Summary.
type Acc struct {
	// KeepWaits keeps every waiting time, for the median and the 95th
	// percentile.
	KeepWaits bool

	s                              Summary
	sumWait, sumTA, sumSD, sumBSLD float64
	nSD                            int
	waits                          []float64
	hasFirst, hasLast              bool
	firstSubmit, lastFinish        float64
	maxWait, maxSD                 float64
}

// Add counts a job.
func (a *Acc) Add(j *Job) {
	a.s.Jobs++
	if !a.hasFirst || j.Submit < a.firstSubmit {
		a.firstSubmit, a.hasFirst = j.Submit, true
	}
	if !j.Ran {
		a.s.Rejected++
		return
	}
	a.s.Ran++
	if j.Success {
		a.s.Success++
	}
	if Killed(j.State) {
		a.s.Killed++
	}
	if !a.hasLast || j.Finish > a.lastFinish {
		a.lastFinish, a.hasLast = j.Finish, true
	}
	a.sumWait += j.Wait
	if a.KeepWaits {
		a.waits = append(a.waits, j.Wait)
	}
	a.maxWait = math.Max(a.maxWait, j.Wait)
	a.sumTA += j.Turnaround
	if sd := Slowdown(j.Turnaround, j.Exec); !math.IsNaN(sd) {
		a.sumSD += sd
		a.nSD++
		a.maxSD = math.Max(a.maxSD, sd)
	}
	a.sumBSLD += BoundedSlowdown(j.Turnaround, j.Exec)
}

// Summary is the metrics of the jobs added; busy is the busy host-time
// of the run's compute hosts (BusyTime), hosts their number.
func (a *Acc) Summary(busy float64, hosts int) Summary {
	s := a.s
	s.Hosts, s.Busy = hosts, busy
	nan := math.NaN()
	s.FirstSubmit, s.LastFinish = nan, nan
	if a.hasFirst {
		s.FirstSubmit = a.firstSubmit
	}
	if s.Ran == 0 {
		s.MeanWait, s.MeanTurnaround, s.MeanSlowdown, s.MeanBSLD = nan, nan, nan, nan
		s.MedianWait, s.P95Wait = nan, nan
		s.Makespan, s.Utilization = nan, nan
		return s
	}
	n := float64(s.Ran)
	s.LastFinish = a.lastFinish
	s.MeanWait, s.MaxWait = a.sumWait/n, a.maxWait
	s.MedianWait, s.P95Wait = nan, nan
	if a.KeepWaits {
		s.MedianWait, s.P95Wait = Quantile(a.waits, 0.5), Quantile(a.waits, 0.95)
	}
	s.MeanTurnaround = a.sumTA / n
	s.MeanBSLD = a.sumBSLD / n
	s.MeanSlowdown, s.MaxSlowdown = nan, a.maxSD
	if a.nSD > 0 {
		s.MeanSlowdown = a.sumSD / float64(a.nSD)
	}
	s.Makespan = Makespan(s.FirstSubmit, s.LastFinish)
	s.Utilization = Utilization(busy, hosts, s.Makespan)
	return s
}

// Span is a job's run on its hosts, from Start to End.
type Span struct {
	Start, End float64
	Hosts      []int
}

// BusyTime is the busy host-time of hosts compute hosts (ids 0 to hosts −
// 1; other ids, storage hosts, are left out): for each host, the length
// of the union of the spans that ran on it, summed. Spans are sorted by
// start (in place).
func BusyTime(spans []Span, hosts int) float64 {
	sort.Slice(spans, func(i, j int) bool { return spans[i].Start < spans[j].Start })
	until := make([]float64, hosts)
	seen := make([]bool, hosts)
	busy := 0.0
	for _, sp := range spans {
		for _, h := range sp.Hosts {
			if h < 0 || h >= hosts || !(sp.End > sp.Start) {
				continue
			}
			// Spans come by start: the host's union so far ends at
			// until[h], and this span adds what lies beyond it.
			from := sp.Start
			if seen[h] {
				if sp.End <= until[h] {
					continue
				}
				from = math.Max(from, until[h])
			}
			busy += sp.End - from
			until[h], seen[h] = sp.End, true
		}
	}
	return busy
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
