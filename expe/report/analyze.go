package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/platforms"
)

// RunData is what the analysis extracts from one completed run: its
// metrics, its run.json, and what the study reading the campaign extracts
// (Extra, set by Study.ReadRun).
type RunData struct {
	Run     expe.Run
	Metrics analysis.Metrics
	// Saturation says whether the run kept up with its workload (every
	// report flags the runs that did not, SaturationOf).
	Saturation analysis.Saturation
	Info       expe.RunInfo
	Extra      any
}

// Analysis is the data of a campaign directory.
type Analysis struct {
	Dir     string
	Plan    expe.Plan
	Hosts   int
	Runs    map[string]*RunData // completed runs, by id
	Missing []expe.Run          // runs of the plan not (yet) done
	// CaseHosts are the compute hosts of each case's platform, for plans
	// whose cases run on several platforms (Hosts is the plan's).
	CaseHosts map[string]int
	// Platform is the plan's platform (nil when platform.xml cannot be
	// read: Hosts is then 0 and utilizations are NaN).
	Platform *platforms.Platform
	// Data is what the study's Prepare returned.
	Data any
}

// RunInput is what a study's ReadRun gets from the shared pass over the
// runs: the run's directory and the rows of its jobs file (read and
// verified once), the workload's jobs and what the study's ReadWorkload
// returned for the run's workload.
type RunInput struct {
	Dir      string // the run's directory
	Rows     []analysis.JobRow
	Hosts    int                         // compute hosts of the run's platform
	Workload string                      // the workload file
	Jobs     map[string]analysis.JobInfo // by job id
	// WorkloadData is what Study.ReadWorkload returned (nil without it).
	WorkloadData any
	trace        []analysis.TraceRow
	traceRead    bool
	hasTrace     bool
	traceErr     error
}

// Trace reads the run's decision trace (trace.csv) once; ok is false when
// the run has none.
func (in *RunInput) Trace() (rows []analysis.TraceRow, ok bool, err error) {
	if !in.traceRead {
		in.traceRead = true
		p := filepath.Join(in.Dir, expe.TraceFile)
		if _, err := os.Stat(p); err == nil {
			in.hasTrace = true
			in.trace, in.traceErr = analysis.ReadTraceFile(p)
		}
	}
	return in.trace, in.hasTrace, in.traceErr
}

