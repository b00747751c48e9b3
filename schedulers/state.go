// Package schedulers holds bucma's scheduling framework and policies. A
// policy is a pure value: it receives the framework's view of jobs and hosts
// and returns decisions; it never touches a socket, a clock or a global. The
// framework (Session) turns Batsim events into that view and the decisions
// into protocol replies.
package schedulers

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
)

// Job is a job as the framework tracks it.
type Job struct {
	ID       string // full id "workload!name"
	Workload string
	Name     string
	Submit   float64 // submission time: the JOB_SUBMITTED event's timestamp
	Res      int
	Walltime float64 // seconds; 0 when the job has no walltime (absent or -1)
	User     string  // "user" field, else "user_id", else ""
	Profile  string
	Raw      json.RawMessage // the job object as Batsim forwarded it, when the policy's Spec asks (JobJSON)
	Seq      int64           // arrival rank (0, 1, ...): the last tie-breaker of every order

	State string  // protocol job state (SUBMITTED, RUNNING, COMPLETED_*, REJECTED)
	Start float64 // set when started
	End   float64 // set when completed (JOB_COMPLETED timestamp)
	Alloc []int   // hosts given at start
	// ReturnCode is JOB_COMPLETED's return code.
	ReturnCode int

	// refused is set at submission when the job can never run (res 0, or
	// more hosts than the platform has) or the policy does not admit it.
	refused bool
	// killing is set from the kill request to the job's end.
	killing bool
	// original and piece link a resubmitted piece to its original job.
	original string
	piece    int

	wcls int16 // walltime class in the candidate index, set when queued
	cpos int32 // position in the index's bucket of that class
	qpos int64 // absolute position in the waiting queue
}

// Refused reports whether the job was refused at submission: it can never
// run (res 0, or more hosts than the platform has) or the policy does not
// admit it (Admitter). The framework rejects it in the decision of the
// message that submitted it (see InPlaceRejecter for where in the reply).
func (j *Job) Refused() bool { return j.refused }

// HasWalltime reports whether the job has a finite walltime.
func (j *Job) HasWalltime() bool { return j.Walltime > 0 }

// WalltimeOrInf is the walltime, +Inf when unlimited (how orders sort it).
func (j *Job) WalltimeOrInf() float64 {
	if j.Walltime > 0 {
		return j.Walltime
	}
	return math.Inf(1)
}

// ExpectedEnd is start + walltime (+Inf when unlimited): what reservations
// plan with for a running job.
func (j *Job) ExpectedEnd() float64 { return j.Start + j.WalltimeOrInf() }

// Host is a compute resource.
type Host struct {
	ID             int
	Name           string
	Speed          float64 // from the "speed" property; 1 when absent or unreadable
	Properties     map[string]string
	ZoneProperties map[string]string
	// Jobs are the jobs running on the host, in start order: at most one,
	// or up to Slots for a policy that shares hosts.
	Jobs []*Job
	// Slots is how many jobs the host may run at once: 1, or for a policy
	// that shares hosts (Spec.ComputeSharing) the host's "slots" property
	// (see HostSlots). 0 counts as 1.
	Slots       int
	Unavailable bool // set by NOTIFY event_machine_unavailable
	// Power is the host's power state (PowerOn unless a policy switched
	// it) and PState its pstate: the platform's initial one (0) until a
	// RESOURCE_STATE_CHANGED reports another.
	Power  PowerState
	PState int
	// power is the host's pstates, from its properties (nil: none).
	power *hostPstates
}

// PowerState is a host's state as far as power goes.
type PowerState uint8

