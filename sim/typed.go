package sim

import (
	"errors"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/internal/batsimfmt"
	"github.com/bucma-sched/bucma/internal/jsonspan"
	"github.com/bucma-sched/bucma/workloads"
)

// The typed in-process path: a scheduler of the engine's own process
// (InProcess) is handed a submitted job's fields as values
// (batsim.JobFields) instead of reading them from the job's JSON
// description, and is sent that description only when it reads more of it
// (a policy that keeps the jobs' JSON, or one that sees the raw events).
// The engine does so for the jobs whose object has no member but id,
// subtime, res, profile and walltime (each once): what a reader of the
// description gets is then the engine's own reading, the walltime as
// Batsim writes it in JOB_SUBMITTED (6 decimals) and reads it back.

// typedScheduler is a Scheduler that takes typed jobs.
type typedScheduler interface {
	Scheduler
	// jobJSON reports whether it also reads the jobs' JSON descriptions.
	jobJSON() bool
}

func (p inProcess) jobJSON() bool {
	if n, ok := p.s.(interface{ NeedsJobJSON() bool }); ok {
		return n.NeedsJobJSON()
	}
	return true
}

// jobJSON is the recorded scheduler's: a recorded run is the run it would
// have been.
func (r *Recorder) jobJSON() bool {
	if t, ok := r.S.(typedScheduler); ok && typedJobs(r.S) {
		return t.jobJSON()
	}
	return true
}

// typedJobs reports whether s takes typed jobs.
func typedJobs(s Scheduler) bool {
	if r, ok := s.(*Recorder); ok {
		return typedJobs(r.S)
	}
	_, ok := s.(typedScheduler)
	return ok
}

// maxTypedWalltime bounds the walltimes handed over as values: below it,
// Batsim's 6-decimal text read back is batsimfmt.Reread's exactly.
const maxTypedWalltime = 4e9

// typedJob reports whether a scheduler reads from the description of the
// preloaded job src the fields the engine holds.
func typedJob(src *workloads.Job) bool {
	return src.Plain && src.Walltime <= maxTypedWalltime
}

// typedRaw is typedJob for a job of a workloads.Workload, whose object
// is read again: its members are id, subtime, res, profile and walltime,
// each once.
func typedRaw(src *workloads.Job) bool {
	if src.Walltime > maxTypedWalltime {
		return false
	}
	var seen [len(plainMembers)]bool
	return jsonspan.Members(src.Raw, func(key, _ []byte) error {
		for i, m := range plainMembers {
			if string(key) == m && !seen[i] {
				seen[i] = true
				return nil
			}
		}
		return errNotPlain
	}) == nil
}

var plainMembers = [...]string{"id", "subtime", "res", "profile", "walltime"}

var errNotPlain = errors.New("not a plain job")

// setFields sets f to j's fields as a scheduler reads them from its
// description (j.typed).
func (j *job) setFields(f *batsim.JobFields) {
	*f = batsim.JobFields{Res: j.res, Profile: j.prof.name}
	if j.walltime > 0 {
		f.Walltime = batsimfmt.Reread(j.walltime)
	}
}
