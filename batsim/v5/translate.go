package v5

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sort"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/internal/batsimfmt"
)

// Config configures an Adapter.
type Config struct {
	// Name, Version and Commit identify the decision component in its
	// hello.
	Name, Version, Commit string
	// Features and Constraints are requested in the hello; the Batsim 4
	// SIMULATION_BEGINS the adapter builds says the same (dynamic jobs,
	// acknowledgment, profile forwarding, compute sharing).
	Features    RequestedFeatures
	Constraints SchedulingConstraints
	// SchedConfig is handed to the Batsim 4 process as SIMULATION_BEGINS'
	// config.sched-config (a JSON object, or "").
	SchedConfig string
	// Log receives warnings (a decision with no Batsim 5 equivalent that is
	// left out); nil means slog.Default().
	Log *slog.Logger
}

// Adapter translates between Batsim 5 and a Batsim 4 decision process: each
// Batsim 5 message becomes the Batsim 4 message (ToV4) the process
// understands, and the process's Batsim 4 reply becomes Batsim 5 decisions
// (FromV4). It keeps what Batsim 5 no longer repeats: the allocation of
// each running job (Batsim 4's JOB_COMPLETED carries it) and the forwarded
// profiles (to number the tasks of a killed composition as Batsim 4 does).
// An Adapter serves one simulation; it is not safe for concurrent use.
type Adapter struct {
	cfg      Config
	log      *slog.Logger
	alloc    map[string]string  // running job -> its allocation as sent
	killing  map[string]bool    // running job -> its kill was asked
	newKills []string           // the kills asked by the reply being translated
	profiles map[string]Profile // "workload!name" -> forwarded or registered profile
	calls    int
	now      float64 // the now of the last message translated (as printed by Batsim)
	power    power
	hello    bool // a BatsimHelloEvent asks for the hello in the next reply
	ended    bool
	warned   map[string]bool
}

// NewAdapter returns an adapter for one simulation.
func NewAdapter(cfg Config) *Adapter {
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	if cfg.Constraints.JobAllocationValidationStrategy == "" {
		cfg.Constraints.JobAllocationValidationStrategy = defaultAllocationStrategy
	}
	return &Adapter{cfg: cfg, log: log, alloc: map[string]string{}, killing: map[string]bool{}, profiles: map[string]Profile{}, warned: map[string]bool{}}
}

