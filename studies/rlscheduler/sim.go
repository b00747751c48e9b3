// Package rlscheduler evaluates the heuristics of RLScheduler's Tables V
// and VI (Zhang et al., SC20: average bounded slowdown and utilization of
// FCFS, WFP3, UNI, SJF, F1-F4 and smallest-first, with and without
// backfilling) in two ways:
//
//   - compatibility mode: the paper's own simulator, its rules restated
//     (256 interchangeable nodes, windows of consecutive jobs starting on an
//     empty machine, its event rule, its greedy backfilling with a
//     reservation computed once, the waiting time of WFP3 and UNI taken as
//     -1 - submit (DefectWait), the utilization ending at the last start);
//   - corrected: the same simulator with the real waiting time (now -
//     submit) and the utilization ending at the last finish.
//
// and, for comparison, under Batsim's rules: the same windows as Batsim
// workloads on 256 hosts, scheduled by bucma's priority-function policies
// (policies/prio) through the embedded engine (BatsimWindow).
//
// Window evaluates one window; Evaluate and EvaluateBatsim a whole table,
// Run a report (the command bucma rlscheduler, docs/rlscheduler.md).
package rlscheduler

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Job is one job of a trace as the paper's simulator reads it (see
// ReadSWF): times in seconds.
type Job struct {
	ID     int64
	Submit float64
	Run    float64 // actual run time, > 0
	Req    float64 // requested time (the run time when the trace has none)
	Procs  int     // max(allocated, requested) processors
}

// Defect selects how WFP3 and UNI take a waiting job's waiting time.
type Defect string

const (
	// DefectWait is the paper's: the wait of a waiting job is its
	// scheduled time (-1 while it waits) minus its submit time, -1 - submit.
	DefectWait Defect = "wait"
	// DefectNone is the real wait, now - submit.
	DefectNone Defect = "none"
)

// UtilEnd is where the utilization's span ends.
type UtilEnd string

const (
	// EndLastStart is the paper's: the start of the last job to start.
	EndLastStart UtilEnd = "last-start"
	// EndLastFinish is the finish of the last job to finish.
	EndLastFinish UtilEnd = "last-finish"
)

// Options parameterise one evaluation.
type Options struct {
	Heuristic string // a name of Heuristics
	Backfill  bool   // the paper's greedy backfilling
	Defect    Defect
	End       UtilEnd
	Nodes     int // default 256
}

// Compat are the paper's rules for heuristic h; Corrected the same with the
// real waiting time and the utilization to the last finish.
func Compat(h string, backfill bool) Options {
	return Options{Heuristic: h, Backfill: backfill, Defect: DefectWait, End: EndLastStart}
}

// Corrected is Compat without the defect, the utilization to the last finish.
func Corrected(h string, backfill bool) Options {
	return Options{Heuristic: h, Backfill: backfill, Defect: DefectNone, End: EndLastFinish}
}

// DefaultNodes is the paper's machine: 256 single-processor nodes.
const DefaultNodes = 256

// Result is one window's (or the mean of windows') metrics.
type Result struct {
	BSLD float64 // mean bounded slowdown, threshold 10 s
	Util float64 // Σ run × procs / (span × nodes)
}

// key is a score: compared on a, then b; smallest first.
type key struct{ a, b float64 }

func (k key) cmp(o key) int {
	if c := cmp.Compare(k.a, o.a); c != 0 {
		return c
	}
	return cmp.Compare(k.b, o.b)
}

// scoreFunc scores job j at time now with the waiting-time rule d.
type scoreFunc func(j *Job, now float64, d Defect) key

// Heuristics are the scores of the tables, in the paper's column order,
// then its other scores.
var Heuristics = []string{"FCFS", "WFP3", "UNI", "SJF", "F1", "F2", "F3", "F4", "SMALLEST"}

// wait is the waiting time the scores see: the paper's -1 - submit under
// DefectWait.
func wait(j *Job, now float64, d Defect) float64 {
	if d == DefectWait {
		return -1 - j.Submit
	}
	return now - j.Submit
}

// or01 is x, or 0.1 when x is 0.
func or01(x float64) float64 {
	if x == 0 {
		return 0.1
	}
	return x
}

