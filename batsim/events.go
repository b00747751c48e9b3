// Package batsim holds the wire types of Batsim's JSON protocol (Batsim
// 3.1 to 4.2.1): every event both ways, their decoding with Batsim's own
// reading rules and their encoding as batsched writes them, interval sets
// and job ids. It is pure Go: the ZeroMQ loop that serves a scheduler to
// Batsim is package batsim/zmq.
package batsim

import (
	"fmt"
	"strings"

	json "github.com/goccy/go-json"
)

// Event types, in both directions.
const (
	// Batsim -> scheduler.
	TypeSimulationBegins     = "SIMULATION_BEGINS"
	TypeSimulationEnds       = "SIMULATION_ENDS"
	TypeJobSubmitted         = "JOB_SUBMITTED"
	TypeJobCompleted         = "JOB_COMPLETED"
	TypeJobKilled            = "JOB_KILLED"
	TypeResourceStateChanged = "RESOURCE_STATE_CHANGED"
	TypeRequestedCall        = "REQUESTED_CALL"
	TypeFromJobMsg           = "FROM_JOB_MSG"
	// Both directions.
	TypeNotify = "NOTIFY"
	TypeQuery  = "QUERY"
	TypeAnswer = "ANSWER"
	// Scheduler -> Batsim.
	TypeExecuteJob       = "EXECUTE_JOB"
	TypeRejectJob        = "REJECT_JOB"
	TypeKillJob          = "KILL_JOB"
	TypeCallMeLater      = "CALL_ME_LATER"
	TypeSetResourceState = "SET_RESOURCE_STATE"
	TypeSetJobMetadata   = "SET_JOB_METADATA"
	TypeChangeJobState   = "CHANGE_JOB_STATE"
	TypeRegisterProfile  = "REGISTER_PROFILE"
	TypeRegisterJob      = "REGISTER_JOB"
	TypeToJobMsg         = "TO_JOB_MSG"
)

// Job states as Batsim names them.
const (
	StateNotSubmitted    = "NOT_SUBMITTED"
	StateSubmitted       = "SUBMITTED"
	StateRunning         = "RUNNING"
	StateSuccess         = "COMPLETED_SUCCESSFULLY"
	StateFailed          = "COMPLETED_FAILED"
	StateWalltimeReached = "COMPLETED_WALLTIME_REACHED"
	StateKilled          = "COMPLETED_KILLED"
	StateRejected        = "REJECTED"
)

// NOTIFY kinds.
const (
	NotifyNoMoreStaticJobToSubmit    = "no_more_static_job_to_submit"
	NotifyNoMoreExternalEventToOccur = "no_more_external_event_to_occur"
	NotifyMachineUnavailable         = "event_machine_unavailable"
	NotifyMachineAvailable           = "event_machine_available"
	NotifyRegistrationFinished       = "registration_finished"
	NotifyContinueRegistration       = "continue_registration"
)

// Direction says who sent a message; some event types (NOTIFY, QUERY, ANSWER)
// carry different data in each direction.
type Direction int

// The directions.
const (
	FromBatsim    Direction = iota // Batsim's messages to the scheduler
	FromScheduler                  // the scheduler's replies
)

// String names the direction.
func (d Direction) String() string {
	if d == FromBatsim {
		return "batsim->sched"
	}
	return "sched->batsim"
}

// Message is one protocol message: the sender's current time and its events.
type Message struct {
	Now    float64
	Events []Event
}

// Event is one event of a message. Data holds a pointer to the typed payload
// of the event's type (e.g. *JobSubmitted); for an event type this package
// does not know, Data is *Unknown.
type Event struct {
	Timestamp float64
	Type      string
	Data      any
}

// Unknown keeps the raw data of an event type this package does not know.
type Unknown struct {
	Raw json.RawMessage
}

// ---------------------------------------------------------------- Batsim -> scheduler

// SimulationBegins is the first event Batsim sends.
type SimulationBegins struct {
	NbResources         int                                   `json:"nb_resources"`
	NbComputeResources  int                                   `json:"nb_compute_resources"`
	NbStorageResources  int                                   `json:"nb_storage_resources"`
	AllowComputeSharing bool                                  `json:"allow_compute_sharing"`
	AllowStorageSharing bool                                  `json:"allow_storage_sharing"`
	Config              Config                                `json:"config"`
	ComputeResources    []Resource                            `json:"compute_resources"`
	StorageResources    []Resource                            `json:"storage_resources"`
	Workloads           map[string]string                     `json:"workloads"`
	Profiles            map[string]map[string]json.RawMessage `json:"profiles,omitempty"`
}

