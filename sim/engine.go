package sim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	json "github.com/goccy/go-json"

	"bucma/protocol"
	"bucma/workloads"
)

// stime is a simulated date: t plus e times the (tiny) transfer time of
// one byte of an internal message. The byte times are far below Batsim's
// microsecond resolution: they order messages that would otherwise happen
// at the same instant (a message that made more hops arrives later), and
// only show in a printed date that lies on a rounding boundary. Dates within about 16 ulps of each other
// count as equal.
type stime struct {
	t float64
	e int32
}

func near(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	m := a
	if m < 0 {
		m = -m
	}
	if m < 1 {
		m = 1
	}
	return d <= 4e-15*m
}

// before orders two dates.
func (a stime) before(b stime) bool {
	if !near(a.t, b.t) {
		return a.t < b.t
	}
	return a.e < b.e
}

// byteTime is the transfer time of one internal (1-byte) message on top of
// its route's latency: 1 byte at 10 GB/s, the bandwidth of the corpus
// platforms.
const byteTime = 1e-10

// real is the date as Batsim's clock shows it.
func (a stime) real() float64 { return a.t + float64(a.e)*byteTime }

// later reports whether a date given by a scheduler is strictly later than
// the date s.
func later(target float64, s stime) bool {
	r := s.real()
	return target > r && !near(target, r)
}

// Error is a simulation that had to stop: a decision Batsim refuses
// (Batsim would abort), an input Batsim cannot run, or a deadlock.
type Error struct {
	Time float64 // simulated time
	Rule string  // what was violated
	// Event names the offending event, e.g. `EXECUTE_JOB w0!1`; "" when
	// the error is not about one event.
	Event string
}

func (e *Error) Error() string {
	if e.Event != "" {
		return fmt.Sprintf("t=%.6f: %s: %s", e.Time, e.Event, e.Rule)
	}
	return fmt.Sprintf("t=%.6f: %s", e.Time, e.Rule)
}

// DeadlockError is a simulation that can no longer progress although it is
// not finished (Batsim would wait forever or abort).
type DeadlockError struct {
	Time float64
	// Waiting lists jobs submitted but never executed nor rejected.
	Waiting []string
	// RegistrationOpen is set when dynamic jobs are enabled and the
	// scheduler never sent NOTIFY registration_finished.
	RegistrationOpen bool
}

func (e *DeadlockError) Error() string {
	var parts []string
	if len(e.Waiting) > 0 {
		list := e.Waiting
		more := ""
		if len(list) > 10 {
			more = fmt.Sprintf(" and %d more", len(list)-10)
			list = list[:10]
		}
		parts = append(parts, fmt.Sprintf("%d job(s) were submitted but never executed nor rejected (%s%s)", len(e.Waiting), strings.Join(list, ", "), more))
	}
	if e.RegistrationOpen {
		parts = append(parts, "dynamic jobs are enabled but the scheduler never sent NOTIFY registration_finished")
	}
	if len(parts) == 0 {
		parts = append(parts, "nothing left to simulate but the simulation is not finished")
	}
	return fmt.Sprintf("deadlock at t=%.6f: %s; Batsim would never send SIMULATION_ENDS", e.Time, strings.Join(parts, "; "))
}

// message kinds sent to the server actor.
type mkind uint8

const (
	mHello mkind = iota
	mBye
	mSubmit
	mCompleted
	mWaitingDone
	mKillingDone
	mReady
	mDecision
)

// actor is a SimGrid actor of Batsim's emulated as a state machine: resume
// is called when its blocking put has completed or its sleep has ended.
type actor interface {
	resume(e *engine, at stime) error
}

// imsg is an internal message to the server.
type imsg struct {
	kind   mkind
	xfer   float64 // route latency
	hops   int32   // 1 when the transfer costs a byte time
	jobs   []*job  // mSubmit
	job    *job    // mCompleted
	ev     *protocol.Event
	killed *killDone
	from   actor // resumed once the server received the message
}

type killDone struct {
	ids      []*job
	progress map[string]*protocol.JobProgress
}

type evKind uint8

const (
	evArrive evKind = iota // a message reaches the server
	evWake                 // an actor resumes
	evJobEnd               // a job's execution ends
)

type event struct {
	at   stime
	seq  uint64
	kind evKind
	m    *imsg
	a    actor
	j    *job
	gen  uint32
}

// eventHeap is a binary min-heap on (t, seq).
type eventHeap []event