// Running lists the jobs started and not completed, sorted.
func (a *Adapter) Running() []string {
	ids := make([]string, 0, len(a.alloc))
	for id := range a.alloc {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Ended reports whether SimulationEndsEvent was translated.
func (a *Adapter) Ended() bool { return a.ended }

// HelloEvent is the decision component's hello.
func (a *Adapter) HelloEvent() *EDCHello {
	c := a.cfg.Constraints
	return &EDCHello{
		BatprotocolVersion:       ProtocolVersion,
		DecisionComponentName:    a.cfg.Name,
		DecisionComponentVersion: a.cfg.Version,
		DecisionComponentCommit:  a.cfg.Commit,
		RequestedFeatures:        a.cfg.Features,
		SchedulingConstraints:    &c,
	}
}

// Hello is the answer to Batsim's initialization: a message at time 0
// holding only the hello.
func (a *Adapter) Hello() *Message {
	return &Message{Events: []Event{{Type: TypeEDCHello, Data: a.HelloEvent()}}}
}

func (a *Adapter) warnOnce(key, msg string, args ...any) {
	if !a.warned[key] {
		a.warned[key] = true
		a.log.Warn(msg, args...)
	}
}

// ---------------------------------------------------------------- Batsim 5 -> Batsim 4

// ToV4 translates a Batsim 5 message into the Batsim 4 message a decision
// process written for Batsim 4 understands. Events with no Batsim 4
// equivalent are kept as *batsim.Unknown (the process ignores them).
func (a *Adapter) ToV4(m *Message) (*batsim.Message, error) {
	a.now = m.Now
	out := &batsim.Message{Now: m.Now, Events: make([]batsim.Event, 0, len(m.Events)+1)}
	add := func(e Event, typ string, data any) {
		out.Events = append(out.Events, batsim.Event{Timestamp: e.Timestamp, Type: typ, Data: data})
	}
	for i, e := range m.Events {
		switch d := e.Data.(type) {
		case *BatsimHello:
			a.hello = true
		case *SimulationBegins:
			add(e, batsim.TypeSimulationBegins, a.simulationBegins(d))
		case *SimulationEnds:
			a.ended = true
			add(e, batsim.TypeSimulationEnds, &batsim.SimulationEnds{})
		case *JobSubmitted:
			js, err := a.jobSubmitted(d)
			if err != nil {
				return nil, fmt.Errorf("event %d (%s): %w", i, e.Type, err)
			}
			add(e, batsim.TypeJobSubmitted, js)
		case *JobCompleted:
			if d.State == StateRejected {
				continue // Batsim 4 tells nothing of a rejection
			}
			alloc, ok := a.alloc[d.JobID]
			if !ok {
				return nil, fmt.Errorf("event %d (%s): job %s completed but was never started", i, e.Type, d.JobID)
			}
			delete(a.alloc, d.JobID)
			delete(a.killing, d.JobID)
			add(e, batsim.TypeJobCompleted, &batsim.JobCompleted{JobID: d.JobID, JobState: d.State, ReturnCode: int(int32(d.ReturnCode)), Alloc: alloc})
		case *JobsKilled:
			add(e, batsim.TypeJobKilled, a.jobsKilled(d))
		case *RequestedCall:
			add(e, batsim.TypeRequestedCall, &batsim.RequestedCall{})
		case *AllStaticJobsHaveBeenSubmitted:
			add(e, batsim.TypeNotify, &batsim.Notify{Kind: batsim.NotifyNoMoreStaticJobToSubmit})
		case *AllStaticExternalEventsHaveBeenInjected:
			add(e, batsim.TypeNotify, &batsim.Notify{Kind: batsim.NotifyNoMoreExternalEventToOccur})
		case *ExternalEventOccurred:
			var n struct {
				Type      string `json:"type"`
				Resources string `json:"resources"`
			}
			if json.Unmarshal([]byte(d.Data), &n) == nil && n.Type != "" {
				add(e, batsim.TypeNotify, &batsim.Notify{Kind: n.Type, Resources: n.Resources, Raw: json.RawMessage(d.Data)})
			} else {
				add(e, e.Type, &batsim.Unknown{Raw: json.RawMessage(appendString(nil, d.Data))})
			}
		case *HostsPStateChanged:
			add(e, batsim.TypeResourceStateChanged, &batsim.ResourceStateChanged{Resources: d.HostIDs, State: strconv.FormatUint(uint64(d.PState), 10)})
		case *HostsTurnedOnOff:
			changed, err := a.power.turned(d)
			if err != nil {
				return nil, fmt.Errorf("event %d (%s): %w", i, e.Type, err)
			}
			add(e, batsim.TypeResourceStateChanged, changed)
		case *Unknown:
			add(e, e.Type, &batsim.Unknown{Raw: d.Raw})
		default:
			// ProbeDataEmitted and decisions: nothing a Batsim 4 process
			// was told of.
			raw, err := json.Marshal(e.Data)
			if err != nil {
				raw = json.RawMessage("{}")
			}
			add(e, e.Type, &batsim.Unknown{Raw: raw})
		}
	}
	return out, nil
}

func properties(ps []HostProperty) map[string]string {
	m := make(map[string]string, len(ps))
	for _, p := range ps {
		m[p.Key] = p.Value
	}
	return m
}

func resources(hosts []Host) []batsim.Resource {
	out := make([]batsim.Resource, len(hosts))
	for i, h := range hosts {
		out[i] = batsim.Resource{ID: int(h.ID), Name: h.Name, State: strings.ToLower(h.State),
			Properties: properties(h.Properties), ZoneProperties: properties(h.ZoneProperties)}
	}
	return out
}

func (a *Adapter) simulationBegins(d *SimulationBegins) *batsim.SimulationBegins {
	f := a.cfg.Features
	a.power.begin(d.ComputationHosts)
	sb := &batsim.SimulationBegins{
		NbResources:         int(d.ComputationHostNumber + d.StorageHostNumber),
		NbComputeResources:  int(d.ComputationHostNumber),
		NbStorageResources:  int(d.StorageHostNumber),
		AllowComputeSharing: a.cfg.Constraints.ComputeSharing,
		AllowStorageSharing: a.cfg.Constraints.StorageSharing,
		Config: batsim.Config{
			ProfilesForwardedOnSubmission: f.ForwardProfilesOnJobSubmission,
			DynamicJobsEnabled:            f.DynamicRegistration,
			DynamicJobsAcknowledged:       f.AcknowledgeDynamicJobs,
			ProfileReuseEnabled:           f.ProfileReuse,
			SchedConfig:                   a.cfg.SchedConfig,
			ForwardUnknownEvents:          f.ForwardUnknownExternalEvents,
		},
		ComputeResources: resources(d.ComputationHosts),
		StorageResources: resources(d.StorageHosts),
		Workloads:        make(map[string]string, len(d.Workloads)),
	}
	for _, w := range d.Workloads {
		sb.Workloads[w.Name] = w.Filename
	}
	if len(d.Profiles) > 0 {
		sb.Profiles = map[string]map[string]json.RawMessage{}
		for _, p := range d.Profiles {
			a.profiles[p.ID] = p.Profile
			wl, name := splitID(p.ID, "")
			raw, err := ProfileToV4(p.Profile, wl)
			if err != nil {
				a.warnOnce("profile "+p.ID, "a forwarded profile has no Batsim 4 equivalent; the decision process does not see it", "profile", p.ID, "error", err)
				continue
			}
			if sb.Profiles[wl] == nil {
				sb.Profiles[wl] = map[string]json.RawMessage{}
			}
			sb.Profiles[wl][name] = raw
		}
	}
	return sb
}

// splitID splits "workload!name"; an id without '!' belongs to workload
// def.
func splitID(id, def string) (workload, name string) {
	if i := strings.IndexByte(id, '!'); i >= 0 {
		return id[:i], id[i+1:]
	}
	return def, id
}

// localName is a profile id as a Batsim 4 job of workload wl names it:
// without the workload when it is wl.
func localName(id, wl string) string {
	if w, n := splitID(id, wl); w == wl {
		return n
	}
	return id
}

// reservedJobKeys are the job fields Batsim 4 defines: an extra_data
// object never overrides them.
var reservedJobKeys = map[string]bool{"id": true, "subtime": true, "res": true, "profile": true, "walltime": true}

// JobToV4 is the Batsim 4 description of a Batsim 5 job (JOB_SUBMITTED's
// job object): id, subtime, res, profile (without the job's workload),
// walltime when set, then the members of extra_data when it is a JSON
// object (the workload converter puts a job's own fields there), or
// extra_data itself as a string.
func JobToV4(id string, subtime float64, j *Job) json.RawMessage {
	wl, _ := splitID(id, "")
	b := make([]byte, 0, 96+len(j.ExtraData))
	b = append(b, `{"id":`...)
	b = appendString(b, id)
	b = append(b, `,"subtime":`...)
	b = batsimfmt.AppendDouble(b, subtime)
	b = append(b, `,"res":`...)
	b = strconv.AppendUint(b, uint64(j.ResourceRequest), 10)
	b = append(b, `,"profile":`...)
	b = appendString(b, localName(j.ProfileID, wl))
	if j.Walltime != nil {
		b = append(b, `,"walltime":`...)
		b = batsimfmt.AppendDouble(b, *j.Walltime)
	}
	if extra := strings.TrimSpace(j.ExtraData); extra != "" {
		var members []member
		if extra[0] == '{' {
			members = objectMembers([]byte(extra))
		}
		if members != nil {
			for _, m := range members {
				if reservedJobKeys[m.key] {
					continue
				}
				b = append(b, ',')
				b = appendString(b, m.key)
				b = append(b, ':')
				b = append(b, m.raw...)
			}
		} else {
			b = append(b, `,"extra_data":`...)
			b = appendString(b, j.ExtraData)
		}
	}
	return append(b, '}')
}

type member struct {
	key string
	raw []byte
}

// objectMembers lists the members of a JSON object in order (nil when b is
// not an object).
func objectMembers(b []byte) []member {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil
	}
	out := []member{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		key, ok := tok.(string)
		if !ok {
			return nil
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil
		}
		out = append(out, member{key, compact(raw)})
	}
	if _, err := dec.Token(); err != nil {
		return nil
	}
	return out
}

func compact(raw []byte) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}

