package workloads

import (
	"fmt"
	"math"
	"sort"
)

// OfferedLoad is the load a workload offers a platform of hosts hosts:
//
//	Σ res × run time / (hosts × (last submission − first submission))
//
// over every job, a job's run time being the one of its profile on hosts of
// speed refSpeed (RefRuntime: a delay lasts its delay on any host, a
// computation of f flop per host takes f / refSpeed). It is the share of
// the platform's capacity the jobs ask for while they arrive: above 1 no
// policy can keep up. An error when the workload has no job, its jobs are
// all submitted at once, or a run time cannot be computed.
func (w *Workload) OfferedLoad(hosts int, refSpeed float64) (float64, error) {
	area, first, last, err := w.offered(refSpeed)
	if err != nil {
		return 0, err
	}
	if hosts <= 0 {
		return 0, fmt.Errorf("offered load: %d hosts", hosts)
	}
	return area / (float64(hosts) * (last - first)), nil
}

// offered returns Σ res × run time and the first and last submission times.
func (w *Workload) offered(refSpeed float64) (area, first, last float64, err error) {
	if len(w.Jobs) == 0 {
		return 0, 0, 0, fmt.Errorf("the workload has no job")
	}
	first, last = math.Inf(1), math.Inf(-1)
	for _, j := range w.Jobs {
		te, err := w.RefRuntime(j.Profile, j.Res, refSpeed)
		if err != nil {
			return 0, 0, 0, fmt.Errorf("job '%s': %w", j.ID, err)
		}
		area += float64(j.Res) * te
		first, last = math.Min(first, j.Subtime), math.Max(last, j.Subtime)
	}
	if !(last > first) {
		return 0, 0, 0, fmt.Errorf("every job is submitted at %g s: the submission span is empty", first)
	}
	if math.IsNaN(area) {
		return 0, 0, 0, fmt.Errorf("the workload has computation profiles: their run times need a reference speed")
	}
	if !(area > 0) || math.IsInf(area, 0) {
		return 0, 0, 0, fmt.Errorf("the jobs' work Σ res × run time is %g", area)
	}
	return area, first, last, nil
}

// ScaleLoadOptions parameterise ScaleToLoad.
type ScaleLoadOptions struct {
	Load     float64 // the offered load to reach (> 0)
	Hosts    int     // compute hosts of the platform
	RefSpeed float64 // speed (flop/s) computation profiles run at (see OfferedLoad); required when the workload has computation profiles
}

// ScaleToLoad returns a copy of w whose submission times are stretched or
// compressed around the first one, by the same factor for every job, so
// that its offered load on o.Hosts hosts (OfferedLoad) is o.Load: a job
// submitted at s is submitted at first + (s − first) × L0 / L, L0 being the
// input's offered load. Times are rounded to the millisecond. Jobs, their
// order, sizes, profiles and walltimes are kept; meta records the scaling.
func ScaleToLoad(in *Workload, o ScaleLoadOptions) (*Workload, error) {
	if !(o.Load > 0) || math.IsInf(o.Load, 0) {
		return nil, fmt.Errorf("scale-load: the offered load must be > 0 (got %g)", o.Load)
	}
	if o.Hosts <= 0 {
		return nil, fmt.Errorf("scale-load: the platform must have at least one host (got %d)", o.Hosts)
	}
	if o.RefSpeed < 0 || math.IsNaN(o.RefSpeed) {
		return nil, fmt.Errorf("scale-load: the reference speed must be > 0 (got %g)", o.RefSpeed)
	}
	ref := o.RefSpeed
	if ref == 0 {
		ref = math.NaN() // only delay profiles can be scaled without one
	}
	area, first, last, err := in.offered(ref)
	if err != nil {
		return nil, fmt.Errorf("scale-load: %w", err)
	}
	before := area / (float64(o.Hosts) * (last - first))
	factor := before / o.Load
	w := in.clone()
	for i := range w.Jobs {
		j := &w.Jobs[i]
		s := math.Round((first+(j.Subtime-first)*factor)*1000) / 1000
		raw, err := setMember(j.Raw, "subtime", []byte(fmtNum(s)))
		if err != nil {
			return nil, fmt.Errorf("scale-load: job '%s': %w", j.ID, err)
		}
		j.Raw, j.Subtime = raw, s
	}
	params := map[string]any{"load": o.Load, "hosts": o.Hosts}
	if o.RefSpeed > 0 {
		params["ref_speed"] = o.RefSpeed
	}
	meta := map[string]any{
		"generator":          "scale-load",
		"params":             params,
		"offered_load_input": round6(before),
		"time_factor":        round6(factor),
		"input_meta":         rawOrNull(in.Meta("meta")),
	}
	return w.withMeta(meta)
}

// WindowOptions parameterise Window.
type WindowOptions struct {
	Jobs int    // jobs to keep (≥ 1)
	Seed uint64 // default 1
}

// Window returns o.Jobs consecutive jobs of w, in submission order (by
// submission time, file order between equal times), from a first job drawn
// uniformly with the seed among the positions that leave o.Jobs jobs; their
// submission times are shifted so that the first is at 0. A trace cut into
// windows this way gives one workload per seed, each a stretch of the same
// trace. With o.Jobs at least the number of jobs, the whole workload is
// kept (shifted). Profiles are kept; meta records the window.
func Window(in *Workload, o WindowOptions) (*Workload, error) {
	if o.Jobs < 1 {
		return nil, fmt.Errorf("window: the window must hold at least one job (got %d)", o.Jobs)
	}
	if len(in.Jobs) == 0 {
		return nil, fmt.Errorf("window: the input workload has no job")
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	order := make([]int, len(in.Jobs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return in.Jobs[order[a]].Subtime < in.Jobs[order[b]].Subtime })
	n := min(o.Jobs, len(order))
	start := 0
	if positions := len(order) - n + 1; positions > 1 {
		start = newRand(o.Seed).IntN(positions)
	}
	keep := order[start : start+n]
	w := in.clone()
	w.Jobs = make([]Job, 0, n)
	shift := in.Jobs[keep[0]].Subtime
	for _, i := range keep {
		j := in.Jobs[i]
		s := j.Subtime - shift
		raw, err := setMember(j.Raw, "subtime", []byte(fmtNum(s)))
		if err != nil {
			return nil, fmt.Errorf("window: job '%s': %w", j.ID, err)
		}
		j.Raw, j.Subtime = raw, s
		w.Jobs = append(w.Jobs, j)
	}
	meta := map[string]any{
		"generator":  "window",
		"seed":       o.Seed,
		"params":     map[string]any{"jobs": o.Jobs, "first": start, "input_jobs": len(in.Jobs), "shift": shift},
		"input_meta": rawOrNull(in.Meta("meta")),
	}
	return w.withMeta(meta)
}

// withMeta sets the workload's meta (its keys sorted) and returns it.
func (w *Workload) withMeta(meta map[string]any) (*Workload, error) {
	mb, err := marshalSorted(meta)
	if err != nil {
		return nil, err
	}
	w.SetExtra("meta", mb)
	return w, nil
}
