package workloads

import (
	"fmt"
	"math"
	"strconv"
)

// DelaysOptions parameterises GenerateDelays. Zero values take the
// defaults.
type DelaysOptions struct {
	Jobs  int     // number of jobs (default 20000)
	Hosts int     // hosts of the platform (default 128)
	Load  float64 // offered load Σ(res × delay) / (hosts × span) (default 0.95)
	// MeanDelay is the mean of the exponential delays, seconds (default
	// 600).
	MeanDelay float64
	Seed      uint64 // default 1
}

// delaysSizes are the requested sizes, drawn uniformly (one node twice as
// often as each power of two); sizes above the platform's hosts are capped.
var delaysSizes = []int{1, 1, 2, 4, 8, 16, 32, 64}

// GenerateDelays builds the engine benchmark's workload: Poisson arrivals,
// delay profiles of exponential length (at least 1 s), sizes of 1 to 64
// hosts, walltimes of 1 to 3 times the delay, one profile per job, numbers
// with three decimals. The mean inter-arrival time gives the offered load.
// It is the workload the benchmark of bucma's engine against Batsim runs
// (scripts/bench-engine), on platforms.Star(Hosts).
func GenerateDelays(o DelaysOptions) (*Workload, error) {
	if o.Jobs == 0 {
		o.Jobs = 20000
	}
	if o.Hosts == 0 {
		o.Hosts = 128
	}
	if o.Load == 0 {
		o.Load = 0.95
	}
	if o.MeanDelay == 0 {
		o.MeanDelay = 600
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	switch {
	case o.Jobs < 1:
		return nil, fmt.Errorf("delays: jobs must be at least 1 (got %d)", o.Jobs)
	case o.Hosts < 1:
		return nil, fmt.Errorf("delays: hosts must be at least 1 (got %d)", o.Hosts)
	case !(o.Load > 0) || math.IsInf(o.Load, 0):
		return nil, fmt.Errorf("delays: load must be > 0 (got %g)", o.Load)
	case !(o.MeanDelay > 0) || math.IsInf(o.MeanDelay, 0):
		return nil, fmt.Errorf("delays: mean delay must be > 0 (got %g)", o.MeanDelay)
	}
	r := newRand(o.Seed)
	meanRes := 0.0
	for _, s := range delaysSizes {
		meanRes += float64(min(s, o.Hosts))
	}
	meanRes /= float64(len(delaysSizes))
	meanGap := meanRes * o.MeanDelay / (float64(o.Hosts) * o.Load)
	round3 := func(v float64) float64 { return math.Round(v*1000) / 1000 }
	w := &Workload{NbRes: o.Hosts, Profiles: make(map[string]Profile, o.Jobs), Jobs: make([]Job, 0, o.Jobs)}
	t := 0.0
	for i := 0; i < o.Jobs; i++ {
		t += r.ExpFloat64() * meanGap
		sub := round3(t)
		res := min(delaysSizes[r.IntN(len(delaysSizes))], o.Hosts)
		delay := round3(math.Max(1, r.ExpFloat64()*o.MeanDelay))
		wall := round3(delay * (1 + 2*r.Float64()))
		id := strconv.Itoa(i)
		pname := "d" + id
		var pb objBuilder
		pb.str("type", TypeDelay).num("delay", delay)
		w.AddProfile(Profile{Name: pname, Type: TypeDelay, Delay: delay, Repeat: 1, Raw: pb.bytes()})
		var jb objBuilder
		jb.str("id", id).num("subtime", sub).int("res", int64(res)).str("profile", pname).num("walltime", wall)
		w.Jobs = append(w.Jobs, Job{ID: id, Subtime: sub, Res: res, Walltime: wall, Profile: pname, Raw: jb.bytes()})
	}
	meta, err := marshalSorted(map[string]any{
		"generator": "delays", "seed": o.Seed, "jobs": o.Jobs, "hosts": o.Hosts, "load": o.Load, "mean_delay": o.MeanDelay,
	})
	if err != nil {
		return nil, err
	}
	w.SetExtra("meta", meta)
	return w, nil
}
