package workloads

import (
	"fmt"
	"math"
	"sort"
)

// The workload of the gang-scheduling experiment (docs/reproducing.md):
// the paper's 3000 jobs with its histogram of job sizes (1 to 128 tasks),
// from a trace it does not name. What the paper leaves out is drawn:
// run times log-normal (median GangMedianRuntime at the reference speed,
// σ GangRuntimeSigma, kept within [GangMinRuntime, GangMaxRuntime]),
// arrivals Poisson at the rate that gives the offered load, sizes shuffled.

// GangSizes are the paper's job sizes (tasks) and how many of its 3000
// jobs have each.
var GangSizes = []struct{ Tasks, Jobs int }{
	{1, 30}, {2, 90}, {4, 60}, {8, 60}, {32, 1860}, {64, 570}, {128, 330},
}

// Run times of the gang workload, seconds at the reference speed.
const (
	GangMedianRuntime = 1800.0
	GangRuntimeSigma  = 1.5
	GangMinRuntime    = 30.0
	GangMaxRuntime    = 86400.0
	// GangRefSpeed is the reference speed (2000 MHz, the middle of the
	// paper's clocks): a task's work is its run time times this speed.
	GangRefSpeed = 2e9
)

// GangOptions are the gang generator's parameters.
type GangOptions struct {
	Jobs  int     // default 3000 (sizes in the paper's proportions)
	Hosts int     // processors of the platform (default 384)
	Load  float64 // offered load at the reference speed (default 0.7)
	Seed  uint64  // default 1
}

// DefaultGangJobs is the gang generator's default number of jobs, the
// paper's.
const DefaultGangJobs = 3000

// GenerateGang makes a gang workload: each job a parallel_homogeneous
// profile of run time × GangRefSpeed flop per task, no communication, no
// walltime (the policy's estimate is the profile's work at the reference
// speed: a perfect estimate on a reference host).
func GenerateGang(o GangOptions) (*Workload, error) {
	if o.Jobs == 0 {
		o.Jobs = DefaultGangJobs
	}
	if o.Hosts == 0 {
		o.Hosts = 384
	}
	if o.Load == 0 {
		o.Load = 0.7
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	switch {
	case o.Jobs < 1:
		return nil, fmt.Errorf("gang: --jobs must be at least 1 (got %d)", o.Jobs)
	case o.Hosts < 1:
		return nil, fmt.Errorf("gang: %d hosts: want at least 1", o.Hosts)
	case !(o.Load > 0) || o.Load > 100:
		return nil, fmt.Errorf("gang: --load must be > 0 and at most 100 (got %g)", o.Load)
	}
	r := newRand(o.Seed)
	// Sizes in the paper's proportions (largest remainders), shuffled;
	// sizes wider than the platform are kept (they are rejected).
	total := 0
	for _, s := range GangSizes {
		total += s.Jobs
	}
	counts := make([]int, len(GangSizes))
	type rem struct {
		i int
		f float64
	}
	var rems []rem
	n := 0
	for i, s := range GangSizes {
		x := float64(o.Jobs) * float64(s.Jobs) / float64(total)
		counts[i] = int(x)
		n += counts[i]
		rems = append(rems, rem{i, x - math.Floor(x)})
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].f > rems[b].f })
	for k := 0; n < o.Jobs; k++ {
		counts[rems[k%len(rems)].i]++
		n++
	}
	var sizes []int
	for i, s := range GangSizes {
		for k := 0; k < counts[i]; k++ {
			sizes = append(sizes, s.Tasks)
		}
	}
	r.Shuffle(len(sizes), func(a, b int) { sizes[a], sizes[b] = sizes[b], sizes[a] })
	runtimes := make([]float64, len(sizes))
	area := 0.0
	for i := range sizes {
		rt := GangMedianRuntime * math.Exp(GangRuntimeSigma*r.NormFloat64())
		rt = math.Round(math.Min(GangMaxRuntime, math.Max(GangMinRuntime, rt)))
		runtimes[i] = rt
		area += rt * float64(sizes[i])
	}
	// Mean gap so that the work offered over the arrival span is Load
	// times the platform's capacity.
	gap := area / (o.Load * float64(o.Hosts) * float64(len(sizes)))
	w := &Workload{NbRes: o.Hosts, Profiles: map[string]Profile{}}
	t := 0.0
	for i, s := range sizes {
		if i > 0 {
			t += math.Round(-gap*math.Log(1-r.Float64())*1000) / 1000
		}
		id := fmt.Sprintf("%d", i+1)
		pname := "p" + id
		w.AddProfile(computeProfile(pname, runtimes[i]*GangRefSpeed))
		var jb objBuilder
		jb.str("id", id).num("subtime", t).int("res", int64(s)).str("profile", pname).num("runtime_ref", runtimes[i])
		w.Jobs = append(w.Jobs, Job{ID: id, Subtime: t, Res: s, Walltime: -1, Profile: pname, Raw: jb.bytes()})
	}
	mb, err := marshalSorted(map[string]any{
		"generator": "gang",
		"seed":      o.Seed,
		"params": map[string]any{
			"jobs": o.Jobs, "hosts": o.Hosts, "load": o.Load, "ref_speed": GangRefSpeed,
			"runtime_median": GangMedianRuntime, "runtime_sigma": GangRuntimeSigma,
			"runtime_min": GangMinRuntime, "runtime_max": GangMaxRuntime, "size_counts": counts,
		},
	})
	if err != nil {
		return nil, err
	}
	w.SetExtra("meta", mb)
	return w, nil
}