var scores = map[string]scoreFunc{
	"FCFS":     func(j *Job, _ float64, _ Defect) key { return key{a: j.Submit} },
	"SJF":      func(j *Job, _ float64, _ Defect) key { return key{j.Req, j.Submit} },
	"SMALLEST": func(j *Job, _ float64, _ Defect) key { return key{float64(j.Procs), j.Submit} },
	"F1": func(j *Job, _ float64, _ Defect) key {
		return key{a: math.Log10(or01(j.Req))*float64(j.Procs) + 870*math.Log10(or01(j.Submit))}
	},
	"F2": func(j *Job, _ float64, _ Defect) key {
		return key{a: math.Sqrt(j.Req)*float64(j.Procs) + 25600*math.Log10(j.Submit)}
	},
	"F3": func(j *Job, _ float64, _ Defect) key {
		return key{a: j.Req*float64(j.Procs) + 6.86e6*math.Log10(j.Submit)}
	},
	"F4": func(j *Job, _ float64, _ Defect) key {
		return key{a: j.Req*math.Sqrt(float64(j.Procs)) + 5.3e5*math.Log10(j.Submit)}
	},
	// WFP3 and UNI: largest priority first, so the score is its opposite.
	"WFP3": func(j *Job, now float64, d Defect) key {
		return key{a: -math.Pow(wait(j, now, d)/j.Req, 3) * float64(j.Procs)}
	},
	"UNI": func(j *Job, now float64, d Defect) key {
		return key{a: -(wait(j, now, d) + 1e-15) / (math.Log2(float64(j.Procs)+1e-15) * j.Req)}
	},
}

// running is a started job.
type running struct {
	j     *Job
	start float64
}

// job is the queued job at index i of the window.
func (m *machine) job(i int) *Job { return &m.jobs[i] }

func (r running) end() float64    { return r.start + r.j.Run }
func (r running) reqEnd() float64 { return r.start + r.j.Req }

// machine is the state of one window's simulation.
type machine struct {
	jobs   []Job
	next   int // next job to arrive
	now    float64
	free   int
	nodes  int
	run    []running
	queue  []int // indices into jobs
	keys   []key
	start  []float64 // per job of the window
	score  scoreFunc
	defect Defect
}

// step moves to the next event: the next arrival when its submit time is
// at most the earliest end of a running job (ties to the arrival), else
// that job's release.
func (m *machine) step() {
	if len(m.run) > 0 {
		slices.SortStableFunc(m.run, func(a, b running) int { return cmp.Compare(a.end(), b.end()) })
	}
	if m.next < len(m.jobs) && (len(m.run) == 0 || m.jobs[m.next].Submit <= m.run[0].end()) {
		m.now = max(m.now, m.jobs[m.next].Submit)
		m.queue = append(m.queue, m.next)
		m.next++
		return
	}
	r := m.run[0]
	m.run = m.run[1:]
	m.now = max(m.now, r.end())
	m.free += r.j.Procs
}

// launch starts j now and removes it from the queue.
func (m *machine) launch(k int) {
	j := m.job(k)
	m.free -= j.Procs
	m.run = append(m.run, running{j: j, start: m.now})
	m.start[k] = m.now
	i := slices.Index(m.queue, k)
	m.queue = slices.Delete(m.queue, i, i+1)
}

// sortQueue stable-sorts the queue by score, in place.
func (m *machine) sortQueue() {
	m.keys = m.keys[:0]
	for _, k := range m.queue {
		m.keys = append(m.keys, m.score(m.job(k), m.now, m.defect))
	}
	if slices.IsSortedFunc(m.keys, key.cmp) {
		return
	}
	idx := make([]int, len(m.queue))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return m.keys[a].cmp(m.keys[b]) })
	q := make([]int, len(m.queue))
	for i, k := range idx {
		q[i] = m.queue[k]
	}
	copy(m.queue, q)
}

