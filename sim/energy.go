package sim

import (
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/internal/batsimfmt"
	"github.com/bucma-sched/bucma/platforms"
)

// Batsim's energy support (-E, --energy): the SimGrid 3.32 host energy
// plugin, Batsim's power states (sleep pstates reached through virtual
// switch-off / switch-on pstates) and its energy outputs.
//
// The plugin keeps, per host, the energy consumed up to its last update and
// the pstate of the interval since then. An update adds power × elapsed
// time, the power being the pstate's idle wattage when the processor's load
// is zero and epsilon + load × (all-cores − epsilon) otherwise, the load
// being read at the update (the usage of the processor's constraint as the
// last max-min solution has it). Updates happen when an action that uses the
// processor ends (a computation, a transfer from or to the host, a sleep
// on it), when a one-host execution starts, when the pstate changes, and
// whenever Batsim reads the consumed energy (each job start and end, each
// pstate change request and completion, QUERY consumed_energy, the first
// job submission). The engine updates at exactly these instants, with the
// same arithmetic, so that its energies are Batsim's to the last digit.
//
// A power-state switch is Batsim's: the host goes to the virtual pstate,
// computes 1 flop (so the switch lasts 1 / the virtual pstate's speed and
// costs its wattage), then goes to the target pstate; RESOURCE_STATE_CHANGED
// comes once every host of the request has switched.

type pstateKind uint8

const (
	pkCompute pstateKind = iota
	pkSleep
	pkVirtual
)

type powerRange struct{ idle, eps, slope float64 }

// machine power states besides idle and computing (Batsim's MachineState)
const (
	msOn uint8 = iota
	msSwitchingOff
	msSleeping
	msSwitchingOn
)

// machinePower is one machine's energy plugin data and power states.
type machinePower struct {
	speeds []float64
	kinds  []pstateKind
	// off and on are the virtual pstates of each sleep pstate.
	off, on map[int]int
	ranges  []powerRange // nil: the host has no wattage_per_state (0 W)
	cores   float64
	pstate  int     // the host's pstate
	plugPs  int     // the plugin's pstate of the interval since last
	last    float64 // date of the last update
	total   float64 // energy consumed up to last (J)
	// sgLast is the date SimGrid last updated the machine (the engine
	// may update earlier within the same date, see consumed).
	sgLast float64
}

// pswitch is one SET_RESOURCE_STATE under way (Batsim's Switch).
type pswitch struct {
	all    batsim.IntervalSet
	left   map[int]bool
	target int
}

type energy struct {
	m     []machinePower // compute hosts, then storage hosts
	state []uint8        // per compute host
	// time in each switching state, per compute host
	sleepT, onT, offT []ld
	switches          map[int][]*pswitch
	nbSwitching       int
	machineSwitches   int
	groupedSwitches   int
	// energies at the first job submission and the last job completion
	// (-1 until then)
	firstSubmit, lastCompletion ld
	firstSet                    bool
	// the _consumed_energy.csv and _pstate_changes.csv rows
	energyCSV, pstateCSV []byte
	lastDate, lastEnergy ld
}

// newEnergy reads the energy properties of every machine as SimGrid's
// plugin and Batsim read them.
func newEnergy(p *platforms.Platform) (*energy, error) {
	en := &energy{switches: map[int][]*pswitch{}}
	en.firstSubmit.setF(-1)
	en.lastCompletion.setF(-1)
	add := func(h platforms.Host) error {
		m, err := machinePowerOf(h)
		if err != nil {
			return fmt.Errorf("platform %s: host %s: %w", p.Path, h.Name, err)
		}
		en.m = append(en.m, m)
		return nil
	}
	for _, h := range p.Hosts {
		if err := add(h); err != nil {
			return nil, err
		}
	}
	for _, h := range p.Storage {
		if err := add(h); err != nil {
			return nil, err
		}
	}
	n := len(p.Hosts)
	en.state = make([]uint8, n)
	en.sleepT, en.onT, en.offT = make([]ld, n), make([]ld, n), make([]ld, n)
	return en, nil
}