func (a *Adapter) jobSubmitted(d *JobSubmitted) (*batsim.JobSubmitted, error) {
	if _, err := batsim.ParseJobID(d.JobID); err != nil {
		return nil, err
	}
	js := &batsim.JobSubmitted{JobID: d.JobID, Job: JobToV4(d.JobID, d.SubmissionTime, &d.Job)}
	if d.Profile != nil {
		a.profiles[d.Profile.ID] = d.Profile.Profile
		wl, _ := splitID(d.JobID, "")
		raw, err := ProfileToV4(d.Profile.Profile, wl)
		if err != nil {
			a.warnOnce("profile "+d.Profile.ID, "a forwarded profile has no Batsim 4 equivalent; the decision process does not see it", "profile", d.Profile.ID, "error", err)
		} else {
			js.Profile = raw
		}
	}
	return js, nil
}

func (a *Adapter) jobsKilled(d *JobsKilled) *batsim.JobKilled {
	k := &batsim.JobKilled{JobIDs: append([]string(nil), d.JobIDs...), JobProgress: map[string]*batsim.JobProgress{}}
	for _, p := range d.Profiles {
		a.profiles[p.ID] = p.Profile
	}
	for _, jp := range d.Progresses {
		wl, _ := splitID(jp.JobID, "")
		if p := a.progressToV4(jp.Progress, wl); p != nil {
			k.JobProgress[jp.JobID] = p
		}
	}
	return k
}

