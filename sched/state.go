package sched

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/internal/jsonspan"
)

// Job is a job as the framework tracks it. Policies read it through its
// methods; only the framework changes it (as Batsim's events arrive and as
// the Decider applies decisions).
type Job struct {
	id       string  // full id "workload!name"
	submit   float64 // submission time: the JOB_SUBMITTED event's timestamp
	res      int
	walltime float64 // seconds; 0 when the job has no walltime (absent or -1)
	user     string  // "user" field, else "user_id", else ""
	profile  string
	seq      int64 // arrival rank (0, 1, ...): the last tie-breaker of every order

	state string  // protocol job state (SUBMITTED, RUNNING, COMPLETED_*, REJECTED)
	start float64 // set when started
	end   float64 // set when completed (JOB_COMPLETED timestamp)
	alloc []int   // hosts given at start

	// ext holds what few jobs have (nil for most): a job is held for
	// each waiting job, a million of them in large runs.
	ext *jobExt

	qpos       int64 // absolute position in the waiting queue
	cpos       int32 // position in the index's bucket of that class
	returnCode int32 // JOB_COMPLETED's return code
	wcls       int16 // walltime class in the candidate index, set when queued

	// refused is set at submission when the job can never run (res 0, or
	// more hosts than the platform has) or the policy does not admit it.
	refused bool
	// killing is set from the kill request to the job's end (the date of
	// the KILL_JOB is ext.killAt).
	killing bool
}

// jobExt is the part of a Job that most jobs do not have.
type jobExt struct {
	raw json.RawMessage // the job object as Batsim forwarded it, when the policy's Spec asks (JobJSON)
	// original and piece link a resubmitted piece to its original job.
	original string
	piece    int
	killAt   float64 // the date of the KILL_JOB
}

// x is j's ext, made when it has none.
func (j *Job) x() *jobExt {
	if j.ext == nil {
		j.ext = &jobExt{}
	}
	return j.ext
}

// setRaw keeps the job's JSON object (nil: none).
func (j *Job) setRaw(raw json.RawMessage) {
	if raw == nil && j.ext == nil {
		return
	}
	j.x().raw = raw
}

// ID is the job's full id, "workload!name".
func (j *Job) ID() string { return j.id }

// Workload is the workload part of the job's id.
func (j *Job) Workload() string {
	if i := strings.IndexByte(j.id, '!'); i >= 0 {
		return j.id[:i]
	}
	return ""
}

// Name is the name part of the job's id (after the '!').
func (j *Job) Name() string { return j.id[strings.LastIndexByte(j.id, '!')+1:] }

// Submit is the job's submission time: its JOB_SUBMITTED event's
// timestamp.
func (j *Job) Submit() float64 { return j.submit }

// Res is the number of hosts the job requests.
func (j *Job) Res() int { return j.res }

// Walltime is the job's walltime in seconds; 0 when it has none (absent
// or -1 in the workload). See HasWalltime and WalltimeOrInf.
func (j *Job) Walltime() float64 { return j.walltime }

// User is the job's "user" field, else its "user_id" field (a number
// written in decimal), else "".
func (j *Job) User() string { return j.user }

// Profile is the name of the job's profile.
func (j *Job) Profile() string { return j.profile }

// Raw is the job's JSON object as Batsim sent it, for policies that read
// fields of their own; nil unless the policy's Spec sets JobJSON. The
// bytes are the framework's: do not modify them.
func (j *Job) Raw() json.RawMessage {
	if j.ext == nil {
		return nil
	}
	return j.ext.raw
}

// Seq is the job's arrival rank (0, 1, ...): the last tie-breaker of
// every order.
func (j *Job) Seq() int64 { return j.seq }

// State is the job's state in Batsim's terms: batsim.StateSubmitted while
// it waits, batsim.StateRunning, then a final state (COMPLETED_*,
// REJECTED).
func (j *Job) State() string { return j.state }