func machinePowerOf(h platforms.Host) (machinePower, error) {
	speeds := h.Pstates
	if len(speeds) == 0 {
		speeds = []float64{h.Speed}
	}
	m := machinePower{speeds: speeds, kinds: make([]pstateKind, len(speeds)), cores: float64(max(h.Cores, 1)),
		pstate: h.PState, plugPs: h.PState, off: map[int]int{}, on: map[int]int{}}
	if w, ok := h.Properties["wattage_per_state"]; ok {
		parts := strings.Split(w, ",")
		if len(parts) != len(speeds) {
			return m, fmt.Errorf("wattage_per_state: %d energetic profiles for %d pstates", len(parts), len(speeds))
		}
		for i, part := range parts {
			vals := strings.Split(part, ":")
			if len(vals) != 2 && len(vals) != 3 {
				return m, fmt.Errorf("wattage_per_state: pstate %d: %q is neither Idle:AllCores nor Idle:Epsilon:AllCores", i, part)
			}
			f := make([]float64, len(vals))
			for k, v := range vals {
				x, err := strconv.ParseFloat(strings.TrimLeft(v, " \t\n"), 64)
				if err != nil {
					return m, fmt.Errorf("wattage_per_state: pstate %d: invalid value %q", i, v)
				}
				f[k] = x
			}
			r := powerRange{idle: f[0], eps: f[0]}
			allCores := f[1]
			if len(f) == 3 {
				r.eps, allCores = f[1], f[2]
			}
			r.slope = allCores - r.eps
			m.ranges = append(m.ranges, r)
		}
	}
	if s, ok := h.Properties["sleep_pstates"]; ok {
		for _, triplet := range strings.Split(s, ",") {
			if triplet == "" {
				continue
			}
			ps := strings.Split(triplet, ":")
			if len(ps) != 3 {
				return m, fmt.Errorf("sleep_pstates: %q is not sleep:switch_off:switch_on", triplet)
			}
			var v [3]int
			for k := range ps {
				x, err := strconv.ParseUint(strings.TrimSpace(ps[k]), 10, 31)
				if err != nil {
					return m, fmt.Errorf("sleep_pstates: %q: the pstates must be unsigned integers", triplet)
				}
				if int(x) >= len(speeds) {
					return m, fmt.Errorf("sleep_pstates: %q: pstate %d does not exist (the host has %d)", triplet, x, len(speeds))
				}
				v[k] = int(x)
			}
			sleep, off, on := v[0], v[1], v[2]
			if m.kinds[sleep] != pkCompute {
				return m, fmt.Errorf("sleep_pstates: pstate %d is defined twice or as a sleep and a virtual pstate", sleep)
			}
			for _, x := range []int{off, on} {
				if x == sleep || (m.kinds[x] == pkSleep) {
					return m, fmt.Errorf("sleep_pstates: pstate %d is both a sleep and a virtual pstate", x)
				}
			}
			m.kinds[sleep], m.kinds[off], m.kinds[on] = pkSleep, pkVirtual, pkVirtual
			m.off[sleep], m.on[sleep] = off, on
		}
	}
	if m.kinds[m.pstate] != pkCompute {
		return m, fmt.Errorf("the initial pstate %d is a sleep or virtual pstate, which the engine does not model", m.pstate)
	}
	return m, nil
}

// watts is the plugin's get_current_watts_value: the power of the
// interval since the last update.
func (e *engine) watts(i int) float64 {
	m := &e.en.m[i]
	if m.ranges == nil {
		return 0
	}
	speed := m.speeds[m.plugPs]
	var load float64
	if speed <= 0 {
		load = 1
	} else {
		load = e.k.cpus[i].cnst.load() / speed
		load /= m.cores
		if load > 1 {
			load = 1
		}
	}
	r := m.ranges[m.plugPs]
	if load > 0 {
		return r.eps + float64(load*r.slope)
	}
	return r.idle
}

