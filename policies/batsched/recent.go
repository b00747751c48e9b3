package batsched

import (
	"fmt"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/sched"
)

// Recent gathers what batsched's algorithms learn between two decisions
// (ISchedulingAlgorithm's _jobs_released_recently and
// _jobs_ended_recently), for a twin to embed: it implements the
// framework's SubmitObserver and EndObserver, and its Admitter with
// RejectNoWalltime (the variants that reject the jobs without walltime).
type Recent struct {
	// RejectNoWalltime refuses jobs without walltime at submission.
	RejectNoWalltime bool
	// StopNoWalltime stops the simulation at a job without walltime
	// (NoWalltimeStop), as batsched's variants that assert that every job
	// has one.
	StopNoWalltime bool
	// Released are the jobs submitted since the last decision, in arrival
	// order (refused ones included: they are rejected before the policy
	// decides, check Job.Waiting).
	Released []*sched.Job
	// Ended are the jobs that ran and ended since the last decision
	// (rejections do not count).
	Ended []*sched.Job
}

// Admits implements sched.Admitter.
func (r *Recent) Admits(_ *sched.State, j *sched.Job) bool {
	return !r.RejectNoWalltime || j.HasWalltime()
}

// NoWalltimeStop is, with StopNoWalltime, batsched's stop at the first job
// released without walltime (its assertion new_job->has_walltime, "This
// scheduler only supports jobs with walltimes."), nil otherwise: a twin
// fails its decision with it before deciding anything.
func (r *Recent) NoWalltimeStop() error {
	if !r.StopNoWalltime {
		return nil
	}
	for _, j := range r.Released {
		if !j.HasWalltime() {
			return fmt.Errorf("batsched stops here on its assertion: new_job->has_walltime (this scheduler only supports jobs with walltimes): job %s has no walltime", j.ID())
		}
	}
	return nil
}

// JobSubmitted implements sched.SubmitObserver.
func (r *Recent) JobSubmitted(_ *sched.State, j *sched.Job) { r.Released = append(r.Released, j) }

// JobEnded implements sched.EndObserver.
func (r *Recent) JobEnded(_ *sched.State, j *sched.Job) {
	if j.State() != batsim.StateRejected {
		r.Ended = append(r.Ended, j)
	}
}

// Clear forgets the jobs gathered (at the end of a decision).
func (r *Recent) Clear() {
	clear(r.Released)
	clear(r.Ended)
	r.Released, r.Ended = r.Released[:0], r.Ended[:0]
}
