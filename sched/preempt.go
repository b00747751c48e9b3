package sched

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/internal/batsimfmt"
)

// Preemption is shared machinery: a policy kills running jobs
// (Decider.Kill), learns what they had done when Batsim's JOB_KILLED
// arrives (State.Killed), and resubmits their remaining work as a dynamic
// job (Decider.Resubmit: REGISTER_PROFILE + REGISTER_JOB). The framework
// links every piece to its original job and sends NOTIFY
// registration_finished once no resubmission can come any more.
//
// Piece ids. Piece k (k = 1, 2, ...) of the original job "W!N" is the job
// "W.r!N.k" (workload "W.r", created by the first REGISTER_PROFILE in it;
// its profile is named "N.k" too). A piece of a piece links to the
// original with the next k, so "N.3" is the third resubmission of N
// whatever piece was killed. In Batsim's _jobs.csv a piece is the row with
// workload_name "W.r" and job_id "N.k"; the registered job object also
// carries "original_job" ("W!N"), "piece" (k) and the original's "user".

// PieceWorkloadSuffix ends the name of the workload of resubmitted pieces.
const PieceWorkloadSuffix = ".r"

// PieceID is the id of piece k of the original job "W!N".
func PieceID(original string, k int) (string, error) {
	id, err := batsim.ParseJobID(original)
	if err != nil {
		return "", err
	}
	return id.Workload + PieceWorkloadSuffix + "!" + id.Name + "." + strconv.Itoa(k), nil
}

// OriginalOf maps a piece id back to its original job id and piece number;
// any other id maps to itself with piece 0.
func OriginalOf(jobID string) (original string, piece int) {
	id, err := batsim.ParseJobID(jobID)
	if err != nil || !strings.HasSuffix(id.Workload, PieceWorkloadSuffix) || id.Workload == PieceWorkloadSuffix {
		return jobID, 0
	}
	dot := strings.LastIndexByte(id.Name, '.')
	if dot <= 0 {
		return jobID, 0
	}
	k, err := strconv.Atoi(id.Name[dot+1:])
	if err != nil || k <= 0 || strconv.Itoa(k) != id.Name[dot+1:] {
		return jobID, 0
	}
	return strings.TrimSuffix(id.Workload, PieceWorkloadSuffix) + "!" + id.Name[:dot], k
}

// Killed is a job that Batsim killed at the policy's request, with the
// progress Batsim reported (JOB_KILLED).
type Killed struct {
	Job      *Job
	Progress *batsim.JobProgress
}

// Done is the fraction of the job's profile that was executed when it was
// killed: the leaf's progress; 0 for a sequence (composed profile), whose
// progress is not a fraction of the whole.
func (k Killed) Done() float64 {
	if k.Progress == nil || k.Progress.Progress == nil || k.Progress.CurrentTask != nil {
		return 0
	}
	return min(max(*k.Progress.Progress, 0), 1)
}

// Killed lists the jobs killed by the current message's JOB_KILLED events
// (jobs that completed before the kill took effect are not in it: they
// ended normally).
func (s *State) Killed() []Killed { return s.killed }

// NbKilling is the number of running jobs whose kill was asked for and
// has not completed.
func (s *State) NbKilling() int { return s.nkilling }

// Killing reports whether a kill of j was requested and has not completed.
func (j *Job) Killing() bool { return j.killing }

// Original is the id of the job this one is a piece of (its own id for an
// original job).
func (j *Job) Original() string {
	if j.ext != nil && j.ext.original != "" {
		return j.ext.original
	}
	return j.id
}

// Piece is the job's piece number: 0 for an original job, k for its k-th
// resubmission.
func (j *Job) Piece() int {
	if j.ext == nil {
		return 0
	}
	return j.ext.piece
}

// pendingPiece is a registered piece whose JOB_SUBMITTED has not arrived.
type pendingPiece struct {
	original string
	piece    int
	user     string
}

