package batsim

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/internal/jsonspan"
)

// Decoder turns wire messages into typed Messages. Unknown event types and
// unknown data keys are logged once each (per Decoder) and otherwise ignored.
// Decoding a scheduler's message applies every rule Batsim 4.2.1's reader
// enforces on its own: a message Decode accepts from a scheduler is one Batsim
// would parse without aborting (state-dependent rules such as "the job is
// waiting" are the engine's business). Decoding Batsim's message checks
// what every message of Batsim satisfies: a now that is not negative, event
// timestamps in non-decreasing order and none after now, resource counts in
// SIMULATION_BEGINS that match its lists, a final job_state in
// JOB_COMPLETED, and JOB_SUBMITTED's job_id equal to its job's id and a
// walltime of -1 or more than 0 (rules that need the conversation's history
// are the scheduler framework's).
// Numbers are read as rapidjson 1.1 reads them (Double), in both
// directions: bucma holds the doubles batsched holds of Batsim's messages,
// and the engine those Batsim holds of a scheduler's reply.
type Decoder struct {
	Log  *slog.Logger // nil: slog.Default()
	mu   sync.Mutex
	seen map[string]bool
	// inPlaceFrom, when set, replaces largeMessage (tests compare the two
	// ways of reading a message).
	inPlaceFrom int
	// reference, set by tests, reads every message through goccy/go-json's
	// decoding into copies: the reading the fast one (internal/jsonspan,
	// with hand-read data for the frequent events) is compared with.
	reference bool
}

// inPlace reports whether a JOB_SUBMITTED's data of n bytes is read in
// place (its job and profile are slices of the message, not copies).
func (d *Decoder) inPlace(n int) bool {
	if d.reference {
		return false
	}
	if d.inPlaceFrom > 0 {
		return n >= d.inPlaceFrom
	}
	return n >= largeMessage
}

// NewDecoder returns a Decoder that logs to log (nil: slog.Default()).
func NewDecoder(log *slog.Logger) *Decoder { return &Decoder{Log: log} }

func (d *Decoder) logOnce(key, msg string, args ...any) {
	d.mu.Lock()
	if d.seen == nil {
		d.seen = map[string]bool{}
	}
	first := !d.seen[key]
	d.seen[key] = true
	d.mu.Unlock()
	if first {
		l := d.Log
		if l == nil {
			l = slog.Default()
		}
		l.Warn(msg, args...)
	}
}

// envelope and event are a message and an event split, unparsed (see
// splitEnvelope): what Decode reads of them, with whether each was given
// (null counts as not given).
type envelope struct {
	now        float64
	haveNow    bool
	events     []json.RawMessage
	haveEvents bool
}

type event struct {
	timestamp     float64
	haveTimestamp bool
	typ           string
	haveType      bool
	data          json.RawMessage
}

// Numbers are read as Batsim and batsched read them (Double).
type rawEnvelope struct {
	Now    *Double            `json:"now"`
	Events *[]json.RawMessage `json:"events"`
}

type rawEvent struct {
	Timestamp *Double         `json:"timestamp"`
	Type      *string         `json:"type"`
	Data      json.RawMessage `json:"data"`
}

// DecodeError is a message that cannot be decoded, or that Batsim would
// refuse. Rule names the broken rule.
type DecodeError struct {
	Event int // index of the offending event, -1 for the envelope
	Type  string
	Rule  string
	// Cause, when set, is what broke the rule: ErrUnknownEvent,
	// ErrAfterNow, ErrCallInPast, an error wrapping ErrIntervalSet, or
	// another error of the event's data.
	Cause error
}

// Errors a DecodeError may wrap (errors.Is), for tools that report the
// rule a scheduler's message breaks (bucma check).
var (
	// ErrUnknownEvent: an event type Batsim does not know.
	ErrUnknownEvent = errors.New("unknown event type")
	// ErrAfterNow: an event dated later than its message's now.
	ErrAfterNow = errors.New("event dated after now")
	// ErrCallInPast: a CALL_ME_LATER whose target is not after its date.
	ErrCallInPast = errors.New("CALL_ME_LATER not in the future")
)