// Config is SIMULATION_BEGINS' config object. Keys newer than Batsim 3.1
// (profile-reuse-enabled, sched-config) are absent from older Batsims and
// decode as their zero values.
type Config struct {
	RedisEnabled                  bool   `json:"redis-enabled"`
	RedisHostname                 string `json:"redis-hostname"`
	RedisPort                     int    `json:"redis-port"`
	RedisPrefix                   string `json:"redis-prefix"`
	ProfilesForwardedOnSubmission bool   `json:"profiles-forwarded-on-submission"`
	DynamicJobsEnabled            bool   `json:"dynamic-jobs-enabled"`
	DynamicJobsAcknowledged       bool   `json:"dynamic-jobs-acknowledged"`
	ProfileReuseEnabled           bool   `json:"profile-reuse-enabled"`
	SchedConfig                   string `json:"sched-config"`
	ForwardUnknownEvents          bool   `json:"forward-unknown-events"`
}

// Resource is one compute or storage resource of SIMULATION_BEGINS.
type Resource struct {
	ID             int               `json:"id"`
	Name           string            `json:"name"`
	State          string            `json:"state"`
	Properties     map[string]string `json:"properties"`
	ZoneProperties map[string]string `json:"zone_properties"`
}

// SimulationEnds has no payload.
type SimulationEnds struct{}

// JobSubmitted announces a new job. Job is the job description as Batsim
// forwards it (the workload's object with its custom fields, id rewritten to
// the full "workload!name" form); Profile is present only with
// --forward-profiles-on-submission.
type JobSubmitted struct {
	JobID   string          `json:"job_id"`
	Job     json.RawMessage `json:"job,omitempty"`
	Profile json.RawMessage `json:"profile,omitempty"`
	// Fields, when set, are the job's fields a scheduler reads from Job,
	// with the values it would read there: an engine in the scheduler's
	// process hands them over as values (and then leaves Job empty unless
	// the scheduler asks for it), so that the job is not written as JSON
	// by one side and read back by the other. Nil from the wire.
	Fields *JobFields `json:"-"`
}

// JobFields are the fields of a job's description (JOB_SUBMITTED's job
// object) a scheduler reads, with the values a reader of the JSON text gets
// (numbers read as rapidjson reads them).
type JobFields struct {
	Res      int
	Walltime float64 // 0 when the job has none (absent, or not positive)
	Profile  string
	// User is the "user" member when it is a string, else "user_id"'s.
	User string
}

// JobCompleted reports the end of a job.
type JobCompleted struct {
	JobID      string `json:"job_id"`
	JobState   string `json:"job_state"`
	ReturnCode int    `json:"return_code"`
	Alloc      string `json:"alloc"`
	// AllocSet, when set, is the set Alloc writes: an engine in the
	// scheduler's process hands it over as a value. Nil from the wire.
	AllocSet IntervalSet `json:"-"`
}

// JobKilled acknowledges a KILL_JOB.
type JobKilled struct {
	JobIDs      []string                `json:"job_ids"`
	JobProgress map[string]*JobProgress `json:"job_progress"`
}

// JobProgress is the progress tree of a killed job: a leaf has Progress, a
// sequence has CurrentTaskIndex and CurrentTask. Batsim 4.2.1 writes the key
// "profile_name" (its documentation says "profile"); both are read.
type JobProgress struct {
	ProfileName      string       `json:"profile_name"`
	Progress         *float64     `json:"progress,omitempty"`
	CurrentTaskIndex *int         `json:"current_task_index,omitempty"`
	CurrentTask      *JobProgress `json:"current_task,omitempty"`
}