// update is HostEnergy::update.
func (e *engine) update(i int) {
	m := &e.en.m[i]
	if now := e.k.now; m.last < now {
		p := e.watts(i)
		step := float64(p * float64(now-m.last))
		m.total = m.total + step
		m.last = now
	}
	m.plugPs = m.pstate
}

// consumed is sg_host_get_consumed_energy: an update only when the
// machine is behind the clock. In SimGrid that update is a simcall of the
// reading actor, which then yields a sub-round; the engine updates at once
// (the result is the same at the same date) and the actor replays the
// simcalls with an energyWalk.
func (e *engine) consumed(i int) float64 {
	if e.en.m[i].last < e.k.now {
		e.update(i)
	}
	return e.en.m[i].total
}

// maestroUpdate is an update the plugin makes outside any actor (an
// action's end, an execution's start, a pstate change): SimGrid's clock of
// the machine is then up to date too.
func (e *engine) maestroUpdate(i int) {
	e.update(i)
	e.en.m[i].sgLast = e.k.now
}

// energyWalk replays an actor's energy reads of machines (its job's
// allocation, then every machine): a read of a machine SimGrid has not
// updated at this date is a simcall (the update), so the actor yields a
// sub-round there. Which machines those are depends on what the actors
// that ran before did, so the walk decides as it goes.
type energyWalk struct {
	alloc []int
	pos   int
}

// nextRead returns the next machine of w whose read is a simcall, or -1
// when the walk is over.
func (e *engine) nextRead(w *energyWalk) int {
	if e.en == nil {
		return -1
	}
	nm := len(e.en.m)
	for w.pos < len(w.alloc)+nm {
		i := w.pos - len(w.alloc)
		if w.pos < len(w.alloc) {
			i = w.alloc[w.pos]
		}
		w.pos++
		if i < nm && e.en.m[i].sgLast < e.k.now {
			return i
		}
	}
	return -1
}

// readSimcall is the simcall of one read: SimGrid updates the machine.
func readSimcall(i int) simcall { return simcall{kind: scEnergy, mach: i} }

// walkReads makes a coroutine actor's reads of w.
func (e *engine) walkReads(a *actor, w energyWalk) {
	for i := e.nextRead(&w); i >= 0; i = e.nextRead(&w) {
		a.call(readSimcall(i))
	}
}

// energySimcall is the read's simcall, handled by the kernel.
func (e *engine) energySimcall(i int) { e.en.m[i].sgLast = e.k.now }

func (e *engine) isMachine(h int) bool { return h >= 0 && h < e.nhosts+e.nstore }

// actionEnded is the plugin's reaction to an action's end: the machines
// whose processors it used are brought up to date.
func (e *engine) actionEnded(a *action) {
	if a.hosts != nil {
		for _, h := range a.hosts {
			if e.isMachine(h) && e.en.m[h].sgLast < e.k.now {
				e.maestroUpdate(h)
			}
		}
		return
	}
	for _, h := range a.ends[:a.nends] {
		if h := int(h); e.isMachine(h) && e.en.m[h].sgLast < e.k.now {
			e.maestroUpdate(h)
		}
	}
}

func (e *engine) execStarted(h int) {
	if e.isMachine(h) {
		e.maestroUpdate(h)
	}
}

// totalEnergy is Machines::total_consumed_energy, in long double.
func (e *engine) totalEnergy() ld {
	var s, x ld
	for i := range e.en.m {
		s.add(&s, x.setF(e.consumed(i)))
	}
	return s
}

// allocEnergy is consumed_energy_on_machines.
func (e *engine) allocEnergy(alloc batsim.IntervalSet) ld {
	var s, x ld
	for _, h := range alloc {
		s.add(&s, x.setF(e.consumed(h)))
	}
	return s
}

