package bot

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/bucma-sched/bucma/sched"

	json "github.com/goccy/go-json"
)

// The bag-of-tasks policies of the thesis on BoT consolidation in clouds
// (docs/policies.md, "Bag-of-tasks consolidation"). A BoT's workload holds
// one Batsim job per unit step of each task (workloads.BotWorkload): its
// fields bot, quad, task, step, a, d, b, c (CPU percent) and vms say where
// it belongs. Each host is one processor core; the "node" property groups
// cores into nodes. Jobs share cores (compute sharing): a core runs jobs
// whose CPU percents add up to at most 100, each job being c % of a step of
// core work, so that the jobs of one step end within the step.
//
//   - bot-consolidation: when a BoT arrives, Algorithm 1 plans it on its
//     VMs (the t × m' matrix of PlanBoT); each VM is placed on a core and
//     replays its column: row k starts once row k-1's jobs have ended and
//     a step has passed since row k-1 started (the thesis' per-VM barrier;
//     VMs are not synchronised with one another).
//   - threshold-vm-consolidation: the same, plus the system level every
//     period (Algorithm 5 as the thesis implemented it): VMs of overloaded
//     nodes (average core load ≥ high) move to the least loaded node that
//     stays under high, then the VMs of idle nodes (≤ low) move to the most
//     loaded intermediate node that can take them all; a moved VM runs its
//     next row on its new core. With power=on, nodes without VMs are
//     switched off (their cores to their first sleep pstate) and nodes are
//     switched on while the average load of the nodes that are on exceeds
//     avg-high.
//   - bot-packing-online: no plan; at every decision the tasks' next steps
//     that may run (a task runs one step at a time, at most one per step
//     length, and a quadruple starts once every earlier quadruple's tasks
//     have run as many steps as the arrival dates are apart) are sorted by
//     the priority criterion and packed onto the cores' free CPU percent
//     (lote or cíclico): work-conserving and event-driven.
//
// Background jobs (bot "background", host h, step s: an external load of c %
// on core h) run on their core from s steps on, one step after the other.

// botFields are the workload fields of a BoT job.
type botFields struct {
	Bot  string `json:"bot"`
	Quad *int   `json:"quad"`
	Task *int   `json:"task"`
	Step *int   `json:"step"`
	A    *int   `json:"a"`
	D    *int   `json:"d"`
	B    *int   `json:"b"`
	C    *int   `json:"c"`
	VMs  *int   `json:"vms"`
	Host *int   `json:"host"`
}

// botJobFields are the fields a BoT job has (a background job has bot,
// host, step and c): a workload without any of them is no BoT workload.
var botJobFields = []string{"bot", "quad", "task", "step", "a", "d", "b", "c", "vms"}

// botJob is what the policies know of one job.
type botJob struct {
	app              *botApp // nil for a background job
	quad, task, step int
	c                int
	host             int // background: its core
	job              *sched.Job
	vm               int // consolidation: the VM that runs it
}

// botApp is one BoT.
type botApp struct {
	name    string
	seq     int
	vms     int
	quads   []BotQuad
	jobs    [][][]*botJob // [quad][task][step]
	n, want int
	arrival float64
	ready   bool
	dead    bool

	// consolidation
	plan     *BotPlan
	cells    [][][]*botJob // [row][vm]
	vmHost   []int
	vmRow    []int
	vmStart  []float64
	vmRun    []int
	vmLoaded []int // the load of the row under way or next (percent)

	// online packing
	next    [][]int // [quad][task] next step
	started [][]float64
	running [][]bool
	done    [][]int // steps ended
}

// botBase is what the three policies share.
type botBase struct {
	step     float64
	nodeProp string
	alloc    BotAlloc
	priority BotPriority
	inverted bool

	byID     map[string]*botJob
	apps     map[string]*botApp
	order    []*botApp
	bg       []bgCore // per core: its external load
	hostLoad []int    // CPU percent of the jobs running on each core
	nodes    [][]int
	nodeOf   []int
	calls    map[float64]bool
	refusal  map[string]string
}

// bgCore is a core's external load: its background steps, by step.
type bgCore struct {
	jobs    []*botJob
	next    int     // the next step to start
	start   float64 // when the last started one did
	running bool
}