// progressToV4 is Batsim 4's progress tree of a killed profile: a sequence
// numbers its tasks across repetitions (repetition × length + index) when
// the adapter knows the sequence's profile, as Batsim 4 does.
func (a *Adapter) progressToV4(k KillProgress, wl string) *batsim.JobProgress {
	switch p := k.(type) {
	case *KillProgressAtomic:
		v := p.Progress
		return &batsim.JobProgress{ProfileName: localName(p.ProfileID, wl), Progress: &v}
	case *KillProgressSequential:
		idx := int(p.CurrentTaskIndex)
		if seq, ok := a.profiles[p.ProfileID].(*SequentialCompositionProfile); ok {
			idx += int(p.CurrentRepetition) * len(seq.ProfileIDs)
		}
		return &batsim.JobProgress{ProfileName: localName(p.ProfileID, wl), CurrentTaskIndex: &idx,
			CurrentTask: a.progressToV4(p.CurrentTaskProgress, wl)}
	case *KillProgressForkJoin:
		return &batsim.JobProgress{ProfileName: localName(p.ProfileID, wl)}
	}
	return nil
}

// ---------------------------------------------------------------- Batsim 4 -> Batsim 5

// ErrNoEquivalent marks a Batsim 4 decision that Batsim 5 cannot express.
var ErrNoEquivalent = errors.New("no Batsim 5 equivalent")