// backfill is the paper's greedy backfilling while chosen does not fit: a
// reservation time computed once (running jobs by start + requested time,
// their nodes added until chosen fits), then, until chosen fits, every
// queued job in submit order that fits now and would end (by its
// requested time) strictly before the reservation starts, then one event.
func (m *machine) backfill(chosen *Job) {
	bySubmit := func(a, b int) int { return cmp.Compare(m.jobs[a].Submit, m.jobs[b].Submit) }
	slices.SortStableFunc(m.run, func(a, b running) int { return cmp.Compare(a.reqEnd(), b.reqEnd()) })
	free, resv := m.free, m.now
	for _, r := range m.run {
		free += r.j.Procs
		resv = r.reqEnd()
		if free >= chosen.Procs {
			break
		}
	}
	for chosen.Procs > m.free {
		slices.SortStableFunc(m.queue, bySubmit)
		for _, k := range slices.Clone(m.queue) {
			if j := m.job(k); j.Procs <= m.free && m.now+j.Req < resv {
				m.launch(k)
			}
		}
		m.step()
	}
}

// Window simulates one window of jobs (in id order) from an empty machine
// at its first job's submit time until its last job has started.
func Window(jobs []Job, o Options) (Result, error) {
	m, err := simulate(jobs, &o)
	if err != nil {
		return Result{}, err
	}
	return m.result(o), nil
}

// simulate runs the window, o's defaults filled.
func simulate(jobs []Job, o *Options) (*machine, error) {
	if o.Nodes == 0 {
		o.Nodes = DefaultNodes
	}
	score, ok := scores[o.Heuristic]
	if !ok {
		return nil, fmt.Errorf("rlscheduler: unknown heuristic %q (want one of %v)", o.Heuristic, Heuristics)
	}
	if o.Defect != DefectWait && o.Defect != DefectNone {
		return nil, fmt.Errorf("rlscheduler: defect %q: want %q or %q", o.Defect, DefectWait, DefectNone)
	}
	if o.End != EndLastStart && o.End != EndLastFinish {
		return nil, fmt.Errorf("rlscheduler: utilization end %q: want %q or %q", o.End, EndLastStart, EndLastFinish)
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("rlscheduler: empty window")
	}
	for i := range jobs {
		j := &jobs[i]
		if j.Procs < 1 || j.Procs > o.Nodes {
			return nil, fmt.Errorf("rlscheduler: job %d asks for %d processors: want 1 to %d", j.ID, j.Procs, o.Nodes)
		}
		if !(j.Run > 0) || j.Req < 0 || math.IsInf(j.Run+j.Req+j.Submit, 0) || math.IsNaN(j.Run+j.Req+j.Submit) {
			return nil, fmt.Errorf("rlscheduler: job %d: run time %g, requested time %g, submit %g: want a finite run time > 0 and requested time >= 0", j.ID, j.Run, j.Req, j.Submit)
		}
		if i > 0 && jobs[i-1].ID >= j.ID {
			return nil, fmt.Errorf("rlscheduler: job %d after job %d: the window must be in increasing id order", j.ID, jobs[i-1].ID)
		}
	}
	m := &machine{jobs: jobs, now: jobs[0].Submit, free: o.Nodes, nodes: o.Nodes, start: make([]float64, len(jobs)),
		score: score, defect: o.Defect, next: 1}
	m.queue = append(m.queue, 0)
	for {
		m.sortQueue()
		ck := m.queue[0]
		chosen := m.job(ck)
		if chosen.Procs > m.free {
			if o.Backfill {
				m.backfill(chosen)
			} else {
				for chosen.Procs > m.free {
					m.step()
				}
			}
		}
		m.launch(ck)
		if !m.moveToJob() {
			break
		}
	}
	return m, nil
}

// moveToJob steps events until the queue holds a job; false when every
// job has arrived and the queue is empty (every job has started).
func (m *machine) moveToJob() bool {
	for len(m.queue) == 0 {
		if m.next >= len(m.jobs) {
			return false
		}
		m.step()
	}
	return true
}

// result is the window's metrics, the utilization's span ending as o says.
func (m *machine) result(o Options) Result {
	var bsld, area, lastStart, lastEnd float64
	for i := range m.jobs {
		j := &m.jobs[i]
		s := m.start[i]
		bsld += max(1, (s-j.Submit+j.Run)/max(j.Run, 10))
		area += j.Run * float64(j.Procs)
		lastStart = max(lastStart, s)
		lastEnd = max(lastEnd, s+j.Run)
	}
	end := lastStart
	if o.End == EndLastFinish {
		end = lastEnd
	}
	return Result{BSLD: bsld / float64(len(m.jobs)), Util: area / ((end - m.jobs[0].Submit) * float64(m.nodes))}
}