const botEps = 1e-4

func (b *botBase) init() {
	b.byID, b.apps = map[string]*botJob{}, map[string]*botApp{}
	b.calls, b.refusal = map[float64]bool{}, map[string]string{}
}

func botCommonOptions(withPlan bool) []sched.OptionSpec {
	o := []sched.OptionSpec{
		{Name: "alloc", Default: "ciclico", Values: []string{"ciclico", "lote"}, Help: "allocation of Algorithm 1: ciclico (round robin over the processors, each taking the first job that fits) or lote (fill one processor after the other)"},
		{Name: "priority", Default: "cost", Values: []string{"none", "arrival", "duration", "cost", "completed", "remaining"}, Help: "priority criterion (Table 6): cost is the lowest cost first"},
		{Name: "inverted", Default: "false", Values: []string{"false", "true"}, Help: "reverse the criterion (not for none)"},
		{Name: "step", Default: "300", Help: "step length in seconds"},
		{Name: "node", Default: "node", Help: "host property naming each core's node (a host without it is a node of its own)"},
	}
	if withPlan {
		o = append(o,
			sched.OptionSpec{Name: "shift", Default: "global", Values: []string{"global", "dag"}, Help: "delay on contention: global (the thesis: the whole application waits a step) or dag (only what depends on the deferred jobs)"},
			sched.OptionSpec{Name: "vms", Default: "0", Help: "VMs per BoT (0: each BoT's vms field)"},
			sched.OptionSpec{Name: "place", Default: "spread", Values: []string{"spread", "pack"}, Help: "initial VM placement: spread (the core with the fewest VMs on the node with the fewest VMs) or pack (the lowest core with the fewest VMs)"},
		)
	}
	return o
}

func (b *botBase) parse(opts sched.Options) error {
	var err error
	if b.alloc, err = ParseBotAlloc(opts["alloc"]); err != nil {
		return err
	}
	if b.priority, err = ParseBotPriority(opts["priority"]); err != nil {
		return err
	}
	b.inverted = opts["inverted"] == "true"
	if b.step, err = strconv.ParseFloat(opts["step"], 64); err != nil || !(b.step > 0) || math.IsInf(b.step, 0) {
		return fmt.Errorf("step: %q is not a positive number of seconds", opts["step"])
	}
	b.nodeProp = opts["node"]
	b.init()
	return nil
}

// SimulationBegins groups the cores into nodes and lets each core run
// jobs up to 100 % of CPU (one slot per percent).
func (b *botBase) SimulationBegins(s *sched.State) error {
	slots := make([]int, s.NbHosts())
	for i := range slots {
		slots[i] = 100
	}
	b.nodes, b.nodeOf = sched.GroupHosts(s, b.nodeProp, true)
	b.hostLoad = make([]int, s.NbHosts())
	b.bg = make([]bgCore, s.NbHosts())
	return s.SetSlots(slots)
}

// Admits refuses jobs that are not BoT jobs.
func (b *botBase) Admits(s *sched.State, j *sched.Job) bool {
	var f botFields
	if err := json.Unmarshal(j.Raw(), &f); err != nil {
		b.refusal[j.ID()] = fmt.Sprintf("its fields cannot be read: %v", err)
		return false
	}
	if f.Bot == "background" {
		if f.Host == nil || *f.Host < 0 || *f.Host >= s.NbHosts() || f.Step == nil || *f.Step < 0 || f.C == nil || *f.C < 1 || *f.C > 100 || j.Res() != 1 {
			b.refusal[j.ID()] = "a background job needs host (a core), step ≥ 0, c in 1..100 and res 1"
			return false
		}
		return true
	}
	for _, p := range []*int{f.Quad, f.Task, f.Step, f.A, f.D, f.B, f.C, f.VMs} {
		if p == nil || *p < 0 {
			b.refusal[j.ID()] = "a BoT job needs the fields " + strings.Join(botJobFields, ", ") + " (non-negative integers)"
			return false
		}
	}
	if f.Bot == "" || j.Res() != 1 || *f.C < 1 || *f.C > 100 || *f.D < 1 || *f.B < 1 || *f.Task >= *f.B || *f.Step >= *f.D || *f.VMs < 1 {
		b.refusal[j.ID()] = "invalid BoT job: res must be 1, c in 1..100, d and b ≥ 1, task < b, step < d, vms ≥ 1"
		return false
	}
	return true
}