// FromV4 translates a Batsim 4 reply into Batsim 5 decisions, with the
// same times, and Batsim 4's reading of what Batsim 5 would abort on: a
// decision dated before the one before it is dated as that one (Batsim 4
// applies it then), a kill already asked is left out (Batsim 4 leaves it
// out). SET_JOB_METADATA, which Batsim 5 has no event for, is left
// out (with a warning, once); the other decisions Batsim 5 cannot express
// (CHANGE_JOB_STATE, QUERY, ANSWER, TO_JOB_MSG, continue_registration,
// additional_io_job) are errors.
//
// Batsim 5 writes times in JSON with 12 decimals, so the now a decision
// process reads may be a little later than Batsim's own; a reply dated at
// that now would tell Batsim the process took that little time, and Batsim
// would wait for it, which can move the next events into another message.
// Times not later than the message's now are therefore written no later
// than the earliest time Batsim's own now can be (NotAfter), as a decision
// component that reads the binary form, with Batsim's exact now, answers.
func (a *Adapter) FromV4(r *batsim.Reply) (*Message, error) {
	clamp := func(t float64) float64 {
		if t <= a.now {
			return math.Min(t, NotAfter(a.now))
		}
		return t
	}
	out := &Message{Now: clamp(r.Now()), Events: make([]Event, 0, r.Len()+1)}
	if a.hello {
		a.hello = false
		out.Events = append(out.Events, Event{Timestamp: out.Now, Type: TypeEDCHello, Data: a.HelloEvent()})
	}
	a.newKills = a.newKills[:0]
	last := math.Inf(-1)
	for i, e := range r.Events() {
		e.Timestamp = clamp(e.Timestamp)
		// Batsim 4 applies a reply's events in order, each at the later
		// of its date and the clock: an event dated before the one before
		// it is applied at that one's date (Batsim 5 aborts on it).
		e.Timestamp = max(e.Timestamp, last)
		last = e.Timestamp
		ev, err := a.decision(e)
		if err != nil {
			// The reply is not sent: its starts and kills did not
			// happen.
			for _, d := range r.Events()[:i] {
				if ej, ok := d.Data.(*batsim.ExecuteJob); ok {
					delete(a.alloc, ej.JobID)
				}
			}
			for _, id := range a.newKills {
				delete(a.killing, id)
			}
			return nil, fmt.Errorf("decision %d (%s): %w", i, e.Type, err)
		}
		if evs, ok := ev.([]any); ok {
			for _, x := range evs {
				out.Events = append(out.Events, Event{Timestamp: e.Timestamp, Type: TypeOf(x), Data: x})
			}
		} else if ev != nil {
			out.Events = append(out.Events, Event{Timestamp: e.Timestamp, Type: TypeOf(ev), Data: ev})
		}
	}
	return out, nil
}

// CallMeLaterMillis is the whole millisecond at which the adapter asks
// Batsim 5 to call back for a Batsim 4 CALL_ME_LATER at t (batprotocol's
// OneShot takes whole seconds or milliseconds): the first one not before
// t (t is taken as a whole millisecond when within a nanosecond of one).
func CallMeLaterMillis(t float64) float64 { return math.Ceil(t*1000 - 1e-6) }

// NotAfter is the earliest time a time printed by Batsim as p (JSON, 12
// decimals, rounded to nearest) can stand for: p less 5e-13, rounded down
// to a double; p itself where doubles are coarser than the 12th decimal
// (there the print is exact); never before 0, where Batsim's clock starts.
func NotAfter(p float64) float64 {
	if math.Nextafter(p, math.Inf(1))-p >= 1e-12 {
		return p
	}
	n := math.Nextafter(p-5e-13, math.Inf(-1))
	if n < 0 && p >= 0 {
		return 0
	}
	return n
}