func (h eventHeap) less(a, b int) bool {
	x, y := h[a].at, h[b].at
	if x.before(y) {
		return true
	}
	if y.before(x) {
		return false
	}
	return h[a].seq < h[b].seq
}

func (h *eventHeap) push(e event) {
	*h = append(*h, e)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *eventHeap) pop() event {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s[n] = event{}
	s = s[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && s.less(r, l) {
			m = r
		}
		if !s.less(m, i) {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

type engine struct {
	ctx   context.Context
	cfg   Config
	sched Scheduler
	log   *slog.Logger

	heap eventHeap
	seq  uint64
	now  stime

	// latencies
	lm     float64   // master loopback latency
	lmHops int32     // 1 when the master loopback is a declared route
	lh     []float64 // host -> master latency
	lhHops int32
	speed  []float64
	nhosts int
	nstore int

	// server state
	queue      []*imsg
	qhead      int
	busy       bool
	schedReady bool
	buffer     []protocol.Event
	endSent    bool
	endAck     bool
	toDelete   []*job

	workloads   map[string]*workload
	wlOrder     []*workload
	jobs        map[string]*job
	hostJob     []*job
	hostSince   []float64
	timeIdle    float64
	timeComp    float64
	expectedJS  int
	finishedJS  int
	nbSubmitted int
	nbCompleted int
	nbRunning   int
	nbWaiters   int
	nbKillers   int
	regFinished bool
	staticJobs  int

	comWarned bool
	out       *outputs
	stats     stats

	messages  int
	schedWall time.Duration
	lastProg  time.Time
	err       error
}

func (e *engine) schedule(at stime, kind evKind, m *imsg, a actor, j *job) {
	e.seq++
	ev := event{at: at, seq: e.seq, kind: kind, m: m, a: a, j: j}
	if j != nil {
		ev.gen = j.gen
	}
	e.heap.push(ev)
}

// post puts m in the server's mailbox at time t (a blocking put: the
// sender resumes when the server has received it).
func (e *engine) post(at stime, m *imsg) {
	e.queue = append(e.queue, m)
	e.match(at)
}

// match starts receiving the oldest waiting message if the server is idle.
func (e *engine) match(at stime) {
	if e.busy || e.qhead >= len(e.queue) {
		return
	}
	m := e.queue[e.qhead]
	e.queue[e.qhead] = nil
	e.qhead++
	if e.qhead == len(e.queue) {
		e.queue = e.queue[:0]
		e.qhead = 0
	}
	e.busy = true
	e.schedule(stime{at.t + m.xfer, at.e + m.hops}, evArrive, m, nil, nil)
}

func (e *engine) mailboxEmpty() bool { return e.qhead >= len(e.queue) }

func (e *engine) fail(t float64, evName, format string, args ...any) error {
	return &Error{Time: t, Event: evName, Rule: fmt.Sprintf(format, args...)}
}

// Run simulates cfg with sched as the decision process. Outputs are
// written as the simulation goes (jobs) and at its end (schedule); on an
// error the jobs file keeps the rows written so far and no schedule file is
// written.
func Run(ctx context.Context, cfg Config, sched Scheduler) (*Result, error) {
	wall := time.Now()
	e, err := newEngine(ctx, cfg, sched)
	if err != nil {
		return nil, err
	}
	if cfg.ExportPrefix != "" {
		if e.out, err = openOutputs(cfg.ExportPrefix); err != nil {
			return nil, err
		}
	}
	runErr := e.run()
	res := e.result(time.Since(wall))
	if e.out != nil {
		if runErr == nil {
			runErr = e.out.finish(e.scheduleValues(time.Since(wall)))
		} else {
			e.out.abort()
		}
	}
	return res, runErr
}

func newEngine(ctx context.Context, cfg Config, sched Scheduler) (*engine, error) {
	if cfg.Platform == nil {
		return nil, errors.New("no platform")
	}
	if len(cfg.Platform.Hosts) == 0 {
		return nil, fmt.Errorf("platform %s: no compute host", cfg.Platform.Path)
	}
	if len(cfg.Workloads) == 0 && !cfg.DynamicJobs {
		return nil, errors.New("no workload (give one, or enable dynamic jobs)")
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	e := &engine{ctx: ctx, cfg: cfg, sched: sched, log: log, workloads: map[string]*workload{}, jobs: map[string]*job{}}
	p := cfg.Platform
	e.nhosts = len(p.Hosts)
	e.nstore = len(p.Storage)
	e.speed = make([]float64, e.nhosts)
	e.lh = make([]float64, e.nhosts)
	for i, h := range p.Hosts {
		if h.ID != i {
			return nil, fmt.Errorf("platform %s: host %s has id %d at position %d", p.Path, h.Name, h.ID, i)
		}
		if !(h.Speed > 0) {
			return nil, fmt.Errorf("platform %s: compute host %s has speed %g (must be > 0)", p.Path, h.Name, h.Speed)
		}
		e.speed[i] = h.Speed
		if cfg.Latency == LatencyBatsim {
			lat := 0.0
			if i < len(p.HostToMasterLatency) {
				lat = p.HostToMasterLatency[i]
			}
			e.lh[i] = lat
		}
	}
	if cfg.Latency == LatencyBatsim {
		e.lhHops = 1
		// Without a declared loopback route the master's messages to
		// itself cost nothing.
		if p.MasterLoopbackLatency > 0 {
			e.lm = p.MasterLoopbackLatency
			e.lmHops = 1
		}
	}
	e.hostJob = make([]*job, e.nhosts)
	e.hostSince = make([]float64, e.nhosts)
	e.expectedJS = len(cfg.Workloads)
	for i, w := range cfg.Workloads {
		name := fmt.Sprintf("w%d", i)
		if err := e.addStaticWorkload(name, w); err != nil {
			return nil, err
		}
	}
	return e, nil
}

func (e *engine) addStaticWorkload(name string, w *workloads.Workload) error {
	fwd := make([][]byte, len(w.Jobs))
	keep := func(i int, job []byte) { fwd[i] = job }
	if errs, _ := w.Validate(workloads.ValidateOptions{WorkloadName: name, Forwarded: keep}); len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, f := range errs {
			msgs[i] = strings.TrimPrefix(f.String(), "error: ")
		}
		return fmt.Errorf("workload %s (%s): %s", name, w.Path, strings.Join(msgs, "; "))
	}
	path := w.Path
	if abs, err := filepath.Abs(path); err == nil && path != "" {
		path = abs
	}
	wl := &workload{name: name, path: path, profiles: map[string]*profile{}}
	for pname, pr := range w.Profiles {
		p, err := newProfile(pname, pr)
		if err != nil {
			return fmt.Errorf("workload %s (%s): %w", name, w.Path, err)
		}
		wl.profiles[pname] = p
	}
	if err := wl.resolve(); err != nil {
		return err
	}
	e.workloads[name] = wl
	e.wlOrder = append(e.wlOrder, wl)
	jobs := make([]*job, 0, len(w.Jobs))
	for i := range w.Jobs {
		src := &w.Jobs[i]
		full, err := workloads.FullJobID(name, src.ID)
		if err != nil {
			return fmt.Errorf("workload %s (%s): %w", name, w.Path, err)
		}
		if _, dup := e.jobs[full]; dup {
			return fmt.Errorf("workload %s (%s): duplicate job id %s", name, w.Path, full)
		}
		p, ok := wl.profiles[src.Profile]
		if !ok {
			return fmt.Errorf("workload %s (%s): job %s uses unknown profile %q", name, w.Path, src.ID, src.Profile)
		}
		wt := src.Walltime
		if wt <= 0 {
			wt = -1
		}
		j := &job{id: full, name: full[strings.IndexByte(full, '!')+1:], wl: wl, raw: src.Raw, fwd: fwd[i], subtime: src.Subtime,
			res: src.Res, walltime: wt, prof: p, profName: src.Profile, state: protocol.StateNotSubmitted, ret: -1}
		e.jobs[full] = j
		jobs = append(jobs, j)
	}
	e.staticJobs += len(jobs)
	sort.SliceStable(jobs, func(a, b int) bool {
		if jobs[a].subtime != jobs[b].subtime {
			return jobs[a].subtime < jobs[b].subtime
		}
		return jobs[a].id < jobs[b].id
	})
	js := &submitter{jobs: jobs}
	e.schedule(stime{}, evWake, nil, js, nil)
	return nil
}

// referencedProfiles lists the profiles Batsim keeps for SIMULATION_BEGINS:
// those the jobs use, with the parts of composed ones.
func referencedProfiles(w *workloads.Workload) []string {
	used := map[string]bool{}
	var mark func(n string)
	mark = func(n string) {
		if used[n] {
			return
		}
		used[n] = true
		if p, ok := w.Profiles[n]; ok && p.Type == workloads.TypeComposed {
			for _, s := range p.Seq {
				mark(s)
			}
		}
	}
	for i := range w.Jobs {
		mark(w.Jobs[i].Profile)
	}
	var out []string
	for _, n := range w.ProfileOrder {
		if used[n] {
			out = append(out, n)
		}
	}
	return out
}

func (e *engine) simulationBegins() *protocol.SimulationBegins {
	p := e.cfg.Platform
	res := func(hs []platformHost, base int) []protocol.Resource {
		out := make([]protocol.Resource, len(hs))
		for i, h := range hs {
			props := make(map[string]string, len(h.Properties)+1)
			for k, v := range h.Properties {
				props[k] = v
			}
			if _, ok := props["role"]; !ok {
				props["role"] = ""
			}
			zp := make(map[string]string, len(h.ZoneProperties))
			for k, v := range h.ZoneProperties {
				zp[k] = v
			}
			out[i] = protocol.Resource{ID: base + i, Name: h.Name, State: "idle", Properties: props, ZoneProperties: zp}
		}
		return out
	}
	sb := &protocol.SimulationBegins{
		NbResources:         len(p.Hosts) + len(p.Storage),
		NbComputeResources:  len(p.Hosts),
		NbStorageResources:  len(p.Storage),
		AllowComputeSharing: false,
		AllowStorageSharing: true,
		Config: protocol.Config{
			RedisEnabled: false, RedisHostname: "127.0.0.1", RedisPort: 6379, RedisPrefix: "default",
			ProfilesForwardedOnSubmission: e.cfg.ForwardProfiles,
			DynamicJobsEnabled:            e.cfg.DynamicJobs,
			DynamicJobsAcknowledged:       e.cfg.AcknowledgeDynamicJob,
			SchedConfig:                   e.cfg.SchedConfig,
		},
		ComputeResources: res(p.Hosts, 0),
		StorageResources: res(p.Storage, len(p.Hosts)),
		Workloads:        map[string]string{},
		Profiles:         map[string]map[string]json.RawMessage{},
	}
	for i, w := range e.cfg.Workloads {
		wl := e.wlOrder[i]
		sb.Workloads[wl.name] = wl.path
		m := map[string]json.RawMessage{}
		for _, n := range referencedProfiles(w) {
			m[n] = wl.profiles[n].batsim
		}
		sb.Profiles[wl.name] = m
	}
	return sb
}

func (e *engine) run() error {
	// The server starts: SIMULATION_BEGINS goes out at once.
	e.buffer = append(e.buffer, protocol.Event{Timestamp: 0, Type: protocol.TypeSimulationBegins, Data: e.simulationBegins()})
	if err := e.send(stime{}); err != nil {
		return err
	}
	for len(e.heap) > 0 && !e.endAck {
		ev := e.heap.pop()
		e.now = ev.at
		var err error
		switch ev.kind {
		case evArrive:
			err = e.arrive(ev.at, ev.m)
		case evWake:
			err = ev.a.resume(e, ev.at)
		case evJobEnd:
			if ev.j.gen == ev.gen && ev.j.state == protocol.StateRunning {
				err = e.jobEnd(ev.at, ev.j)
			}
		}
		if err != nil {
			return err
		}
	}
	if !e.endAck {
		d := &DeadlockError{Time: e.now.t, RegistrationOpen: e.cfg.DynamicJobs && !e.regFinished}
		for _, j := range e.jobs {
			if j.state == protocol.StateSubmitted {
				d.Waiting = append(d.Waiting, j.id)
			}
		}
		sort.Strings(d.Waiting)
		return d
	}
	return nil
}

// arrive: the server received m at t.
func (e *engine) arrive(at stime, m *imsg) error {
	e.busy = false
	if err := e.handle(at, m); err != nil {
		return err
	}
	if err := e.maybeSend(at); err != nil {
		return err
	}
	if m.from != nil {
		if err := m.from.resume(e, at); err != nil {
			return err
		}
	}
	e.match(at)
	return nil
}

func (e *engine) finished() bool {
	return e.finishedJS == e.expectedJS &&
		(!e.cfg.DynamicJobs || e.regFinished) &&
		e.nbCompleted == e.nbSubmitted && e.nbRunning == 0 && e.nbWaiters == 0 && e.nbKillers == 0
}

func (e *engine) maybeSend(at stime) error {
	t := at.real()
	if !e.schedReady || e.endAck || !e.mailboxEmpty() {
		return nil
	}
	if len(e.buffer) > 0 {
		return e.send(at)
	}
	if e.finished() && !e.endSent {
		e.buffer = append(e.buffer, protocol.Event{Timestamp: t, Type: protocol.TypeSimulationEnds, Data: &protocol.SimulationEnds{}})
		e.endSent = true
		return e.send(at)
	}
	return nil
}

// send hands the buffered events to the scheduler and starts applying its
// reply.
func (e *engine) send(at stime) error {
	t := at.real()
	if err := e.ctx.Err(); err != nil {
		return err
	}
	// The scheduler sees the values Batsim's wire format carries (6
	// decimals), in-process as over ZeroMQ.
	for i := range e.buffer {
		ev := &e.buffer[i]
		ev.Timestamp = round6(ev.Timestamp)
		if k, ok := ev.Data.(*protocol.JobKilled); ok {
			for _, p := range k.JobProgress {
				roundProgress(p)
			}
		}
	}
	msg := &protocol.Message{Now: round6(t), Events: e.buffer}
	e.buffer = make([]protocol.Event, 0, 4)
	e.schedReady = false
	e.messages++
	for _, j := range e.toDelete {
		j.deleted = true
	}
	e.toDelete = e.toDelete[:0]
	if e.cfg.Observe != nil {
		e.cfg.Observe(protocol.FromBatsim, msg)
	}
	if e.out != nil && time.Since(e.out.lastSync) > 500*time.Millisecond {
		if err := e.out.sync(); err != nil {
			return err
		}
	}
	if checkHook != nil {
		if err := checkHook(e); err != nil {
			return &Error{Time: t, Rule: err.Error()}
		}
	}
	start := time.Now()
	reply, err := e.sched.Exchange(msg)
	e.schedWall += time.Since(start)
	if err != nil {
		return &Error{Time: t, Rule: fmt.Sprintf("scheduler: %v", err)}
	}
	if reply == nil {
		reply = &protocol.Message{Now: t}
	}
	if e.cfg.Observe != nil {
		e.cfg.Observe(protocol.FromScheduler, reply)
	}
	for i := range reply.Events {
		if reply.Events[i].Timestamp > reply.Now {
			return e.fail(t, "reply", "event %d (%s): timestamp %v is later than the reply's now=%v (Batsim aborts)", i, reply.Events[i].Type, reply.Events[i].Timestamp, reply.Now)
		}
	}
	if math.IsNaN(reply.Now) || math.IsInf(reply.Now, 0) {
		return e.fail(t, "reply", "now=%v is not a finite number", reply.Now)
	}
	if e.cfg.Progress != nil && time.Since(e.lastProg) > 200*time.Millisecond {
		e.lastProg = time.Now()
		e.cfg.Progress(e.stats.nbJobs, e.staticJobs)
	}
	e.schedule(at, evWake, nil, &replier{msg: reply}, nil)
	return nil
}

// round6 is x as it reads once printed with %f (Batsim's wire format).
func round6(x float64) float64 {
	var buf [40]byte
	v, err := strconv.ParseFloat(string(strconv.AppendFloat(buf[:0], x, 'f', 6, 64)), 64)
	if err != nil {
		return x
	}
	return v
}

func roundProgress(p *protocol.JobProgress) {
	for ; p != nil; p = p.CurrentTask {
		if p.Progress != nil {
			v := round6(*p.Progress)
			p.Progress = &v
		}
	}
}

// checkHook, when set (by tests), audits the engine before each message
// to the scheduler.
var checkHook func(e *engine) error

// submitter is Batsim's static job submitter of one workload.
type submitter struct {
	jobs     []*job // sorted by (subtime, full id)
	p        int
	pending  []*job
	cur      stime
	state    int
	sleepDur float64
}

const (
	jsStart = iota
	jsAfterHello
	jsPostedThenSleep
	jsAfterWake
	jsFinalPosted
	jsBye
)

func (s *submitter) resume(e *engine, at stime) error {
	switch s.state {
	case jsStart:
		s.state = jsAfterHello
		e.post(at, &imsg{kind: mHello, xfer: e.lm, hops: e.lmHops, from: s})
		return nil
	case jsAfterHello, jsAfterWake:
		s.cur = at
	case jsPostedThenSleep:
		s.state = jsAfterWake
		e.schedule(stime{at.t + s.sleepDur, at.e - s.cur.e}, evWake, nil, s, nil)
		return nil
	case jsFinalPosted:
		s.state = jsBye
		e.post(at, &imsg{kind: mBye, xfer: e.lm, hops: e.lmHops, from: s})
		return nil
	case jsBye:
		return nil
	}
	for s.p < len(s.jobs) {
		j := s.jobs[s.p]
		if j.subtime > s.cur.real() {
			if len(s.pending) > 0 {
				s.state = jsPostedThenSleep
				s.sleepDur = j.subtime - s.cur.t
				e.post(at, &imsg{kind: mSubmit, xfer: e.lm, hops: e.lmHops, jobs: s.pending, from: s})
				s.pending = nil
				return nil
			}
			s.state = jsAfterWake
			e.schedule(stime{at.t + (j.subtime - s.cur.t), at.e - s.cur.e}, evWake, nil, s, nil)
			return nil
		}
		s.pending = append(s.pending, j)
		s.p++
	}
	if len(s.pending) > 0 {
		s.state = jsFinalPosted
		e.post(at, &imsg{kind: mSubmit, xfer: e.lm, hops: e.lmHops, jobs: s.pending, from: s})
		s.pending = nil
		return nil
	}
	s.state = jsBye
	e.post(at, &imsg{kind: mBye, xfer: e.lm, hops: e.lmHops, from: s})
	return nil
}

// replier is Batsim's request-reply actor applying one reply: each event
// is sent to the server at its timestamp (or at once if past), one after
// the other, then the ready signal at the reply's now.
type replier struct {
	msg *protocol.Message
	k   int
}

func (r *replier) resume(e *engine, at stime) error {
	n := len(r.msg.Events)
	if r.k < n {
		ev := &r.msg.Events[r.k]
		if later(ev.Timestamp, at) {
			e.schedule(stime{t: ev.Timestamp}, evWake, nil, r, nil)
			return nil
		}
		if ev.Type == protocol.TypeAnswer {
			// Batsim only logs a warning for an ANSWER: nothing is sent.
			r.k++
			e.log.Warn("ignoring ANSWER from the scheduler")
			return r.resume(e, at)
		}
		r.k++
		e.post(at, &imsg{kind: mDecision, xfer: e.lm, hops: e.lmHops, ev: ev, from: r})
		return nil
	}
	if r.k == n {
		if later(r.msg.Now, at) {
			e.schedule(stime{t: r.msg.Now}, evWake, nil, r, nil)
			return nil
		}
		r.k++
		e.post(at, &imsg{kind: mReady, xfer: e.lm, hops: e.lmHops})
	}
	return nil
}

// waiter answers a CALL_ME_LATER.
type waiter struct{}

func (w *waiter) resume(e *engine, at stime) error {
	if !e.endSent && !e.endAck {
		e.post(at, &imsg{kind: mWaitingDone, xfer: e.lm, hops: e.lmHops})
	}
	return nil
}

// killer kills jobs and reports to the server.
type killer struct{ kd *killDone }

func (k *killer) resume(e *engine, at stime) error {
	t := at.real()
	for _, j := range k.kd.ids {
		if j.state != protocol.StateRunning {
			continue
		}
		w, err := e.walk(j, t)
		if err != nil {
			return e.fail(t, "KILL_JOB "+j.id, "%v", err)
		}
		if w.tree != nil {
			k.kd.progress[j.id] = w.tree
		}
		j.gen++
		j.state = protocol.StateKilled
		if j.prof.isParallelTask() {
			j.ret = -2
		} else {
			j.ret = -1
		}
		e.freeHosts(t, j)
		j.runtime = t - j.start
		if j.runtime == 0 {
			j.runtime = 1e-5
		}
	}
	e.post(at, &imsg{kind: mKillingDone, xfer: e.lm, hops: e.lmHops, killed: k.kd})
	return nil
}

func (e *engine) freeHosts(t float64, j *job) {
	for _, h := range j.alloc {
		if h < e.nhosts && e.hostJob[h] == j {
			e.hostJob[h] = nil
			e.timeComp += t - e.hostSince[h]
			e.hostSince[h] = t
		}
	}
}

// jobEnd: the job's executor finishes at t and reports from its first host.
func (e *engine) jobEnd(at stime, j *job) error {
	t := at.real()
	switch {
	case j.ret == 0:
		j.state = protocol.StateSuccess
	case j.ret > 0:
		j.state = protocol.StateFailed
	default:
		j.state = protocol.StateWalltimeReached
	}
	e.freeHosts(t, j)
	j.runtime = t - j.start
	if j.runtime == 0 {
		e.log.Warn("job computed in null time, counting 1e-5 s like Batsim", "job", j.id)
		j.runtime = 1e-5
	}
	e.post(at, &imsg{kind: mCompleted, xfer: e.lh[j.alloc[0]], hops: e.lhHops, job: j})
	return nil
}