// registry of the dynamic jobs of a simulation.
type dynamicJobs struct {
	finished bool                     // registration_finished sent
	pending  map[string]*pendingPiece // registered, not yet acknowledged
	pieces   map[string]int           // last piece number per original
	profiles map[string]map[string]json.RawMessage
	used     map[string]bool // registered profile names "W!P"
	// registered holds the ids of the jobs registered by Decider.Register.
	registered map[string]bool
}

func (s *State) dyn() *dynamicJobs {
	if s.dynamic == nil {
		s.dynamic = &dynamicJobs{pending: map[string]*pendingPiece{}, pieces: map[string]int{},
			profiles: map[string]map[string]json.RawMessage{}, used: map[string]bool{}}
	}
	return s.dynamic
}

// Profile returns the JSON of a profile Batsim told about (SIMULATION_BEGINS'
// profiles, profiles forwarded on submission, profiles registered by the
// policy). Only policies whose Spec sets Profiles or DynamicJobs see the
// first two.
func (s *State) Profile(workload, name string) (json.RawMessage, bool) {
	if s.dynamic == nil {
		return nil, false
	}
	p, ok := s.dynamic.profiles[workload][name]
	return p, ok
}

func (s *State) addProfile(workload, name string, raw json.RawMessage) {
	d := s.dyn()
	m := d.profiles[workload]
	if m == nil {
		m = map[string]json.RawMessage{}
		d.profiles[workload] = m
	}
	if _, ok := m[name]; !ok {
		m[name] = raw
	}
}