// Refusal says why a job was refused.
func (b *botBase) Refusal(j *sched.Job) string { return b.refusal[j.ID()] }

// JobSubmitted files the job in its BoT.
func (b *botBase) JobSubmitted(s *sched.State, j *sched.Job) {
	if j.Refused() {
		return
	}
	var f botFields
	if json.Unmarshal(j.Raw(), &f) != nil {
		return
	}
	if f.Bot == "background" {
		bj := &botJob{host: *f.Host, step: *f.Step, c: *f.C, job: j}
		b.byID[j.ID()] = bj
		c := &b.bg[bj.host]
		// after the steps it does not precede (submission order among equals)
		i := sort.Search(len(c.jobs), func(k int) bool { return c.jobs[k].step > bj.step })
		c.jobs = slices.Insert(c.jobs, i, bj)
		return
	}
	app := b.apps[f.Bot]
	if app == nil {
		app = &botApp{name: f.Bot, seq: len(b.order), vms: *f.VMs, arrival: j.Submit()}
		b.apps[f.Bot] = app
		b.order = append(b.order, app)
	}
	q, t, st := *f.Quad, *f.Task, *f.Step
	for len(app.quads) <= q {
		app.quads = append(app.quads, BotQuad{})
		app.jobs = append(app.jobs, nil)
	}
	quad := BotQuad{A: *f.A, D: *f.D, B: *f.B, C: *f.C}
	if app.jobs[q] == nil {
		app.quads[q] = quad
		app.jobs[q] = make([][]*botJob, quad.B)
		for k := range app.jobs[q] {
			app.jobs[q][k] = make([]*botJob, quad.D)
		}
	}
	if app.quads[q] != quad || app.jobs[q][t][st] != nil {
		app.dead = true // inconsistent: its jobs are rejected
	} else {
		bj := &botJob{app: app, quad: q, task: t, step: st, c: quad.C, job: j}
		app.jobs[q][t][st] = bj
		b.byID[j.ID()] = bj
		app.n++
	}
	app.want = 0
	for _, qd := range app.quads {
		app.want += qd.B * qd.D
	}
}

// JobEnded frees the job's CPU share.
func (b *botBase) JobEnded(s *sched.State, j *sched.Job) {
	bj := b.byID[j.ID()]
	if bj == nil {
		return
	}
	delete(b.byID, j.ID())
	if len(j.Alloc()) == 1 {
		b.hostLoad[j.Alloc()[0]] -= bj.c
	}
	switch {
	case bj.app == nil:
		b.bg[bj.host].running = false
	case bj.app.plan != nil:
		bj.app.vmRun[bj.vm]--
	case bj.app.running != nil:
		bj.app.running[bj.quad][bj.task] = false
		bj.app.done[bj.quad][bj.task]++
	}
}

// start starts bj on core h.
func (b *botBase) start(d *sched.Decider, bj *botJob, h int) bool {
	if !d.Start(bj.job, []int{h}) {
		return false
	}
	b.hostLoad[h] += bj.c
	return true
}

// arrived lists the BoTs whose jobs are all in and not handled yet; BoTs
// that cannot be complete any more are rejected.
func (b *botBase) arrived(s *sched.State, d *sched.Decider) []*botApp {
	var out []*botApp
	for _, app := range b.order {
		if app.ready {
			continue
		}
		if app.dead || (s.NoMoreStaticJobs() && app.n < app.want) {
			app.ready = true
			for _, q := range app.jobs {
				for _, t := range q {
					for _, bj := range t {
						if bj != nil && bj.job.State() == "SUBMITTED" {
							d.Reject(bj.job)
						}
					}
				}
			}
			continue
		}
		if app.n == app.want && app.want > 0 {
			app.ready = true
			out = append(out, app)
		}
	}
	return out
}

