package expe

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/bucma-sched/bucma/platforms"
)

// RunData is what the analysis extracts from one completed run.
type RunData struct {
	Run     Run
	Metrics Metrics
	// Classes are the statistics per precision profile (profile_class of the
	// workload's jobs).
	Classes map[string]GroupStats
	// Gains are the queue-position gains by Su band at submission (empty
	// without a decision trace).
	Gains map[string][]float64
	// BandWait is the mean waiting time by Su band at submission (from the
	// trace).
	BandWait map[string]float64
	HasTrace bool
	// ClassGains are the queue-position gains at submission of the jobs of
	// each precision profile (from the trace); OtherSu is the mean Su at
	// submission of the other jobs' owners (NaN without a trace), and
	// OtherShortWall the share of the other jobs whose walltime is at most
	// InsertedWalltime (the inserted requests' 1 h): the two things that
	// decide where BUCMA puts an inserted request among them.
	ClassGains     map[string][]float64
	OtherSu        float64
	OtherShortWall float64
	// OSEP holds the OSEP metrics (plans of kind "osep" only).
	OSEP *OSEPRunStats
}

// Analysis is the data of a campaign directory.
type Analysis struct {
	Dir     string
	Plan    Plan
	Hosts   int
	Runs    map[string]*RunData // completed runs, by id
	Missing []Run               // runs of the plan not (yet) done
	// Grid is the platform's hosts with their owners (plans of kind
	// "osep" only).
	Grid *OSEPGrid
	// CaseHosts are the compute hosts of each case's platform, for plans
	// whose cases run on several platforms (Hosts is the plan's).
	CaseHosts map[string]int
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
func (a *Analysis) HostsOf(r Run) int {
	if n, ok := a.CaseHosts[r.Case]; ok {
		return n
	}
	return a.Hosts
}

// osepWorkload is what the OSEP metrics need from one workload file.
type osepWorkload struct {
	jobs  []OSEPJob
	ideal map[string]float64 // owner-alone completion times
}

// Analyze reads every completed run of the campaign in dir. The same code
// reads runs made by Batsim and by the embedded engine: only the Batsim
// output files (out_jobs.csv), the optional decision trace (trace.csv) and
// the workload files are used. A completed run whose outputs fail
// verification (VerifyRun) is an error: its numbers would not be the run's.
func Analyze(dir string) (*Analysis, error) {
	plan, err := ReadPlan(dir)
	if err != nil {
		return nil, err
	}
	a := &Analysis{Dir: dir, Plan: plan, Runs: map[string]*RunData{}}
	plat, perr := platforms.Load(filepath.Join(dir, PlatformFile))
	if perr == nil {
		a.Hosts = len(plat.Hosts)
	}
	osep := plan.Kind == "osep"
	if osep {
		if perr != nil {
			return nil, fmt.Errorf("%s: the OSEP metrics need the platform: %w", dir, perr)
		}
		if a.Grid, err = NewOSEPGrid(plat, plan.OwnerProperty()); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, PlatformFile), err)
		}
	}
	for _, c := range plan.Cases {
		f := plan.PlatformFileOf(c.Name)
		if f == PlatformFile {
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
	var todo []Run
	for _, r := range plan.Expand() {
		if IsDone(dir, r.ID) {
			todo = append(todo, r)
		} else {
			a.Missing = append(a.Missing, r)
		}
	}
	// Job information per workload, shared by the runs of that workload.
	infos := map[string]map[string]string{}
	osepWs := map[string]*osepWorkload{}
	for _, r := range todo {
		if _, ok := infos[r.Workload]; ok {
			continue
		}
		ji, err := ReadJobInfo(WorkloadPath(dir, r.Workload))
		if err != nil {
			return nil, err
		}
		infos[r.Workload] = ClassOf(ji)
		if osep {
			if osepWs[r.Workload], err = readOSEPWorkload(WorkloadPath(dir, r.Workload), a.Grid); err != nil {
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
			if err := VerifyRun(dir, r.ID); err != nil {
				errs[i] = fmt.Errorf("%w (running the campaign again, with the same 'bucma expe run' command, redoes the run)", err)
				return
			}
			out[i], errs[i] = analyzeRun(RunDir(dir, r.ID), r, a.HostsOf(r), infos[r.Workload], a.Grid, osepWs[r.Workload])
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

// AnalyzeRun reads one run directory (out_jobs.csv, and trace.csv when
// present); classes maps job ids to their precision profile.
func AnalyzeRun(runDir string, r Run, hosts int, classes map[string]string) (*RunData, error) {
	return analyzeRun(runDir, r, hosts, classes, nil, nil)
}

// analyzeRun is AnalyzeRun, plus the OSEP metrics when w is set.
func analyzeRun(runDir string, r Run, hosts int, classes map[string]string, g *OSEPGrid, w *osepWorkload) (*RunData, error) {
	rows, err := ReadJobsFile(filepath.Join(runDir, JobsFile))
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", r.ID, err)
	}
	rd := &RunData{Run: r, Metrics: Compute(rows, hosts), Classes: ByGroup(rows, classes), Gains: map[string][]float64{}, BandWait: map[string]float64{},
		ClassGains: map[string][]float64{}, OtherSu: math.NaN(), OtherShortWall: math.NaN()}
	if len(classes) > 0 {
		short, others := 0, 0
		for _, j := range rows {
			if classes[j.ID] != "" {
				continue
			}
			others++
			if j.Walltime > 0 && j.Walltime <= InsertedWalltime {
				short++
			}
		}
		if others > 0 {
			rd.OtherShortWall = float64(short) / float64(others)
		}
	}
	if w != nil {
		if rd.OSEP, err = ComputeOSEP(rows, w.jobs, w.ideal, g); err != nil {
			return nil, fmt.Errorf("run %s: %w", r.ID, err)
		}
	}
	tp := filepath.Join(runDir, TraceFile)
	if _, err := os.Stat(tp); err == nil {
		tr, err := ReadTraceFile(tp)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", r.ID, err)
		}
		rd.HasTrace = true
		rd.Gains = GainsByBand(tr)
		su, nsu := 0.0, 0
		for _, t := range tr {
			id := t.JobID // "w0!7" in a trace, "7" in _jobs.csv
			if i := strings.IndexByte(id, '!'); i >= 0 {
				id = id[i+1:]
			}
			if c := classes[id]; c != "" {
				if t.HasGain {
					rd.ClassGains[c] = append(rd.ClassGains[c], t.Gain)
				}
			} else if !math.IsNaN(t.Su) {
				su += t.Su
				nsu++
			}
		}
		if nsu > 0 {
			rd.OtherSu = su / float64(nsu)
		}
		for b, w := range WaitsByBand(tr) {
			sum := 0.0
			for _, x := range w {
				sum += x
			}
			rd.BandWait[b] = sum / float64(len(w))
		}
	}
	return rd, nil
}

// readOSEPWorkload reads an OSEP workload and computes its owner-alone
// completion times on g.
func readOSEPWorkload(path string, g *OSEPGrid) (*osepWorkload, error) {
	jobs, err := ReadOSEPJobs(path)
	if err != nil {
		return nil, err
	}
	ideal, err := OwnerAloneCompletion(jobs, g)
	if err != nil {
		return nil, fmt.Errorf("workload %s: %w", path, err)
	}
	return &osepWorkload{jobs: jobs, ideal: ideal}, nil
}

// GetCase returns the data of a run by variant, workload case and seed (nil
// if not done).
func (a *Analysis) GetCase(variant, caseName string, seed uint64) *RunData {
	return a.Runs[variant+"_"+CaseWorkloadKey(caseName, seed)]
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
	return a.Runs[variant+"_"+WorkloadKey(seed, load)]
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

// PooledGains pools the gains of a variant by band over the seeds.
func (a *Analysis) PooledGains(variant string, load float64) map[string][]float64 {
	out := map[string][]float64{}
	for _, s := range a.Plan.Seeds {
		if x := a.Get(variant, s, load); x != nil {
			for b, g := range x.Gains {
				out[b] = append(out[b], g...)
			}
		}
	}
	return out
}

// Classes lists the precision profiles seen in the runs, in the paper's
// order first (imprecise, medium, precise), then the others sorted.
func (a *Analysis) Classes() []string {
	seen := map[string]bool{}
	for _, rd := range a.Runs {
		for c := range rd.Classes {
			seen[c] = true
		}
	}
	var out []string
	for _, c := range []string{"imprecise", "medium", "precise"} {
		if seen[c] {
			out = append(out, c)
			delete(seen, c)
		}
	}
	var rest []string
	for c := range seen {
		rest = append(rest, c)
	}
	sort.Strings(rest)
	return append(out, rest...)
}