// Unwrap is the error's Cause.
func (e *DecodeError) Unwrap() error { return e.Cause }

// Error implements error.
func (e *DecodeError) Error() string {
	if e.Event < 0 {
		return "invalid message: " + e.Rule
	}
	if e.Type != "" {
		return fmt.Sprintf("invalid message: event %d (%s): %s", e.Event, e.Type, e.Rule)
	}
	return fmt.Sprintf("invalid message: event %d: %s", e.Event, e.Rule)
}

// largeMessage is the size of a JOB_SUBMITTED's data from which its job
// and profile are slices of the message rather than copies, so that a
// message of 50 MB does not take several times its size in memory. Every
// message is split in place (internal/jsonspan): its events, and their
// data, are read as slices of it.
const largeMessage = 1 << 20

// Decode parses one message sent in direction dir. The Message may refer to
// b (a JOB_SUBMITTED's job and profile of a large message are slices of it):
// b must not change while the Message is in use.
func (d *Decoder) Decode(b []byte, dir Direction) (*Message, error) {
	inPlace := !d.reference
	env, err := splitEnvelope(b, inPlace)
	if err != nil {
		return nil, &DecodeError{Event: -1, Rule: "not a JSON object: " + err.Error()}
	}
	if !env.haveNow {
		return nil, &DecodeError{Event: -1, Rule: `missing number "now"`}
	}
	if !env.haveEvents {
		return nil, &DecodeError{Event: -1, Rule: `missing array "events"`}
	}
	msg := &Message{Now: env.now, Events: make([]Event, 0, len(env.events))}
	if dir == FromBatsim && msg.Now < 0 {
		return nil, &DecodeError{Event: -1, Rule: fmt.Sprintf("now=%g is negative (Batsim's time starts at 0)", msg.Now)}
	}
	for i, rawEv := range env.events {
		re, err := splitEvent(rawEv, inPlace)
		if err != nil {
			return nil, &DecodeError{Event: i, Rule: "not an object with a numeric timestamp, a string type and data: " + err.Error()}
		}
		if !re.haveTimestamp {
			return nil, &DecodeError{Event: i, Rule: `missing number "timestamp"`}
		}
		if !re.haveType {
			return nil, &DecodeError{Event: i, Rule: `missing string "type"`}
		}
		ts := re.timestamp
		if len(re.data) == 0 {
			return nil, &DecodeError{Event: i, Type: re.typ, Rule: `missing "data" (required even when empty)`}
		}
		// Both sides stamp events no later than the message's now; Batsim
		// also sends them in time order (its reader does not require that
		// order from a scheduler).
		if ts > msg.Now {
			return nil, &DecodeError{Event: i, Type: re.typ, Rule: fmt.Sprintf("timestamp %g is later than now=%g", ts, msg.Now), Cause: ErrAfterNow}
		}
		if dir == FromBatsim && i > 0 && ts < msg.Events[i-1].Timestamp {
			return nil, &DecodeError{Event: i, Type: re.typ, Rule: fmt.Sprintf("timestamp %g is earlier than the previous event's %g (events out of order)", ts, msg.Events[i-1].Timestamp)}
		}
		data, err := d.decodeData(re.typ, re.data, dir)
		if err != nil {
			return nil, &DecodeError{Event: i, Type: re.typ, Rule: err.Error(), Cause: err}
		}
		if c, ok := data.(*CallMeLater); ok && dir == FromScheduler && !(c.At > ts) {
			return nil, &DecodeError{Event: i, Type: re.typ, Rule: fmt.Sprintf("target %g is not after the event's timestamp %g (Batsim aborts on a call in the past or now)", c.At, ts), Cause: ErrCallInPast}
		}
		msg.Events = append(msg.Events, Event{Timestamp: ts, Type: re.typ, Data: data})
	}
	return msg, nil
}