// Waiting reports whether the job is in the waiting queue (submitted, not
// started, not rejected).
func (j *Job) Waiting() bool { return j.state == batsim.StateSubmitted }

// Running reports whether the job runs.
func (j *Job) Running() bool { return j.state == batsim.StateRunning }

// Start is the time the job started (0 until it does).
func (j *Job) Start() float64 { return j.start }

// End is the time the job ended (its JOB_COMPLETED timestamp) or was
// rejected; 0 until then.
func (j *Job) End() float64 { return j.end }

// Alloc lists the hosts the job was started on, in increasing order (nil
// until it starts). The slice is the framework's: do not modify it.
func (j *Job) Alloc() []int { return j.alloc }

// ReturnCode is the return code of the job's JOB_COMPLETED.
func (j *Job) ReturnCode() int { return int(j.returnCode) }

// Refused reports whether the job was refused at submission: it can never
// run (res 0, or more hosts than the platform has) or the policy does not
// admit it (Admitter). The framework rejects it in the decision of the
// message that submitted it (see InPlaceRejecter for where in the reply).
func (j *Job) Refused() bool { return j.refused }

// HasWalltime reports whether the job has a finite walltime.
func (j *Job) HasWalltime() bool { return j.walltime > 0 }

// WalltimeOrInf is the walltime, +Inf when unlimited (how orders sort it).
func (j *Job) WalltimeOrInf() float64 {
	if j.walltime > 0 {
		return j.walltime
	}
	return math.Inf(1)
}

// ExpectedEnd is start + walltime (+Inf when unlimited): what reservations
// plan with for a running job.
func (j *Job) ExpectedEnd() float64 { return j.start + j.WalltimeOrInf() }

// Precision is how much of its walltime a job used, P = Te / W · 100
// (BUCMA's Eq. 1), for a job that ran, with Te = end −
// start. ok is false when the job never started or has no walltime. It is
// computed as 100·Te / W, so that P lands exactly on the table's boundaries
// when Te and W are whole numbers (Te/W·100 would give 15.000000000000002
// for Te = 15, W = 100).
func Precision(j *Job) (p float64, ok bool) {
	if !j.HasWalltime() || j.alloc == nil {
		return 0, false
	}
	te := math.Max(j.end-j.start, 0)
	return 100 * te / j.walltime, true
}

// Host is a compute resource. Policies read it through its methods
// (State.Host); only the framework changes it.
type Host struct {
	id        int
	name      string
	speed     float64 // from the "speed" property; 1 when absent or unreadable
	props     map[string]string
	zoneProps map[string]string
	// jobs are the jobs running on the host, in start order: at most one,
	// or up to slots for a policy that shares hosts.
	jobs []*Job
	// slots is how many jobs the host may run at once: 1, or for a policy
	// that shares hosts (Spec.ComputeSharing) the host's "slots" property
	// (see HostSlots). 0 counts as 1.
	slots       int
	unavailable bool // set by NOTIFY event_machine_unavailable
	// power is the host's power state (PowerOn unless a policy switched
	// it) and pstate its pstate: the platform's initial one (0) until a
	// RESOURCE_STATE_CHANGED reports another.
	power  PowerState
	pstate int
	// pstates is the host's pstates, from its properties (nil: none).
	pstates *hostPstates
}

// ID is the host's resource id (0..NbHosts-1).
func (h *Host) ID() int { return h.id }

// Name is the host's name in the platform.
func (h *Host) Name() string { return h.name }

// Speed is the host's "speed" property in flop/s (its first pstate's
// speed); 1 when absent or unreadable, so that every host counts as equal.
func (h *Host) Speed() float64 { return h.speed }

// Property is the value of the host's platform property name.
func (h *Host) Property(name string) (string, bool) {
	v, ok := h.props[name]
	return v, ok
}

// Properties are the host's platform properties. The map is the
// framework's: do not modify it.
func (h *Host) Properties() map[string]string { return h.props }

