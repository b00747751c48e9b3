package sim

import (
	"fmt"
	"math"

	json "github.com/goccy/go-json"

	"bucma/protocol"
	"bucma/workloads"
)

// profile is a workload profile with its composed parts resolved.
type profile struct {
	name     string
	typ      string
	delay    float64
	cpu      float64
	com      float64
	cpus     []float64
	comMat   []float64
	seq      []*profile
	seqNames []string
	repeat   int
	ret      int
	batsim   []byte // the description as Batsim forwards it
}

// isParallelTask reports whether the profile runs as one SimGrid parallel
// task (as opposed to a delay or a sequence).
func (p *profile) isParallelTask() bool {
	switch p.typ {
	case workloads.TypeParallel, workloads.TypeParallelHomogeneous, workloads.TypeParallelHomogeneousTotal:
		return true
	}
	return false
}

// onlyHomogeneousTotal reports whether a job with this profile may get a
// number of hosts different from its res (Batsim allows it for
// parallel_homogeneous_total and for sequences made only of those).
func (p *profile) onlyHomogeneousTotal() bool {
	if p.typ == workloads.TypeParallelHomogeneousTotal {
		return true
	}
	if p.typ != workloads.TypeComposed {
		return false
	}
	for _, s := range p.seq {
		if s.typ != workloads.TypeParallelHomogeneousTotal {
			return false
		}
	}
	return true
}

// hasCom reports whether the profile (or a part) communicates.
func (p *profile) hasCom() bool {
	switch p.typ {
	case workloads.TypeParallelHomogeneous, workloads.TypeParallelHomogeneousTotal:
		return p.com > 0
	case workloads.TypeParallel:
		for _, c := range p.comMat {
			if c > 0 {
				return true
			}
		}
	case workloads.TypeComposed:
		for _, s := range p.seq {
			if s.hasCom() {
				return true
			}
		}
	}
	return false
}

// workload is a workload as the engine knows it (static or registered by
// the scheduler).
type workload struct {
	name     string
	path     string
	profiles map[string]*profile
}

func newProfile(name string, p workloads.Profile) (*profile, error) {
	b, err := workloads.BatsimJSON(p.Raw)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", name, err)
	}
	rep := p.Repeat
	if rep <= 0 {
		rep = 1
	}
	return &profile{name: name, typ: p.Type, delay: p.Delay, cpu: p.CPU, com: p.Com, cpus: p.CPUs,
		comMat: p.ComMat, seqNames: p.Seq, repeat: rep, ret: p.Ret, batsim: b}, nil
}

// resolve links composed profiles to their parts.
func (w *workload) resolve() error {
	for _, p := range w.profiles {
		if p.typ != workloads.TypeComposed || p.seq != nil {
			continue
		}
		for _, n := range p.seqNames {
			s, ok := w.profiles[n]
			if !ok {
				return fmt.Errorf("workload %s: composed profile %s uses unknown profile %q", w.name, p.name, n)
			}
			p.seq = append(p.seq, s)
		}
	}
	return nil
}

// job is a job as the engine tracks it.
type job struct {
	id       string // full id "workload!name"
	name     string
	wl       *workload
	raw      json.RawMessage // the job object as written (file or REGISTER_JOB)
	fwd      json.RawMessage // what JOB_SUBMITTED forwards, when known in advance
	subtime  float64
	res      int
	walltime float64 // -1: unlimited
	prof     *profile
	profName string

	state    string
	start    float64
	runtime  float64
	alloc    protocol.IntervalSet
	allocStr string
	hosts    []int // executor -> host id
	mapped   bool  // hosts come from an explicit mapping
	ret      int
	metadata string
	killReq  bool
	deleted  bool // forgotten by Batsim once its end was sent to the scheduler
	gen      uint32
}

