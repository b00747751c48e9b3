package v5

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	json "github.com/goccy/go-json"
)

// newPayload returns a pointer to a zero payload of an event type (nil for
// a type this package does not know).
func newPayload(typ string) any {
	switch typ {
	case TypeBatsimHello:
		return &BatsimHello{}
	case TypeSimulationBegins:
		return &SimulationBegins{}
	case TypeSimulationEnds:
		return &SimulationEnds{}
	case TypeJobSubmitted:
		return &JobSubmitted{}
	case TypeJobCompleted:
		return &JobCompleted{}
	case TypeJobsKilled:
		return &JobsKilled{}
	case TypeRequestedCall:
		return &RequestedCall{}
	case TypeAllStaticJobsHaveBeenSubmitted:
		return &AllStaticJobsHaveBeenSubmitted{}
	case TypeAllStaticExternalEventsHaveBeenInjected:
		return &AllStaticExternalEventsHaveBeenInjected{}
	case TypeExternalEventOccurred:
		return &ExternalEventOccurred{}
	case TypeHostsPStateChanged:
		return &HostsPStateChanged{}
	case TypeHostsTurnedOnOff:
		return &HostsTurnedOnOff{}
	case TypeProbeDataEmitted:
		return &ProbeDataEmitted{}
	case TypeEDCHello:
		return &EDCHello{}
	case TypeExecuteJob:
		return &ExecuteJob{}
	case TypeRejectJob:
		return &RejectJob{}
	case TypeKillJobs:
		return &KillJobs{}
	case TypeRegisterProfile:
		return &RegisterProfile{}
	case TypeRegisterJob:
		return &RegisterJob{}
	case TypeFinishRegistration:
		return &FinishRegistration{}
	case TypeCallMeLater:
		return &CallMeLater{}
	case TypeStopCallMeLater:
		return &StopCallMeLater{}
	case TypeChangeHostsPState:
		return &ChangeHostsPState{}
	case TypeTurnOnOffHosts:
		return &TurnOnOffHosts{}
	case TypeForceSimulationStop:
		return &ForceSimulationStop{}
	case TypeCreateProbe:
		return &CreateProbe{}
	case TypeStopProbe:
		return &StopProbe{}
	case TypeResetProbe:
		return &ResetProbe{}
	case TypeTriggerProbe:
		return &TriggerProbe{}
	}
	return nil
}

// TypeOf is the event type name of a payload (the member of the Event
// union it is), "" for a value that is no payload of this package.
func TypeOf(data any) string {
	switch data.(type) {
	case *BatsimHello:
		return TypeBatsimHello
	case *SimulationBegins:
		return TypeSimulationBegins
	case *SimulationEnds:
		return TypeSimulationEnds
	case *JobSubmitted:
		return TypeJobSubmitted
	case *JobCompleted:
		return TypeJobCompleted
	case *JobsKilled:
		return TypeJobsKilled
	case *RequestedCall:
		return TypeRequestedCall
	case *AllStaticJobsHaveBeenSubmitted:
		return TypeAllStaticJobsHaveBeenSubmitted
	case *AllStaticExternalEventsHaveBeenInjected:
		return TypeAllStaticExternalEventsHaveBeenInjected
	case *ExternalEventOccurred:
		return TypeExternalEventOccurred
	case *HostsPStateChanged:
		return TypeHostsPStateChanged
	case *HostsTurnedOnOff:
		return TypeHostsTurnedOnOff
	case *ProbeDataEmitted:
		return TypeProbeDataEmitted
	case *EDCHello:
		return TypeEDCHello
	case *ExecuteJob:
		return TypeExecuteJob
	case *RejectJob:
		return TypeRejectJob
	case *KillJobs:
		return TypeKillJobs
	case *RegisterProfile:
		return TypeRegisterProfile
	case *RegisterJob:
		return TypeRegisterJob
	case *FinishRegistration:
		return TypeFinishRegistration
	case *CallMeLater:
		return TypeCallMeLater
	case *StopCallMeLater:
		return TypeStopCallMeLater
	case *ChangeHostsPState:
		return TypeChangeHostsPState
	case *TurnOnOffHosts:
		return TypeTurnOnOffHosts
	case *ForceSimulationStop:
		return TypeForceSimulationStop
	case *CreateProbe:
		return TypeCreateProbe
	case *StopProbe:
		return TypeStopProbe
	case *ResetProbe:
		return TypeResetProbe
	case *TriggerProbe:
		return TypeTriggerProbe
	}
	return ""
}

