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
	// MaxRes, when > 0, keeps only the sizes of at most MaxRes hosts (the
	// sizes drawn are those of delaysSizes up to it).
	MaxRes int
	// Users, when > 0, gives every job a user, u01 to uNN, drawn
	// uniformly; 0 writes no user field.
	Users int
	// WalltimeMin and WalltimeMax bound the factor a job's walltime is of
	// its delay, drawn uniformly (defaults 1 and 3).
	WalltimeMin, WalltimeMax float64
	// Span, when > 0, submits the jobs within [0, Span) seconds (Poisson
	// arrivals scaled so that the last comes before Span) instead of at
	// the offered load: Load is then ignored.
	Span float64
}

// delaysSizes are the requested sizes, drawn uniformly (one node twice as
// often as each power of two); sizes above the platform's hosts are capped.
var delaysSizes = []int{1, 1, 2, 4, 8, 16, 32, 64}

// GenerateDelays builds the engine benchmark's workload: Poisson arrivals,
// delay profiles of exponential length (at least 1 s), sizes of 1 to 64
// hosts, walltimes of 1 to 3 times the delay, one profile per job, numbers
// with three decimals. The mean inter-arrival time gives the offered load
// (or the span, when given). MaxRes, Users, WalltimeMin/Max and Span shape
// other cases (the 100 000-job case of scripts/bench-policies); at their
// zero values the output is the benchmark's bytes.
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
	if o.WalltimeMin == 0 {
		o.WalltimeMin = 1
	}
	if o.WalltimeMax == 0 {
		o.WalltimeMax = 3
	}
	sizes := delaysSizes
	if o.MaxRes > 0 {
		sizes = nil
		for _, s := range delaysSizes {
			if s <= o.MaxRes {
				sizes = append(sizes, s)
			}
		}
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
	case o.MaxRes < 0:
		return nil, fmt.Errorf("delays: max-res must be at least 1 (got %d)", o.MaxRes)
	case o.Users < 0 || o.Users > 99:
		return nil, fmt.Errorf("delays: users must be in 0..99 (got %d)", o.Users)
	case !(o.WalltimeMin >= 1) || !(o.WalltimeMax >= o.WalltimeMin) || math.IsInf(o.WalltimeMax, 0):
		return nil, fmt.Errorf("delays: walltime factors must satisfy 1 <= min <= max (got %g and %g)", o.WalltimeMin, o.WalltimeMax)
	case !(o.Span >= 0) || math.IsInf(o.Span, 0):
		return nil, fmt.Errorf("delays: span must be >= 0 (got %g)", o.Span)
	}
	r := newRand(o.Seed)
	meanRes := 0.0
	for _, s := range sizes {
		meanRes += float64(min(s, o.Hosts))
	}
	meanRes /= float64(len(sizes))
	meanGap := meanRes * o.MeanDelay / (float64(o.Hosts) * o.Load)
	if o.Span > 0 {
		// The expected last arrival is Jobs × gap: aim at 0.9 of the span
		// and clamp the few beyond it.
		meanGap = 0.9 * o.Span / float64(o.Jobs)
	}
	round3 := func(v float64) float64 { return math.Round(v*1000) / 1000 }
	w := &Workload{NbRes: o.Hosts, Profiles: make(map[string]Profile, o.Jobs), Jobs: make([]Job, 0, o.Jobs)}
	t := 0.0
	for i := 0; i < o.Jobs; i++ {
		t += r.ExpFloat64() * meanGap
		sub := round3(t)
		if o.Span > 0 && sub >= o.Span {
			sub = round3(o.Span - 0.001)
		}
		res := min(sizes[r.IntN(len(sizes))], o.Hosts)
		delay := round3(math.Max(1, r.ExpFloat64()*o.MeanDelay))
		wall := round3(delay * (o.WalltimeMin + (o.WalltimeMax-o.WalltimeMin)*r.Float64()))
		user := ""
		if o.Users > 0 {
			user = fmt.Sprintf("u%02d", 1+r.IntN(o.Users))
		}
		id := strconv.Itoa(i)
		pname := "d" + id
		var pb objBuilder
		pb.str("type", TypeDelay).num("delay", delay)
		w.AddProfile(Profile{Name: pname, Type: TypeDelay, Delay: delay, Repeat: 1, Raw: pb.bytes()})
		var jb objBuilder
		jb.str("id", id).num("subtime", sub).int("res", int64(res)).str("profile", pname).num("walltime", wall)
		if user != "" {
			jb.str("user", user)
		}
		w.Jobs = append(w.Jobs, Job{ID: id, Subtime: sub, Res: res, Walltime: wall, Profile: pname, Raw: jb.bytes()})
	}
	m := map[string]any{
		"generator": "delays", "seed": o.Seed, "jobs": o.Jobs, "hosts": o.Hosts, "load": o.Load, "mean_delay": o.MeanDelay,
	}
	// The shape options are recorded only when given, so that the
	// benchmark's workload keeps its bytes.
	if o.MaxRes > 0 {
		m["max_res"] = o.MaxRes
	}
	if o.Users > 0 {
		m["users"] = o.Users
	}
	if o.WalltimeMin != 1 || o.WalltimeMax != 3 {
		m["walltime_factor"] = []float64{o.WalltimeMin, o.WalltimeMax}
	}
	if o.Span > 0 {
		delete(m, "load")
		m["span"] = o.Span
	}
	meta, err := marshalSorted(m)
	if err != nil {
		return nil, err
	}
	w.SetExtra("meta", meta)
	return w, nil
}