// setPstate is Host::set_pstate: the processor's speed and bound change
// (CpuL07::on_speed_change: a bound of one core at the new speed) and the
// plugin updates.
func (e *engine) setPstate(h, ps int) {
	m := &e.en.m[h]
	m.pstate = ps
	c := &e.k.cpus[h]
	c.speed = m.speeds[ps]
	c.cnst.bound = c.speed
	e.k.sys.touchCnst(c.cnst)
	e.maestroUpdate(h)
}

// energyEntry is EnergyConsumptionTracer::add_entry: a _consumed_energy.csv
// row; it returns the total energy.
func (e *engine) energyEntry(kind byte) ld {
	en := e.en
	energy := e.totalEnergy()
	var wattmin, x ld
	for i := range en.m {
		m := &en.m[i]
		w := 0.0
		if m.ranges != nil {
			w = m.ranges[m.pstate].eps
		}
		wattmin.add(&wattmin, x.setF(w))
	}
	var date, dt, de, epower ld
	date.setF(e.k.now)
	dt.sub(&date, &en.lastDate)
	de.sub(&energy, &en.lastEnergy)
	b := en.energyCSV
	b = batsimfmt.AppendFloat(b, e.k.now)
	b = append(b, ',')
	b = energy.appendFixed6(b)
	b = append(b, ',', kind, ',')
	b = wattmin.appendFixed6(b)
	b = append(b, ',')
	var zero ld
	if dt.cmp(&zero) > 0 {
		epower.quo(&de, &dt)
		b = batsimfmt.AppendFloat(b, epower.float64())
	} else {
		b = append(b, "NA"...)
	}
	en.energyCSV = append(b, '\n')
	en.lastDate, en.lastEnergy = date, energy
	return energy
}

// pstateEntry is PStateChangeTracer::add_pstate_change.
func (e *engine) pstateEntry(set batsim.IntervalSet, ps int) {
	b := strconv.AppendFloat(e.en.pstateCSV, e.k.now, 'g', 6, 64)
	b = append(b, ',')
	b = set.Append(b)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(ps), 10)
	e.en.pstateCSV = append(b, '\n')
}

// initialPstates writes the first _pstate_changes.csv rows: each pstate's
// machines.
func (e *engine) initialPstates() {
	by := map[int][]int{}
	for i := range e.en.m {
		by[e.en.m[i].pstate] = append(by[e.en.m[i].pstate], i)
	}
	ps := make([]int, 0, len(by))
	for p := range by {
		ps = append(ps, p)
	}
	sort.Ints(ps)
	for _, p := range ps {
		e.pstateEntry(batsim.NewIntervalSet(by[p]...), p)
	}
}

// machineState changes compute host h's state, counting the time spent in
// the state it leaves (Machine::update_machine_state).
func (e *engine) machineState(h int, to uint8) {
	en := e.en
	t := e.k.now
	switch en.state[h] {
	case msOn:
		if e.hostJobs[h] == 0 {
			e.spend(&e.hostIdle[h], h, t)
		} else {
			e.spend(&e.hostComp[h], h, t)
		}
	case msSwitchingOff:
		e.spend(&en.offT[h], h, t)
	case msSleeping:
		e.spend(&en.sleepT[h], h, t)
	case msSwitchingOn:
		e.spend(&en.onT[h], h, t)
	}
	en.state[h] = to
}