// background starts the background steps that are due; it returns the
// date of the next one (0: none).
func (b *botBase) background(s *sched.State, d *sched.Decider) float64 {
	next := 0.0
	for h := range b.bg {
		c := &b.bg[h]
		if c.next >= len(c.jobs) || c.running {
			continue
		}
		due := float64(c.jobs[c.next].step) * b.step
		if c.next > 0 {
			due = max(due, c.start+b.step)
		}
		if s.Now() >= due-botEps {
			if s.Host(h).Free() && b.start(d, c.jobs[c.next], h) {
				c.next++
				c.start = s.Now()
				c.running = true
			}
			continue
		}
		next = minDate(next, due)
	}
	return next
}

func minDate(a, b float64) float64 {
	if a == 0 || (b > 0 && b < a) {
		return b
	}
	return a
}

// wake asks for a call at t (once per date).
func (b *botBase) wake(s *sched.State, d *sched.Decider, t float64) {
	if t <= s.Now()+botEps || b.calls[t] {
		return
	}
	for c := range b.calls {
		if c <= s.Now() {
			delete(b.calls, c)
		}
	}
	if d.CallMeLater(t) {
		b.calls[t] = true
	}
}

// ---------------------------------------------------------------- consolidation

// BotConsolidation is bot-consolidation (and, with System set,
// threshold-vm-consolidation).
type BotConsolidation struct {
	botBase
	shift BotShift
	vms   int
	pack  bool
	// System is the system level (nil: none).
	System *BotSystem

	// nextRound is the date of the system level's next round.
	nextRound float64
	// Migrations counts VM moves.
	Migrations int
}

// BotSystem is the threshold-based system level (Algorithm 5).
type BotSystem struct {
	High, Low, AvgHigh float64 // percent of a node's cores
	Power              bool
	MinOn              int
	Period             float64
}

// Register adds bot-consolidation, threshold-vm-consolidation and
// bot-packing-online to r.
func Register(r *sched.Registry) {
	r.Add(sched.Spec{
		Name:           "bot-consolidation",
		Description:    "bag-of-tasks consolidation (the BoT thesis, Algorithm 1): each BoT planned on its VMs step by step, each VM replaying its column on a core; jobs share cores (compute sharing)",
		ComputeSharing: true, Energy: true, JobJSON: true, JobFields: botJobFields,
		Options: botCommonOptions(true),
		New: func(opts sched.Options) (sched.Policy, error) {
			return newBotConsolidation(opts, nil)
		},
	})
	sysOpts := append(botCommonOptions(true),
		sched.OptionSpec{Name: "high", Default: "80", Help: "a node whose average core load is at least this (percent) is overloaded"},
		sched.OptionSpec{Name: "low", Default: "20", Help: "a node whose average core load is at most this is idle"},
		sched.OptionSpec{Name: "avg-high", Default: "80", Help: "with power=on, nodes are switched on while the average load of the nodes that are on exceeds this"},
		sched.OptionSpec{Name: "power", Default: "off", Values: []string{"off", "on"}, Help: "switch nodes without VMs off (first sleep pstate) and on again (pstate 0); needs sleep pstates in the platform"},
		sched.OptionSpec{Name: "min-on", Default: "1", Help: "nodes kept on with power=on"},
		sched.OptionSpec{Name: "period", Default: "0", Help: "seconds between system-level rounds (0: the step)"},
	)
	r.Add(sched.Spec{
		Name:           "threshold-vm-consolidation",
		Description:    "bot-consolidation plus threshold VM consolidation every step (the BoT thesis, Algorithm 5): VMs leave overloaded and idle nodes; optionally nodes are switched off and on (power states)",
		ComputeSharing: true, Energy: true, JobJSON: true, JobFields: botJobFields,
		Options: sysOpts,
		New: func(opts sched.Options) (sched.Policy, error) {
			sys := &BotSystem{}
			var err error
			for _, f := range []struct {
				name string
				v    *float64
			}{{"high", &sys.High}, {"low", &sys.Low}, {"avg-high", &sys.AvgHigh}, {"period", &sys.Period}} {
				if *f.v, err = strconv.ParseFloat(opts[f.name], 64); err != nil || *f.v < 0 || math.IsInf(*f.v, 0) {
					return nil, fmt.Errorf("%s: %q is not a non-negative number", f.name, opts[f.name])
				}
			}
			if sys.Low >= sys.High {
				return nil, fmt.Errorf("low (%g) must be below high (%g)", sys.Low, sys.High)
			}
			sys.Power = opts["power"] == "on"
			if sys.MinOn, err = strconv.Atoi(opts["min-on"]); err != nil || sys.MinOn < 1 {
				return nil, fmt.Errorf("min-on: %q is not a number of nodes ≥ 1", opts["min-on"])
			}
			return newBotConsolidation(opts, sys)
		},
	})
	r.Add(sched.Spec{
		Name:           "bot-packing-online",
		Description:    "online bag-of-tasks packing: at every decision the tasks' next steps that may run, by the priority criterion, packed onto the cores' free CPU (lote or ciclico); jobs share cores (compute sharing)",
		ComputeSharing: true, Energy: true, JobJSON: true, JobFields: botJobFields,
		Options: botCommonOptions(false),
		New: func(opts sched.Options) (sched.Policy, error) {
			p := &BotPacking{}
			if err := p.parse(opts); err != nil {
				return nil, err
			}
			return p, nil
		},
	})
}