// splitEnvelope reads a message's now and its events, unparsed: in place,
// or (the reference reading) by decoding into copies of the events.
func splitEnvelope(b []byte, inPlace bool) (envelope, error) {
	var env envelope
	if !inPlace {
		var raw rawEnvelope
		err := json.Unmarshal(b, &raw)
		if raw.Now != nil {
			env.now, env.haveNow = float64(*raw.Now), true
		}
		if raw.Events != nil {
			env.events, env.haveEvents = *raw.Events, true
		}
		return env, err
	}
	err := jsonspan.Members(b, func(key, v []byte) error {
		switch {
		case keyIs(key, "now"):
			n, ok, err := spanNumber(v)
			env.now, env.haveNow = n, ok
			return err
		case keyIs(key, "events"):
			env.events, env.haveEvents = nil, false
			if string(v) == "null" {
				return nil
			}
			var events []json.RawMessage
			// Members has checked v.
			if err := jsonspan.CheckedArray(v, func(e []byte) error { events = append(events, e); return nil }); err != nil {
				return errors.New(`"events" is not an array`)
			}
			env.events, env.haveEvents = events, true
		}
		return nil
	})
	return env, err
}

// splitEvent reads an event's timestamp, type and data (see
// splitEnvelope).
func splitEvent(b []byte, inPlace bool) (event, error) {
	var ev event
	if !inPlace {
		var raw rawEvent
		err := json.Unmarshal(b, &raw)
		if raw.Timestamp != nil {
			ev.timestamp, ev.haveTimestamp = float64(*raw.Timestamp), true
		}
		if raw.Type != nil {
			ev.typ, ev.haveType = *raw.Type, true
		}
		ev.data = raw.Data
		return ev, err
	}
	// b is an element of the events that splitEnvelope checked.
	err := jsonspan.CheckedMembers(b, func(key, v []byte) error {
		switch {
		case keyIs(key, "timestamp"):
			n, ok, err := spanNumber(v)
			ev.timestamp, ev.haveTimestamp = n, ok
			return err
		case keyIs(key, "type"):
			if string(v) == "null" {
				ev.typ, ev.haveType = "", false
				return nil
			}
			t, err := eventType(v)
			if err != nil {
				return errors.New(`"type" is not a string`)
			}
			ev.typ, ev.haveType = t, true
		case keyIs(key, "data"):
			ev.data = v
		}
		return nil
	})
	return ev, err
}

// eventTypes are the event types, whose names are shared rather than
// copied from each message.
var eventTypes = [...]string{TypeJobSubmitted, TypeJobCompleted, TypeRequestedCall, TypeJobKilled, TypeResourceStateChanged,
	TypeNotify, TypeSimulationBegins, TypeSimulationEnds, TypeFromJobMsg, TypeQuery, TypeAnswer,
	TypeExecuteJob, TypeRejectJob, TypeKillJob, TypeCallMeLater, TypeSetResourceState, TypeSetJobMetadata,
	TypeChangeJobState, TypeRegisterProfile, TypeRegisterJob, TypeToJobMsg}

// eventType is the string v (a checked JSON value), sharing the name of a
// known event type.
func eventType(v []byte) (string, error) {
	if t, ok := sharedText(v, eventTypes[:]); ok {
		return t, nil
	}
	return jsonspan.String(v)
}

// sharedText is the one of names that the string value v spells without
// escapes, if any.
func sharedText(v []byte, names []string) (string, bool) {
	if len(v) >= 2 && v[0] == '"' {
		for _, n := range names {
			if string(v[1:len(v)-1]) == n {
				return n, true
			}
		}
	}
	return "", false
}

// keyIs reports whether the key of a member read in place names field, as
// the decoder matches keys to fields: regardless of case.
func keyIs(key []byte, field string) bool {
	return string(key) == field || strings.EqualFold(string(key), field)
}

// spanNumber reads a number value found by jsonspan (not given for null).
func spanNumber(v []byte) (float64, bool, error) {
	if string(v) == "null" {
		return 0, false, nil
	}
	var n Double
	if err := n.UnmarshalJSON(v); err != nil {
		return 0, false, err
	}
	return float64(n), true, nil
}