func (a *Adapter) decision(e batsim.Event) (any, error) {
	switch d := e.Data.(type) {
	case *batsim.ExecuteJob:
		ej := &ExecuteJob{JobID: d.JobID, Allocation: Allocation{HostAllocation: d.Alloc.String(), Placement: &PredefinedPlacement{Strategy: SpreadOverHostsFirst}}}
		switch {
		case d.Mapping != nil:
			m := make([]uint32, len(d.Mapping))
			for k, v := range d.Mapping {
				if k < 0 || k >= len(m) || v < 0 {
					return nil, fmt.Errorf("job %s: bad executor mapping", d.JobID)
				}
				m[k] = uint32(v)
			}
			ej.Allocation.Placement = &CustomMapping{Mapping: m}
		case d.StorageMapping != nil:
			for _, name := range sortedKeys(d.StorageMapping) {
				ej.StoragePlacement = append(ej.StoragePlacement, StorageHost{StorageName: name, HostID: uint32(d.StorageMapping[name])})
			}
		case d.AdditionalIOJob != nil:
			return nil, fmt.Errorf("job %s: additional_io_job: %w", d.JobID, ErrNoEquivalent)
		}
		a.alloc[d.JobID] = ej.Allocation.HostAllocation
		return ej, nil
	case *batsim.RejectJob:
		return &RejectJob{JobID: d.JobID}, nil
	case *batsim.KillJob:
		// Batsim 4 leaves out a job whose kill was asked (in this
		// KILL_JOB or before); Batsim 5 aborts on it.
		ids := make([]string, 0, len(d.JobIDs))
		for _, id := range d.JobIDs {
			if a.killing[id] {
				continue
			}
			a.killing[id] = true
			a.newKills = append(a.newKills, id)
			ids = append(ids, id)
		}
		if len(ids) == 0 {
			return nil, nil
		}
		return &KillJobs{JobIDs: ids}, nil
	case *batsim.CallMeLater:
		ms := CallMeLaterMillis(d.At)
		if !(ms >= 0 && ms < 1<<63) {
			return nil, fmt.Errorf("CALL_ME_LATER at %v: out of range", d.At)
		}
		a.calls++
		return &CallMeLater{CallMeLaterID: "bucma-" + strconv.Itoa(a.calls), When: &OneShot{Time: uint64(ms), TimeUnit: Millisecond}}, nil
	case *batsim.SetResourceState:
		return a.power.set(d)
	case *batsim.Notify:
		switch d.Kind {
		case batsim.NotifyRegistrationFinished:
			return &FinishRegistration{}, nil
		}
		return nil, fmt.Errorf("NOTIFY %s: %w", d.Kind, ErrNoEquivalent)
	case *batsim.RegisterProfile:
		p, err := ProfileFromV4(d.Profile, d.WorkloadName)
		if err != nil {
			return nil, fmt.Errorf("profile %s!%s: %w", d.WorkloadName, d.ProfileName, err)
		}
		id := d.WorkloadName + "!" + d.ProfileName
		a.profiles[id] = p
		return &RegisterProfile{Profile: ProfileAndID{ID: id, Profile: p}}, nil
	case *batsim.RegisterJob:
		j, err := JobFromV4(d.JobID, d.Job)
		if err != nil {
			return nil, fmt.Errorf("job %s: %w", d.JobID, err)
		}
		return &RegisterJob{JobID: d.JobID, Job: *j}, nil
	case *batsim.SetJobMetadata:
		a.warnOnce("metadata", "SET_JOB_METADATA has no Batsim 5 equivalent: the metadata column of Batsim 5's jobs.csv stays empty", "job", d.JobID)
		return nil, nil
	}
	return nil, ErrNoEquivalent
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for k := i; k > 0 && keys[k] < keys[k-1]; k-- {
			keys[k], keys[k-1] = keys[k-1], keys[k]
		}
	}
	return keys
}

// JobFromV4 is the Batsim 5 description of a Batsim 4 job object (as
// REGISTER_JOB carries it): res, walltime (when positive), the profile in
// "workload!name" form, and every other field of the object, in order, as
// the members of an extra_data JSON object.
func JobFromV4(id string, raw json.RawMessage) (*Job, error) {
	members := objectMembers(raw)
	if members == nil {
		return nil, errors.New("the job is not a JSON object")
	}
	wl, _ := splitID(id, "")
	j := &Job{Rigid: true}
	var extra []byte
	for _, m := range members {
		switch m.key {
		case "id", "subtime":
		case "res":
			var n batsim.Double
			if err := json.Unmarshal(m.raw, &n); err != nil || n < 0 || float64(n) != math.Trunc(float64(n)) || n > math.MaxUint32 {
				return nil, fmt.Errorf("res %s is not a number of hosts", m.raw)
			}
			j.ResourceRequest = uint32(n)
		case "walltime":
			var w batsim.Double
			if err := json.Unmarshal(m.raw, &w); err != nil {
				return nil, fmt.Errorf("walltime %s is not a number", m.raw)
			}
			if w > 0 {
				v := float64(w)
				j.Walltime = &v
			}
		case "profile":
			var p string
			if err := json.Unmarshal(m.raw, &p); err != nil {
				return nil, fmt.Errorf("profile %s is not a string", m.raw)
			}
			if strings.Contains(p, "!") {
				j.ProfileID = p
			} else {
				j.ProfileID = wl + "!" + p
			}
		default:
			if extra == nil {
				extra = append(extra, '{')
			} else {
				extra = append(extra, ',')
			}
			extra = appendString(extra, m.key)
			extra = append(extra, ':')
			extra = append(extra, m.raw...)
		}
	}
	if j.ProfileID == "" {
		return nil, errors.New("the job has no profile")
	}
	if extra != nil {
		j.ExtraData = string(append(extra, '}'))
	}
	return j, nil
}