// ptaskDuration is the duration of one parallel task on the executors'
// hosts: SimGrid's ptask model runs every part at one common rate, so the
// most loaded host sets the pace (executors sharing a host share its
// speed). Communications are not modelled.
func (e *engine) ptaskDuration(p *profile, j *job) (float64, error) {
	hosts := j.hosts
	n := len(hosts)
	flops := func(i int) float64 {
		switch p.typ {
		case workloads.TypeParallelHomogeneous:
			return p.cpu
		case workloads.TypeParallelHomogeneousTotal:
			return p.cpu / float64(n)
		default:
			return p.cpus[i]
		}
	}
	if p.typ == workloads.TypeParallel && len(p.cpus) != n {
		return 0, fmt.Errorf("profile %s has %d cpu values for %d executors", p.name, len(p.cpus), n)
	}
	d := 0.0
	if !j.mapped {
		for i, h := range hosts {
			if f := flops(i); f > 0 {
				d = math.Max(d, f/e.speed[h])
			}
		}
		return d, nil
	}
	perHost := map[int]float64{}
	for i, h := range hosts {
		perHost[h] += flops(i)
	}
	for h, f := range perHost {
		if f > 0 {
			d = math.Max(d, f/e.speed[h])
		}
	}
	return d, nil
}

// walkResult is the outcome of a job's execution.
type walkResult struct {
	end  float64
	ret  int
	tree *protocol.JobProgress // set when stopped at stopAt
}

// walk runs the job's profile from its start, the way Batsim's executor
// does (walltime checked part by part), and returns its end and return
// code. With stopAt < end, it also returns the progress tree at stopAt.
func (e *engine) walk(j *job, stopAt float64) (walkResult, error) {
	rem := j.walltime
	t := j.start
	var res walkResult
	var stopped bool
	var run func(p *profile) (int, *protocol.JobProgress, error)
	run = func(p *profile) (int, *protocol.JobProgress, error) {
		switch p.typ {
		case workloads.TypeDelay:
			d, full, ret := p.delay, p.delay, p.ret
			if !(rem < 0 || p.delay < rem) {
				d, ret = rem, -1
			}
			if stopAt < t+d {
				prog := 0.0
				if full > 0 {
					prog = (stopAt - t) / full
				}
				stopped = true
				return 0, &protocol.JobProgress{ProfileName: p.name, Progress: clamp01(prog)}, nil
			}
			t += d
			if ret == -1 {
				rem = 0
			} else if rem > 0 {
				rem -= d
			}
			return ret, nil, nil
		case workloads.TypeComposed:
			for it := 0; it < p.repeat; it++ {
				for pos, s := range p.seq {
					r, tree, err := run(s)
					if err != nil {
						return 0, nil, err
					}
					if stopped {
						idx := it*len(p.seq) + pos
						return 0, &protocol.JobProgress{ProfileName: p.name, CurrentTaskIndex: &idx, CurrentTask: tree}, nil
					}
					if r != 0 {
						return r, nil, nil
					}
				}
			}
			return p.ret, nil, nil
		default:
			full, err := e.ptaskDuration(p, j)
			if err != nil {
				return 0, nil, err
			}
			d, ret := full, p.ret
			if rem >= 0 && full > rem {
				d, ret = rem, -1
			}
			if stopAt < t+d {
				prog := 0.0
				if full > 0 {
					prog = (stopAt - t) / full
				}
				stopped = true
				return 0, &protocol.JobProgress{ProfileName: p.name, Progress: clamp01(prog)}, nil
			}
			t += d
			if rem >= 0 {
				rem -= d
				if ret == -1 || rem < 0 {
					rem = 0
				}
			}
			return ret, nil, nil
		}
	}
	r, tree, err := run(j.prof)
	if err != nil {
		return res, err
	}
	res.end, res.ret, res.tree = t, r, tree
	return res, nil
}

func clamp01(v float64) *float64 {
	if v < 0 {
		v = 0
	} else if v > 1 {
		v = 1
	}
	return &v
}