func newBotConsolidation(opts sched.Options, sys *BotSystem) (*BotConsolidation, error) {
	p := &BotConsolidation{System: sys}
	if err := p.parse(opts); err != nil {
		return nil, err
	}
	var err error
	if p.shift, err = ParseBotShift(opts["shift"]); err != nil {
		return nil, err
	}
	if p.vms, err = strconv.Atoi(opts["vms"]); err != nil || p.vms < 0 {
		return nil, fmt.Errorf("vms: %q is not a number of VMs (0: each BoT's own)", opts["vms"])
	}
	p.pack = opts["place"] == "pack"
	if sys != nil && sys.Period == 0 {
		sys.Period = p.step
	}
	return p, nil
}

// vmCounts are the VMs each core holds (of BoTs not finished).
func (p *BotConsolidation) vmCounts(n int) []int {
	c := make([]int, n)
	for _, app := range p.order {
		if app.plan == nil || p.appDone(app) {
			continue
		}
		for v, h := range app.vmHost {
			if app.vmRow[v] < app.plan.T || app.vmRun[v] > 0 {
				c[h]++
			}
		}
	}
	return c
}

func (p *BotConsolidation) appDone(app *botApp) bool {
	for v := range app.vmHost {
		if app.vmRow[v] < app.plan.T || app.vmRun[v] > 0 {
			return false
		}
	}
	return true
}

// place plans a BoT and places its VMs; false when it cannot be planned
// (its jobs are rejected).
func (p *BotConsolidation) place(s *sched.State, d *sched.Decider, app *botApp) bool {
	vms := app.vms
	if p.vms > 0 {
		vms = p.vms
	}
	plan, err := PlanBoT(app.quads, BotPlanOptions{VMs: vms, Alloc: p.alloc, Priority: p.priority, Inverted: p.inverted, Shift: p.shift})
	if err != nil {
		return false
	}
	app.plan = plan
	app.cells = make([][][]*botJob, plan.T)
	for k, row := range plan.Rows {
		app.cells[k] = make([][]*botJob, vms)
		for _, pl := range row {
			bj := app.jobs[pl.Quad][pl.Task][pl.Step]
			bj.vm = pl.VM
			app.cells[k][pl.VM] = append(app.cells[k][pl.VM], bj)
		}
	}
	counts := p.vmCounts(s.NbHosts())
	nodeVMs := make([]int, len(p.nodes))
	for h, c := range counts {
		nodeVMs[p.nodeOf[h]] += c
	}
	app.vmHost = make([]int, vms)
	app.vmRow, app.vmStart, app.vmRun, app.vmLoaded = make([]int, vms), make([]float64, vms), make([]int, vms), make([]int, vms)
	for v := 0; v < vms; v++ {
		best := -1
		for h := range s.NbHosts() {
			if s.Host(h).Power() != sched.PowerOn || s.Host(h).Unavailable() {
				continue
			}
			if best < 0 {
				best = h
				continue
			}
			switch {
			case counts[h] != counts[best]:
				if counts[h] < counts[best] {
					best = h
				}
			case !p.pack && nodeVMs[p.nodeOf[h]] < nodeVMs[p.nodeOf[best]]:
				best = h
			}
		}
		if best < 0 {
			return false
		}
		app.vmHost[v] = best
		counts[best]++
		nodeVMs[p.nodeOf[best]]++
	}
	return true
}