// ZoneProperties are the properties of the host's zone. The map is the
// framework's: do not modify it.
func (h *Host) ZoneProperties() map[string]string { return h.zoneProps }

// Jobs are the jobs running on the host, in start order: at most one, or
// up to Slots for a policy that shares hosts, besides the jobs being
// killed on a host handed over to a later start (see Decider.StartAt). The
// slice is the framework's: do not modify it.
func (h *Host) Jobs() []*Job { return h.jobs }

// liveJobs counts the host's jobs that are not being killed.
func (h *Host) liveJobs() int {
	n := 0
	for _, j := range h.jobs {
		if !j.killing {
			n++
		}
	}
	return n
}

// Slots is how many jobs the host may run at once as set: 1, or for a
// policy that shares hosts (Spec.ComputeSharing) the host's "slots"
// property (see HostSlots) or what the policy set (State.SetSlots); 0
// counts as 1 (see Capacity).
func (h *Host) Slots() int { return h.slots }

// Unavailable reports whether Batsim made the host unavailable (NOTIFY
// event_machine_unavailable).
func (h *Host) Unavailable() bool { return h.unavailable }

// Power is the host's power state: PowerOn unless a policy switched it
// (Decider.SetPState).
func (h *Host) Power() PowerState { return h.power }

// PState is the host's pstate: the platform's initial one (0) until a
// RESOURCE_STATE_CHANGED reports another.
func (h *Host) PState() int { return h.pstate }

// PowerState is a host's state as far as power goes.
type PowerState uint8

const (
	PowerOn           PowerState = iota // in a computation pstate: may run jobs
	PowerSwitchingOff                   // asked to sleep, not asleep yet
	PowerSleeping                       // in a sleep pstate
	PowerSwitchingOn                    // asked to wake up, not awake yet
)

// String names the power state.
func (p PowerState) String() string {
	switch p {
	case PowerSwitchingOff:
		return "switching off"
	case PowerSleeping:
		return "sleeping"
	case PowerSwitchingOn:
		return "switching on"
	}
	return "on"
}

// hostPstates are a host's pstates as Batsim reads them: the count (from
// wattage_per_state) and the sleep pstates (sleep_pstates).
type hostPstates struct {
	n     int          // 0 when unknown
	sleep map[int]bool // sleep pstates
	virt  map[int]bool // their switching pstates
}