// DecodeError is a message that cannot be read; Event is the index of the
// event at fault (-1 for the envelope).
type DecodeError struct {
	Event int
	Type  string
	Err   error
}

// Error implements error.
func (e *DecodeError) Error() string {
	if e.Event < 0 {
		return "batprotocol message: " + e.Err.Error()
	}
	return fmt.Sprintf("batprotocol message: event %d (%s): %v", e.Event, e.Type, e.Err)
}

// Unwrap gives the underlying error.
func (e *DecodeError) Unwrap() error { return e.Err }

type rawEnvelope struct {
	Now    *float64   `json:"now"`
	Events []rawEvent `json:"events"`
}

type rawEvent struct {
	Timestamp *float64        `json:"timestamp"`
	Type      string          `json:"event_type"`
	Event     json.RawMessage `json:"event"`
}

// TrimNUL removes the NUL bytes that end a JSON message as Batsim sends it
// (a C string).
func TrimNUL(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	return b
}

// Decode reads a message in batprotocol's JSON form, in either direction
// (a trailing NUL is allowed). Every event has a timestamp and a type; an
// event type this package does not know is kept as *Unknown.
func Decode(b []byte) (*Message, error) {
	b = TrimNUL(b)
	var env rawEnvelope
	if err := json.Unmarshal(b, &env); err != nil {
		return nil, &DecodeError{Event: -1, Err: fmt.Errorf("not a JSON message object: %v", err)}
	}
	if env.Now == nil {
		return nil, &DecodeError{Event: -1, Err: errors.New("no \"now\"")}
	}
	if !finite(*env.Now) {
		return nil, &DecodeError{Event: -1, Err: fmt.Errorf("now=%v is not a finite number", *env.Now)}
	}
	m := &Message{Now: *env.Now, Events: make([]Event, 0, len(env.Events))}
	for i, re := range env.Events {
		if re.Type == "" {
			return nil, &DecodeError{Event: i, Err: errors.New("no \"event_type\"")}
		}
		if re.Timestamp == nil {
			return nil, &DecodeError{Event: i, Type: re.Type, Err: errors.New("no \"timestamp\"")}
		}
		if !finite(*re.Timestamp) {
			return nil, &DecodeError{Event: i, Type: re.Type, Err: fmt.Errorf("timestamp %v is not a finite number", *re.Timestamp)}
		}
		data := newPayload(re.Type)
		raw := re.Event
		if len(raw) == 0 || string(raw) == "null" {
			raw = json.RawMessage("{}")
		}
		if data == nil {
			data = &Unknown{Raw: append(json.RawMessage(nil), raw...)}
		} else if err := json.Unmarshal(raw, data); err != nil {
			return nil, &DecodeError{Event: i, Type: re.Type, Err: err}
		}
		m.Events = append(m.Events, Event{Timestamp: *re.Timestamp, Type: re.Type, Data: data})
	}
	return m, nil
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// Encode writes the message in batprotocol's JSON form (without the NUL
// that ends it on the wire). Every event's Data must be a payload of this
// package (or *Unknown, written as kept); numbers must be finite.
func (m *Message) Encode() ([]byte, error) {
	if !finite(m.Now) {
		return nil, fmt.Errorf("batprotocol message: now=%v is not a finite number", m.Now)
	}
	b := make([]byte, 0, 64+96*len(m.Events))
	b = append(b, `{"now":`...)
	b = appendFloat(b, m.Now)
	b = append(b, `,"events":[`...)
	for i, e := range m.Events {
		if i > 0 {
			b = append(b, ',')
		}
		if !finite(e.Timestamp) {
			return nil, fmt.Errorf("batprotocol message: event %d (%s): timestamp %v is not a finite number", i, e.Type, e.Timestamp)
		}
		typ := e.Type
		var data []byte
		if u, ok := e.Data.(*Unknown); ok {
			data = u.Raw
		} else {
			if t := TypeOf(e.Data); t == "" || (typ != "" && typ != t) {
				return nil, fmt.Errorf("batprotocol message: event %d: payload %T does not match type %q", i, e.Data, typ)
			} else {
				typ = t
			}
			var err error
			if data, err = json.Marshal(e.Data); err != nil {
				return nil, fmt.Errorf("batprotocol message: event %d (%s): %v", i, typ, err)
			}
		}
		b = append(b, `{"timestamp":`...)
		b = appendFloat(b, e.Timestamp)
		b = append(b, `,"event_type":`...)
		b = appendString(b, typ)
		b = append(b, `,"event":`...)
		b = append(b, data...)
		b = append(b, '}')
	}
	return append(b, "]}"...), nil
}

// appendFloat writes f so that strtod reads it back exactly (the shortest
// representation that round-trips).
func appendFloat(b []byte, f float64) []byte {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.AppendFloat(b, f, 'f', 1, 64)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// ---------------------------------------------------------------- unions

// union reads the member type and object of union field name in obj.
func union(obj map[string]json.RawMessage, name string) (string, json.RawMessage, error) {
	var typ string
	if raw, ok := obj[name+"_type"]; ok {
		if err := json.Unmarshal(raw, &typ); err != nil {
			return "", nil, fmt.Errorf("%s_type: %v", name, err)
		}
	}
	raw := obj[name]
	if typ == "" || typ == "NONE" {
		if len(raw) > 0 && string(raw) != "null" {
			return "", nil, fmt.Errorf("%s without %s_type", name, name)
		}
		return "", nil, nil
	}
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	return typ, raw, nil
}

func field(obj map[string]json.RawMessage, name string, v any) error {
	raw, ok := obj[name]
	if !ok || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	return nil
}

func object(b []byte) (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, err
	}
	if obj == nil {
		return nil, errors.New("not an object")
	}
	return obj, nil
}

// objWriter writes a JSON object member by member, in order.
type objWriter struct {
	b   []byte
	err error
}

func (w *objWriter) key(k string) {
	if len(w.b) == 0 {
		w.b = append(w.b, '{')
	} else {
		w.b = append(w.b, ',')
	}
	w.b = appendString(w.b, k)
	w.b = append(w.b, ':')
}

func (w *objWriter) str(k, v string) { w.key(k); w.b = appendString(w.b, v) }

func (w *objWriter) val(k string, v any) {
	raw, err := json.Marshal(v)
	if err != nil && w.err == nil {
		w.err = fmt.Errorf("%s: %v", k, err)
	}
	w.key(k)
	if raw == nil {
		raw = []byte("null")
	}
	w.b = append(w.b, raw...)
}

func (w *objWriter) raw(k string, raw []byte) { w.key(k); w.b = append(w.b, raw...) }

func (w *objWriter) done() ([]byte, error) {
	if len(w.b) == 0 {
		w.b = append(w.b, '{')
	}
	return append(w.b, '}'), w.err
}

func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// ---- Profile

func decodeProfile(typ string, raw json.RawMessage) (Profile, error) {
	var p Profile
	switch typ {
	case "DelayProfile":
		p = &DelayProfile{}
	case "ParallelTaskProfile":
		p = &ParallelTaskProfile{}
	case "ParallelTaskHomogeneousProfile":
		p = &ParallelTaskHomogeneousProfile{GenerationStrategy: AmountsUsedForEachValue}
	case "SequentialCompositionProfile":
		p = &SequentialCompositionProfile{RepetitionCount: 1}
	case "ForkJoinCompositionProfile":
		p = &ForkJoinCompositionProfile{}
	case "ParallelTaskMergeCompositionProfile":
		p = &ParallelTaskMergeCompositionProfile{}
	case "ParallelTaskOnStorageHomogeneousProfile":
		p = &ParallelTaskOnStorageHomogeneousProfile{GenerationStrategy: AmountsUsedForEachValue}
	case "ParallelTaskDataStagingBetweenStoragesProfile":
		p = &ParallelTaskDataStagingBetweenStoragesProfile{}
	case "TraceReplayProfile":
		p = &TraceReplayProfile{TraceType: "SMPI"}
	default:
		return nil, fmt.Errorf("unknown profile type %q", typ)
	}
	if err := json.Unmarshal(raw, p); err != nil {
		return nil, fmt.Errorf("%s: %v", typ, err)
	}
	return p, nil
}

// MarshalJSON writes the profile with its union fields.
func (p ProfileAndID) MarshalJSON() ([]byte, error) {
	if p.Profile == nil {
		return nil, fmt.Errorf("profile %q: no profile", p.ID)
	}
	var w objWriter
	w.str("id", p.ID)
	w.str("profile_type", p.Profile.profileType())
	w.val("profile", p.Profile)
	if p.ExtraData != "" {
		w.str("extra_data", p.ExtraData)
	}
	return w.done()
}

// UnmarshalJSON reads the profile and its union fields.
func (p *ProfileAndID) UnmarshalJSON(b []byte) error {
	obj, err := object(b)
	if err != nil {
		return err
	}
	*p = ProfileAndID{}
	if err := field(obj, "id", &p.ID); err != nil {
		return err
	}
	if err := field(obj, "extra_data", &p.ExtraData); err != nil {
		return err
	}
	typ, raw, err := union(obj, "profile")
	if err != nil {
		return fmt.Errorf("profile %q: %v", p.ID, err)
	}
	if typ == "" {
		return fmt.Errorf("profile %q: no profile", p.ID)
	}
	if p.Profile, err = decodeProfile(typ, raw); err != nil {
		return fmt.Errorf("profile %q: %v", p.ID, err)
	}
	return nil
}

// ---- KillProgress

func decodeKillWrapper(raw json.RawMessage) (KillProgress, error) {
	obj, err := object(raw)
	if err != nil {
		return nil, err
	}
	typ, body, err := union(obj, "kill_progress")
	if err != nil {
		return nil, err
	}
	switch typ {
	case "KillProgressAtomicProfile":
		k := &KillProgressAtomic{}
		return k, json.Unmarshal(body, k)
	case "KillProgressSequentialProfile":
		k := &KillProgressSequential{}
		return k, k.UnmarshalJSON(body)
	case "KillProgressForkJoinProfile":
		k := &KillProgressForkJoin{}
		return k, k.UnmarshalJSON(body)
	case "":
		return nil, errors.New("no kill_progress")
	}
	return nil, fmt.Errorf("unknown kill progress type %q", typ)
}

func appendKillWrapper(w *objWriter, key string, k KillProgress) {
	if k == nil {
		if w.err == nil {
			w.err = fmt.Errorf("%s: no kill progress", key)
		}
		w.raw(key, []byte("{}"))
		return
	}
	var in objWriter
	in.str("kill_progress_type", k.killProgressType())
	in.val("kill_progress", k)
	b, err := in.done()
	if err != nil && w.err == nil {
		w.err = err
	}
	w.raw(key, b)
}

// MarshalJSON writes the progress with its union fields.
func (k *KillProgressSequential) MarshalJSON() ([]byte, error) {
	var w objWriter
	w.str("profile_id", k.ProfileID)
	w.val("current_repetition", k.CurrentRepetition)
	w.val("current_task_index", k.CurrentTaskIndex)
	appendKillWrapper(&w, "current_task_progress", k.CurrentTaskProgress)
	return w.done()
}

// UnmarshalJSON reads the progress and its union fields.
func (k *KillProgressSequential) UnmarshalJSON(b []byte) error {
	obj, err := object(b)
	if err != nil {
		return err
	}
	*k = KillProgressSequential{}
	for name, v := range map[string]any{"profile_id": &k.ProfileID, "current_repetition": &k.CurrentRepetition, "current_task_index": &k.CurrentTaskIndex} {
		if err := field(obj, name, v); err != nil {
			return err
		}
	}
	raw, ok := obj["current_task_progress"]
	if !ok {
		return errors.New("KillProgressSequentialProfile: no current_task_progress")
	}
	if k.CurrentTaskProgress, err = decodeKillWrapper(raw); err != nil {
		return fmt.Errorf("current_task_progress: %v", err)
	}
	return nil
}

// MarshalJSON writes the progress with its union fields.
func (k *KillProgressForkJoin) MarshalJSON() ([]byte, error) {
	var w objWriter
	w.str("profile_id", k.ProfileID)
	w.key("tasks_progress")
	w.b = append(w.b, '[')
	for i, t := range k.TasksProgress {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		// Each element is a wrapper object: write it as the one member of a
		// scratch object and keep that member's value.
		var in objWriter
		appendKillWrapper(&in, "w", t)
		b, err := in.done()
		if err != nil && w.err == nil {
			w.err = fmt.Errorf("tasks_progress[%d]: %v", i, err)
		}
		w.b = append(w.b, b[len(`{"w":`):len(b)-1]...)
	}
	w.b = append(w.b, ']')
	return w.done()
}

// UnmarshalJSON reads the progress and its union fields.
func (k *KillProgressForkJoin) UnmarshalJSON(b []byte) error {
	obj, err := object(b)
	if err != nil {
		return err
	}
	*k = KillProgressForkJoin{}
	if err := field(obj, "profile_id", &k.ProfileID); err != nil {
		return err
	}
	var raws []json.RawMessage
	if err := field(obj, "tasks_progress", &raws); err != nil {
		return err
	}
	for i, raw := range raws {
		t, err := decodeKillWrapper(raw)
		if err != nil {
			return fmt.Errorf("tasks_progress[%d]: %v", i, err)
		}
		k.TasksProgress = append(k.TasksProgress, t)
	}
	return nil
}

// MarshalJSON writes the job's progress in its wrapper.
func (j JobAndProgress) MarshalJSON() ([]byte, error) {
	var w objWriter
	w.str("job_id", j.JobID)
	appendKillWrapper(&w, "wrapper", j.Progress)
	return w.done()
}

// UnmarshalJSON reads the job's progress from its wrapper.
func (j *JobAndProgress) UnmarshalJSON(b []byte) error {
	obj, err := object(b)
	if err != nil {
		return err
	}
	*j = JobAndProgress{}
	if err := field(obj, "job_id", &j.JobID); err != nil {
		return err
	}
	raw, ok := obj["wrapper"]
	if !ok {
		return fmt.Errorf("job %q: no progress wrapper", j.JobID)
	}
	if j.Progress, err = decodeKillWrapper(raw); err != nil {
		return fmt.Errorf("job %q: %v", j.JobID, err)
	}
	return nil
}

// ---- ExternalEventOccurred

// MarshalJSON writes the event with its union fields.
func (e *ExternalEventOccurred) MarshalJSON() ([]byte, error) {
	var w objWriter
	w.str("id", e.ID)
	w.str("external_event_type", "GenericExternalEvent")
	var in objWriter
	in.str("data", e.Data)
	b, _ := in.done()
	w.raw("external_event", b)
	return w.done()
}

// UnmarshalJSON reads the event and its union fields.
func (e *ExternalEventOccurred) UnmarshalJSON(b []byte) error {
	obj, err := object(b)
	if err != nil {
		return err
	}
	*e = ExternalEventOccurred{}
	if err := field(obj, "id", &e.ID); err != nil {
		return err
	}
	typ, raw, err := union(obj, "external_event")
	if err != nil {
		return err
	}
	if typ != "GenericExternalEvent" {
		return fmt.Errorf("external event %q: unknown type %q", e.ID, typ)
	}
	var g struct {
		Data string `json:"data"`
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		return fmt.Errorf("external event %q: %v", e.ID, err)
	}
	e.Data = g.Data
	return nil
}

// ---- executor placement

func decodePlacement(obj map[string]json.RawMessage) (ExecutorPlacement, error) {
	typ, raw, err := union(obj, "executor_placement")
	if err != nil {
		return nil, err
	}
	switch typ {
	case "PredefinedExecutorPlacementStrategyWrapper":
		p := &PredefinedPlacement{Strategy: SpreadOverHostsFirst}
		return p, json.Unmarshal(raw, p)
	case "CustomExecutorToHostMapping":
		p := &CustomMapping{}
		return p, json.Unmarshal(raw, p)
	case "":
		return nil, errors.New("no executor_placement")
	}
	return nil, fmt.Errorf("unknown executor placement type %q", typ)
}

func appendPlacement(w *objWriter, p ExecutorPlacement) {
	if p == nil {
		p = &PredefinedPlacement{Strategy: SpreadOverHostsFirst}
	}
	w.str("executor_placement_type", p.placementType())
	w.val("executor_placement", p)
}

// MarshalJSON writes the allocation with its union fields.
func (a Allocation) MarshalJSON() ([]byte, error) {
	var w objWriter
	w.str("host_allocation", a.HostAllocation)
	appendPlacement(&w, a.Placement)
	return w.done()
}

// UnmarshalJSON reads the allocation and its union fields.
func (a *Allocation) UnmarshalJSON(b []byte) error {
	obj, err := object(b)
	if err != nil {
		return err
	}
	*a = Allocation{}
	if err := field(obj, "host_allocation", &a.HostAllocation); err != nil {
		return err
	}
	a.Placement, err = decodePlacement(obj)
	return err
}

// MarshalJSON writes the allocation with its union fields.
func (a ProfileAllocation) MarshalJSON() ([]byte, error) {
	var w objWriter
	w.str("profile_id", a.ProfileID)
	w.str("host_allocation", a.HostAllocation)
	appendPlacement(&w, a.Placement)
	return w.done()
}

// UnmarshalJSON reads the allocation and its union fields.
func (a *ProfileAllocation) UnmarshalJSON(b []byte) error {
	obj, err := object(b)
	if err != nil {
		return err
	}
	*a = ProfileAllocation{}
	if err := field(obj, "profile_id", &a.ProfileID); err != nil {
		return err
	}
	if err := field(obj, "host_allocation", &a.HostAllocation); err != nil {
		return err
	}
	a.Placement, err = decodePlacement(obj)
	return err
}

// MarshalJSON writes the decision.
func (e *ExecuteJob) MarshalJSON() ([]byte, error) {
	var w objWriter
	w.str("job_id", e.JobID)
	w.val("allocation", e.Allocation)
	if len(e.ProfileAllocationOverride) > 0 {
		w.val("profile_allocation_override", e.ProfileAllocationOverride)
	}
	if len(e.StoragePlacement) > 0 {
		w.val("storage_placement", e.StoragePlacement)
	}
	return w.done()
}

// UnmarshalJSON reads the decision.
func (e *ExecuteJob) UnmarshalJSON(b []byte) error {
	obj, err := object(b)
	if err != nil {
		return err
	}
	*e = ExecuteJob{}
	if err := field(obj, "job_id", &e.JobID); err != nil {
		return err
	}
	raw, ok := obj["allocation"]
	if !ok {
		return fmt.Errorf("job %q: no allocation", e.JobID)
	}
	if err := e.Allocation.UnmarshalJSON(raw); err != nil {
		return fmt.Errorf("job %q: allocation: %v", e.JobID, err)
	}
	if err := field(obj, "profile_allocation_override", &e.ProfileAllocationOverride); err != nil {
		return err
	}
	return field(obj, "storage_placement", &e.StoragePlacement)
}

// ---- temporal triggers

// MarshalJSON writes the trigger with its union fields.
func (p *Periodic) MarshalJSON() ([]byte, error) {
	var w objWriter
	w.val("period", p.Period)
	w.val("offset", p.Offset)
	w.str("time_unit", unitOr(p.TimeUnit))
	if p.Infinite {
		w.str("mode_type", "Infinite")
		w.raw("mode", []byte("{}"))
	} else {
		w.str("mode_type", "FinitePeriodNumber")
		w.raw("mode", []byte(`{"nb_periods":`+strconv.FormatUint(uint64(p.NbPeriods), 10)+`}`))
	}
	return w.done()
}

// UnmarshalJSON reads the trigger and its union fields.
func (p *Periodic) UnmarshalJSON(b []byte) error {
	obj, err := object(b)
	if err != nil {
		return err
	}
	*p = Periodic{TimeUnit: Second}
	for name, v := range map[string]any{"period": &p.Period, "offset": &p.Offset, "time_unit": &p.TimeUnit} {
		if err := field(obj, name, v); err != nil {
			return err
		}
	}
	typ, raw, err := union(obj, "mode")
	if err != nil {
		return err
	}
	switch typ {
	case "Infinite", "":
		p.Infinite = true
	case "FinitePeriodNumber":
		var f struct {
			NbPeriods uint32 `json:"nb_periods"`
		}
		if err := json.Unmarshal(raw, &f); err != nil {
			return err
		}
		p.NbPeriods = f.NbPeriods
	default:
		return fmt.Errorf("unknown periodic mode %q", typ)
	}
	return nil
}

func unitOr(u string) string {
	if u == "" {
		return Second
	}
	return u
}

// MarshalJSON writes the decision with its union fields.
func (c *CallMeLater) MarshalJSON() ([]byte, error) {
	if c.When == nil {
		return nil, fmt.Errorf("call me later %q: no trigger", c.CallMeLaterID)
	}
	var w objWriter
	w.str("call_me_later_id", c.CallMeLaterID)
	w.str("when_type", c.When.triggerType())
	if o, ok := c.When.(*OneShot); ok {
		w.raw("when", []byte(`{"time":`+strconv.FormatUint(o.Time, 10)+`,"time_unit":"`+unitOr(o.TimeUnit)+`"}`))
	} else {
		w.val("when", c.When)
	}
	return w.done()
}

// UnmarshalJSON reads the decision and its union fields.
func (c *CallMeLater) UnmarshalJSON(b []byte) error {
	obj, err := object(b)
	if err != nil {
		return err
	}
	*c = CallMeLater{}
	if err := field(obj, "call_me_later_id", &c.CallMeLaterID); err != nil {
		return err
	}
	typ, raw, err := union(obj, "when")
	if err != nil {
		return err
	}
	switch typ {
	case "OneShot":
		o := &OneShot{TimeUnit: Second}
		if err := json.Unmarshal(raw, o); err != nil {
			return err
		}
		c.When = o
	case "Periodic":
		p := &Periodic{}
		if err := p.UnmarshalJSON(raw); err != nil {
			return err
		}
		c.When = p
	case "":
		return fmt.Errorf("call me later %q: no trigger", c.CallMeLaterID)
	default:
		return fmt.Errorf("call me later %q: unknown trigger type %q", c.CallMeLaterID, typ)
	}
	return nil
}