// strict decodes b into v; unknown keys are logged once and then ignored.
func (d *Decoder) strict(typ string, b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	if strings.Contains(err.Error(), "unknown field") {
		d.logOnce(typ+"|"+err.Error(), "ignoring unknown key in event data", "type", typ, "detail", err.Error())
		return json.Unmarshal(b, v)
	}
	return err
}

func memberCount(b []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, errors.New("data is not an object")
	}
	return m, nil
}

func (d *Decoder) decodeData(typ string, b []byte, dir Direction) (any, error) {
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		return nil, errors.New("data is not an object")
	}
	if dir == FromBatsim {
		return d.decodeFromBatsim(typ, b)
	}
	return d.decodeFromScheduler(typ, b)
}

func (d *Decoder) decodeFromBatsim(typ string, b []byte) (any, error) {
	var v any
	read := false // v was read by hand, not by strict
	switch typ {
	case TypeSimulationBegins:
		// Counts Batsim leaves out stay negative: checkBegins says so.
		v = &SimulationBegins{NbResources: -1, NbComputeResources: -1, NbStorageResources: -1}
	case TypeSimulationEnds:
		return &SimulationEnds{}, nil
	case TypeJobSubmitted:
		if d.inPlace(len(b)) {
			return d.largeSubmitted(b)
		}
		if e, ok := d.quickSubmitted(b); ok {
			v, read = e, true
		} else {
			v = &JobSubmitted{}
		}
	case TypeJobCompleted:
		if e, ok := d.quickCompleted(b); ok {
			v, read = e, true
		} else {
			v = &JobCompleted{}
		}
	case TypeJobKilled:
		v = &JobKilled{}
	case TypeResourceStateChanged:
		v = &ResourceStateChanged{}
	case TypeRequestedCall:
		return &RequestedCall{}, nil
	case TypeFromJobMsg:
		v = &FromJobMsg{}
	case TypeNotify:
		n := &Notify{}
		if err := json.Unmarshal(b, n); err != nil {
			return nil, err
		}
		n.Raw = append(json.RawMessage(nil), b...)
		return n, nil
	case TypeQuery:
		v = &BatsimQuery{}
	case TypeAnswer:
		var a struct {
			ConsumedEnergy Double `json:"consumed_energy"`
		}
		if err := d.strict(typ, b, &a); err != nil {
			return nil, err
		}
		return &BatsimAnswer{ConsumedEnergy: float64(a.ConsumedEnergy)}, nil
	default:
		d.logOnce("type|"+typ, "ignoring unknown event type", "type", typ)
		return &Unknown{Raw: append(json.RawMessage(nil), b...)}, nil
	}
	if !read {
		if err := d.strict(typ, b, v); err != nil {
			return nil, err
		}
	}
	switch e := v.(type) {
	case *JobSubmitted:
		if err := checkSubmitted(e); err != nil {
			return nil, err
		}
	case *SimulationBegins:
		if err := checkBegins(e); err != nil {
			return nil, err
		}
	case *JobCompleted:
		if e.JobID == "" {
			return nil, errors.New(`missing "job_id"`)
		}
		switch e.JobState {
		case StateSuccess, StateFailed, StateWalltimeReached, StateKilled:
		default:
			return nil, fmt.Errorf("job %s: job_state %q is not a final state (want %s, %s, %s or %s)", e.JobID, e.JobState, StateSuccess, StateFailed, StateWalltimeReached, StateKilled)
		}
	}
	return v, nil
}

// errUnusual stops a hand reading at a member strict must read.
var errUnusual = errors.New("unusual member")

// quickSubmitted reads a JOB_SUBMITTED's data as Batsim writes it: a
// job_id of plain text, a job and a profile that are objects; copies of
// them. It reports false for any other data, which strict then reads
// (and judges): what it reads is what strict would. b is data splitEvent
// read in place (checked against JSON's grammar).
func (d *Decoder) quickSubmitted(b []byte) (*JobSubmitted, bool) {
	if d.reference {
		return nil, false
	}
	e := &JobSubmitted{}
	err := jsonspan.CheckedMembers(b, func(key, v []byte) error {
		switch string(key) {
		case "job_id":
			s, ok := plainText(v)
			if !ok {
				return errUnusual
			}
			e.JobID = s
		case "job", "profile":
			if len(v) == 0 || v[0] != '{' {
				return errUnusual
			}
			raw := append(json.RawMessage(nil), v...)
			if key[0] == 'j' {
				e.Job = raw
			} else {
				e.Profile = raw
			}
		default:
			return errUnusual
		}
		return nil
	})
	return e, err == nil
}

