package simple

import "github.com/bucma-sched/bucma/sched"

var metadataOption = sched.OptionSpec{
	Name:    "metadata",
	Default: "false",
	Help:    "true: set each job's metadata column (SET_JOB_METADATA \"just some metadata for job ID\"), as batsched's set_job_metadata",
	Values:  []string{"false", "true"},
}

func fillerSpec() sched.Spec {
	return sched.Spec{
		Name: "filler",
		Description: "filler: walk the queue in order and start every job that fits now, skip the others " +
			"(batsched's filler with queue=batsched hosts=first-fit)",
		Options: append(queueOptions(), metadataOption),
		New: func(opts sched.Options) (sched.Policy, error) {
			qd, err := newQueued(opts)
			return &Filler{queued: qd, metadata: opts["metadata"] == "true"}, err
		},
	}
}

// Filler starts, at every decision, every job of the queue that fits, in
// queue order (a greedy scan). With queue=batsched and hosts=first-fit it
// decides as batsched's filler (fraction_of_machines_to_use 1; its
// executor-to-host mapping is then the identity, which Batsim does not
// distinguish from none).
type Filler struct {
	queued
	metadata bool
}

// Decide implements sched.Policy.
func (f *Filler) Decide(s *sched.State, d *sched.Decider) {
	f.q.update(s)
	w := f.q.walk(s)
	for s.NbFree() > 0 && d.Err() == nil {
		j := w.Next(s.NbFree())
		if j == nil {
			return
		}
		if !j.Waiting() {
			continue
		}
		if hosts, ok := f.place.fit(s, j); ok && d.Start(j, hosts) && f.metadata {
			setMetadata(d, j.ID())
		}
	}
}

// EstimateWaitingTime implements sched.WaitingTimeEstimator: the greedy
// scan's forecast (sched.Forecast); none with contiguous hosts, where the
// host counts tell too little.
func (f *Filler) EstimateWaitingTime(s *sched.State, j *sched.Job) (float64, bool) {
	if f.place.contiguous {
		return 0, false
	}
	return sched.EstimateWait(s, f.q, sched.Greedy{}, j)
}

// setMetadata sets job id's metadata as batsched's set_job_metadata does.
// The reply refuses only a metadata text holding a double quote (Batsim
// writes it unquoted into _jobs.csv): a job id with one gets none.
func setMetadata(d *sched.Decider, id string) {
	_ = d.Reply().SetJobMetadata(id, "just some metadata for job "+id)
}