// Decide starts the rows that are due, runs the system level when a round
// is due, and asks to be called at the next due date.
func (p *BotConsolidation) Decide(s *sched.State, d *sched.Decider) {
	for _, app := range p.arrived(s, d) {
		if !p.place(s, d, app) {
			app.plan = nil
			app.ready = false
			app.dead = true
			p.arrived(s, d)
		}
	}
	next := p.background(s, d)
	if p.System != nil && p.active() && s.Now() >= p.nextRound-botEps {
		p.round(s, d)
		p.nextRound = s.Now() + p.System.Period
	}
	for _, app := range p.order {
		if app.plan == nil {
			continue
		}
		for v := range app.vmHost {
			k := app.vmRow[v]
			if k >= app.plan.T || app.vmRun[v] > 0 {
				continue
			}
			due := app.arrival
			if k > 0 {
				due = app.vmStart[v] + p.step
			}
			if s.Now() < due-botEps {
				next = minDate(next, due)
				continue
			}
			h := app.vmHost[v]
			if !s.Host(h).Free() {
				continue
			}
			for _, bj := range app.cells[k][v] {
				if p.start(d, bj, h) {
					d.Reply().SetJobMetadata(bj.job.ID(), "vm="+strconv.Itoa(v))
					app.vmRun[v]++
				}
			}
			app.vmLoaded[v] = app.plan.Loads[k][v]
			app.vmStart[v] = s.Now()
			app.vmRow[v]++
			if app.vmRow[v] < app.plan.T {
				next = minDate(next, s.Now()+p.step)
			}
		}
	}
	if p.System != nil && p.active() {
		next = minDate(next, p.nextRound)
	}
	if next > 0 {
		p.wake(s, d, next)
	}
}

// active reports whether some BoT is planned and not over.
func (p *BotConsolidation) active() bool {
	for _, app := range p.order {
		if app.plan != nil && !p.appDone(app) {
			return true
		}
	}
	return false
}

// vmLoad is the load a VM puts on its core now: its row under way, or
// the next one.
func (p *BotConsolidation) vmLoad(s *sched.State, app *botApp, v int) int {
	k := app.vmRow[v]
	if k > 0 && (app.vmRun[v] > 0 || s.Now() < app.vmStart[v]+p.step-botEps) {
		return app.plan.Loads[k-1][v]
	}
	if k < app.plan.T {
		return app.plan.Loads[k][v]
	}
	return 0
}

type botVM struct {
	app  *botApp
	v    int
	load int
}