// quickCompleted reads a JOB_COMPLETED's data as Batsim writes it: job_id,
// job_state and alloc of plain text, an integer return_code (quickSubmitted
// says how the others are read).
func (d *Decoder) quickCompleted(b []byte) (*JobCompleted, bool) {
	if d.reference {
		return nil, false
	}
	e := &JobCompleted{}
	err := jsonspan.CheckedMembers(b, func(key, v []byte) error {
		ok := false
		switch string(key) {
		case "job_id":
			e.JobID, ok = plainText(v)
		case "job_state":
			e.JobState, ok = stateText(v)
		case "alloc":
			e.Alloc, ok = plainText(v)
		case "return_code":
			e.ReturnCode, ok = smallInt(v)
		}
		if !ok {
			return errUnusual
		}
		return nil
	})
	return e, err == nil
}

// plainText is the string value v (a value read in place) when v is a
// string whose text is its value (jsonspan.PlainText).
func plainText(v []byte) (string, bool) {
	t, ok := jsonspan.PlainText(v)
	return string(t), ok
}

// finalStates are the states a JOB_COMPLETED names, read without a copy.
var finalStates = [...]string{StateSuccess, StateFailed, StateWalltimeReached, StateKilled}

// stateText is plainText, sharing the string of a final job state.
func stateText(v []byte) (string, bool) {
	if st, ok := sharedText(v, finalStates[:]); ok {
		return st, true
	}
	return plainText(v)
}

// smallInt is the number value v when v is an integer of at most nine
// digits (any int holds it).
func smallInt(v []byte) (int, bool) {
	digits := v
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if len(digits) < len(v) {
		n = -n
	}
	return n, true
}