// UnmarshalJSON accepts both "profile_name" (what Batsim sends) and
// "profile" (what its documentation shows).
func (p *JobProgress) UnmarshalJSON(b []byte) error {
	var w struct {
		ProfileName      *string      `json:"profile_name"`
		Profile          *string      `json:"profile"`
		Progress         *Double      `json:"progress"`
		CurrentTaskIndex *int         `json:"current_task_index"`
		CurrentTask      *JobProgress `json:"current_task"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*p = JobProgress{CurrentTaskIndex: w.CurrentTaskIndex, CurrentTask: w.CurrentTask}
	if w.Progress != nil {
		v := float64(*w.Progress)
		p.Progress = &v
	}
	if w.ProfileName != nil {
		p.ProfileName = *w.ProfileName
	} else if w.Profile != nil {
		p.ProfileName = *w.Profile
	}
	return nil
}

// ResourceStateChanged acknowledges SET_RESOURCE_STATE. State is a pstate
// number written as a decimal string.
type ResourceStateChanged struct {
	Resources string `json:"resources"`
	State     string `json:"state"`
}

// RequestedCall answers a CALL_ME_LATER; it has no payload.
type RequestedCall struct{}

// FromJobMsg carries the message of a running job with a "send" profile.
type FromJobMsg struct {
	JobID string          `json:"job_id"`
	Msg   json.RawMessage `json:"msg"`
}

// Notify is a NOTIFY in either direction. Resources is set for the machine
// (un)availability kinds; Raw keeps the whole data object (generic external
// events forward their own fields).
type Notify struct {
	Kind      string          `json:"type"`
	Resources string          `json:"resources,omitempty"`
	Raw       json.RawMessage `json:"-"`
}

// BatsimQuery is a QUERY from Batsim (estimate_waiting_time; Batsim 3/4
// never sends it in practice).
type BatsimQuery struct {
	Requests map[string]json.RawMessage `json:"requests"`
}

// BatsimAnswer is Batsim's ANSWER to a consumed_energy query.
type BatsimAnswer struct {
	ConsumedEnergy float64 `json:"consumed_energy"`
}

// ---------------------------------------------------------------- scheduler -> Batsim

// ExecuteJob starts a job. At most one of the optional keys may be set
// (Batsim 4 aborts when data has more than three members).
type ExecuteJob struct {
	JobID           string          `json:"job_id"`
	Alloc           IntervalSet     `json:"-"`
	Mapping         map[int]int     `json:"-"`
	StorageMapping  map[string]int  `json:"-"`
	AdditionalIOJob json.RawMessage `json:"-"`
}

// RejectJob rejects a job that is still waiting.
type RejectJob struct {
	JobID string `json:"job_id"`
}

// KillJob kills running jobs.
type KillJob struct {
	JobIDs []string `json:"job_ids"`
}

// CallMeLater asks for a REQUESTED_CALL at At (strictly in the future).
type CallMeLater struct {
	At float64 `json:"timestamp"`
}

// SetResourceState asks to put resources in a pstate (needs Batsim -E).
type SetResourceState struct {
	Resources IntervalSet
	PState    int
}

// SetJobMetadata sets the metadata column of a job in _jobs.csv. The text
// may not contain a double quote.
type SetJobMetadata struct {
	JobID    string `json:"job_id"`
	Metadata string `json:"metadata"`
}

// ChangeJobState forces a job state (rarely needed).
type ChangeJobState struct {
	JobID      string `json:"job_id"`
	JobState   string `json:"job_state"`
	KillReason string `json:"kill_reason,omitempty"`
}

// RegisterProfile registers a profile for dynamic jobs.
type RegisterProfile struct {
	WorkloadName string          `json:"workload_name"`
	ProfileName  string          `json:"profile_name"`
	Profile      json.RawMessage `json:"profile"`
}

// RegisterJob registers a dynamic job. Job must hold id, subtime, res and
// profile (Batsim 4.2.1 aborts without subtime).
type RegisterJob struct {
	JobID string          `json:"job_id"`
	Job   json.RawMessage `json:"job"`
}

// SchedulerQuery is the scheduler's QUERY; consumed_energy is the only
// request Batsim accepts.
type SchedulerQuery struct {
	ConsumedEnergy bool
}

// SchedulerAnswer answers an estimate_waiting_time query.
type SchedulerAnswer struct {
	JobID                string  `json:"job_id"`
	EstimatedWaitingTime float64 `json:"estimated_waiting_time"`
}

// ToJobMsg sends a message to a running job with a "recv" profile.
type ToJobMsg struct {
	JobID string `json:"job_id"`
	Msg   string `json:"msg"`
}

// ---------------------------------------------------------------- job ids

// JobID is a parsed "workload!name" job identifier.
type JobID struct {
	Workload string
	Name     string
}

// ParseJobID splits a full job id. Like Batsim, repeated '!' are compressed
// ("a!!b" is "a!b"); an id without exactly two non-empty parts is an error.
func ParseJobID(id string) (JobID, error) {
	if i := strings.IndexByte(id, '!'); i > 0 && i < len(id)-1 && strings.IndexByte(id[i+1:], '!') < 0 {
		// One '!' between two non-empty parts (every id Batsim
		// writes): no slice of parts to allocate.
		return JobID{Workload: id[:i], Name: id[i+1:]}, nil
	}
	parts := strings.FieldsFunc(id, func(r rune) bool { return r == '!' })
	if len(parts) != 2 || strings.HasPrefix(id, "!") || strings.HasSuffix(id, "!") {
		return JobID{}, fmt.Errorf("job id %q: want \"workload!name\"", id)
	}
	return JobID{Workload: parts[0], Name: parts[1]}, nil
}

// String is the full id, "workload!name".
func (j JobID) String() string { return j.Workload + "!" + j.Name }