// round is one round of the system level.
func (p *BotConsolidation) round(s *sched.State, d *sched.Decider) {
	sys := p.System
	core := make([]float64, s.NbHosts())
	for h, c := range p.bg {
		if c.running {
			core[h] += float64(c.jobs[c.next-1].c)
		}
	}
	onNode := make([][]botVM, len(p.nodes))
	for _, app := range p.order {
		if app.plan == nil || p.appDone(app) {
			continue
		}
		for v, h := range app.vmHost {
			if app.vmRow[v] >= app.plan.T && app.vmRun[v] == 0 {
				continue
			}
			l := p.vmLoad(s, app, v)
			core[h] += float64(l)
			onNode[p.nodeOf[h]] = append(onNode[p.nodeOf[h]], botVM{app, v, l})
		}
	}
	on := func(n int) bool {
		for _, h := range p.nodes[n] {
			if s.Host(h).Power() != sched.PowerOn {
				return false
			}
		}
		return true
	}
	load := func(n int) float64 {
		t := 0.0
		for _, h := range p.nodes[n] {
			t += core[h]
		}
		return t / float64(len(p.nodes[n]))
	}
	vms := p.vmCounts(s.NbHosts())
	freeCore := func(n int) bool {
		for _, h := range p.nodes[n] {
			if vms[h] == 0 {
				return true
			}
		}
		return false
	}
	move := func(vm botVM, to int) {
		// the core of node to with the fewest VMs, then the least loaded
		best := -1
		for _, h := range p.nodes[to] {
			if best < 0 || vms[h] < vms[best] || (vms[h] == vms[best] && core[h] < core[best]) {
				best = h
			}
		}
		vms[vm.app.vmHost[vm.v]]--
		vms[best]++
		from := vm.app.vmHost[vm.v]
		core[from] -= float64(vm.load)
		core[best] += float64(vm.load)
		vm.app.vmHost[vm.v] = best
		p.Migrations++
		onNode[to] = append(onNode[to], vm)
		fromNode := p.nodeOf[from]
		for i, x := range onNode[fromNode] {
			if x.app == vm.app && x.v == vm.v {
				onNode[fromNode] = slices.Delete(onNode[fromNode], i, i+1)
				break
			}
		}
	}
	// Overloaded nodes, most loaded first: the smallest VM that brings
	// the node under high, else the largest, to the least loaded node that
	// stays under high.
	nodes := make([]int, len(p.nodes))
	for i := range nodes {
		nodes[i] = i
	}
	sort.SliceStable(nodes, func(a, b int) bool { return load(nodes[a]) > load(nodes[b]) })
	for _, n := range nodes {
		for on(n) && load(n) >= sys.High {
			vms := slices.Clone(onNode[n])
			sort.SliceStable(vms, func(a, b int) bool { return vms[a].load < vms[b].load })
			var pick *botVM
			size := float64(len(p.nodes[n]))
			for i := range vms {
				if vms[i].load > 0 && load(n)-float64(vms[i].load)/size < sys.High {
					pick = &vms[i]
					break
				}
			}
			if pick == nil && len(vms) > 0 && vms[len(vms)-1].load > 0 {
				pick = &vms[len(vms)-1]
			}
			if pick == nil {
				break
			}
			// The least loaded node that stays under high, one with a
			// core free of VMs first (the thesis runs a VM per core).
			dest := -1
			for m := range p.nodes {
				if m == n || !on(m) || load(m)+float64(pick.load)/float64(len(p.nodes[m])) >= sys.High {
					continue
				}
				switch {
				case dest < 0:
					dest = m
				case freeCore(m) != freeCore(dest):
					if freeCore(m) {
						dest = m
					}
				case load(m) < load(dest):
					dest = m
				}
			}
			if dest < 0 {
				break
			}
			move(*pick, dest)
		}
	}
	// Idle nodes with VMs: all of them to the most loaded intermediate
	// node that can take them, each on a core of its own.
	freeCores := func(n int) int {
		c := 0
		for _, h := range p.nodes[n] {
			if vms[h] == 0 {
				c++
			}
		}
		return c
	}
	for n := range p.nodes {
		if !on(n) || len(onNode[n]) == 0 || load(n) > sys.Low {
			continue
		}
		total := 0.0
		for _, vm := range onNode[n] {
			total += float64(vm.load)
		}
		dest := -1
		for m := range p.nodes {
			if m == n || !on(m) || load(m) <= sys.Low || load(m) >= sys.High || freeCores(m) < len(onNode[n]) {
				continue
			}
			if load(m)+total/float64(len(p.nodes[m])) <= sys.High && (dest < 0 || load(m) > load(dest)) {
				dest = m
			}
		}
		if dest < 0 {
			continue
		}
		for _, vm := range slices.Clone(onNode[n]) {
			move(vm, dest)
		}
	}
	if !sys.Power {
		return
	}
	// Switch nodes on while the nodes that are on are too loaded.
	nOn, sum := 0, 0.0
	for n := range p.nodes {
		if on(n) {
			nOn++
			sum += load(n)
		}
	}
	for n := range p.nodes {
		if nOn == 0 || sum/float64(nOn) <= sys.AvgHigh {
			break
		}
		asleep := true
		for _, h := range p.nodes[n] {
			if s.Host(h).Power() != sched.PowerSleeping {
				asleep = false
			}
		}
		if asleep && d.SetPState(p.nodes[n], 0) {
			nOn++
		}
	}
	// Switch off the nodes that hold no VM and run nothing.
	awake := 0
	for n := range p.nodes {
		for _, h := range p.nodes[n] {
			if s.Host(h).Power() == sched.PowerOn || s.Host(h).Power() == sched.PowerSwitchingOn {
				awake++
				break
			}
		}
	}
	for n := range p.nodes {
		if awake <= sys.MinOn {
			break
		}
		if !on(n) || len(onNode[n]) > 0 || load(n) > sys.Low {
			continue
		}
		idle, sleep := true, -1
		for _, h := range p.nodes[n] {
			if !s.Host(h).Idle() || p.hasBackground(h) {
				idle = false
			}
			if ps := s.Host(h).SleepPStates(); len(ps) > 0 && (sleep < 0 || ps[0] == sleep) {
				sleep = ps[0]
			} else {
				idle = false
			}
		}
		if idle && d.SetPState(p.nodes[n], sleep) {
			awake--
		}
	}
}

