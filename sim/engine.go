package sim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/internal/batsimfmt"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/workloads"
)

// engine is one simulation: the kernel, the platform's resources, and
// Batsim's state (what its server, submitters and job actors share).
type engine struct {
	ctx   context.Context
	cfg   Config
	sched Scheduler
	log   *slog.Logger
	// typed: the scheduler takes typed jobs (typed.go).
	typed bool

	k      kernel
	server *mailbox
	// seqTasks counts the tasks of registered composed profiles.
	seqTasks *workloads.SequenceCounter[*profile]
	// kernel host indexes: compute hosts 0..nhosts-1, storage hosts
	// next, the master last.
	nhosts, nstore int
	master         int
	names          []string
	net            *network

	// the server's state (Batsim's ServerData)
	schedReady  bool
	endSent     bool
	endAck      bool
	buffer      []batsim.Event
	toDelete    []*job
	nbSubmitted int
	nbCompleted int
	nbRunning   int
	nbWaiters   int
	nbKillers   int
	finishedJS  int
	expectedJS  int
	regFinished bool
	serverDone  bool

	workloads map[string]*workload
	wlOrder   []*workload
	// registered holds the descriptions of registered profiles.
	registered byteArena
	// freeMsgs are handled messages, and freeReqReps and freeJobSMs the
	// state machines of ended actors, for reuse.
	freeMsgs    []*imsg
	freeReqReps []*reqRep
	freeJobSMs  []*jobSM
	// metadata holds what SET_JOB_METADATA gave jobs.
	metadata map[*job]string
	jobs     map[string]*job
	// hostJob is the job each compute host runs (machines' state): the
	// last one started when several share the host (hostJobs of them).
	hostJob   []*job
	hostJobs  []int32
	hostSince []float64
	// hostIdle and hostComp are each host's time idle and computing,
	// in long doubles (Machine::time_spent_in_each_state), summed in
	// host order for _schedule.csv.
	hostIdle   []ld
	hostComp   []ld
	staticJobs int

	out   *outputs
	stats stats
	// en is the energy support (-E), nil without it.
	en *energy
	// srvSteps are the server's next simcalls for the message it handled
	// (power states: energy reads, pstate changes, switching actors).
	srvSteps []srvStep

	messages  int
	schedWall time.Duration
	lastProg  time.Time
}