// setResourceState is server_on_pstate_modification; it returns the
// server's simcalls that follow, in order.
func (e *engine) setResourceState(d *batsim.SetResourceState) ([]srvStep, error) {
	const name = "SET_RESOURCE_STATE"
	if e.en == nil {
		return nil, e.fail(name, "receiving a pstate modification request, which is forbidden as Batsim has not been launched with energy support (-E, --energy)")
	}
	en := e.en
	target := d.PState
	for _, h := range d.Resources {
		if h < 0 || h >= e.nhosts+e.nstore {
			return nil, e.fail(name, "machine %d does not exist", h)
		}
		if h >= e.nhosts {
			return nil, e.fail(name, "machine %d (%s) is a storage machine: the engine does not model its power states", h, e.names[h])
		}
		m := &en.m[h]
		if target < 0 || target >= len(m.speeds) {
			return nil, e.fail(name, "machine %d (%s) has no pstate %d (it has %d)", h, e.names[h], target, len(m.speeds))
		}
		if m.kinds[target] == pkVirtual {
			return nil, e.fail(name, "pstate %d of machine %d (%s) is a virtual switching pstate, which cannot be requested", target, h, e.names[h])
		}
		switch {
		case en.state[h] == msSwitchingOff || en.state[h] == msSwitchingOn:
			return nil, e.fail(name, "machine %d (%s) is switching between a sleep and a computation pstate (Batsim cannot switch it before the end of the switch)", h, e.names[h])
		case m.kinds[m.pstate] == pkSleep && m.kinds[target] != pkCompute:
			return nil, e.fail(name, "switching machine %d (%s) from sleep pstate %d to sleep pstate %d, which is forbidden", h, e.names[h], m.pstate, target)
		case m.kinds[target] == pkSleep && e.hostJobs[h] > 0:
			return nil, e.fail(name, "switching machine %d (%s) off while it computes a job (Batsim aborts: jobs are running on the machine)", h, e.names[h])
		case m.kinds[target] == pkCompute && m.kinds[m.pstate] == pkCompute && e.hostJobs[h] > 0:
			return nil, e.fail(name, "changing the pstate of machine %d (%s) while it computes a job changes the job's speed, which the engine does not model", h, e.names[h])
		}
	}
	sw := &pswitch{all: d.Resources, left: make(map[int]bool, len(d.Resources)), target: target}
	for _, h := range d.Resources {
		sw.left[h] = true
	}
	en.switches[target] = append(en.switches[target], sw)
	e.energyEntry('p')
	steps := []srvStep{{walk: true}}
	transition := -42
	switch en.m[d.Resources[0]].kinds[target] {
	case pkCompute:
		transition = -1
	case pkSleep:
		transition = -2
	}
	e.pstateEntry(d.Resources, transition)
	en.groupedSwitches++
	en.machineSwitches += len(d.Resources)
	for _, h := range d.Resources {
		m := &en.m[h]
		switch {
		case m.kinds[m.pstate] == pkCompute && m.kinds[target] == pkCompute:
			// Host::set_pstate is a simcall of the server
			e.setPstate(h, target)
			steps = append(steps, srvStep{nop: true})
			if e.switchDone(h, target) {
				steps = append(steps, srvStep{walk: true})
			}
		case m.kinds[m.pstate] == pkCompute:
			e.machineState(h, msSwitchingOff)
			steps = append(steps, srvStep{child: e.k.spawnSM(h, &switcher{e: e, h: h, target: target, virt: m.off[target], off: true})})
			en.nbSwitching++
		default:
			e.machineState(h, msSwitchingOn)
			steps = append(steps, srvStep{child: e.k.spawnSM(h, &switcher{e: e, h: h, target: target, virt: m.on[m.pstate]})})
			en.nbSwitching++
		}
	}
	return steps, nil
}

// switchDone is CurrentSwitches::mark_switch_as_done and what the server
// does when a request is complete (it reports whether it was: the server
// then read the energies).
func (e *engine) switchDone(h, target int) bool {
	en := e.en
	list := en.switches[target]
	for i, sw := range list {
		if !sw.left[h] {
			continue
		}
		delete(sw.left, h)
		if len(sw.left) > 0 {
			return false
		}
		list = append(list[:i], list[i+1:]...)
		if len(list) == 0 {
			delete(en.switches, target)
		} else {
			en.switches[target] = list
		}
		e.pstateEntry(sw.all, target)
		e.energyEntry('p')
		e.appendEvent(batsim.TypeResourceStateChanged, &batsim.ResourceStateChanged{Resources: sw.all.String(), State: strconv.Itoa(target)})
		return true
	}
	e.k.fail(fmt.Errorf("internal error: machine %d was not switching to pstate %d", h, target))
	return false
}