// JobWork is the job's amount of computation in flop, from its profile
// (parallel_homogeneous: cpu × res; parallel_homogeneous_total: cpu;
// parallel: the sum of its cpu vector); 0 when unknown or not a compute
// profile.
func (s *State) JobWork(j *Job) float64 {
	raw, ok := s.Profile(j.Workload(), j.profile)
	if !ok {
		return 0
	}
	var p struct {
		Type string          `json:"type"`
		CPU  json.RawMessage `json:"cpu"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return 0
	}
	switch p.Type {
	case "parallel_homogeneous":
		var c float64
		if json.Unmarshal(p.CPU, &c) == nil {
			return c * float64(j.res)
		}
	case "parallel_homogeneous_total":
		var c float64
		if json.Unmarshal(p.CPU, &c) == nil {
			return c
		}
	case "parallel":
		var v []float64
		if json.Unmarshal(p.CPU, &v) == nil {
			t := 0.0
			for _, c := range v {
				t += c
			}
			return t
		}
	}
	return 0
}

// RegistrationFinished reports whether NOTIFY registration_finished was
// sent.
func (s *State) RegistrationFinished() bool { return s.dynamic != nil && s.dynamic.finished }

// Resubmit registers the remaining work of a killed job as a new dynamic
// job (the next piece of its original, see PieceID). With block > 0 the
// job is checkpointed every block seconds of execution: the whole blocks
// it completed are kept and the rest is redone; with block <= 0 it
// restarts from zero. The piece keeps the job's res, walltime and user;
// its submission time is now. It returns the new job's id.
//
// With --acknowledge-dynamic-jobs the piece joins the waiting queue when
// its JOB_SUBMITTED arrives; without, it joins at once (a policy may start
// it in the same decision).
func (d *Decider) Resubmit(k Killed, block float64) (string, bool) {
	if d.err != nil {
		return "", false
	}
	s := d.s
	j := k.Job
	if d.sess == nil {
		d.fail("resubmit %s: no session", j.id)
		return "", false
	}
	if err := s.checkRegistering("resubmit " + j.id); err != nil {
		d.broke(err)
		return "", false
	}
	raw, ok := s.Profile(j.Workload(), j.profile)
	if !ok {
		d.fail("resubmit %s: its profile %q is unknown (Batsim did not send it)", j.id, j.profile)
		return "", false
	}
	kept := keptFraction(s, k, block)
	prof, err := scaleProfile(raw, 1-kept)
	if err != nil {
		d.fail("resubmit %s: profile %q: %v", j.id, j.profile, err)
		return "", false
	}
	dyn := s.dyn()
	orig := j.Original()
	n := dyn.pieces[orig] + 1
	id, err := PieceID(orig, n)
	if err != nil {
		d.fail("resubmit %s: %v", j.id, err)
		return "", false
	}
	if _, known := s.jobs[id]; known || dyn.pending[id] != nil {
		d.broke(broken(RuleJobExists, "resubmit %s: job %s already exists", j.id, id))
		return "", false
	}
	pid, _ := batsim.ParseJobID(id)
	now := d.reply.Now()
	var b []byte
	b = append(b, `{"id":`...)
	b = strconv.AppendQuote(b, id)
	b = append(b, `,"subtime":`...)
	b = batsimfmt.AppendDouble(b, now)
	b = append(b, `,"res":`...)
	b = strconv.AppendInt(b, int64(j.res), 10)
	b = append(b, `,"profile":`...)
	b = strconv.AppendQuote(b, pid.Name)
	if j.walltime > 0 {
		b = append(b, `,"walltime":`...)
		b = batsimfmt.AppendDouble(b, j.walltime)
	}
	if j.user != "" {
		b = append(b, `,"user":`...)
		b = strconv.AppendQuote(b, j.user)
	}
	b = append(b, `,"original_job":`...)
	b = strconv.AppendQuote(b, orig)
	b = append(b, `,"piece":`...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, '}')
	if err := d.reply.RegisterProfile(pid.Workload, pid.Name, prof); err != nil {
		d.fail("resubmit %s: %v", j.id, err)
		return "", false
	}
	if err := d.reply.RegisterJob(id, b); err != nil {
		d.fail("resubmit %s: %v", j.id, err)
		return "", false
	}
	dyn.pieces[orig] = n
	s.addProfile(pid.Workload, pid.Name, prof)
	info := &pendingPiece{original: orig, piece: n, user: j.user}
	if s.config.DynamicJobsAcknowledged {
		dyn.pending[id] = info
		return id, true
	}
	nj := &Job{id: id, submit: now, res: j.res, walltime: j.walltime,
		user: j.user, profile: pid.Name, state: batsim.StateSubmitted}
	nj.setRaw(b)
	d.submitted = append(d.submitted, nj)
	d.sess.submit(nj, info)
	return id, true
}

// keptFraction is the fraction of k's work saved by checkpoints of block
// seconds of execution: the whole blocks executed, as a fraction of the
// job's duration on its allocation. The duration is computed from the
// profile and the hosts' speeds when the profile is a delay or a
// computation without communication on hosts with a known speed;
// otherwise the executed time is the time between the start decision and
// the kill.
func keptFraction(s *State, k Killed, block float64) float64 {
	done := k.Done()
	if block <= 0 || done <= 0 {
		return 0
	}
	j := k.Job
	var executed, total float64
	if t, ok := duration(s, j); ok && t > 0 {
		total, executed = t, done*t
	} else {
		executed = j.end - j.start
		if executed <= 0 {
			return 0
		}
		total = executed / done
	}
	blocks := math.Floor(executed/block + 1e-9)
	return min(blocks*block/total, done)
}

// duration is the time job j takes alone on its allocation when the
// framework can tell (delay; computation without communication on hosts
// whose "speed" property is known).
func duration(s *State, j *Job) (float64, bool) {
	raw, ok := s.Profile(j.Workload(), j.profile)
	if !ok || len(j.alloc) == 0 {
		return 0, false
	}
	var p struct {
		Type  string          `json:"type"`
		Delay float64         `json:"delay"`
		CPU   json.RawMessage `json:"cpu"`
		Com   json.RawMessage `json:"com"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return 0, false
	}
	slowest := math.Inf(1)
	for _, h := range j.alloc {
		if _, known := s.hosts[h].props["speed"]; !known {
			return 0, false
		}
		slowest = min(slowest, s.hosts[h].speed)
	}
	noCom := func() bool {
		var c float64
		if json.Unmarshal(p.Com, &c) == nil {
			return c == 0
		}
		var m []float64
		if json.Unmarshal(p.Com, &m) == nil {
			for _, v := range m {
				if v != 0 {
					return false
				}
			}
			return true
		}
		return len(p.Com) == 0
	}
	switch p.Type {
	case "delay":
		return p.Delay, true
	case "parallel_homogeneous":
		var c float64
		if json.Unmarshal(p.CPU, &c) == nil && noCom() {
			return c / slowest, true
		}
	case "parallel_homogeneous_total":
		var c float64
		if json.Unmarshal(p.CPU, &c) == nil && noCom() {
			return c / float64(len(j.alloc)) / slowest, true
		}
	case "parallel":
		var v []float64
		if json.Unmarshal(p.CPU, &v) == nil && noCom() && len(v) == len(j.alloc) {
			t := 0.0
			for i, c := range v {
				t = max(t, c/s.hosts[j.alloc[i]].speed)
			}
			return t, true
		}
	}
	return 0, false
}

// scaleProfile returns the profile doing factor of raw's work: delay,
// cpu and com scaled for delay and parallel* profiles; other types, or a
// factor of 1, give the profile unchanged (the job restarts from zero).
func scaleProfile(raw json.RawMessage, factor float64) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, errors.New("not a JSON object")
	}
	var typ string
	if err := json.Unmarshal(obj["type"], &typ); err != nil {
		return nil, errors.New("no string type")
	}
	if factor >= 1 {
		return append(json.RawMessage(nil), raw...), nil
	}
	var keys []string
	switch typ {
	case "delay":
		keys = []string{"delay"}
	case "parallel_homogeneous", "parallel_homogeneous_total", "parallel":
		keys = []string{"cpu", "com"}
	default:
		return append(json.RawMessage(nil), raw...), nil
	}
	for _, k := range keys {
		v, ok := obj[k]
		if !ok {
			continue
		}
		sv, err := scaleNumbers(v, factor)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", k, err)
		}
		obj[k] = sv
	}
	return json.Marshal(obj)
}

