// Package v5 holds the wire types of Batsim 5's protocol (batprotocol, in
// its JSON form), their decoding and encoding, and the adapter that lets a
// decision process written for Batsim 4's protocol (package batsim) serve
// Batsim 5 as an external decision component (EDC): Batsim 5's events are
// translated into the Batsim 4 message the process understands, and its
// Batsim 4 reply into Batsim 5 decisions.
//
// The JSON form is the one flatbuffers' text generator writes for
// batprotocol's schema (the schema compiled into Batsim 5.0.0-rc2): a
// message is {"now": t, "events": [{"timestamp": t, "event_type": NAME,
// "event": {...}}]}; a union field U is written as "U_type" (the member's
// table name) and "U" (its object); enumerations are written as their
// identifiers. Fields absent from a message take the schema's defaults.
package v5

import json "github.com/goccy/go-json"

// Event type names (the members of batprotocol's Event union).
const (
	// Batsim -> decision component.
	TypeBatsimHello                             = "BatsimHelloEvent"
	TypeSimulationBegins                        = "SimulationBeginsEvent"
	TypeSimulationEnds                          = "SimulationEndsEvent"
	TypeJobSubmitted                            = "JobSubmittedEvent"
	TypeJobCompleted                            = "JobCompletedEvent"
	TypeJobsKilled                              = "JobsKilledEvent"
	TypeRequestedCall                           = "RequestedCallEvent"
	TypeAllStaticJobsHaveBeenSubmitted          = "AllStaticJobsHaveBeenSubmittedEvent"
	TypeAllStaticExternalEventsHaveBeenInjected = "AllStaticExternalEventsHaveBeenInjectedEvent"
	TypeExternalEventOccurred                   = "ExternalEventOccurredEvent"
	TypeHostsPStateChanged                      = "HostsPStateChangedEvent"
	TypeHostsTurnedOnOff                        = "HostsTurnedOnOffEvent"
	TypeProbeDataEmitted                        = "ProbeDataEmittedEvent"
	// Decision component -> Batsim.
	TypeEDCHello            = "EDCHelloEvent"
	TypeExecuteJob          = "ExecuteJobEvent"
	TypeRejectJob           = "RejectJobEvent"
	TypeKillJobs            = "KillJobsEvent"
	TypeRegisterProfile     = "RegisterProfileEvent"
	TypeRegisterJob         = "RegisterJobEvent"
	TypeFinishRegistration  = "FinishRegistrationEvent"
	TypeCallMeLater         = "CallMeLaterEvent"
	TypeStopCallMeLater     = "StopCallMeLaterEvent"
	TypeChangeHostsPState   = "ChangeHostsPStateEvent"
	TypeTurnOnOffHosts      = "TurnOnOffHostsEvent"
	TypeForceSimulationStop = "ForceSimulationStopEvent"
	TypeCreateProbe         = "CreateProbeEvent"
	TypeStopProbe           = "StopProbeEvent"
	TypeResetProbe          = "ResetProbeEvent"
	TypeTriggerProbe        = "TriggerProbeEvent"
)

// Formats of the first exchange's flags (batsim_edc.h).
const (
	FormatBinary uint32 = 0x1 // flatbuffers' binary format
	FormatJSON   uint32 = 0x2 // flatbuffers' JSON format (NUL-terminated text)
)

// ProtocolVersion is the batprotocol version bucma speaks.
const ProtocolVersion = "0.1.0"

// Message is one batprotocol message: the sender's current time and its
// events.
type Message struct {
	Now    float64
	Events []Event
}

// Event is one event of a message. Data points to the typed payload of the
// event's type (e.g. *JobSubmitted); an event type this package does not
// know keeps its raw object in *Unknown.
type Event struct {
	Timestamp float64
	Type      string
	Data      any
}

// Unknown keeps the raw object of an event type this package does not know.
type Unknown struct {
	Raw json.RawMessage
}

// ---------------------------------------------------------------- hosts, jobs, profiles

