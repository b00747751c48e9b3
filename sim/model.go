package sim

import (
	"fmt"

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
	// static lists the jobs of a workload file by (subtime, full id), the
	// order its submitter sends them in.
	static []*job
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
	alloc    protocol.IntervalSet
	allocStr string
	hosts    []int // executor -> host id
	mapped   bool  // hosts come from an explicit mapping
	ret      int
	metadata string
	killReq  bool
	deleted  bool // forgotten by Batsim once its end was sent to the scheduler
	// runtimeLD is the run time as Batsim keeps it (a long double).
	runtimeLD ld
	task      *task
	// actor executes the job (Batsim's execution_actors).
	actor *actor
}