// Run simulates cfg with sched as the decision process. The jobs rows are
// written as the simulation goes into a staged file, and the jobs and
// schedule files take their place together when it succeeds; on an error the
// rows written so far are kept as PREFIX_jobs.csv.partial and the files of an
// earlier run are left untouched.
func Run(ctx context.Context, cfg Config, sched Scheduler) (*Result, error) {
	wall := time.Now()
	prefix := cfg.ExportPrefix
	e, err := newEngine(ctx, cfg, sched)
	if err != nil {
		return nil, err
	}
	// cfg is not used from here on (nor are its workloads, which the
	// caller may then free).
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if prefix != "" {
		if e.out, err = openOutputs(prefix); err != nil {
			return nil, err
		}
	}
	runErr := e.run()
	res := e.result(time.Since(wall))
	if e.out != nil {
		if runErr == nil {
			keys, values := e.scheduleValues(time.Since(wall))
			runErr = e.out.finish(keys, values, e.energyFiles())
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
	p := cfg.Platform
	if len(p.Hosts) == 0 {
		return nil, fmt.Errorf("platform %s: no compute host", p.Path)
	}
	if len(cfg.Workloads) == 0 && len(cfg.Preloaded) == 0 && !cfg.DynamicJobs {
		return nil, errors.New("no workload (give one, or enable dynamic jobs)")
	}
	if len(cfg.Workloads) > 0 && len(cfg.Preloaded) > 0 {
		return nil, errors.New("give workloads or preloaded workloads, not both")
	}
	if u := Unmodelled(cfg); len(u) > 0 && !cfg.Approximate {
		return nil, &UnmodelledError{Items: u}
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	njobs := 0
	for _, w := range cfg.Workloads {
		njobs += len(w.Jobs)
	}
	e := &engine{ctx: ctx, cfg: cfg, sched: sched, log: log, workloads: map[string]*workload{}, jobs: make(map[string]*job, njobs)}
	e.k.interrupted = ctx.Err
	e.typed = typedJobs(sched)
	e.nhosts = len(p.Hosts)
	e.nstore = len(p.Storage)
	e.master = e.nhosts + e.nstore
	e.names = make([]string, e.master+1)
	e.k.cpus = make([]cpu, e.master+1)
	addCPU := func(i int, h platforms.Host) error {
		if !(h.Speed > 0) {
			return fmt.Errorf("platform %s: host %s has speed %g (must be > 0)", p.Path, h.Name, h.Speed)
		}
		cores := h.Cores
		if cores < 1 {
			cores = 1
		}
		e.names[i] = h.Name
		e.k.cpus[i] = cpu{speed: h.Speed, cnst: e.k.sys.newConstraint(float64(cores)*h.Speed, false)}
		return nil
	}
	for i, h := range p.Hosts {
		if h.ID != i {
			return nil, fmt.Errorf("platform %s: host %s has id %d at position %d", p.Path, h.Name, h.ID, i)
		}
		if err := addCPU(i, h); err != nil {
			return nil, err
		}
	}
	for i, h := range p.Storage {
		if err := addCPU(e.nhosts+i, h); err != nil {
			return nil, err
		}
	}
	// The master computes nothing; its speed only matters to SimGrid's
	// bookkeeping.
	e.names[e.master] = p.Master
	e.k.cpus[e.master] = cpu{speed: 1, cnst: e.k.sys.newConstraint(1, false)}
	e.net = newNetwork(p, e.names, cfg.Approximate)
	e.k.route = e.net.route
	e.k.links = e.net.links
	e.server = &mailbox{name: "server", instant: cfg.Latency == LatencyNone}
	e.hostJob = make([]*job, e.nhosts)
	e.hostJobs = make([]int32, e.nhosts)
	e.hostSince = make([]float64, e.nhosts)
	e.hostIdle = make([]ld, e.nhosts)
	e.hostComp = make([]ld, e.nhosts)
	if cfg.Energy {
		en, err := newEnergy(p)
		if err != nil {
			return nil, err
		}
		e.en = en
		e.k.onActionEnd = e.actionEnded
		e.k.onExecStart = e.execStarted
		e.k.onEnergy = e.energySimcall
		e.initialPstates()
	}
	e.expectedJS = len(cfg.Workloads) + len(cfg.Preloaded)
	for i, w := range cfg.Workloads {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := e.addStaticWorkload(fmt.Sprintf("w%d", i), w); err != nil {
			return nil, err
		}
	}
	for i, p := range cfg.Preloaded {
		if err := e.addPreloaded(fmt.Sprintf("w%d", i), p); err != nil {
			return nil, err
		}
	}
	// The workloads are not needed any more: the caller may free them.
	e.cfg.Workloads, e.cfg.Preloaded = nil, nil
	if !cfg.DynamicJobs {
		// Profiles are only looked up by name to register jobs.
		for _, wl := range e.wlOrder {
			wl.profiles = nil
		}
	}
	return e, nil
}

func (e *engine) addStaticWorkload(name string, w *workloads.Workload) error {
	if !e.cfg.WorkloadsChecked {
		if errs, _ := w.Validate(workloads.ValidateOptions{WorkloadName: name}); len(errs) > 0 {
			msgs := make([]string, len(errs))
			for i, f := range errs {
				msgs[i] = strings.TrimPrefix(f.String(), "error: ")
			}
			// Each finding names the file.
			return fmt.Errorf("workload %s: %s", name, strings.Join(msgs, "; "))
		}
	}
	path := w.Path
	if abs, err := filepath.Abs(path); err == nil && path != "" {
		path = abs
	}
	wl := &workload{name: name, path: path, profiles: make(map[string]*profile, len(w.Profiles))}
	// The engine keeps its own copies of what it needs (profiles, the
	// descriptions it forwards, in a few large blocks), not the workload.
	var arena byteArena
	for pname, pr := range w.Profiles {
		p, err := newProfile(pname, pr, &arena)
		if err != nil {
			return fmt.Errorf("workload %s (%s): %w", name, w.Path, err)
		}
		wl.profiles[pname] = p
	}
	if err := wl.resolve(); err != nil {
		return err
	}
	for _, n := range referencedProfiles(w) {
		wl.begins = append(wl.begins, wl.profiles[n])
	}
	e.workloads[name] = wl
	e.wlOrder = append(e.wlOrder, wl)
	// Full ids, written in one block.
	var ids []byte
	ends := make([]int, len(w.Jobs))
	for i := range w.Jobs {
		var err error
		if ids, err = workloads.AppendFullJobID(ids, name, w.Jobs[i].ID); err != nil {
			return fmt.Errorf("workload %s (%s): %w", name, w.Path, err)
		}
		ends[i] = len(ids)
	}
	allIDs := string(ids)
	ids = nil
	store := make([]job, len(w.Jobs))
	jobs := make([]*job, len(w.Jobs))
	begin := 0
	for i := range w.Jobs {
		src := &w.Jobs[i]
		full := allIDs[begin:ends[i]]
		begin = ends[i]
		if _, dup := e.jobs[full]; dup {
			return fmt.Errorf("workload %s (%s): duplicate job id %s", name, w.Path, full)
		}
		p, ok := wl.profiles[src.Profile]
		if !ok {
			return fmt.Errorf("workload %s (%s): job %s uses unknown profile %q", name, w.Path, src.ID, src.Profile)
		}
		fwd, err := arena.add(func(dst []byte) ([]byte, error) { return workloads.AppendForwardedJob(dst, src.Raw, full) })
		if err != nil {
			return e.fail("JOB_SUBMITTED "+full, "%v", err)
		}
		wt := src.Walltime
		if wt <= 0 {
			wt = -1
		}
		j := &store[i]
		*j = job{id: full, wl: wl, desc: fwd, subtime: src.Subtime, res: src.Res, walltime: wt, prof: p,
			ret: -1, typed: typedRaw(src)}
		e.jobs[full] = j
		jobs[i] = j
	}
	e.staticJobs += len(jobs)
	// Ids are unique: the order is total, a stable sort would give the
	// same.
	slices.SortFunc(jobs, func(a, b *job) int {
		if c := cmp.Compare(a.subtime, b.subtime); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	wl.static = jobs
	return nil
}

// addPreloaded adds a preloaded workload, which must be named name.
func (e *engine) addPreloaded(name string, p *Preloaded) error {
	if p == nil || p.wl == nil {
		return fmt.Errorf("workload %s: not preloaded, or already used by a run", name)
	}
	wl := p.wl
	if wl.name != name {
		return fmt.Errorf("workload %s: preloaded as %s", name, wl.name)
	}
	e.workloads[name] = wl
	e.wlOrder = append(e.wlOrder, wl)
	if len(e.jobs) == 0 {
		e.jobs = p.index
	} else {
		for id, j := range p.index {
			if _, dup := e.jobs[id]; dup {
				return fmt.Errorf("workload %s (%s): duplicate job id %s", name, wl.path, id)
			}
			e.jobs[id] = j
		}
	}
	e.staticJobs += len(wl.static)
	p.wl, p.index = nil, nil
	return nil
}

// referencedProfiles lists the profiles Batsim keeps for SIMULATION_BEGINS:
// those the jobs use, with the parts of composed ones.
func referencedProfiles(w *workloads.Workload) []string {
	used := make(map[string]bool, len(w.Profiles))
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

func (e *engine) simulationBegins() *batsim.SimulationBegins {
	p := e.cfg.Platform
	res := func(hs []platforms.Host, base int) []batsim.Resource {
		out := make([]batsim.Resource, len(hs))
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
			out[i] = batsim.Resource{ID: base + i, Name: h.Name, State: "idle", Properties: props, ZoneProperties: zp}
		}
		return out
	}
	sb := &batsim.SimulationBegins{
		NbResources:         len(p.Hosts) + len(p.Storage),
		NbComputeResources:  len(p.Hosts),
		NbStorageResources:  len(p.Storage),
		AllowComputeSharing: e.cfg.ComputeSharing,
		AllowStorageSharing: true,
		Config: batsim.Config{
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
	for _, wl := range e.wlOrder {
		sb.Workloads[wl.name] = wl.path
		m := make(map[string]json.RawMessage, len(wl.begins))
		for _, p := range wl.begins {
			m[p.name] = p.batsim
			if !e.cfg.ForwardProfiles {
				// Sent once: only JOB_SUBMITTED with forwarded
				// profiles reads it again (a million of them
				// weigh 60 MB when each job has its own).
				p.batsim = nil
			}
		}
		sb.Profiles[wl.name] = m
		wl.begins = nil
	}
	return sb
}

// spawn creates one of Batsim's actors on a host.
func (e *engine) spawn(name string, host int, body func(a *actor)) *actor {
	return e.k.spawn(name, host, body)
}

// run starts Batsim's initial actors (one job submitter per workload, then
// the server) and simulates until the end.
func (e *engine) run() error {
	defer e.k.stopAll()
	for _, wl := range e.wlOrder {
		e.k.start(e.k.spawnSM(e.master, &submitter{e: e, wl: wl}))
	}
	e.k.start(e.k.spawnSM(e.master, &server{e: e}))
	err := e.k.run(func() bool { return e.serverDone })
	if err != nil {
		return err
	}
	if !e.serverDone {
		d := &DeadlockError{Time: e.k.now, RegistrationOpen: e.cfg.DynamicJobs && !e.regFinished}
		for _, j := range e.jobs {
			if j.state == stSubmitted {
				d.Waiting = append(d.Waiting, j.id)
			}
		}
		sort.Strings(d.Waiting)
		return d
	}
	return nil
}

func (e *engine) fail(evName, format string, args ...any) *Error {
	return &Error{Time: e.k.now, Event: evName, Rule: fmt.Sprintf(format, args...)}
}

// exchange hands a message to the scheduler and returns its checked reply.
func (e *engine) exchange(events []batsim.Event, now float64) (*batsim.Message, error) {
	if err := e.ctx.Err(); err != nil {
		return nil, err
	}
	// The scheduler sees the values Batsim's wire format carries (6
	// decimals), in-process as over ZeroMQ.
	for i := range events {
		ev := &events[i]
		ev.Timestamp = batsimfmt.Reread(ev.Timestamp)
		if k, ok := ev.Data.(*batsim.JobKilled); ok {
			for _, p := range k.JobProgress {
				roundProgress(p)
			}
		}
	}
	msg := &batsim.Message{Now: batsimfmt.Reread(now), Events: events}
	e.messages++
	if e.cfg.Observe != nil {
		e.cfg.Observe(batsim.FromBatsim, msg)
	}
	// The clock is read every 16 messages to push the rows written so far
	// to the file at least every half second.
	if e.out != nil && e.messages%16 == 0 && time.Since(e.out.lastSync) > 500*time.Millisecond {
		if err := e.out.sync(); err != nil {
			return nil, err
		}
	}
	if checkHook != nil {
		if err := checkHook(e); err != nil {
			return nil, &Error{Time: now, Rule: err.Error()}
		}
	}
	start := time.Now()
	var reply *batsim.Message
	var err error
	if p, ok := e.sched.(inProcess); ok && e.cfg.Observe == nil {
		// Nothing keeps the reply once applied: the session may reuse it.
		reply, err = p.exchange(msg, true)
	} else {
		reply, err = e.sched.Exchange(msg)
	}
	e.schedWall += time.Since(start)
	if err != nil {
		return nil, &Error{Time: now, Rule: fmt.Sprintf("scheduler: %v", err)}
	}
	if reply == nil {
		reply = &batsim.Message{Now: now}
	}
	if e.cfg.Observe != nil {
		e.cfg.Observe(batsim.FromScheduler, reply)
	}
	if math.IsNaN(reply.Now) || math.IsInf(reply.Now, 0) {
		return nil, e.fail("reply", "now=%v is not a finite number", reply.Now)
	}
	for i := range reply.Events {
		if reply.Events[i].Timestamp > reply.Now {
			return nil, e.fail("reply", "event %d (%s): timestamp %v is later than the reply's now=%v (Batsim aborts)", i, reply.Events[i].Type, reply.Events[i].Timestamp, reply.Now)
		}
	}
	if e.cfg.Progress != nil && time.Since(e.lastProg) > 200*time.Millisecond {
		e.lastProg = time.Now()
		e.cfg.Progress(e.stats.nbJobs, e.staticJobs)
	}
	return reply, nil
}

// checkHook, when set (by tests), audits the engine before each message
// to the scheduler.
var checkHook func(e *engine) error
