package batsim

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/internal/batsimfmt"
)

// MinCallMeLaterDelay is the smallest delay a CALL_ME_LATER may ask for. The
// now a scheduler receives is rounded to the microsecond, and Batsim aborts on
// a target that is not strictly in the future, so targets closer than this
// are refused.
const MinCallMeLaterDelay = 1e-5

// Reply builds a scheduler's answer to one Batsim message. Every event is
// stamped with the reply's now, so timestamps are never later than now and
// never decrease; each method refuses (with an error, adding nothing) an
// event Batsim's reader would abort on. A Reply therefore cannot encode to an
// invalid message.
type Reply struct {
	now    float64
	events []Event
	// execs holds the EXECUTE_JOB data of a reply that Reset reuses.
	execs []ExecuteJob
	reuse bool
}

// NewReply starts the reply to a message received at now.
func NewReply(now float64) *Reply { return &Reply{now: now} }

// Reset starts the reply to the next message, received at now, reusing
// what the reply holds: its events, and their data as far as it can (the
// reply's EXECUTE_JOB data). Whoever kept the reply's events, or their
// data, must be done with them.
func (r *Reply) Reset(now float64) {
	clear(r.events)
	r.now, r.events, r.execs, r.reuse = now, r.events[:0], r.execs[:0], true
}

// Now is the reply's time.
func (r *Reply) Now() float64 { return r.now }

// Events are the events added so far, in order.
func (r *Reply) Events() []Event { return r.events }

// Len is the number of events added so far.
func (r *Reply) Len() int { return len(r.events) }

func (r *Reply) add(typ string, data any) { r.addAt(r.now, typ, data) }

// addAt appends an event dated at.
func (r *Reply) addAt(at float64, typ string, data any) {
	r.events = append(r.events, Event{Timestamp: at, Type: typ, Data: data})
}

func checkJobID(id string) error {
	_, err := ParseJobID(id)
	return err
}

// ExecuteJob starts a job on alloc. At most one optional key may be set.
func (r *Reply) ExecuteJob(e ExecuteJob) error { return r.ExecuteJobAt(e, r.now) }

// ExecuteJobAt is ExecuteJob dated at rather than at the reply's now: at
// must not be later than now (Batsim aborts) nor earlier than the reply's
// previous event (Batsim applies the events in order, each at the later of
// its date and the clock).
func (r *Reply) ExecuteJobAt(e ExecuteJob, at float64) error {
	return r.executeJobAt(e, at, false)
}

// ExecuteJobSetAt is ExecuteJobAt for a job started on alloc alone, which
// the caller hands over: the reply keeps alloc itself when it is a set as
// NewIntervalSet makes them (in increasing order), rather than a copy, and
// the caller must not change it afterwards.
func (r *Reply) ExecuteJobSetAt(id string, alloc IntervalSet, at float64) error {
	return r.executeJobAt(ExecuteJob{JobID: id, Alloc: alloc}, at, true)
}

func (r *Reply) executeJobAt(e ExecuteJob, at float64, owned bool) error {
	if !(at <= r.now) {
		return fmt.Errorf("EXECUTE_JOB %s: date %v later than now=%v (Batsim aborts)", e.JobID, at, r.now)
	}
	if n := len(r.events); n > 0 && at < r.events[n-1].Timestamp {
		return fmt.Errorf("EXECUTE_JOB %s: date %v earlier than the previous event's %v", e.JobID, at, r.events[n-1].Timestamp)
	}
	if err := checkJobID(e.JobID); err != nil {
		return fmt.Errorf("EXECUTE_JOB: %w", err)
	}
	if len(e.Alloc) == 0 {
		return fmt.Errorf("EXECUTE_JOB %s: empty allocation", e.JobID)
	}
	if !owned || !increasing(e.Alloc) {
		e.Alloc = NewIntervalSet(e.Alloc...)
	}
	if e.Alloc[0] < 0 {
		return fmt.Errorf("EXECUTE_JOB %s: negative resource id", e.JobID)
	}
	opt := 0
	if e.Mapping != nil {
		opt++
		for i := 0; i < len(e.Mapping); i++ {
			v, ok := e.Mapping[i]
			if !ok || v < 0 || v >= len(e.Alloc) {
				return fmt.Errorf("EXECUTE_JOB %s: mapping must map executors 0..%d to allocation indexes below %d", e.JobID, len(e.Mapping)-1, len(e.Alloc))
			}
		}
	}
	if e.StorageMapping != nil {
		opt++
	}
	if e.AdditionalIOJob != nil {
		opt++
	}
	if opt > 1 {
		return fmt.Errorf("EXECUTE_JOB %s: at most one of mapping, storage_mapping, additional_io_job (Batsim aborts on more)", e.JobID)
	}
	if r.reuse && len(r.execs) < cap(r.execs) {
		r.execs = append(r.execs, e)
		r.addAt(at, TypeExecuteJob, &r.execs[len(r.execs)-1])
		return nil
	}
	if r.reuse {
		// A larger block for this reply and the next ones; the data
		// already handed out stay where they are.
		r.execs = make([]ExecuteJob, 0, max(16, 2*cap(r.execs)))
		r.execs = append(r.execs, e)
		r.addAt(at, TypeExecuteJob, &r.execs[0])
		return nil
	}
	d := new(ExecuteJob) // e itself would escape, whichever the branch
	*d = e
	r.addAt(at, TypeExecuteJob, d)
	return nil
}