const (
	PowerOn           PowerState = iota // in a computation pstate: may run jobs
	PowerSwitchingOff                   // asked to sleep, not asleep yet
	PowerSleeping                       // in a sleep pstate
	PowerSwitchingOn                    // asked to wake up, not awake yet
)

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
	if h.power == nil {
		return nil
	}
	var out []int
	for p := range h.power.sleep {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Capacity is how many jobs the host may run at once (Slots, at least 1).
func (h *Host) Capacity() int { return max(h.Slots, 1) }

// FreeSlots is how many more jobs may start on the host now.
func (h *Host) FreeSlots() int {
	if h.Unavailable || h.Power != PowerOn {
		return 0
	}
	return max(h.Capacity()-len(h.Jobs), 0)
}

// Free reports whether a job may start on the host now (it has a free
// slot).
func (h *Host) Free() bool {
	return !h.Unavailable && h.Power == PowerOn && len(h.Jobs) < h.Capacity()
}

// Idle reports whether the host runs no job.
func (h *Host) Idle() bool { return len(h.Jobs) == 0 }

// removeJob takes j off the host's jobs (order kept); it reports whether
// j was there.
func (h *Host) removeJob(j *Job) bool {
	for i, x := range h.Jobs {
		if x == j {
			copy(h.Jobs[i:], h.Jobs[i+1:])
			h.Jobs[len(h.Jobs)-1] = nil
			h.Jobs = h.Jobs[:len(h.Jobs)-1]
			return true
		}
	}
	return false
}

// State is the framework's view of the simulation, passed to policies.
// Policies read it; they change it only through the Decider.
type State struct {
	// Now is the current message's now.
	Now float64
	// LastEvent is the timestamp of the current message's last event (Now
	// when it has none). Batsim stamps each event with the time it occurred,
	// which may be earlier than the message's now.
	LastEvent float64
	Hosts     []Host
	Config    batsim.Config
	// SchedConfig is Batsim's config.sched-config string (may be "").
	SchedConfig string

	// waiting holds the queue in arrival order. Jobs that left it (started or
	// rejected) are dropped lazily: dead counts them, the leading ones are
	// trimmed after every decision and the rest when they are half the slice.
	waiting []*Job
	dead    int
	// cands counts waiting jobs by size and walltime class (EASY's early exit).
	cands *candidateIndex
	// qbase is the absolute position of waiting[0]; fit indexes the sizes
	// of the waiting jobs by absolute position.
	qbase   int64
	fit     *fitTree
	running map[string]*Job // by id
	jobs    map[string]*Job // every job not yet finished (waiting or running)
	nfree   int
	seq     int64
	// seqs are the ordered indexes of the waiting queue the policy asked
	// for (seqFor); users numbers the users they have seen.
	seqs      []*jobSeq
	users     map[string]int32
	userNames []string
	// byFastest lists host ids by speed descending, then id ascending.
	byFastest []int

	// NoMoreStaticJobs is set once Batsim said no_more_static_job_to_submit.
	NoMoreStaticJobs bool

	// killed lists the jobs of the current message's JOB_KILLED events;
	// nkilling counts the jobs whose kill was requested and not completed.
	killed   []Killed
	nkilling int
	// dynamic tracks profiles and dynamic registrations (preempt.go).
	dynamic *dynamicJobs
}

// NewState builds a state over hosts (ids must be 0..n-1 in order).
func NewState(hosts []Host) *State {
	s := &State{Hosts: hosts, running: map[string]*Job{}, jobs: map[string]*Job{}}
	s.cands = newCandidateIndex(len(hosts))
	s.fit = newFitTree(0, 0)
	s.reindexHosts()
	return s
}

func (s *State) reindexHosts() {
	s.nfree = 0
	s.byFastest = make([]int, len(s.Hosts))
	for i := range s.Hosts {
		s.byFastest[i] = i
		if s.Hosts[i].Free() {
			s.nfree++
		}
	}
	sortIntsBy(s.byFastest, func(a, b int) bool {
		if s.Hosts[a].Speed != s.Hosts[b].Speed {
			return s.Hosts[a].Speed > s.Hosts[b].Speed
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
	if len(slots) != len(s.Hosts) {
		return fmt.Errorf("%d slot counts for %d hosts", len(slots), len(s.Hosts))
	}
	if len(s.running) > 0 {
		return fmt.Errorf("slots set while jobs run")
	}
	for i, n := range slots {
		if n < 1 {
			return fmt.Errorf("host %d (%s): %d slots: want at least 1", i, s.Hosts[i].Name, n)
		}
		s.Hosts[i].Slots = n
	}
	s.reindexHosts()
	return nil
}

// NbHosts is the number of compute hosts.
func (s *State) NbHosts() int { return len(s.Hosts) }

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
	case res > len(s.Hosts):
		return len(s.Hosts) + 1
	}
	return res
}

// enqueue adds a submitted job to the queue.
func (s *State) enqueue(j *Job) {
	j.qpos = s.qbase + int64(len(s.waiting))
	s.waiting = append(s.waiting, j)
	if !s.fit.covers(j.qpos) {
		s.rebuildFit()
	} else {
		s.fit.set(j.qpos, j.Res, j.WalltimeOrInf())
	}
	if s.cands != nil {
		j.wcls = int16(walltimeClass(j.Walltime))
		s.cands.insert(s.resIndex(j.Res), j)
	}
	for _, q := range s.seqs {
		q.insert(s, j)
	}
}

// dequeued records that a job left the queue (started or rejected).
func (s *State) dequeued(j *Job) {
	if s.fit.covers(j.qpos) {
		s.fit.set(j.qpos, fitNone, math.Inf(1))
	}
	if s.cands != nil {
		s.cands.remove(s.resIndex(j.Res), j)
	}
	for _, q := range s.seqs {
		q.kill(j)
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
	k := 0
	for k < len(s.waiting) && s.waiting[k].State != batsim.StateSubmitted {
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
		if j.State == batsim.StateSubmitted {
			j.qpos = s.qbase + int64(len(w))
			w = append(w, j)
		}
	}
	s.waiting = w
	s.dead = 0
	s.rebuildFit()
}

// rebuildFit builds the fit tree anew over the waiting queue, with room to
// grow to twice its length.
func (s *State) rebuildFit() {
	s.fit = newFitTree(s.qbase, 2*len(s.waiting))
	for _, j := range s.waiting {
		if j.State == batsim.StateSubmitted {
			s.fit.set(j.qpos, j.Res, j.WalltimeOrInf())
		}
	}
}

// WaitingCopy returns a copy of the waiting queue (arrival order) that the
// caller may reorder; jobs started or rejected earlier in the current
// decision are left out.
func (s *State) WaitingCopy() []*Job {
	out := make([]*Job, 0, s.NbWaiting())
	for _, j := range s.waiting {
		if j.State == batsim.StateSubmitted {
			out = append(out, j)
		}
	}
	return out
}

// Running returns the running jobs (any order).
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
	// Numbers are read as batsched reads them (rapidjson).
	var d struct {
		Res      *batsim.Double  `json:"res"`
		Walltime *batsim.Double  `json:"walltime"`
		Profile  json.RawMessage `json:"profile"`
		User     json.RawMessage `json:"user"`
		UserID   json.RawMessage `json:"user_id"`
	}
	id, err := batsim.ParseJobID(ev.JobID)
	if err != nil {
		return nil, err
	}
	j := &Job{ID: ev.JobID, Workload: id.Workload, Name: id.Name, Submit: at, Raw: ev.Job, State: batsim.StateSubmitted}
	if len(ev.Job) > 0 {
		if err := json.Unmarshal(ev.Job, &d); err != nil {
			return nil, err
		}
	}
	if d.Res != nil {
		j.Res = int(*d.Res)
	}
	if d.Walltime != nil && *d.Walltime > 0 {
		j.Walltime = float64(*d.Walltime)
	}
	var p string
	if json.Unmarshal(d.Profile, &p) == nil {
		j.Profile = p
	}
	j.User = userOf(d.User)
	if j.User == "" {
		j.User = userOf(d.UserID)
	}
	return j, nil
}

// userOf reads a user field given as a string or a number.
func userOf(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
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