// HostProperty is one property of a host (a key and its value).
type HostProperty struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Host states (batprotocol's HostState).
const (
	HostSleeping     = "SLEEPING"
	HostIdle         = "IDLE"
	HostComputing    = "COMPUTING"
	HostSwitchingOn  = "SWITCHING_ON"
	HostSwitchingOff = "SWITCHING_OFF"
)

// Host is one host of SimulationBeginsEvent.
type Host struct {
	ID               uint32         `json:"id"`
	Name             string         `json:"name"`
	PState           uint32         `json:"pstate"`
	PStateCount      uint32         `json:"pstate_count"`
	State            string         `json:"state"`
	Properties       []HostProperty `json:"properties"`
	ZoneProperties   []HostProperty `json:"zone_properties"`
	CoreCount        uint32         `json:"core_count"`
	ComputationSpeed []float64      `json:"computation_speed"`
}

// UnmarshalJSON applies the schema's defaults (pstate_count and core_count
// 1, state SLEEPING) to absent fields.
func (h *Host) UnmarshalJSON(b []byte) error {
	type plain Host
	p := plain{PStateCount: 1, CoreCount: 1, State: HostSleeping}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*h = Host(p)
	return nil
}

// Job is a job's description (JobSubmittedEvent, RegisterJobEvent).
// Walltime is nil when the job has none.
type Job struct {
	ResourceRequest uint32   `json:"resource_request"`
	Walltime        *float64 `json:"walltime"`
	ExtraData       string   `json:"extra_data"`
	Rigid           bool     `json:"rigid"`
	ProfileID       string   `json:"profile_id"`
}

// UnmarshalJSON applies the schema's default (rigid) to an absent field.
func (j *Job) UnmarshalJSON(b []byte) error {
	type plain Job
	p := plain{Rigid: true}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*j = Job(p)
	return nil
}

// Profile is a member of batprotocol's Profile union: *DelayProfile,
// *ParallelTaskProfile, *ParallelTaskHomogeneousProfile,
// *SequentialCompositionProfile, *ForkJoinCompositionProfile,
// *ParallelTaskMergeCompositionProfile,
// *ParallelTaskOnStorageHomogeneousProfile,
// *ParallelTaskDataStagingBetweenStoragesProfile or *TraceReplayProfile.
type Profile interface{ profileType() string }

// DelayProfile waits Delay seconds.
type DelayProfile struct {
	Delay float64 `json:"delay"`
}

// ParallelTaskProfile computes ComputationVector[i] flop on executor i and
// sends CommunicationMatrix[i*n+k] bytes from executor i to k.
type ParallelTaskProfile struct {
	ComputationVector   []float64 `json:"computation_vector"`
	CommunicationMatrix []float64 `json:"communication_matrix"`
}

// Generation strategies of homogeneous parallel tasks.
const (
	AmountsUsedForEachValue = "DefinedAmountsUsedForEachValue"
	AmountsSpreadUniformly  = "DefinedAmountsSpreadUniformly"
)

// ParallelTaskHomogeneousProfile computes ComputationAmount flop on every
// executor (AmountsUsedForEachValue) or in all (AmountsSpreadUniformly).
type ParallelTaskHomogeneousProfile struct {
	ComputationAmount   float64 `json:"computation_amount"`
	CommunicationAmount float64 `json:"communication_amount"`
	GenerationStrategy  string  `json:"generation_strategy"`
}

// SequentialCompositionProfile runs ProfileIDs in order, RepetitionCount
// times.
type SequentialCompositionProfile struct {
	RepetitionCount uint32   `json:"repetition_count"`
	ProfileIDs      []string `json:"profile_ids"`
}

// ForkJoinCompositionProfile runs ProfileIDs at once.
type ForkJoinCompositionProfile struct {
	ProfileIDs []string `json:"profile_ids"`
}

// ParallelTaskMergeCompositionProfile merges ProfileIDs into one task.
type ParallelTaskMergeCompositionProfile struct {
	ProfileIDs []string `json:"profile_ids"`
}

// ParallelTaskOnStorageHomogeneousProfile reads and writes bytes on a
// storage.
type ParallelTaskOnStorageHomogeneousProfile struct {
	StorageName        string  `json:"storage_name"`
	BytesToRead        float64 `json:"bytes_to_read"`
	BytesToWrite       float64 `json:"bytes_to_write"`
	GenerationStrategy string  `json:"generation_strategy"`
}

// ParallelTaskDataStagingBetweenStoragesProfile moves bytes between two
// storages.
type ParallelTaskDataStagingBetweenStoragesProfile struct {
	BytesToTransfer     float64 `json:"bytes_to_transfer"`
	EmitterStorageName  string  `json:"emitter_storage_name"`
	ReceiverStorageName string  `json:"receiver_storage_name"`
}

// TraceReplayProfile replays a trace (TraceType SMPI or
// FractionalComputation).
type TraceReplayProfile struct {
	TraceType string `json:"trace_type"`
	Filename  string `json:"filename"`
}

func (*DelayProfile) profileType() string                   { return "DelayProfile" }
func (*ParallelTaskProfile) profileType() string            { return "ParallelTaskProfile" }
func (*ParallelTaskHomogeneousProfile) profileType() string { return "ParallelTaskHomogeneousProfile" }
func (*SequentialCompositionProfile) profileType() string   { return "SequentialCompositionProfile" }
func (*ForkJoinCompositionProfile) profileType() string     { return "ForkJoinCompositionProfile" }
func (*ParallelTaskMergeCompositionProfile) profileType() string {
	return "ParallelTaskMergeCompositionProfile"
}
func (*ParallelTaskOnStorageHomogeneousProfile) profileType() string {
	return "ParallelTaskOnStorageHomogeneousProfile"
}
func (*ParallelTaskDataStagingBetweenStoragesProfile) profileType() string {
	return "ParallelTaskDataStagingBetweenStoragesProfile"
}
func (*TraceReplayProfile) profileType() string { return "TraceReplayProfile" }

// ProfileType is the union member name of p ("DelayProfile", ...).
func ProfileType(p Profile) string { return p.profileType() }

// ProfileAndID is a profile with its "workload!name" id.
type ProfileAndID struct {
	ID        string
	Profile   Profile
	ExtraData string
}

// WorkloadAndFilename names a static workload.
type WorkloadAndFilename struct {
	Name     string `json:"name"`
	Filename string `json:"filename"`
}

// ExternalEventListAndFilename names a static list of external events.
type ExternalEventListAndFilename struct {
	Name     string `json:"name"`
	Filename string `json:"filename"`
}

// ---------------------------------------------------------------- Batsim -> decision component

// BatsimHello is Batsim's hello (a decision component called as a library
// with an older handshake receives it first).
type BatsimHello struct {
	BatprotocolVersion string `json:"batprotocol_version"`
	BatsimVersion      string `json:"batsim_version"`
	BatsimCommit       string `json:"batsim_commit"`
}

// SimulationBegins is the first event of a simulation.
type SimulationBegins struct {
	HostNumber                 uint32                         `json:"host_number"`
	ComputationHostNumber      uint32                         `json:"computation_host_number"`
	ComputationHosts           []Host                         `json:"computation_hosts"`
	StorageHostNumber          uint32                         `json:"storage_host_number"`
	StorageHosts               []Host                         `json:"storage_hosts"`
	BatsimArguments            []string                       `json:"batsim_arguments"`
	BatsimExecutionContextJSON string                         `json:"batsim_execution_context_json"`
	Workloads                  []WorkloadAndFilename          `json:"workloads"`
	Profiles                   []ProfileAndID                 `json:"profiles"`
	ExternalEventLists         []ExternalEventListAndFilename `json:"external_event_lists"`
	BatsimVersion              string                         `json:"batsim_version"`
	BatsimCommit               string                         `json:"batsim_commit"`
}

// SimulationEnds has no payload.
type SimulationEnds struct{}

// JobSubmitted announces a job. Profile is set when the decision component
// asked for forward_profiles_on_job_submission.
type JobSubmitted struct {
	JobID          string        `json:"job_id"`
	Job            Job           `json:"job"`
	SubmissionTime float64       `json:"submission_time"`
	Profile        *ProfileAndID `json:"profile,omitempty"`
}

// Final job states (batprotocol's FinalJobState).
const (
	StateSuccess         = "COMPLETED_SUCCESSFULLY"
	StateFailed          = "COMPLETED_FAILED"
	StateWalltimeReached = "COMPLETED_WALLTIME_REACHED"
	StateKilled          = "COMPLETED_KILLED"
	StateRejected        = "REJECTED"
)

// JobCompleted reports the end of a job.
type JobCompleted struct {
	JobID      string `json:"job_id"`
	State      string `json:"state"`
	ReturnCode uint32 `json:"return_code"`
}

// KillProgress is a member of batprotocol's KillProgress union:
// *KillProgressAtomic, *KillProgressSequential or *KillProgressForkJoin.
type KillProgress interface{ killProgressType() string }

// KillProgressAtomic is the progress of an atomic profile, in [0,1].
type KillProgressAtomic struct {
	ProfileID string  `json:"profile_id"`
	Progress  float64 `json:"progress"`
}

// KillProgressSequential is the progress of a sequential composition: the
// repetition and task it was at, and that task's progress.
type KillProgressSequential struct {
	ProfileID           string
	CurrentRepetition   uint32
	CurrentTaskIndex    uint32
	CurrentTaskProgress KillProgress
}

// KillProgressForkJoin is the progress of every task of a fork-join
// composition.
type KillProgressForkJoin struct {
	ProfileID     string
	TasksProgress []KillProgress
}

func (*KillProgressAtomic) killProgressType() string     { return "KillProgressAtomicProfile" }
func (*KillProgressSequential) killProgressType() string { return "KillProgressSequentialProfile" }
func (*KillProgressForkJoin) killProgressType() string   { return "KillProgressForkJoinProfile" }

// JobAndProgress is the progress of one killed job.
type JobAndProgress struct {
	JobID    string
	Progress KillProgress
}

// JobsKilled acknowledges a KillJobsEvent. Profiles is set when the
// decision component asked for forward_profiles_on_jobs_killed.
type JobsKilled struct {
	JobIDs     []string         `json:"job_ids"`
	Progresses []JobAndProgress `json:"progresses"`
	Profiles   []ProfileAndID   `json:"profiles,omitempty"`
}

// RequestedCall answers a CallMeLaterEvent.
type RequestedCall struct {
	CallMeLaterID    string `json:"call_me_later_id"`
	LastPeriodicCall bool   `json:"last_periodic_call"`
}

// AllStaticJobsHaveBeenSubmitted has no payload.
type AllStaticJobsHaveBeenSubmitted struct{}

// AllStaticExternalEventsHaveBeenInjected has no payload.
type AllStaticExternalEventsHaveBeenInjected struct{}

// ExternalEventOccurred forwards an external event; Data is the event's
// JSON description (batprotocol's GenericExternalEvent, its only kind).
type ExternalEventOccurred struct {
	ID   string
	Data string
}

// HostsPStateChanged acknowledges a ChangeHostsPStateEvent: HostIDs (an
// interval set, "0-3 7") are in PState.
type HostsPStateChanged struct {
	HostIDs string `json:"host_ids"`
	PState  uint32 `json:"pstate"`
}

// HostsTurnedOnOff acknowledges a TurnOnOffHostsEvent (State 0: on, 1: off).
type HostsTurnedOnOff struct {
	HostIDs string `json:"host_ids"`
	State   uint32 `json:"state"`
}

// ProbeDataEmitted carries a probe's measure. The members of its unions
// are kept as their raw objects.
type ProbeDataEmitted struct {
	ProbeID           string          `json:"probe_id"`
	ResourcesType     string          `json:"resources_type,omitempty"`
	Resources         json.RawMessage `json:"resources,omitempty"`
	Metrics           string          `json:"metrics"`
	DataType          string          `json:"data_type,omitempty"`
	Data              json.RawMessage `json:"data,omitempty"`
	ManuallyTriggered bool            `json:"manually_triggered"`
	NbEmitted         uint32          `json:"nb_emitted"`
	NbTriggered       uint32          `json:"nb_triggered"`
}

// ---------------------------------------------------------------- decision component -> Batsim

// RequestedFeatures are the simulation features a decision component asks
// for in its hello.
type RequestedFeatures struct {
	DynamicRegistration               bool `json:"dynamic_registration"`
	ProfileReuse                      bool `json:"profile_reuse"`
	AcknowledgeDynamicJobs            bool `json:"acknowledge_dynamic_jobs"`
	ForwardProfilesOnJobSubmission    bool `json:"forward_profiles_on_job_submission"`
	ForwardProfilesOnJobsKilled       bool `json:"forward_profiles_on_jobs_killed"`
	ForwardProfilesOnSimulationBegins bool `json:"forward_profiles_on_simulation_begins"`
	ForwardUnknownExternalEvents      bool `json:"forward_unknown_external_events"`
}

// Job allocation validation strategies.
const (
	ValidateNone              = "None"
	ValidateExactly           = "MatchJobRequestExactly"
	ValidateBigEnough         = "MatchJobRequestBigEnough"
	defaultAllocationStrategy = ValidateExactly
)

// SchedulingConstraints are the rules a decision component asks Batsim to
// hold it to.
type SchedulingConstraints struct {
	ComputeSharing                  bool   `json:"compute_sharing"`
	StorageSharing                  bool   `json:"storage_sharing"`
	JobAllocationValidationStrategy string `json:"job_allocation_validation_strategy"`
}

// UnmarshalJSON applies the schema's defaults (storage sharing,
// MatchJobRequestExactly) to absent fields.
func (c *SchedulingConstraints) UnmarshalJSON(b []byte) error {
	type plain SchedulingConstraints
	p := plain{StorageSharing: true, JobAllocationValidationStrategy: defaultAllocationStrategy}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*c = SchedulingConstraints(p)
	return nil
}

// DefaultConstraints are the schema's default constraints.
func DefaultConstraints() SchedulingConstraints {
	return SchedulingConstraints{StorageSharing: true, JobAllocationValidationStrategy: defaultAllocationStrategy}
}

// EDCHello is the decision component's hello, its answer to the
// initialization. Batsim 5.0.0-rc2 reads decision_component_commit and
// requested_simulation_features without checking that they are present
// (it crashes without them), so both are always written.
type EDCHello struct {
	BatprotocolVersion       string                 `json:"batprotocol_version"`
	DecisionComponentName    string                 `json:"decision_component_name"`
	DecisionComponentVersion string                 `json:"decision_component_version"`
	DecisionComponentCommit  string                 `json:"decision_component_commit"`
	RequestedFeatures        RequestedFeatures      `json:"requested_simulation_features"`
	SchedulingConstraints    *SchedulingConstraints `json:"scheduling_constraints,omitempty"`
}

// Predefined executor placement strategies.
const (
	SpreadOverHostsFirst  = "SpreadOverHostsFirst"
	FillOneHostCoresFirst = "FillOneHostCoresFirst"
)

// ExecutorPlacement is a member of batprotocol's ExecutorPlacement union:
// *PredefinedPlacement or *CustomMapping.
type ExecutorPlacement interface{ placementType() string }

// PredefinedPlacement places executors with a predefined strategy.
type PredefinedPlacement struct {
	Strategy string `json:"strategy"`
}

// CustomMapping places executor i on the Mapping[i]-th host of the
// allocation.
type CustomMapping struct {
	Mapping []uint32 `json:"mapping"`
}

func (*PredefinedPlacement) placementType() string {
	return "PredefinedExecutorPlacementStrategyWrapper"
}
func (*CustomMapping) placementType() string { return "CustomExecutorToHostMapping" }

// Allocation is a job's hosts (an interval set) and the placement of its
// executors on them.
type Allocation struct {
	HostAllocation string
	Placement      ExecutorPlacement
}

// ProfileAllocation overrides the allocation of a sub-profile.
type ProfileAllocation struct {
	ProfileID      string
	HostAllocation string
	Placement      ExecutorPlacement
}

// StorageHost maps a storage name to a host.
type StorageHost struct {
	StorageName string `json:"storage_name"`
	HostID      uint32 `json:"host_id"`
}

// ExecuteJob starts a job.
type ExecuteJob struct {
	JobID                     string
	Allocation                Allocation
	ProfileAllocationOverride []ProfileAllocation
	StoragePlacement          []StorageHost
}

// RejectJob rejects a job that is still waiting.
type RejectJob struct {
	JobID string `json:"job_id"`
}

// KillJobs kills running jobs.
type KillJobs struct {
	JobIDs []string `json:"job_ids"`
}

// RegisterProfile registers a profile (dynamic registration).
type RegisterProfile struct {
	Profile ProfileAndID `json:"profile"`
}

// RegisterJob registers a job (dynamic registration); its profile must be
// known to Batsim.
type RegisterJob struct {
	JobID string `json:"job_id"`
	Job   Job    `json:"job"`
}

// FinishRegistration tells Batsim no more job will be registered.
type FinishRegistration struct{}

// Time units of temporal triggers.
const (
	Second      = "Second"
	Millisecond = "Millisecond"
)

// TemporalTrigger is a member of batprotocol's TemporalTrigger union:
// *OneShot or *Periodic.
type TemporalTrigger interface{ triggerType() string }

// OneShot fires once, at Time (in TimeUnit).
type OneShot struct {
	Time     uint64 `json:"time"`
	TimeUnit string `json:"time_unit"`
}

// Periodic fires every Period (in TimeUnit) from Offset, forever
// (NbPeriods 0) or NbPeriods times.
type Periodic struct {
	Period    uint64
	Offset    uint64
	TimeUnit  string
	Infinite  bool
	NbPeriods uint32
}

func (*OneShot) triggerType() string  { return "OneShot" }
func (*Periodic) triggerType() string { return "Periodic" }

// CallMeLater asks for RequestedCallEvents with the given id.
type CallMeLater struct {
	CallMeLaterID string
	When          TemporalTrigger
}

// StopCallMeLater cancels a (periodic) CallMeLater.
type StopCallMeLater struct {
	CallMeLaterID string `json:"call_me_later_id"`
}

// ChangeHostsPState puts hosts (an interval set) in a power state.
type ChangeHostsPState struct {
	HostIDs string `json:"host_ids"`
	PState  uint32 `json:"pstate"`
}

// TurnOnOffHosts switches hosts on (State 0) or off (1).
type TurnOnOffHosts struct {
	HostIDs string `json:"host_ids"`
	State   uint32 `json:"state"`
}

// ForceSimulationStop ends the simulation now.
type ForceSimulationStop struct{}

// CreateProbe creates a probe. The members of its unions are kept as their
// raw objects, with their types.
type CreateProbe struct {
	ProbeID                          string          `json:"probe_id"`
	Metrics                          string          `json:"metrics"`
	ResourcesType                    string          `json:"resources_type,omitempty"`
	Resources                        json.RawMessage `json:"resources,omitempty"`
	DataAccumulationStrategyType     string          `json:"data_accumulation_strategy_type,omitempty"`
	DataAccumulationStrategy         json.RawMessage `json:"data_accumulation_strategy,omitempty"`
	MeasurementTriggeringPolicyType  string          `json:"measurement_triggering_policy_type,omitempty"`
	MeasurementTriggeringPolicy      json.RawMessage `json:"measurement_triggering_policy,omitempty"`
	ResourcesAggregationFunctionType string          `json:"resources_aggregation_function_type,omitempty"`
	ResourcesAggregationFunction     json.RawMessage `json:"resources_aggregation_function,omitempty"`
	TemporalAggregationFunctionType  string          `json:"temporal_aggregation_function_type,omitempty"`
	TemporalAggregationFunction      json.RawMessage `json:"temporal_aggregation_function,omitempty"`
	EmissionFilteringPolicyType      string          `json:"emission_filtering_policy_type,omitempty"`
	EmissionFilteringPolicy          json.RawMessage `json:"emission_filtering_policy,omitempty"`
}

// StopProbe stops a probe.
type StopProbe struct {
	ProbeID string `json:"probe_id"`
}

// ResetProbe resets a probe's accumulated value.
type ResetProbe struct {
	ProbeID  string  `json:"probe_id"`
	NewValue float64 `json:"new_value"`
}

// TriggerProbe asks a probe for a measure now.
type TriggerProbe struct {
	ProbeID           string `json:"probe_id"`
	ForceDataEmission bool   `json:"force_data_emission"`
}

// UnmarshalJSON applies the schema's default (force_data_emission) to an
// absent field.
func (t *TriggerProbe) UnmarshalJSON(b []byte) error {
	type plain TriggerProbe
	p := plain{ForceDataEmission: true}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*t = TriggerProbe(p)
	return nil
}