// AdvanceTo moves the reply's now to t, not earlier than its now: the
// decision process says it decided until t. The events added afterwards are
// dated t, and Batsim (4 as 5) applies them at t, later than the message it
// answers.
func (r *Reply) AdvanceTo(t float64) error {
	if math.IsNaN(t) || math.IsInf(t, 0) || t < r.now {
		return fmt.Errorf("reply now=%v: cannot move to %v (a reply's now never goes back)", r.now, t)
	}
	r.now = t
	return nil
}

// LastDate is the date of the reply's last event (now when it has none).
func (r *Reply) LastDate() float64 {
	if n := len(r.events); n > 0 {
		return r.events[n-1].Timestamp
	}
	return r.now
}

// RejectJob rejects a waiting job.
func (r *Reply) RejectJob(id string) error {
	if err := checkJobID(id); err != nil {
		return fmt.Errorf("REJECT_JOB: %w", err)
	}
	r.add(TypeRejectJob, &RejectJob{JobID: id})
	return nil
}

// KillJobs kills running jobs (at least one).
func (r *Reply) KillJobs(ids ...string) error {
	if len(ids) == 0 {
		return errors.New("KILL_JOB: no job id")
	}
	for _, id := range ids {
		if err := checkJobID(id); err != nil {
			return fmt.Errorf("KILL_JOB: %w", err)
		}
	}
	r.add(TypeKillJob, &KillJob{JobIDs: append([]string(nil), ids...)})
	return nil
}

// CallMeLater asks for a REQUESTED_CALL at at, which must be at least
// MinCallMeLaterDelay after now.
func (r *Reply) CallMeLater(at float64) error {
	if math.IsNaN(at) || math.IsInf(at, 0) || at < r.now+MinCallMeLaterDelay {
		return fmt.Errorf("CALL_ME_LATER at %v: must be at least %g after now=%v (Batsim aborts on a call in the past or now)", at, MinCallMeLaterDelay, r.now)
	}
	r.add(TypeCallMeLater, &CallMeLater{At: at})
	return nil
}

// SetResourceState asks for a pstate on a non-empty set of resources.
func (r *Reply) SetResourceState(res IntervalSet, pstate int) error {
	if len(res) == 0 {
		return errors.New("SET_RESOURCE_STATE: empty resource set")
	}
	if pstate < 0 {
		return fmt.Errorf("SET_RESOURCE_STATE: negative pstate %d", pstate)
	}
	r.add(TypeSetResourceState, &SetResourceState{Resources: NewIntervalSet(res...), PState: pstate})
	return nil
}

// SetJobMetadata sets a job's metadata column (no double quotes allowed).
func (r *Reply) SetJobMetadata(id, metadata string) error {
	if err := checkJobID(id); err != nil {
		return fmt.Errorf("SET_JOB_METADATA: %w", err)
	}
	if strings.Contains(metadata, `"`) {
		return fmt.Errorf("SET_JOB_METADATA %s: metadata must not contain a double quote", id)
	}
	r.add(TypeSetJobMetadata, &SetJobMetadata{JobID: id, Metadata: metadata})
	return nil
}

// ChangeJobState forces the state of a job.
func (r *Reply) ChangeJobState(id, state, killReason string) error {
	if err := checkJobID(id); err != nil {
		return fmt.Errorf("CHANGE_JOB_STATE: %w", err)
	}
	switch state {
	case StateNotSubmitted, StateRunning, StateSuccess, StateWalltimeReached, StateKilled, StateRejected:
	default:
		return fmt.Errorf("CHANGE_JOB_STATE %s: state %q cannot be requested", id, state)
	}
	r.add(TypeChangeJobState, &ChangeJobState{JobID: id, JobState: state, KillReason: killReason})
	return nil
}

