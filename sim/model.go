package sim

import (
	"fmt"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/workloads"
)

// profile is a workload profile with its composed parts resolved.
type profile struct {
	name            string
	typ             string
	delay, cpu, com float64
	repeat, ret     int32
	// ext holds what parallel and composed profiles have besides.
	ext    *profileExt
	batsim []byte // the description as Batsim forwards it
}

type profileExt struct {
	cpus     []float64
	comMat   []float64
	seq      []*profile
	seqNames []string
}

func (p *profile) cpus() []float64 {
	if p.ext == nil {
		return nil
	}
	return p.ext.cpus
}

func (p *profile) comMat() []float64 {
	if p.ext == nil {
		return nil
	}
	return p.ext.comMat
}

func (p *profile) seq() []*profile {
	if p.ext == nil {
		return nil
	}
	return p.ext.seq
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
	for _, s := range p.seq() {
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
		for _, c := range p.comMat() {
			if c > 0 {
				return true
			}
		}
	case workloads.TypeComposed:
		for _, s := range p.seq() {
			if s.hasCom() {
				return true
			}
		}
	}
	return false
}

// newSequenceCounter counts the tasks of the engine's profiles (see
// workloads.MaxSequenceTasks).
func newSequenceCounter() *workloads.SequenceCounter[*profile] {
	return workloads.NewSequenceCounter(func(p *profile) (int, []*profile, bool) {
		return int(p.repeat), p.seq(), p.typ == workloads.TypeComposed
	})
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
	// begins lists the profiles SIMULATION_BEGINS sends (those the jobs
	// use, with the parts of composed ones, in file order).
	begins []*profile
}

// newProfile makes p the engine's profile name; its Batsim description is
// written in arena.
func newProfile(name string, pr workloads.Profile, arena *byteArena) (*profile, error) {
	b, err := arena.add(func(dst []byte) ([]byte, error) { return workloads.AppendBatsimJSON(dst, pr.Raw) })
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", name, err)
	}
	rep := pr.Repeat
	if rep <= 0 {
		rep = 1
	}
	p := &profile{name: name, typ: pr.Type, delay: pr.Delay, cpu: pr.CPU, com: pr.Com, repeat: int32(rep), ret: int32(pr.Ret), batsim: b}
	if pr.CPUs != nil || pr.ComMat != nil || pr.Seq != nil {
		p.ext = &profileExt{cpus: pr.CPUs, comMat: pr.ComMat, seqNames: pr.Seq}
	}
	return p, nil
}

// resolve links composed profiles to their parts.
func (w *workload) resolve() error {
	for _, p := range w.profiles {
		if p.typ != workloads.TypeComposed || p.ext == nil || p.ext.seq != nil {
			continue
		}
		for _, n := range p.ext.seqNames {
			s, ok := w.profiles[n]
			if !ok {
				return fmt.Errorf("workload %s: composed profile %s uses unknown profile %q", w.name, p.name, n)
			}
			p.ext.seq = append(p.ext.seq, s)
		}
	}
	return nil
}

// jobState is a job's state (protocol's names: String).
type jobState uint8

const (
	stNotSubmitted jobState = iota
	stSubmitted
	stRunning
	stSuccess
	stFailed
	stWalltimeReached
	stKilled
	stRejected
)

var jobStateNames = [...]string{batsim.StateNotSubmitted, batsim.StateSubmitted, batsim.StateRunning, batsim.StateSuccess,
	batsim.StateFailed, batsim.StateWalltimeReached, batsim.StateKilled, batsim.StateRejected}

func (s jobState) String() string { return jobStateNames[s] }

// job is a job as the engine tracks it.
type job struct {
	id string // full id "workload!name"
	wl *workload
	// desc is, for a job of a workload file, the description
	// JOB_SUBMITTED forwards; for a registered job, the object the
	// scheduler sent.
	desc     json.RawMessage
	subtime  float64
	walltime float64 // -1: unlimited
	prof     *profile
	res      int

	start float64
	ret   int32
	state jobState
	// killReq is set once a kill was asked for.
	killReq bool
	deleted bool // forgotten by Batsim once its end was sent to the scheduler
	// registered is set for a job the scheduler registered.
	registered bool
	// hasMetadata says that SET_JOB_METADATA gave it metadata (kept in
	// engine.metadata).
	hasMetadata bool
	// typed says that a scheduler reads from desc the fields the engine
	// holds (fields): an in-process scheduler is handed them as values.
	typed bool
	// runtimeLD is the run time as Batsim keeps it (a long double).
	runtimeLD ld
	// run is the job's execution, from EXECUTE_JOB until its row is
	// written.
	run *jobRun
}

// jobRun is a job's execution.
type jobRun struct {
	alloc    batsim.IntervalSet
	allocStr string
	hosts    []int // executor -> host id
	task     *task
	// actor executes the job (Batsim's execution_actors).
	actor *actor
	// computing is set while the job counts on its hosts (machinesRun
	// to machinesEnd).
	computing bool
	// energy is, with -E, the energy of the job's machines when it
	// started, then the energy they consumed while it ran.
	energy ld
}

// name is the job's name: what follows the workload in its id.
func (j *job) name() string {
	if j.registered {
		if id, err := batsim.ParseJobID(j.id); err == nil {
			return id.Name
		}
	}
	return j.id[strings.IndexByte(j.id, '!')+1:]
}

// byteArena hands out byte slices cut from large shared blocks: many small
// descriptions cost one allocation per block instead of one each.
type byteArena struct{ buf []byte }

const arenaBlock = 64 << 10

// add returns what write appends to an empty slice, stored in the arena.
func (a *byteArena) add(write func(dst []byte) ([]byte, error)) ([]byte, error) {
	if cap(a.buf)-len(a.buf) < 1024 {
		a.buf = make([]byte, 0, arenaBlock)
	}
	start := len(a.buf)
	out, err := write(a.buf)
	if err != nil {
		return nil, err
	}
	if cap(out) != cap(a.buf) {
		// Longer than the block's room: on its own.
		if out, err = write(nil); err != nil {
			return nil, err
		}
		return out[:len(out):len(out)], nil
	}
	a.buf = out
	return out[start:len(out):len(out)], nil
}