// SleepPStates lists the host's sleep pstates (its sleep_pstates
// property), in increasing order.
func (h *Host) SleepPStates() []int {
	if h.pstates == nil {
		return nil
	}
	var out []int
	for p := range h.pstates.sleep {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Capacity is how many jobs the host may run at once (Slots, at least 1).
func (h *Host) Capacity() int { return max(h.slots, 1) }

// FreeSlots is how many more jobs may start on the host now.
func (h *Host) FreeSlots() int {
	if h.unavailable || h.power != PowerOn {
		return 0
	}
	return max(h.Capacity()-len(h.jobs), 0)
}

// Free reports whether a job may start on the host now (it has a free
// slot).
func (h *Host) Free() bool {
	return !h.unavailable && h.power == PowerOn && len(h.jobs) < h.Capacity()
}

// Idle reports whether the host runs no job.
func (h *Host) Idle() bool { return len(h.jobs) == 0 }

// removeJob takes j off the host's jobs (order kept); it reports whether
// j was there.
func (h *Host) removeJob(j *Job) bool {
	for i, x := range h.jobs {
		if x == j {
			copy(h.jobs[i:], h.jobs[i+1:])
			h.jobs[len(h.jobs)-1] = nil
			h.jobs = h.jobs[:len(h.jobs)-1]
			return true
		}
	}
	return false
}

// State is the framework's view of the simulation, passed to policies.
// Policies read it; they change it only through the Decider.
type State struct {
	now         float64
	lastEvent   float64
	hosts       []Host
	config      batsim.Config
	schedConfig string

	// waiting holds the queue in arrival order. Jobs that left it (started or
	// rejected) are dropped lazily: dead counts them, the leading ones are
	// trimmed after every decision and the rest when they are half the slice.
	waiting []*Job
	dead    int
	// cands counts waiting jobs by size and walltime class (EASY's early exit).
	cands *candidateIndex
	// qbase is the absolute position of waiting[0]; fit indexes the sizes
	// of the waiting jobs by absolute position, built when first read
	// (fitIndex): kept from then on (nil until then, for the policies
	// that never search the queue by size).
	qbase   int64
	fit     *fitTree
	running map[string]*Job // by id
	jobs    map[string]*Job // every job not yet finished (waiting or running)
	nfree   int
	seq     int64
	// seqs are the ordered indexes of the waiting queue the policy asked
	// for (seqFor); users numbers the users they have seen.
	seqs      []*jobSeq
	timed     []*timeIndex // the indexes of the TimeOrders the policy asked for (timeFor)
	users     map[string]int32
	userNames []string
	// byFastest lists host ids by speed descending, then id ascending.
	byFastest []int

	// byEnd holds the running jobs by expected end (start + walltime,
	// +Inf last), kept in order as jobs start and end: the reservation
	// reads it from the front at every decision (Reservation).
	byEnd []*Job
	// unavailableSeen is set once NOTIFY has made a host unavailable:
	// until then every running job's hosts count as available
	// (availableOf). Jobs start on available hosts only, so a running
	// job's host can become unavailable by NOTIFY alone.
	unavailableSeen bool

	// noMoreStatic is set once Batsim said no_more_static_job_to_submit.
	noMoreStatic bool

	// killed lists the jobs of the current message's JOB_KILLED events;
	// nkilling counts the jobs whose kill was requested and not completed.
	killed   []Killed
	nkilling int
	// dynamic tracks profiles and dynamic registrations (preempt.go).
	dynamic *dynamicJobs
}

// Now is the current message's now: the date of the decision.
func (s *State) Now() float64 { return s.now }

// runStarted records that j runs (its start and walltime set).
func (s *State) runStarted(j *Job) {
	s.running[j.id] = j
	e := j.ExpectedEnd()
	// After the jobs ending at the same date: a job is found again by
	// its end among few.
	i := sort.Search(len(s.byEnd), func(k int) bool { return s.byEnd[k].ExpectedEnd() > e })
	s.byEnd = slices.Insert(s.byEnd, i, j)
}

// runEnded records that j no longer runs.
func (s *State) runEnded(j *Job) {
	delete(s.running, j.id)
	e := j.ExpectedEnd()
	i := sort.Search(len(s.byEnd), func(k int) bool { return s.byEnd[k].ExpectedEnd() >= e })
	for ; i < len(s.byEnd); i++ {
		if s.byEnd[i] == j {
			s.byEnd = slices.Delete(s.byEnd, i, i+1)
			return
		}
	}
}

// LastEvent is the timestamp of the current message's last event (Now
// when it has none). Batsim stamps each event with the time it occurred,
// which may be earlier than the message's now.
func (s *State) LastEvent() float64 { return s.lastEvent }

// Host is host id (0 <= id < NbHosts).
func (s *State) Host(id int) *Host { return &s.hosts[id] }

// Config is Batsim's configuration, as SIMULATION_BEGINS gave it.
func (s *State) Config() batsim.Config { return s.config }

// SchedConfig is Batsim's config.sched-config string (may be "").
func (s *State) SchedConfig() string { return s.schedConfig }

// NoMoreStaticJobs reports whether Batsim said it has no more static job
// to submit (NOTIFY no_more_static_job_to_submit).
func (s *State) NoMoreStaticJobs() bool { return s.noMoreStatic }

// newState builds a state over hosts (ids must be 0..n-1 in order).
func newState(hosts []Host) *State {
	s := &State{hosts: hosts, running: map[string]*Job{}, jobs: map[string]*Job{}}
	s.cands = newCandidateIndex(len(hosts))
	s.reindexHosts()
	return s
}

func (s *State) reindexHosts() {
	s.nfree = 0
	s.byFastest = make([]int, len(s.hosts))
	for i := range s.hosts {
		s.byFastest[i] = i
		if s.hosts[i].Free() {
			s.nfree++
		}
	}
	sortIntsBy(s.byFastest, func(a, b int) bool {
		if s.hosts[a].speed != s.hosts[b].speed {
			return s.hosts[a].speed > s.hosts[b].speed
		}
		return a < b
	})
}

// SlotsProperty is the platform host property that gives a host's slots
// (how many jobs a policy that shares hosts may run on it at once):
// <prop id="slots" value="5"/>.
const SlotsProperty = "slots"

// HostSlots reads a host's slots from its properties: 1 when the property
// is absent, an error when it is not a positive integer.
func HostSlots(props map[string]string) (int, error) {
	v, ok := props[SlotsProperty]
	if !ok {
		return 1, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 {
		return 0, fmt.Errorf("property %s=%q: want a positive whole number of slots", SlotsProperty, v)
	}
	return n, nil
}

// SetSlots sets every host's slots (a Starter of a policy that shares
// hosts may, before any job starts): slots[i] for host i.
func (s *State) SetSlots(slots []int) error {
	if len(slots) != len(s.hosts) {
		return fmt.Errorf("%d slot counts for %d hosts", len(slots), len(s.hosts))
	}
	if len(s.running) > 0 {
		return fmt.Errorf("slots set while jobs run")
	}
	for i, n := range slots {
		if n < 1 {
			return fmt.Errorf("host %d (%s): %d slots: want at least 1", i, s.hosts[i].name, n)
		}
		s.hosts[i].slots = n
	}
	s.reindexHosts()
	return nil
}

// NbHosts is the number of compute hosts.
func (s *State) NbHosts() int { return len(s.hosts) }

// NbFree is the number of hosts a job may start on now.
func (s *State) NbFree() int { return s.nfree }

// Waiting returns the queue in arrival order. The slice is the framework's:
// do not modify it (use WaitingCopy to sort), and skip the jobs whose State
// is no longer SUBMITTED (they left the queue and are dropped lazily).
func (s *State) Waiting() []*Job { return s.waiting }

// resIndex maps a job size to its slot in the candidate index.
func (s *State) resIndex(res int) int {
	switch {
	case res <= 0:
		return 0
	case res > len(s.hosts):
		return len(s.hosts) + 1
	}
	return res
}

// enqueue adds a submitted job to the queue.
func (s *State) enqueue(j *Job) {
	j.qpos = s.qbase + int64(len(s.waiting))
	s.waiting = append(s.waiting, j)
	if s.fit != nil {
		if s.fit.covers(j.qpos) {
			s.fit.set(j.qpos, j.res, j.WalltimeOrInf())
		} else {
			s.rebuildFit()
		}
	}
	if s.cands != nil {
		j.wcls = int16(walltimeClass(j.walltime))
		s.cands.insert(s.resIndex(j.res), j)
	}
	for _, q := range s.seqs {
		q.insert(s, j)
	}
	for _, x := range s.timed {
		x.insert(j)
	}
}

// queued reports whether j is this State's job at its place in the queue:
// every waiting job is (a Job of another State, or one that left, is not),
// found without hashing its id.
func (s *State) queued(j *Job) bool {
	i := j.qpos - s.qbase
	return i >= 0 && i < int64(len(s.waiting)) && s.waiting[i] == j
}

// dequeued records that a job left the queue (started or rejected).
func (s *State) dequeued(j *Job) {
	if s.fit != nil && s.fit.covers(j.qpos) {
		s.fit.set(j.qpos, fitNone, math.Inf(1))
	}
	if s.cands != nil {
		s.cands.remove(s.resIndex(j.res), j)
	}
	for _, q := range s.seqs {
		q.kill(j)
	}
	for _, x := range s.timed {
		x.remove(j)
	}
	s.dead++
}

// NbWaiting is the number of waiting jobs.
func (s *State) NbWaiting() int { return len(s.waiting) - s.dead }

// compactWaiting drops jobs that left the queue: the leading ones at once
// (cheap), all of them once they are half the slice (amortised O(1)).
func (s *State) compactWaiting() {
	for _, q := range s.seqs {
		q.purge()
	}
	for _, x := range s.timed {
		x.purge()
	}
	k := 0
	for k < len(s.waiting) && s.waiting[k].state != batsim.StateSubmitted {
		s.waiting[k] = nil
		k++
	}
	s.waiting = s.waiting[k:]
	s.qbase += int64(k)
	s.dead -= k
	if s.dead == 0 || 2*s.dead < len(s.waiting) {
		return
	}
	w := make([]*Job, 0, len(s.waiting)-s.dead)
	for _, j := range s.waiting {
		if j.state == batsim.StateSubmitted {
			j.qpos = s.qbase + int64(len(w))
			w = append(w, j)
		}
	}
	s.waiting = w
	s.dead = 0
	if s.fit != nil {
		s.rebuildFit()
	}
}

// NextWaiting is the index in Waiting() of the first job at index from or
// after that waits and requests at most res hosts, or -1: runs of larger
// jobs are skipped in O(log n), so that a policy looking for jobs of a few
// hosts does not walk a long queue of larger ones.
func (s *State) NextWaiting(from, res int) int {
	from = max(from, 0)
	for from < len(s.waiting) {
		p := s.fitIndex().nextFit(s.qbase+int64(from), res)
		if p < 0 {
			return -1
		}
		i := int(p - s.qbase)
		if i >= len(s.waiting) {
			return -1
		}
		if s.waiting[i].state == batsim.StateSubmitted && s.waiting[i].res <= res {
			return i
		}
		from = i + 1
	}
	return -1
}

// fitIndex is the fit tree, built on first use.
func (s *State) fitIndex() *fitTree {
	if s.fit == nil {
		s.rebuildFit()
	}
	return s.fit
}

// rebuildFit builds the fit tree anew over the waiting queue, with room to
// grow to twice its length.
func (s *State) rebuildFit() {
	s.fit = newFitTree(s.qbase, 2*len(s.waiting))
	for _, j := range s.waiting {
		if j.state == batsim.StateSubmitted {
			s.fit.leaf(j.qpos, j.res, j.WalltimeOrInf())
		}
	}
	s.fit.build()
}

// WaitingCopy returns a copy of the waiting queue (arrival order) that the
// caller may reorder; jobs started or rejected earlier in the current
// decision are left out.
func (s *State) WaitingCopy() []*Job {
	out := make([]*Job, 0, s.NbWaiting())
	for _, j := range s.waiting {
		if j.state == batsim.StateSubmitted {
			out = append(out, j)
		}
	}
	return out
}

// Running returns the running jobs by id. A map: sort what you take from
// it (Compare) before an order can matter, or decisions vary from run to
// run. The map is the framework's: do not modify it.
func (s *State) Running() map[string]*Job { return s.running }

// Job returns a job that is waiting or running.
func (s *State) Job(id string) (*Job, bool) {
	j, ok := s.jobs[id]
	return j, ok
}

// HostsByFastest lists every host id, fastest first (ties by id).
func (s *State) HostsByFastest() []int { return s.byFastest }

// parseJob fills a Job from a JOB_SUBMITTED payload.
func parseJob(ev *batsim.JobSubmitted, at float64) (*Job, error) {
	if _, err := batsim.ParseJobID(ev.JobID); err != nil {
		return nil, err
	}
	// The job's object (Raw) is kept by the caller when the policy asks.
	j := &Job{id: ev.JobID, submit: at, state: batsim.StateSubmitted}
	if f := ev.Fields; f != nil {
		j.res, j.walltime, j.profile, j.user = f.Res, f.Walltime, f.Profile, f.User
		return j, nil
	}
	if len(ev.Job) > 0 && quickJob(j, ev.Job) {
		return j, nil
	}
	if err := decodeJob(j, ev.Job); err != nil {
		return nil, err
	}
	return j, nil
}

// decodeJob fills j from the job object raw (none when empty) by decoding
// it: the reading of any job, which quickJob does faster for the usual
// ones.
func decodeJob(j *Job, raw []byte) error {
	// Numbers are read as batsched reads them (rapidjson).
	var d struct {
		Res      *batsim.Double  `json:"res"`
		Walltime *batsim.Double  `json:"walltime"`
		Profile  json.RawMessage `json:"profile"`
		User     json.RawMessage `json:"user"`
		UserID   json.RawMessage `json:"user_id"`
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &d); err != nil {
			return err
		}
	}
	if d.Res != nil {
		j.res = int(*d.Res)
	}
	if d.Walltime != nil && *d.Walltime > 0 {
		j.walltime = float64(*d.Walltime)
	}
	var p string
	if json.Unmarshal(d.Profile, &p) == nil {
		j.profile = p
	}
	j.user = userOf(d.User)
	if j.user == "" {
		j.user = userOf(d.UserID)
	}
	return nil
}

// jobFields are the job's keys parseJob reads.
var jobFields = [...]string{"res", "walltime", "profile", "user", "user_id"}

// errUnusual stops quickJob at a member it leaves to the decoder.
var errUnusual = errors.New("unusual member")

// quickJob fills j from the job object raw as Batsim sends it: the keys
// parseJob reads spelt as they are, res and walltime numbers or null. It
// reports false for any other job, which parseJob then decodes (j is left
// as it was: nothing is written before every member was read): what it
// reads is what the decoder would.
func quickJob(j *Job, raw []byte) bool {
	var res, wall, prof, user, uid []byte
	err := jsonspan.Members(raw, func(key, v []byte) error {
		switch string(key) {
		case "res":
			res = v
		case "walltime":
			wall = v
		case "profile":
			prof = v
		case "user":
			user = v
		case "user_id":
			uid = v
		default:
			// The decoder matches keys to fields regardless of case.
			for _, c := range key {
				if c >= 0x80 {
					return errUnusual
				}
			}
			for _, f := range jobFields {
				if len(key) == len(f) && strings.EqualFold(string(key), f) {
					return errUnusual
				}
			}
		}
		return nil
	})
	if err != nil {
		return false
	}
	number := func(v []byte) (float64, bool, bool) { // value, present, ok
		if v == nil || string(v) == "null" {
			return 0, false, true
		}
		var d batsim.Double
		if d.UnmarshalJSON(v) != nil {
			return 0, false, false
		}
		return float64(d), true, true
	}
	r, hasRes, ok := number(res)
	if !ok {
		return false
	}
	w, hasWall, ok := number(wall)
	if !ok {
		return false
	}
	if hasRes {
		j.res = int(r)
	}
	if hasWall && w > 0 {
		j.walltime = w
	}
	if jsonspan.IsString(prof) {
		if p, err := jsonspan.String(prof); err == nil {
			j.profile = p
		}
	}
	j.user = userOf(user)
	if j.user == "" {
		j.user = userOf(uid)
	}
	return true
}

// userOf reads a user field given as a string or a number.
func userOf(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if jsonspan.IsString(raw) {
		if s, err := jsonspan.String(raw); err == nil {
			return s
		}
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil {
		if f == math.Trunc(f) && math.Abs(f) < 1e15 {
			return strconv.FormatInt(int64(f), 10)
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strings.TrimSpace(string(raw))
}
