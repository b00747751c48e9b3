package rlscheduler

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// ReadSWF reads an SWF trace as the paper's simulator does: id (field 1),
// submit (2), run time (4), allocated (5) and requested (8) processors,
// requested time (9); procs = max(field 5, field 8); the requested time is
// field 9, or the run time when field 9 is -1; a negative run time becomes
// 10 (before the requested time is taken from it); jobs of run time 0 are
// dropped. The jobs are returned sorted by id. name names the trace in
// errors, which give the line.
func ReadSWF(in io.Reader, name string) ([]Job, error) {
	var jobs []Job
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, ";") {
			continue
		}
		f := strings.Fields(t)
		if len(f) < 9 {
			return nil, fmt.Errorf("%s:%d: %d fields, want at least 9 (SWF has 18)", name, line, len(f))
		}
		var v [9]float64
		for _, i := range []int{0, 1, 3, 4, 7, 8} {
			x, err := strconv.ParseFloat(f[i], 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("%s:%d: field %d %q is not a number", name, line, i+1, f[i])
			}
			v[i] = x
		}
		if v[0] != math.Trunc(v[0]) || math.Abs(v[0]) > 1<<53 {
			return nil, fmt.Errorf("%s:%d: job id %q is not an integer", name, line, f[0])
		}
		if p := max(v[4], v[7]); p > 1<<31 {
			return nil, fmt.Errorf("%s:%d: job %s: %g processors (fields 5 and 8): too many", name, line, f[0], p)
		}
		j := Job{ID: int64(v[0]), Submit: v[1], Run: v[3], Procs: int(max(v[4], v[7])), Req: v[8]}
		if j.Run == 0 {
			continue
		}
		if j.Run < 0 {
			j.Run = 10
		}
		if j.Req == -1 {
			j.Req = j.Run
		}
		if j.Req < 0 {
			return nil, fmt.Errorf("%s:%d: job %d: requested time (field 9) %g: want >= 0 or -1", name, line, j.ID, j.Req)
		}
		if j.Submit < 0 {
			return nil, fmt.Errorf("%s:%d: job %d: submit time (field 2) %g: want >= 0", name, line, j.ID, j.Submit)
		}
		if j.Procs < 1 {
			return nil, fmt.Errorf("%s:%d: job %d: no processor count (fields 5 and 8 are %s and %s)", name, line, j.ID, f[4], f[7])
		}
		jobs = append(jobs, j)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	slices.SortStableFunc(jobs, func(a, b Job) int { return cmp.Compare(a.ID, b.ID) })
	for i := 1; i < len(jobs); i++ {
		if jobs[i].ID == jobs[i-1].ID {
			return nil, fmt.Errorf("%s: job id %d appears twice", name, jobs[i].ID)
		}
	}
	return jobs, nil
}

// PaperStarts are the 0-based first jobs of the paper's 10 windows of 1024
// jobs on a 10 000-job trace: the draws of its environment's seeded
// generator for seed 1.
var PaperStarts = []int{1981, 2756, 4299, 8850, 3316, 2714, 5228, 7762, 4022, 7085}

// PaperJobs, PaperWindows and PaperWindowJobs are the trace length and
// window shape PaperStarts are for.
const (
	PaperJobs       = 10000
	PaperWindows    = 10
	PaperWindowJobs = 1024
)

// DrawStarts draws n window starts uniformly in [0, jobs - size] with
// bucma's own seeded generator (PCG): the same seed gives the same starts.
// They are not the paper's draws (see PaperStarts).
func DrawStarts(jobs, n, size int, seed uint64) ([]int, error) {
	if size < 1 || n < 1 {
		return nil, fmt.Errorf("rlscheduler: %d windows of %d jobs: want at least 1 of at least 1", n, size)
	}
	if size > jobs {
		return nil, fmt.Errorf("rlscheduler: windows of %d jobs in a trace of %d jobs", size, jobs)
	}
	r := rand.New(rand.NewPCG(seed, 0x726c7363686564))
	starts := make([]int, n)
	for i := range starts {
		starts[i] = r.IntN(jobs - size + 1)
	}
	return starts, nil
}

// Table is an evaluation: per heuristic and backfilling, the mean over
// the windows and each window's result.
type Table struct {
	Starts  []int
	Size    int
	Cells   map[Cell]Result
	Windows map[Cell][]Result
}

// Cell names one table cell.
type Cell struct {
	Heuristic string
	Backfill  bool
}

// Evaluate runs every heuristic of hs with and without backfilling under
// mode (Compat or Corrected) on the windows jobs[s : s+size] of starts,
// and averages each over the windows.
func Evaluate(jobs []Job, starts []int, size int, hs []string, mode func(h string, backfill bool) Options) (*Table, error) {
	if err := checkWindows(len(jobs), starts, size); err != nil {
		return nil, err
	}
	t := &Table{Starts: starts, Size: size, Cells: map[Cell]Result{}, Windows: map[Cell][]Result{}}
	for _, h := range hs {
		for _, bf := range []bool{false, true} {
			c := Cell{h, bf}
			ws, mean, err := overWindows(jobs, starts, size, func(w []Job) (Result, error) { return Window(w, mode(h, bf)) })
			if err != nil {
				return nil, err
			}
			t.Windows[c], t.Cells[c] = ws, mean
		}
	}
	return t, nil
}

// checkWindows checks that every window [s, s+size) of starts is in a
// trace of n jobs.
func checkWindows(n int, starts []int, size int) error {
	if len(starts) == 0 {
		return fmt.Errorf("rlscheduler: no window")
	}
	for _, s := range starts {
		if s < 0 || size < 1 || s+size > n {
			return fmt.Errorf("rlscheduler: window [%d, %d) is outside the trace's %d jobs", s, s+size, n)
		}
	}
	return nil
}

// overWindows evaluates every window jobs[s : s+size] of starts with f and
// returns each result and their mean.
func overWindows(jobs []Job, starts []int, size int, f func(w []Job) (Result, error)) ([]Result, Result, error) {
	var ws []Result
	var sum Result
	for _, s := range starts {
		r, err := f(jobs[s : s+size])
		if err != nil {
			return nil, Result{}, fmt.Errorf("%w (the window starting at job index %d)", err, s)
		}
		ws = append(ws, r)
		sum.BSLD += r.BSLD
		sum.Util += r.Util
	}
	n := float64(len(starts))
	return ws, Result{BSLD: sum.BSLD / n, Util: sum.Util / n}, nil
}