// ---------------------------------------------------------------- profiles

// v4Profile is a Batsim 4 profile object, every field Batsim 4 knows.
type v4Profile struct {
	Type       string          `json:"type"`
	Delay      *float64        `json:"delay"`
	CPU        json.RawMessage `json:"cpu"`
	Com        json.RawMessage `json:"com"`
	Repeat     *float64        `json:"repeat"`
	Seq        []string        `json:"seq"`
	Ret        *float64        `json:"ret"`
	BytesRead  *float64        `json:"bytes_to_read"`
	BytesWrite *float64        `json:"bytes_to_write"`
	Storage    *string         `json:"storage"`
	NbBytes    *float64        `json:"nb_bytes"`
	From       *string         `json:"from"`
	To         *string         `json:"to"`
}

func number(raw json.RawMessage, what string) (float64, error) {
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		return 0, fmt.Errorf("%s is not a number", what)
	}
	return f, nil
}

func numbers(raw json.RawMessage, what string) ([]float64, error) {
	var v []float64
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("%s is not an array of numbers", what)
	}
	return v, nil
}

// ProfileFromV4 is the Batsim 5 profile of a Batsim 4 profile object of
// workload wl: delay → DelayProfile, parallel → ParallelTaskProfile,
// parallel_homogeneous(_total) → ParallelTaskHomogeneousProfile (amounts
// used for each value, or spread uniformly), composed →
// SequentialCompositionProfile (its profiles in "workload!name" form),
// parallel_homogeneous_pfs → ParallelTaskOnStorageHomogeneousProfile,
// data_staging → ParallelTaskDataStagingBetweenStoragesProfile. Other types
// and a non-zero return code ("ret") have no Batsim 5 equivalent.
func ProfileFromV4(raw json.RawMessage, wl string) (Profile, error) {
	var p v4Profile
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("not a profile object: %v", err)
	}
	if p.Ret != nil && *p.Ret != 0 {
		return nil, fmt.Errorf("return code %v: %w (Batsim 5 profiles have no return code)", *p.Ret, ErrNoEquivalent)
	}
	switch p.Type {
	case "delay":
		if p.Delay == nil {
			return nil, errors.New("delay profile without delay")
		}
		return &DelayProfile{Delay: *p.Delay}, nil
	case "parallel":
		out := &ParallelTaskProfile{}
		var err error
		if len(p.CPU) > 0 {
			if out.ComputationVector, err = numbers(p.CPU, "cpu"); err != nil {
				return nil, err
			}
		}
		if len(p.Com) > 0 {
			if out.CommunicationMatrix, err = numbers(p.Com, "com"); err != nil {
				return nil, err
			}
		}
		return out, nil
	case "parallel_homogeneous", "parallel_homogeneous_total":
		out := &ParallelTaskHomogeneousProfile{GenerationStrategy: AmountsUsedForEachValue}
		if p.Type == "parallel_homogeneous_total" {
			out.GenerationStrategy = AmountsSpreadUniformly
		}
		var err error
		if len(p.CPU) > 0 {
			if out.ComputationAmount, err = number(p.CPU, "cpu"); err != nil {
				return nil, err
			}
		}
		if len(p.Com) > 0 {
			if out.CommunicationAmount, err = number(p.Com, "com"); err != nil {
				return nil, err
			}
		}
		return out, nil
	case "composed":
		out := &SequentialCompositionProfile{RepetitionCount: 1}
		if p.Repeat != nil {
			if *p.Repeat < 1 || *p.Repeat != math.Trunc(*p.Repeat) || *p.Repeat > math.MaxUint32 {
				return nil, fmt.Errorf("repeat %v is not a positive integer", *p.Repeat)
			}
			out.RepetitionCount = uint32(*p.Repeat)
		}
		if len(p.Seq) == 0 {
			return nil, errors.New("composed profile without seq")
		}
		for _, s := range p.Seq {
			if !strings.Contains(s, "!") {
				s = wl + "!" + s
			}
			out.ProfileIDs = append(out.ProfileIDs, s)
		}
		return out, nil
	case "parallel_homogeneous_pfs":
		out := &ParallelTaskOnStorageHomogeneousProfile{StorageName: "pfs", GenerationStrategy: AmountsUsedForEachValue}
		if p.Storage != nil {
			out.StorageName = *p.Storage
		}
		if p.BytesRead != nil {
			out.BytesToRead = *p.BytesRead
		}
		if p.BytesWrite != nil {
			out.BytesToWrite = *p.BytesWrite
		}
		return out, nil
	case "data_staging":
		if p.NbBytes == nil || p.From == nil || p.To == nil {
			return nil, errors.New("data_staging profile needs nb_bytes, from and to")
		}
		return &ParallelTaskDataStagingBetweenStoragesProfile{BytesToTransfer: *p.NbBytes, EmitterStorageName: *p.From, ReceiverStorageName: *p.To}, nil
	case "":
		return nil, errors.New("profile without type")
	}
	return nil, fmt.Errorf("type %q: %w", p.Type, ErrNoEquivalent)
}