// RegisterProfile registers a profile (dynamic jobs).
func (r *Reply) RegisterProfile(workload, name string, profile json.RawMessage) error {
	if workload == "" || name == "" || strings.Contains(workload, "!") {
		return fmt.Errorf("REGISTER_PROFILE: bad workload %q or profile name %q", workload, name)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(profile, &obj); err != nil {
		return fmt.Errorf("REGISTER_PROFILE %s!%s: profile is not a JSON object", workload, name)
	}
	if _, ok := obj["type"]; !ok {
		return fmt.Errorf("REGISTER_PROFILE %s!%s: profile has no type", workload, name)
	}
	r.add(TypeRegisterProfile, &RegisterProfile{WorkloadName: workload, ProfileName: name, Profile: compact(profile)})
	return nil
}

// RegisterJob registers a dynamic job; job must hold id, subtime, res, profile.
func (r *Reply) RegisterJob(id string, job json.RawMessage) error {
	if err := checkJobID(id); err != nil {
		return fmt.Errorf("REGISTER_JOB: %w", err)
	}
	if err := CheckRegisteredJob(job); err != nil {
		return fmt.Errorf("REGISTER_JOB %s: %w", id, err)
	}
	r.add(TypeRegisterJob, &RegisterJob{JobID: id, Job: compact(job)})
	return nil
}

// RegistrationFinished tells Batsim no more dynamic job will be registered.
func (r *Reply) RegistrationFinished() {
	r.add(TypeNotify, &Notify{Kind: NotifyRegistrationFinished})
}

// ContinueRegistration cancels a previous registration_finished.
func (r *Reply) ContinueRegistration() {
	r.add(TypeNotify, &Notify{Kind: NotifyContinueRegistration})
}

// QueryConsumedEnergy asks Batsim for the energy consumed so far (needs -E).
func (r *Reply) QueryConsumedEnergy() {
	r.add(TypeQuery, &SchedulerQuery{ConsumedEnergy: true})
}

// AnswerWaitingTime answers an estimate_waiting_time query.
func (r *Reply) AnswerWaitingTime(id string, estimate float64) error {
	if err := checkJobID(id); err != nil {
		return fmt.Errorf("ANSWER: %w", err)
	}
	r.add(TypeAnswer, &SchedulerAnswer{JobID: id, EstimatedWaitingTime: estimate})
	return nil
}

// ToJobMsg sends a message to a running job.
func (r *Reply) ToJobMsg(id, msg string) error {
	if err := checkJobID(id); err != nil {
		return fmt.Errorf("TO_JOB_MSG: %w", err)
	}
	r.add(TypeToJobMsg, &ToJobMsg{JobID: id, Msg: msg})
	return nil
}

// compact returns b without insignificant white space (b is valid JSON).
func compact(b json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return append(json.RawMessage(nil), b...)
	}
	return buf.Bytes()
}

// Encode renders the reply as compact JSON, e.g.
// {"now":1.5,"events":[{"timestamp":1.5,"type":"EXECUTE_JOB","data":{"job_id":"w0!1","alloc":"0-3"}}]}.
func (r *Reply) Encode() []byte {
	b := make([]byte, 0, 64+48*len(r.events))
	b = append(b, `{"now":`...)
	b = appendFloat(b, r.now)
	b = append(b, `,"events":[`...)
	for i, e := range r.events {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendSchedulerEvent(b, e)
	}
	return append(b, "]}"...)
}

// appendFloat writes f as batsched writes the numbers of its replies, with
// rapidjson's Writer (batsimfmt.AppendDouble: 0.0, 12.5, 10000000000.000048,
// 1e21), so that Batsim reads the same double from bucma's reply as from
// batsched's. Reply refuses non-finite values; were one to get here, it
// would be written 0 (rapidjson's Writer writes nothing, an invalid
// message).
func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, '0')
	}
	return batsimfmt.AppendDouble(b, f)
}

func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}

func appendSchedulerEvent(b []byte, e Event) []byte {
	b = append(b, `{"timestamp":`...)
	b = appendFloat(b, e.Timestamp)
	b = append(b, `,"type":`...)
	b = appendString(b, e.Type)
	b = append(b, `,"data":`...)
	b = appendSchedulerData(b, e.Data)
	return append(b, '}')
}