// RunIDs lists the completed runs' ids, sorted.
func (a *Analysis) RunIDs() []string {
	ids := make([]string, 0, len(a.Runs))
	for id := range a.Runs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// HostsOf is the number of compute hosts of a run's platform.
func (a *Analysis) HostsOf(r expe.Run) int {
	if n, ok := a.CaseHosts[r.Case]; ok {
		return n
	}
	return a.Hosts
}

// Analyze reads every completed run of the campaign in dir once, for the
// study st (its hooks, when set, read what its report needs). The same code
// reads runs made by Batsim and by the embedded engine: only the Batsim
// output files (out_jobs.csv), the optional decision trace (trace.csv) and
// the workload files are used. A completed run whose outputs fail
// verification (VerifyRun) is an error: its numbers would not be the run's.
func Analyze(dir string, st Study) (*Analysis, error) {
	plan, err := expe.ReadPlan(dir)
	if err != nil {
		return nil, err
	}
	a := &Analysis{Dir: dir, Plan: plan, Runs: map[string]*RunData{}}
	if plat, perr := platforms.Load(filepath.Join(dir, expe.PlatformFile)); perr == nil {
		a.Hosts, a.Platform = len(plat.Hosts), plat
	}
	for _, c := range plan.Cases {
		f := plan.PlatformFileOf(c.Name)
		if f == expe.PlatformFile {
			continue
		}
		cp, err := platforms.Load(filepath.Join(dir, f))
		if err != nil {
			return nil, fmt.Errorf("%s: case %s: %w", dir, c.Name, err)
		}
		if a.CaseHosts == nil {
			a.CaseHosts = map[string]int{}
		}
		a.CaseHosts[c.Name] = len(cp.Hosts)
	}
	if st.Prepare != nil {
		if a.Data, err = st.Prepare(a); err != nil {
			return nil, err
		}
	}
	var todo []expe.Run
	for _, r := range plan.Expand() {
		if expe.IsDone(dir, r.ID) {
			todo = append(todo, r)
		} else {
			a.Missing = append(a.Missing, r)
		}
	}
	// Job information per workload, shared by the runs of that workload.
	infos := map[string]map[string]analysis.JobInfo{}
	wdata := map[string]any{}
	for _, r := range todo {
		if _, ok := infos[r.Workload]; ok {
			continue
		}
		path := expe.WorkloadPath(dir, r.Workload)
		ji, err := analysis.ReadJobInfo(path)
		if err != nil {
			return nil, err
		}
		infos[r.Workload] = ji
		if st.ReadWorkload != nil {
			if wdata[r.Workload], err = st.ReadWorkload(a, path, ji); err != nil {
				return nil, err
			}
		}
	}
	out := make([]*RunData, len(todo))
	errs := make([]error, len(todo))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.NumCPU())
	for i, r := range todo {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			rows, info, err := expe.ReadRun(dir, r.ID)
			if err != nil {
				errs[i] = fmt.Errorf("%w (running the campaign again, with the same expe run command, redoes the run)", err)
				return
			}
			hosts := a.HostsOf(r)
			m := analysis.Compute(rows, hosts)
			rd := &RunData{Run: r, Metrics: m, Saturation: analysis.SaturationOf(rows, m), Info: info}
			if st.ReadRun != nil {
				in := &RunInput{Dir: expe.RunDir(dir, r.ID), Rows: rows, Hosts: hosts, Workload: expe.WorkloadPath(dir, r.Workload),
					Jobs: infos[r.Workload], WorkloadData: wdata[r.Workload]}
				if err := st.ReadRun(a, in, rd); err != nil {
					errs[i] = fmt.Errorf("run %s: %w", r.ID, err)
					return
				}
			}
			out[i] = rd
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for _, rd := range out {
		a.Runs[rd.Run.ID] = rd
	}
	return a, nil
}

// Lookup returns the data of a run by variant, case, load and seed (nil if
// not done).
func (a *Analysis) Lookup(variant, caseName string, load float64, seed uint64) *RunData {
	return a.Runs[variant+"_"+a.Plan.KeyOf(caseName, seed, load)]
}

// GetCase returns the data of a run by variant, workload case and seed (nil
// if not done).
func (a *Analysis) GetCase(variant, caseName string, seed uint64) *RunData {
	return a.Runs[variant+"_"+expe.CaseWorkloadKey(caseName, seed)]
}

// CaseValues collects f(run) over the plan's seeds for one variant and
// workload case.
func (a *Analysis) CaseValues(variant, caseName string, f func(*RunData) float64) []float64 {
	var out []float64
	for _, s := range a.Plan.Seeds {
		if x := a.GetCase(variant, caseName, s); x != nil {
			out = append(out, f(x))
		}
	}
	return out
}

// CasePaired collects, over the plan's seeds, f(run of variant x, run of
// variant y) on one workload case, for the seeds where both runs are done.
func (a *Analysis) CasePaired(x, y, caseName string, f func(x, y *RunData) float64) []float64 {
	var out []float64
	for _, s := range a.Plan.Seeds {
		rx, ry := a.GetCase(x, caseName, s), a.GetCase(y, caseName, s)
		if rx != nil && ry != nil {
			out = append(out, f(rx, ry))
		}
	}
	return out
}

// Get returns the data of a run by variant, seed and load (nil if not done).
func (a *Analysis) Get(variant string, seed uint64, load float64) *RunData {
	return a.Runs[variant+"_"+expe.WorkloadKey(seed, load)]
}

// Paired collects, over the plan's seeds, f(run of variant, run of ref) for
// the seeds where both runs are done.
func (a *Analysis) Paired(variant, ref string, load float64, f func(x, ref *RunData) float64) []float64 {
	var out []float64
	for _, s := range a.Plan.Seeds {
		x, r := a.Get(variant, s, load), a.Get(ref, s, load)
		if x != nil && r != nil {
			out = append(out, f(x, r))
		}
	}
	return out
}

// Values collects f(run) over the plan's seeds for one variant and load.
func (a *Analysis) Values(variant string, load float64, f func(*RunData) float64) []float64 {
	var out []float64
	for _, s := range a.Plan.Seeds {
		if x := a.Get(variant, s, load); x != nil {
			out = append(out, f(x))
		}
	}
	return out
}

// Slot is one workload of a condition: a seed's, or one shaken copy of it
// (Copy from 1; 0 without shaking).
type Slot struct {
	Seed uint64
	Copy int
}

// Slots lists the workloads of each condition of the plan: each seed, and
// for a plan that shakes its workloads, each copy of each seed's.
func (a *Analysis) Slots() []Slot {
	copies := a.Plan.Copies()
	out := make([]Slot, 0, len(a.Plan.Seeds)*len(copies))
	for _, s := range a.Plan.Seeds {
		for _, cp := range copies {
			out = append(out, Slot{s, cp})
		}
	}
	return out
}

// LookupSlot returns the data of a run by variant, condition and slot (nil
// if not done).
func (a *Analysis) LookupSlot(variant string, c expe.Condition, s Slot) *RunData {
	key := a.Plan.KeyOf(c.Case, s.Seed, c.Load)
	if s.Copy > 0 {
		key = expe.ShakenKey(key, s.Copy)
	}
	return a.Runs[variant+"_"+key]
}

// ConditionValues collects f(run) over the plan's seeds (and copies, see
// Slots) for one variant under one condition (case and load).
func (a *Analysis) ConditionValues(variant string, c expe.Condition, f func(*RunData) float64) []float64 {
	var out []float64
	for _, s := range a.Slots() {
		if x := a.LookupSlot(variant, c, s); x != nil {
			out = append(out, f(x))
		}
	}
	return out
}

// ConditionPaired collects, over the plan's seeds (and copies),
// f(run of x, run of y) under one condition, for the seeds where both runs
// are done.
func (a *Analysis) ConditionPaired(x, y string, c expe.Condition, f func(x, y *RunData) float64) []float64 {
	var out []float64
	for _, s := range a.Slots() {
		rx, ry := a.LookupSlot(x, c, s), a.LookupSlot(y, c, s)
		if rx != nil && ry != nil {
			out = append(out, f(rx, ry))
		}
	}
	return out
}