// ProfileToV4 is the Batsim 4 profile object of a Batsim 5 profile of
// workload wl (the inverse of ProfileFromV4; trace replays become smpi or
// usage_trace profiles). Fork-join and merge compositions have no Batsim 4
// equivalent.
func ProfileToV4(p Profile, wl string) (json.RawMessage, error) {
	var w objWriter
	num := func(k string, v float64) { w.key(k); w.b = batsimfmt.AppendDouble(w.b, v) }
	nums := func(k string, v []float64) {
		w.key(k)
		w.b = append(w.b, '[')
		for i, x := range v {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.b = batsimfmt.AppendDouble(w.b, x)
		}
		w.b = append(w.b, ']')
	}
	switch p := p.(type) {
	case *DelayProfile:
		w.str("type", "delay")
		num("delay", p.Delay)
	case *ParallelTaskProfile:
		w.str("type", "parallel")
		nums("cpu", p.ComputationVector)
		nums("com", p.CommunicationMatrix)
	case *ParallelTaskHomogeneousProfile:
		switch p.GenerationStrategy {
		case AmountsSpreadUniformly:
			w.str("type", "parallel_homogeneous_total")
		case AmountsUsedForEachValue, "":
			w.str("type", "parallel_homogeneous")
		default:
			return nil, fmt.Errorf("generation strategy %q: %w", p.GenerationStrategy, ErrNoEquivalent)
		}
		num("cpu", p.ComputationAmount)
		num("com", p.CommunicationAmount)
	case *SequentialCompositionProfile:
		w.str("type", "composed")
		w.val("repeat", p.RepetitionCount)
		seq := make([]string, len(p.ProfileIDs))
		for i, id := range p.ProfileIDs {
			seq[i] = localName(id, wl)
		}
		w.val("seq", seq)
	case *ParallelTaskOnStorageHomogeneousProfile:
		w.str("type", "parallel_homogeneous_pfs")
		num("bytes_to_read", p.BytesToRead)
		num("bytes_to_write", p.BytesToWrite)
		w.str("storage", p.StorageName)
	case *ParallelTaskDataStagingBetweenStoragesProfile:
		w.str("type", "data_staging")
		num("nb_bytes", p.BytesToTransfer)
		w.str("from", p.EmitterStorageName)
		w.str("to", p.ReceiverStorageName)
	case *TraceReplayProfile:
		if p.TraceType == "FractionalComputation" {
			w.str("type", "usage_trace")
		} else {
			w.str("type", "smpi")
		}
		w.str("trace", p.Filename)
	case nil:
		return nil, errors.New("no profile")
	default:
		return nil, fmt.Errorf("%s: %w", p.profileType(), ErrNoEquivalent)
	}
	return w.done()
}