// largeSubmitted decodes the data of a large JOB_SUBMITTED in place: its
// job and profile are slices of b (data splitEvent read in place).
func (d *Decoder) largeSubmitted(b []byte) (*JobSubmitted, error) {
	e := &JobSubmitted{}
	err := jsonspan.CheckedMembers(b, func(key, v []byte) error {
		switch {
		case keyIs(key, "job_id"):
			id, err := jsonspan.String(v)
			if err != nil {
				return errors.New(`"job_id" is not a string`)
			}
			e.JobID = id
		case keyIs(key, "job"):
			e.Job = v
		case keyIs(key, "profile"):
			e.Profile = v
		default:
			d.logOnce(TypeJobSubmitted+"|"+string(key), "ignoring unknown key in event data", "type", TypeJobSubmitted, "detail", fmt.Sprintf("unknown field %q", key))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return e, checkSubmitted(e)
}

// checkSubmitted checks a JOB_SUBMITTED: a job_id, and the job object, when
// Batsim forwards one, carrying the event's job_id as its "id" (Batsim
// rewrites it to the full "workload!name" form) and a walltime of -1 (none)
// or more than 0 (Batsim refuses any other when it loads the workload). The
// job is read in place, whatever its size.
func checkSubmitted(e *JobSubmitted) error {
	if e.JobID == "" {
		return errors.New(`missing "job_id"`)
	}
	if len(e.Job) == 0 {
		return nil
	}
	var id, walltime []byte
	err := jsonspan.Object(e.Job, func(key string, v []byte) error {
		switch key {
		case "id":
			if id == nil {
				id = v
			}
		case "walltime":
			if walltime == nil {
				walltime = v
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("job %s: \"job\" is not an object", e.JobID)
	}
	if id != nil {
		if s, err := jsonspan.String(id); err != nil || s != e.JobID {
			return fmt.Errorf("job_id %q differs from the job's id %s", e.JobID, id)
		}
	}
	if walltime != nil {
		w, ok, err := spanNumber(walltime)
		if err != nil || !ok {
			return fmt.Errorf("job %s: walltime %s is not a number", e.JobID, walltime)
		}
		if w != -1 && !(w > 0) {
			return fmt.Errorf("job %s: walltime %v is neither -1 (none) nor positive (Batsim refuses it when it loads the workload)", e.JobID, w)
		}
	}
	return nil
}

// checkBegins checks that SIMULATION_BEGINS counts its resources as it
// lists them, as Batsim always does: nb_compute_resources compute resources,
// nb_storage_resources storage resources, nb_resources in all.
func checkBegins(e *SimulationBegins) error {
	counts := []struct {
		name string
		n    int
	}{{"nb_resources", e.NbResources}, {"nb_compute_resources", e.NbComputeResources}, {"nb_storage_resources", e.NbStorageResources}}
	for _, c := range counts {
		if c.n < 0 {
			return fmt.Errorf("%q is missing or negative (%d)", c.name, c.n)
		}
	}
	switch {
	case e.NbComputeResources != len(e.ComputeResources):
		return fmt.Errorf("nb_compute_resources is %d but compute_resources lists %d", e.NbComputeResources, len(e.ComputeResources))
	case e.NbStorageResources != len(e.StorageResources):
		return fmt.Errorf("nb_storage_resources is %d but storage_resources lists %d", e.NbStorageResources, len(e.StorageResources))
	case e.NbResources != e.NbComputeResources+e.NbStorageResources:
		return fmt.Errorf("nb_resources is %d, not nb_compute_resources + nb_storage_resources = %d", e.NbResources, e.NbComputeResources+e.NbStorageResources)
	}
	return nil
}

// Rules Batsim 4.2.1's reader (src/protocol.cpp) enforces on a scheduler's events.
func (d *Decoder) decodeFromScheduler(typ string, b []byte) (any, error) {
	m, err := memberCount(b)
	if err != nil {
		return nil, err
	}
	str := func(key string) (string, error) {
		raw, ok := m[key]
		if !ok {
			return "", fmt.Errorf("missing %q", key)
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("%q is not a string", key)
		}
		return s, nil
	}
	exact := func(n int) error {
		if len(m) != n {
			return fmt.Errorf("data must have exactly %d member(s), has %d", n, len(m))
		}
		return nil
	}
	jobID := func(key string) (string, error) {
		s, err := str(key)
		if err != nil {
			return "", err
		}
		if _, err := ParseJobID(s); err != nil {
			return "", err
		}
		return s, nil
	}
	switch typ {
	case TypeExecuteJob:
		if len(m) < 2 || len(m) > 3 {
			return nil, fmt.Errorf("data must have job_id, alloc and at most one optional key (has %d members)", len(m))
		}
		e := &ExecuteJob{}
		if e.JobID, err = jobID("job_id"); err != nil {
			return nil, err
		}
		a, err := str("alloc")
		if err != nil {
			return nil, err
		}
		if e.Alloc, err = ParseIntervalSet(a); err != nil {
			return nil, err
		}
		if len(e.Alloc) == 0 {
			return nil, errors.New("empty alloc")
		}
		for k, raw := range m {
			switch k {
			case "job_id", "alloc":
			case "mapping":
				if e.Mapping, err = decodeMapping(raw, len(e.Alloc)); err != nil {
					return nil, err
				}
			case "storage_mapping":
				if err := json.Unmarshal(raw, &e.StorageMapping); err != nil {
					return nil, errors.New(`"storage_mapping" must map labels to integer resource ids`)
				}
			case "additional_io_job":
				var io struct {
					ProfileName *string `json:"profile_name"`
					Alloc       *string `json:"alloc"`
				}
				if err := json.Unmarshal(raw, &io); err != nil || io.ProfileName == nil || io.Alloc == nil {
					return nil, errors.New(`"additional_io_job" needs string profile_name and alloc`)
				}
				e.AdditionalIOJob = append(json.RawMessage(nil), raw...)
			default:
				return nil, fmt.Errorf("unknown EXECUTE_JOB key %q", k)
			}
		}
		return e, nil
	case TypeRejectJob:
		if err := exact(1); err != nil {
			return nil, err
		}
		id, err := jobID("job_id")
		if err != nil {
			return nil, err
		}
		return &RejectJob{JobID: id}, nil
	case TypeKillJob:
		if err := exact(1); err != nil {
			return nil, err
		}
		var k KillJob
		if err := json.Unmarshal(m["job_ids"], &k.JobIDs); err != nil || m["job_ids"] == nil {
			return nil, errors.New(`"job_ids" must be an array of strings`)
		}
		if len(k.JobIDs) == 0 {
			return nil, errors.New(`"job_ids" is empty`)
		}
		for _, id := range k.JobIDs {
			if _, err := ParseJobID(id); err != nil {
				return nil, err
			}
		}
		return &k, nil
	case TypeCallMeLater:
		if err := exact(1); err != nil {
			return nil, err
		}
		at, err := readDouble(m["timestamp"])
		if err != nil {
			return nil, errors.New(`"timestamp" must be a number`)
		}
		return &CallMeLater{At: at}, nil
	case TypeSetResourceState:
		if err := exact(2); err != nil {
			return nil, err
		}
		r, err := str("resources")
		if err != nil {
			return nil, err
		}
		set, err := ParseIntervalSet(r)
		if err != nil {
			return nil, err
		}
		if len(set) == 0 {
			return nil, errors.New("empty resources")
		}
		st, err := str("state")
		if err != nil {
			return nil, fmt.Errorf("%w (the pstate must be a decimal string)", err)
		}
		p, err := strconv.Atoi(st)
		if err != nil {
			return nil, fmt.Errorf("state %q is not a decimal pstate number", st)
		}
		return &SetResourceState{Resources: set, PState: p}, nil
	case TypeSetJobMetadata:
		if err := exact(2); err != nil {
			return nil, err
		}
		id, err := jobID("job_id")
		if err != nil {
			return nil, err
		}
		md, err := str("metadata")
		if err != nil {
			return nil, err
		}
		if strings.Contains(md, `"`) {
			return nil, errors.New("metadata must not contain a double quote")
		}
		return &SetJobMetadata{JobID: id, Metadata: md}, nil
	case TypeChangeJobState:
		id, err := jobID("job_id")
		if err != nil {
			return nil, err
		}
		st, err := str("job_state")
		if err != nil {
			return nil, err
		}
		switch st {
		case StateNotSubmitted, StateRunning, StateSuccess, StateWalltimeReached, StateKilled, StateRejected:
		default:
			return nil, fmt.Errorf("job_state %q cannot be requested", st)
		}
		c := &ChangeJobState{JobID: id, JobState: st}
		c.KillReason, _ = str("kill_reason")
		return c, nil
	case TypeRegisterProfile:
		wl, err := str("workload_name")
		if err != nil {
			return nil, err
		}
		pn, err := str("profile_name")
		if err != nil {
			return nil, err
		}
		raw, ok := m["profile"]
		if !ok || len(bytes.TrimSpace(raw)) == 0 || bytes.TrimSpace(raw)[0] != '{' {
			return nil, errors.New(`"profile" must be an object`)
		}
		return &RegisterProfile{WorkloadName: wl, ProfileName: pn, Profile: append(json.RawMessage(nil), raw...)}, nil
	case TypeRegisterJob:
		id, err := jobID("job_id")
		if err != nil {
			return nil, err
		}
		raw, ok := m["job"]
		if !ok {
			return nil, errors.New(`missing "job" object`)
		}
		if err := CheckRegisteredJob(raw); err != nil {
			return nil, err
		}
		return &RegisterJob{JobID: id, Job: append(json.RawMessage(nil), raw...)}, nil
	case TypeNotify:
		k, err := str("type")
		if err != nil {
			return nil, err
		}
		if k != NotifyRegistrationFinished && k != NotifyContinueRegistration {
			return nil, fmt.Errorf("NOTIFY type %q: a scheduler may only send %s or %s", k, NotifyRegistrationFinished, NotifyContinueRegistration)
		}
		return &Notify{Kind: k, Raw: append(json.RawMessage(nil), b...)}, nil
	case TypeQuery:
		if err := exact(1); err != nil {
			return nil, err
		}
		var req map[string]json.RawMessage
		if err := json.Unmarshal(m["requests"], &req); err != nil || m["requests"] == nil {
			return nil, errors.New(`"requests" must be an object`)
		}
		ce, ok := req["consumed_energy"]
		if !ok || len(req) != 1 || string(bytes.Join(bytes.Fields(ce), nil)) != "{}" {
			return nil, errors.New(`the only request Batsim accepts is {"consumed_energy": {}}`)
		}
		return &SchedulerQuery{ConsumedEnergy: true}, nil
	case TypeAnswer:
		var a struct {
			E *struct {
				JobID                string `json:"job_id"`
				EstimatedWaitingTime Double `json:"estimated_waiting_time"`
			} `json:"estimate_waiting_time"`
		}
		if err := json.Unmarshal(b, &a); err != nil || a.E == nil {
			return nil, errors.New(`the only answer Batsim accepts is "estimate_waiting_time"`)
		}
		return &SchedulerAnswer{JobID: a.E.JobID, EstimatedWaitingTime: float64(a.E.EstimatedWaitingTime)}, nil
	case TypeToJobMsg:
		id, err := jobID("job_id")
		if err != nil {
			return nil, err
		}
		msg, err := str("msg")
		if err != nil {
			return nil, err
		}
		return &ToJobMsg{JobID: id, Msg: msg}, nil
	default:
		return nil, fmt.Errorf("%w %q (Batsim aborts on it)", ErrUnknownEvent, typ)
	}
}

// CheckRegisteredJob checks a REGISTER_JOB job object the way Batsim 4.2.1
// parses it: an object with id, numeric subtime, integer res >= 0 and a
// string profile; walltime, when present, > 0 or -1.
func CheckRegisteredJob(raw []byte) error {
	var j struct {
		ID       json.RawMessage `json:"id"`
		Subtime  *Double         `json:"subtime"`
		Res      *Double         `json:"res"`
		Profile  *string         `json:"profile"`
		Walltime *Double         `json:"walltime"`
	}
	if err := json.Unmarshal(raw, &j); err != nil {
		return errors.New(`"job" must be an object`)
	}
	switch {
	case len(j.ID) == 0:
		return errors.New(`registered job has no "id"`)
	case j.Subtime == nil:
		return errors.New(`registered job has no numeric "subtime" (Batsim 4.2.1 aborts without it)`)
	case j.Res == nil || *j.Res < 0 || *j.Res != Double(int64(*j.Res)):
		return errors.New(`registered job needs an integer "res" >= 0`)
	case j.Profile == nil:
		return errors.New(`registered job has no string "profile"`)
	case j.Walltime != nil && *j.Walltime <= 0 && *j.Walltime != -1:
		return errors.New(`registered job "walltime" must be > 0 or -1`)
	}
	return nil
}

func decodeMapping(raw json.RawMessage, n int) (map[int]int, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, errors.New(`"mapping" must be an object`)
	}
	out := make(map[int]int, len(m))
	for k, v := range m {
		ki, err := strconv.Atoi(k)
		if err != nil {
			return nil, fmt.Errorf("mapping key %q is not an integer", k)
		}
		var vi int
		if err := json.Unmarshal(v, &vi); err != nil {
			var vs string
			if err2 := json.Unmarshal(v, &vs); err2 != nil {
				return nil, fmt.Errorf("mapping value of %q is not an integer", k)
			}
			if vi, err = strconv.Atoi(vs); err != nil {
				return nil, fmt.Errorf("mapping value of %q is not an integer", k)
			}
		}
		if vi < 0 || vi >= n {
			return nil, fmt.Errorf("mapping value %d of executor %d is outside the allocation (size %d)", vi, ki, n)
		}
		out[ki] = vi
	}
	for i := 0; i < len(out); i++ {
		if _, ok := out[i]; !ok {
			return nil, fmt.Errorf("mapping keys must be exactly 0..%d", len(out)-1)
		}
	}
	return out, nil
}