// scaleNumbers multiplies a number or an array of numbers by f, writing
// them as Batsim's schedulers do (shortest round trip for rapidjson).
func scaleNumbers(raw json.RawMessage, f float64) (json.RawMessage, error) {
	var x float64
	if json.Unmarshal(raw, &x) == nil {
		return batsimfmt.AppendDouble(nil, x*f), nil
	}
	var v []float64
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, errors.New("not a number or an array of numbers")
	}
	out := []byte{'['}
	for i, x := range v {
		if i > 0 {
			out = append(out, ',')
		}
		out = batsimfmt.AppendDouble(out, x*f)
	}
	return append(out, ']'), nil
}

// Ticker runs a policy's periodic rounds: one CALL_ME_LATER pending at a
// time, on the grid of multiples of Interval, so rounds happen at the same
// dates whatever else happens. A policy arms it while a round could do
// something (nothing is sent otherwise, so that the simulation can end).
type Ticker struct {
	Interval float64
	next     float64
	armed    bool
}

// Due reports whether the pending call's date has come (Batsim's
// REQUESTED_CALL is in the current message); it disarms the ticker.
func (t *Ticker) Due(s *State) bool {
	if t.armed && s.now >= t.next {
		t.armed = false
		return true
	}
	return false
}

// Arm requests the next round unless one is pending.
func (t *Ticker) Arm(s *State, d *Decider) {
	if t.armed || t.Interval <= 0 {
		return
	}
	k := math.Floor(s.now/t.Interval) + 1
	at := k * t.Interval
	for at < s.now+batsim.MinCallMeLaterDelay {
		k++
		at = k * t.Interval
	}
	if d.CallMeLater(at) {
		t.next, t.armed = at, true
	}
}

// killedProgress is the progress tree of a killed job (nil when absent).
func killedProgress(d *batsim.JobKilled, id string) *batsim.JobProgress {
	if d.JobProgress == nil {
		return nil
	}
	return d.JobProgress[id]
}
