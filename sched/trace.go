package sched

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/bucma-sched/bucma/batsim"
)

// TraceInfo is implemented by policies that record per-job submission
// details and per-user scores (BUCMA). The decision trace queries it.
type TraceInfo interface {
	// SubmitInfo is what the policy recorded when the job was submitted;
	// it is available at least until the job's end has been observed.
	SubmitInfo(jobID string) (SubmitInfo, bool)
	// UserScore is the user's current score Su.
	UserScore(user string) int
}

// TraceColumns is the header of the decision trace, one row per job.
//
//	job_id             full job id (workload!name)
//	user               the job's user ("" = anonymous)
//	res                requested hosts
//	walltime           seconds; empty when the job has none
//	submission_time    JOB_SUBMITTED time
//	su_at_submission   owner's Su at submission*
//	sf_at_submission   job's Sf at submission*
//	queue_length       n: waiting jobs at submission, this one included*
//	queue_position     p: 1-based position in the re-ranked queue*
//	queue_gain         (n − p)/(n − 1)·100; empty when n = 1*
//	start_time         empty when the job never started
//	waiting_time       start_time − submission_time
//	allocated_hosts    hosts given at start (interval set, "0-3 5")
//	end_time           JOB_COMPLETED time, or the rejection time
//	final_state        COMPLETED_SUCCESSFULLY, COMPLETED_WALLTIME_REACHED, ..., REJECTED
//	return_code        JOB_COMPLETED's return code; empty for a rejected job
//	precision          P = 100·(end − start)/walltime, for any policy, whenever the job ran and has a walltime
//	su_after           owner's Su once this job's end was applied*
//
// Columns marked * come from the policy (TraceInfo) and are empty for
// policies that keep no score; Sf, queue length, position and gain are also
// empty for a job rejected at submission.
var TraceColumns = []string{
	"job_id", "user", "res", "walltime", "submission_time",
	"su_at_submission", "sf_at_submission", "queue_length", "queue_position", "queue_gain",
	"start_time", "waiting_time", "allocated_hosts", "end_time", "final_state", "return_code",
	"precision", "su_after",
}

// Trace is the decision trace: an Observer that writes one CSV row per job
// when the job ends or is rejected. The header is written at creation and
// each row is flushed at once, so a run cut short keeps every row of the
// jobs that ended. Jobs still waiting or running when the run stops have
// no row.
type Trace struct {
	w    *csv.Writer
	info TraceInfo
	err  error
	rows int
}

// NewTrace writes the header to w and returns the trace.
func NewTrace(w io.Writer) *Trace {
	t := &Trace{w: csv.NewWriter(w)}
	t.write(TraceColumns)
	return t
}

// SubmitRecorder is implemented by a TraceInfo policy that records its
// SubmitInfo only when asked (BUCMA).
type SubmitRecorder interface {
	RecordSubmissions()
}

// Bind implements PolicyBinder: the trace queries p when p implements
// TraceInfo (and has it record submissions).
func (t *Trace) Bind(p Policy) {
	t.info, _ = p.(TraceInfo)
	if r, ok := p.(SubmitRecorder); ok && t.info != nil {
		r.RecordSubmissions()
	}
}

// Err is the first write error, if any.
func (t *Trace) Err() error { return t.err }

// Rows is the number of job rows written.
func (t *Trace) Rows() int { return t.rows }

// Submitted implements Observer.
func (t *Trace) Submitted(*State, *Job) {}

// Started implements Observer.
func (t *Trace) Started(*State, *Job) {}

// Ended implements Observer: it writes j's row.
func (t *Trace) Ended(_ *State, j *Job) {
	if t.err != nil {
		return
	}
	row := make([]string, 0, len(TraceColumns))
	row = append(row, j.id, j.user, strconv.Itoa(j.res))
	if j.HasWalltime() {
		row = append(row, fmtNum(j.walltime))
	} else {
		row = append(row, "")
	}
	row = append(row, fmtNum(j.submit))
	var si SubmitInfo
	haveSI := false
	if t.info != nil {
		si, haveSI = t.info.SubmitInfo(j.id)
	}
	switch {
	case !haveSI:
		row = append(row, "", "", "", "", "")
	case !si.Queued:
		row = append(row, strconv.Itoa(si.Su), "", "", "", "")
	default:
		gain := ""
		if si.HasGain {
			gain = fmtNum(si.Gain)
		}
		row = append(row, strconv.Itoa(si.Su), fmtNum(si.Sf), strconv.Itoa(si.QueueLen), strconv.Itoa(si.Position), gain)
	}
	if j.alloc != nil {
		row = append(row, fmtNum(j.start), fmtNum(j.start-j.submit), batsim.NewIntervalSet(j.alloc...).String())
	} else {
		row = append(row, "", "", "")
	}
	row = append(row, fmtNum(j.end), j.state)
	if j.state == batsim.StateRejected {
		row = append(row, "")
	} else {
		row = append(row, strconv.Itoa(int(j.returnCode)))
	}
	if p, ok := Precision(j); ok {
		row = append(row, fmtNum(p))
	} else {
		row = append(row, "")
	}
	if t.info != nil {
		row = append(row, strconv.Itoa(t.info.UserScore(j.user)))
	} else {
		row = append(row, "")
	}
	if t.write(row) {
		t.rows++
	}
}

func (t *Trace) write(row []string) bool {
	if t.err != nil {
		return false
	}
	if err := t.w.Write(row); err != nil {
		t.err = fmt.Errorf("writing the decision trace: %w", err)
		return false
	}
	t.w.Flush()
	if err := t.w.Error(); err != nil {
		t.err = fmt.Errorf("writing the decision trace: %w", err)
		return false
	}
	return true
}

// fmtNum writes a number in the shortest form that reads back exactly, never
// with an exponent.
func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// SubmitInfo is what a re-ranking policy (BUCMA) recorded about a job at
// its submission: at the decision point of the Batsim message that submitted it (after all of that
// message's events were applied, before any start), so that jobs submitted
// together are ranked in one queue that holds all of them.
type SubmitInfo struct {
	Su int // the owner's score (the one Sf used)
	// Queued is false for a job rejected at submission (it needs more hosts
	// than the platform has, or none): it has no Sf and no position.
	Queued   bool
	Sf       float64
	QueueLen int // n: waiting jobs, this one included
	Position int // p: 1-based position in the re-ranked queue
	// Gain = (n − p)/(n − 1)·100; HasGain is false when n = 1.
	Gain    float64
	HasGain bool
}