// hasBackground reports whether core h has background steps left.
func (b *botBase) hasBackground(h int) bool {
	return b.bg[h].next < len(b.bg[h].jobs) || b.bg[h].running
}

// ---------------------------------------------------------------- online packing

// BotPacking is bot-packing-online.
type BotPacking struct {
	botBase
}

// Decide packs the steps that may run onto the cores' free CPU.
func (p *BotPacking) Decide(s *sched.State, d *sched.Decider) {
	for _, app := range p.arrived(s, d) {
		n := len(app.quads)
		app.next, app.started, app.running, app.done = make([][]int, n), make([][]float64, n), make([][]bool, n), make([][]int, n)
		for q, qd := range app.quads {
			app.next[q], app.started[q], app.running[q], app.done[q] = make([]int, qd.B), make([]float64, qd.B), make([]bool, qd.B), make([]int, qd.B)
		}
	}
	next := p.background(s, d)
	var cand []BotJob
	var refs []*botJob
	for _, app := range p.order {
		if app.next == nil {
			continue
		}
		for q, qd := range app.quads {
			if !p.released(s, app, q) {
				continue
			}
			for t := 0; t < qd.B; t++ {
				j := app.next[q][t]
				if j >= qd.D || app.running[q][t] {
					continue
				}
				if j > 0 {
					if due := app.started[q][t] + p.step; s.Now() < due-botEps {
						next = minDate(next, due)
						continue
					}
				}
				cand = append(cand, BotJob{Quad: q, Task: t, Step: j, A: qd.A, D: qd.D, C: qd.C, Completed: j, Remaining: qd.D - j, Seq: len(cand)})
				refs = append(refs, app.jobs[q][t][j])
			}
		}
	}
	if len(cand) > 0 {
		order := make([]int, len(cand))
		for i := range cand {
			cand[i].Seq = i
		}
		SortBotJobs(cand, p.priority, p.inverted)
		costs := make([]int, len(cand))
		for i, c := range cand {
			order[i] = c.Seq
			costs[i] = c.C
		}
		var cores []int
		var loads []int
		for h := range s.NbHosts() {
			if s.Host(h).Free() {
				cores = append(cores, h)
				loads = append(loads, p.hostLoad[h])
			}
		}
		where := BotPack(costs, loads, p.alloc)
		for i, w := range where {
			if w < 0 {
				continue
			}
			bj := refs[order[i]]
			if p.start(d, bj, cores[w]) {
				app := bj.app
				app.running[bj.quad][bj.task] = true
				app.started[bj.quad][bj.task] = s.Now()
				app.next[bj.quad][bj.task]++
				// The step is over a step length later (its next step,
				// or a quadruple it releases, may start then).
				next = minDate(next, s.Now()+p.step)
			}
		}
	}
	if next > 0 {
		p.wake(s, d, next)
	}
}

// released reports whether quadruple q of app may start: every task of an
// earlier quadruple has run as many steps as the arrival dates are apart
// (or all of its steps). A step counts once it has ended and a step length
// has passed since it started (a task of c % runs c % of each step).
func (p *BotPacking) released(s *sched.State, app *botApp, q int) bool {
	a := app.quads[q].A
	for l, ql := range app.quads {
		if ql.A >= a {
			continue
		}
		need := min(ql.D, a-ql.A)
		for t, done := range app.done[l] {
			if done > 0 && s.Now() < app.started[l][t]+p.step-botEps {
				done--
			}
			if done < need {
				return false
			}
		}
	}
	return true
}
