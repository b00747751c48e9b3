package simple

import "github.com/bucma-sched/bucma/sched"

func rejecterSpec() sched.Spec {
	return sched.Spec{
		Name: "rejecter",
		Description: "rejecter: reject every job at submission; a waiting-time estimate is -1 (never) " +
			"(batsched's rejecter and waiting_time_estimator)",
		New: func(sched.Options) (sched.Policy, error) { return Rejecter{}, nil },
	}
}

// Rejecter refuses every job: the framework rejects each in the reply to
// the message that submitted it, in arrival order. It estimates that a job
// would never start (-1), as batsched's waiting_time_estimator answers.
type Rejecter struct{}

// Decide implements sched.Policy.
func (Rejecter) Decide(*sched.State, *sched.Decider) {}

// Admits implements sched.Admitter.
func (Rejecter) Admits(*sched.State, *sched.Job) bool { return false }

// EstimateWaitingTime implements sched.WaitingTimeEstimator.
func (Rejecter) EstimateWaitingTime(*sched.State, *sched.Job) (float64, bool) { return -1, true }
