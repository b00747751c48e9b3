package pull

import (
	"fmt"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/sched"
)

// The caller's decisions at a Decide point go through the session's
// Decider: each is checked against the state and applied at once, and an
// invalid one is refused with the Decider's error, which then stops the
// run as it stops a Go policy's (DecisionError).

// DecisionError is a decision the Decider refused: the run stops with it
// (Next returns it with Done).
type DecisionError struct{ Err error }

// Error returns the Decider's message.
func (e *DecisionError) Error() string { return e.Err.Error() }

// Unwrap returns the Decider's error, for errors.Is and errors.As.
func (e *DecisionError) Unwrap() error { return e.Err }

// decision returns the point's decider, or a *UsageError outside a Decide
// point.
func (r *Run) decisionPoint(what string) (*sched.Decider, error) {
	if r.at != Decide || r.decider == nil {
		return nil, usage("%s: no decision is due now (the point is %s): decide at a decide point only", what, r.at)
	}
	return r.decider, nil
}

// waitingJob is the job of arrival rank idx, or a *UsageError.
func (r *Run) jobOf(what string, idx int64) (*sched.Job, error) {
	j := r.track.job(idx)
	if j == nil {
		return nil, usage("%s: no job has arrival rank %d (%d jobs arrived)", what, idx, len(r.track.jobs))
	}
	return j, nil
}

// refused is the outcome of a decision the decider refused.
func refused(d *sched.Decider) error {
	if err := d.Err(); err != nil {
		return &DecisionError{Err: err}
	}
	return nil
}

// Start starts the job of arrival rank idx on hosts (nil: the hosts the
// policy's hosts option selects among the free ones). It returns the
// hosts the job runs on.
func (r *Run) Start(idx int64, hosts []int) ([]int, error) {
	d, err := r.decisionPoint("start")
	if err != nil {
		return nil, err
	}
	j, err := r.jobOf("start", idx)
	if err != nil {
		return nil, err
	}
	if hosts == nil && j.Waiting() && !j.Refused() && j.Res() > 0 {
		if j.Res() > r.state.NbFree() {
			d.Fail(fmt.Errorf("invalid decision at t=%v: start %s: %d hosts requested, %d free", r.state.Now(), j.ID(), j.Res(), r.state.NbFree()))
			return nil, refused(d)
		}
		hosts = r.hosts.Select(r.state, j, j.Res())
	}
	if hosts == nil {
		hosts = []int{}
	}
	if !d.Start(j, hosts) {
		return nil, refused(d)
	}
	return j.Alloc(), nil
}

// Reject rejects the waiting job of arrival rank idx.
func (r *Run) Reject(idx int64) error {
	d, err := r.decisionPoint("reject")
	if err != nil {
		return err
	}
	j, err := r.jobOf("reject", idx)
	if err != nil {
		return err
	}
	if !d.Reject(j) {
		return refused(d)
	}
	return nil
}

// Kill asks Batsim to kill the running jobs of arrival ranks idx.
func (r *Run) Kill(idx []int64) error {
	d, err := r.decisionPoint("kill")
	if err != nil {
		return err
	}
	jobs := make([]*sched.Job, len(idx))
	for i, x := range idx {
		if jobs[i], err = r.jobOf("kill", x); err != nil {
			return err
		}
	}
	if len(jobs) == 0 {
		return nil
	}
	if !d.Kill(jobs...) {
		return refused(d)
	}
	return nil
}

// CallMeLater asks Batsim for a decision point at t.
func (r *Run) CallMeLater(t float64) error {
	d, err := r.decisionPoint("call me later")
	if err != nil {
		return err
	}
	if !d.CallMeLater(t) {
		return refused(d)
	}
	return nil
}

// Reservation is sched.Reservation now: the shadow time at which need
// hosts are free (from the running jobs' expected ends) and the hosts
// free then beyond need.
func (r *Run) Reservation(need int) (shadow float64, extra int, err error) {
	if _, err := r.decisionPoint("reservation"); err != nil {
		return 0, 0, err
	}
	shadow, extra = sched.Reservation(r.state, need)
	return shadow, extra, nil
}

// JobJSON is the description of the job of arrival rank idx as Batsim
// sent it (JSON), "{}" when it has none.
func (r *Run) JobJSON(idx int64) (json.RawMessage, error) {
	if r.at != Decide && r.at != Keys {
		return nil, usage("job description: read at a decide or keys point only (the point is %s)", r.at)
	}
	j, err := r.jobOf("job description", idx)
	if err != nil {
		return nil, err
	}
	if raw := j.Raw(); len(raw) > 0 {
		return raw, nil
	}
	return json.RawMessage("{}"), nil
}

// Free is the number of hosts a job may start on now, at a decide or
// keys point (0 elsewhere).
func (r *Run) Free() int {
	if (r.at != Decide && r.at != Keys) || r.state == nil {
		return 0
	}
	return r.state.NbFree()
}

// AppendHosts appends the record of every host (HostSize bytes each, see
// the encoding) to b: their state now, at a decide or keys point (nothing
// elsewhere).
func (r *Run) AppendHosts(b []byte) []byte {
	if r.at != Decide && r.at != Keys {
		return b
	}
	s := r.state
	if s == nil {
		s = r.track.state
	}
	if s == nil {
		return b
	}
	for h := 0; h < s.NbHosts(); h++ {
		b = appendHost(b, s, h)
	}
	return b
}