func appendSchedulerData(b []byte, data any) []byte {
	switch d := data.(type) {
	case *ExecuteJob:
		b = append(b, `{"job_id":`...)
		b = appendString(b, d.JobID)
		b = append(b, `,"alloc":`...)
		b = appendString(b, d.Alloc.String())
		switch {
		case d.Mapping != nil:
			b = append(b, `,"mapping":{`...)
			for i := 0; i < len(d.Mapping); i++ {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, '"')
				b = strconv.AppendInt(b, int64(i), 10)
				b = append(b, `":`...)
				b = strconv.AppendInt(b, int64(d.Mapping[i]), 10)
			}
			b = append(b, '}')
		case d.StorageMapping != nil:
			keys := make([]string, 0, len(d.StorageMapping))
			for k := range d.StorageMapping {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			b = append(b, `,"storage_mapping":{`...)
			for i, k := range keys {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendString(b, k)
				b = append(b, ':')
				b = strconv.AppendInt(b, int64(d.StorageMapping[k]), 10)
			}
			b = append(b, '}')
		case d.AdditionalIOJob != nil:
			b = append(b, `,"additional_io_job":`...)
			b = append(b, d.AdditionalIOJob...)
		}
		return append(b, '}')
	case *RejectJob:
		b = append(b, `{"job_id":`...)
		b = appendString(b, d.JobID)
		return append(b, '}')
	case *KillJob:
		b = append(b, `{"job_ids":[`...)
		for i, id := range d.JobIDs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, id)
		}
		return append(b, "]}"...)
	case *CallMeLater:
		b = append(b, `{"timestamp":`...)
		b = appendFloat(b, d.At)
		return append(b, '}')
	case *SetResourceState:
		b = append(b, `{"resources":`...)
		b = appendString(b, d.Resources.String())
		b = append(b, `,"state":"`...)
		b = strconv.AppendInt(b, int64(d.PState), 10)
		return append(b, `"}`...)
	case *SetJobMetadata:
		b = append(b, `{"job_id":`...)
		b = appendString(b, d.JobID)
		b = append(b, `,"metadata":`...)
		b = appendString(b, d.Metadata)
		return append(b, '}')
	case *ChangeJobState:
		b = append(b, `{"job_id":`...)
		b = appendString(b, d.JobID)
		b = append(b, `,"job_state":`...)
		b = appendString(b, d.JobState)
		if d.KillReason != "" {
			b = append(b, `,"kill_reason":`...)
			b = appendString(b, d.KillReason)
		}
		return append(b, '}')
	case *RegisterProfile:
		b = append(b, `{"workload_name":`...)
		b = appendString(b, d.WorkloadName)
		b = append(b, `,"profile_name":`...)
		b = appendString(b, d.ProfileName)
		b = append(b, `,"profile":`...)
		b = append(b, d.Profile...)
		return append(b, '}')
	case *RegisterJob:
		b = append(b, `{"job_id":`...)
		b = appendString(b, d.JobID)
		b = append(b, `,"job":`...)
		b = append(b, d.Job...)
		return append(b, '}')
	case *Notify:
		b = append(b, `{"type":`...)
		b = appendString(b, d.Kind)
		return append(b, '}')
	case *SchedulerQuery:
		return append(b, `{"requests":{"consumed_energy":{}}}`...)
	case *SchedulerAnswer:
		b = append(b, `{"estimate_waiting_time":{"job_id":`...)
		b = appendString(b, d.JobID)
		b = append(b, `,"estimated_waiting_time":`...)
		b = appendFloat(b, d.EstimatedWaitingTime)
		return append(b, "}}"...)
	case *ToJobMsg:
		b = append(b, `{"job_id":`...)
		b = appendString(b, d.JobID)
		b = append(b, `,"msg":`...)
		b = appendString(b, d.Msg)
		return append(b, '}')
	}
	return append(b, "{}"...)
}

// StopReply is the answer to a message the scheduler cannot go on from (a
// message that does not decode, an error of the handler): a reply that
// makes Batsim stop rather than wait forever. Batsim has no event by which
// a scheduler ends a simulation, and a closed connection does not end its
// wait (its REQ socket reconnects and keeps waiting); but a SET_RESOURCE_STATE
// whose resources do not parse as an interval set makes Batsim 3 and 4 throw
// a runtime error that it handles like a broken connection: it logs it
// ("Runtime error received: Invalid JSON message: ... part
// 'bucma_stopped_on_an_error:see_the_scheduler's_log' cannot be parsed"),
// writes its output files with the jobs done so far, and aborts (Batsim
// 4.2.1 exits with status 134). bucma's embedded engine refuses it as an
// invalid interval set naming the same text.
func StopReply(now float64) []byte {
	if math.IsNaN(now) || math.IsInf(now, 0) || now < 0 {
		now = 0
	}
	b := append([]byte(`{"now":`), appendFloat(nil, now)...)
	b = append(b, `,"events":[{"timestamp":`...)
	b = appendFloat(b, now)
	b = append(b, `,"type":"`+TypeSetResourceState+`","data":{"resources":`...)
	b = appendString(b, stopResources)
	return append(b, `,"state":"0"}}]}`...)
}

// stopResources is the resources of StopReply: no interval set, the first
// word of which Batsim quotes in its log.
const stopResources = "bucma_stopped_on_an_error:see_the_scheduler's_log"