// srvStep is one of the server's simcalls after a message: an actor to
// create, an energy walk over every machine, or a simcall with no effect
// here (a pstate change).
type srvStep struct {
	child *actor
	walk  bool
	nop   bool
	w     energyWalk
}

// switcher is switch_off_machine_process / switch_on_machine_process.
type switcher struct {
	act    actor
	e      *engine
	h      int
	target int
	virt   int
	off    bool
	phase  uint8
	exec   *execAct
}

func (s *switcher) actorName() string {
	if s.off {
		return "switch ON " + strconv.Itoa(s.h)
	}
	return "switch OFF " + strconv.Itoa(s.h)
}

func (s *switcher) recycle() {}

func (s *switcher) step(a *actor) bool {
	e := s.e
	switch s.phase {
	case 0: // Host::set_pstate (a simcall)
		e.setPstate(s.h, s.virt)
		a.issue(simcall{kind: scNop})
	case 1: // execute(1): start, then wait
		s.exec = &execAct{hosts: []int{s.h}, flops: []float64{1}, owner: a}
		a.activities = append(a.activities, s.exec)
		a.issue(simcall{kind: scExecStart, exec: s.exec})
	case 2:
		a.issue(simcall{kind: scWait, act: s.exec, timeout: -1})
	case 3:
		e.setPstate(s.h, s.target)
		a.issue(simcall{kind: scNop})
	case 4:
		if s.off {
			e.machineState(s.h, msSleeping)
		} else {
			e.machineState(s.h, msOn)
		}
		m := e.msg(mSwitched)
		m.host, m.pstate = s.h, s.target
		a.issueSend(e.server, m, 1)
	case 5:
		a.issueWait()
	default:
		return false
	}
	s.phase++
	return true
}

// appendFixed6 appends v as C's %Lf prints a long double (6 decimals,
// rounded to nearest even).
func (v *ld) appendFixed6(b []byte) []byte {
	f := new(big.Float).SetPrec(64)
	if v.mant != 0 {
		f.SetMantExp(new(big.Float).SetUint64(v.mant), int(v.exp)-63)
		if v.neg {
			f.Neg(f)
		}
	}
	return f.Append(b, 'f', 6)
}

func machineStateName(st uint8) string {
	switch st {
	case msSwitchingOff:
		return "switching_off"
	case msSleeping:
		return "sleeping"
	case msSwitchingOn:
		return "switching_on"
	}
	return "idle"
}

// load is Constraint::get_usage: the processor's use at the last max-min
// solution.
func (c *lmmCnst) load() float64 {
	r := 0.0
	for el := c.enabled.head; el != nil; el = el.next {
		if el.weight > 0 {
			if c.fatpipe {
				r = max(r, float64(el.weight*el.v.value))
			} else {
				r += float64(el.weight * el.v.value)
			}
		}
	}
	return r
}

// energyAtStart is what a job's actor does with -E before the job runs:
// its machines' energy so far, and a _consumed_energy.csv row.
func (e *engine) energyAtStart(j *job) {
	if e.en == nil {
		return
	}
	j.run.energy = e.allocEnergy(j.run.alloc)
	e.energyEntry('s')
}

// energyAtEnd is what it does when the job is over: the energy its
// machines consumed meanwhile, and a row.
func (e *engine) energyAtEnd(j *job) {
	if e.en == nil {
		return
	}
	after := e.allocEnergy(j.run.alloc)
	j.run.energy.sub(&after, &j.run.energy)
	e.en.lastCompletion = e.energyEntry('e')
}

// energyFiles are PREFIX_consumed_energy.csv and PREFIX_pstate_changes.csv
// (none without -E).
func (e *engine) energyFiles() []extraFile {
	if e.en == nil {
		return nil
	}
	return []extraFile{
		{"_consumed_energy.csv", append([]byte("time,energy,event_type,wattmin,epower\n"), e.en.energyCSV...)},
		{"_pstate_changes.csv", append([]byte("time,machine_id,new_pstate\n"), e.en.pstateCSV...)},
	}
}
