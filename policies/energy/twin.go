package energy

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sched/xtime"
)

// Twin takes the decisions of one of batsched 1.4.0's energy-aware
// variants (src/algo/energy_*.cpp), with batsched's default queue order
// (fcfs: release date, then job id) and resource selection (basic: lowest
// machine ids). See TwinOptions for the variant options.
//
// The variants plan on batsched's Schedule (the schedule type of this
// package), where a machine's states are pseudo-jobs: its switch-on and
// switch-off (switch seconds plus the RJMS delay), an ensured sleep (the
// sleep that makes a switch-off pay, by the powers and energies of the
// options, between the two bounds) and a potential sleep until it is
// needed. energy_bf puts every waiting job in a copy of the schedule, first
// fit, waking machines when a job fits nowhere else, then switches off every
// machine that is on once it has nothing more to do, and starts and
// switches what lies in the first slice. The monitoring variants add a
// CALL_ME_LATER chain every monitoring period; the inertial ones decide at
// each monitoring stage (on the liquid load horizon of the queue) how many
// machines to switch, and switch idle machines off after idle_time_to_sedate;
// energy_bf_idle_sleeper only does the latter, energy_bf_subpart_sleeper
// keeps a fraction of the machines on; energy_bf_dicho searches by
// dichotomy the number of machines to switch whose schedule spends the
// least energy within a slowdown bound.
//
// Where batsched stops on one of its assertions, the twin stops the run
// with an error that says so.
type Twin struct {
	o   TwinOptions
	eng engine
}

// TwinOptions are the variant and batsched's variant options.
type TwinOptions struct {
	// Variant is batsched's variant name.
	Variant string
	// PowerCompute, PowerIdle, PowerSleep (W), PStateCompute,
	// PStateSleep, TimeSwitchOn, TimeSwitchOff (s), EnergySwitchOn,
	// EnergySwitchOff (J), EnsuredSleepMin and EnsuredSleepMax (s) are
	// batsched's power_compute, ..., ensured_sleep_time_lower_bound and
	// ensured_sleep_time_upper_bound.
	PowerCompute, PowerIdle, PowerSleep float64
	PStateCompute, PStateSleep          int
	TimeSwitchOn, TimeSwitchOff         float64
	EnergySwitchOn, EnergySwitchOff     float64
	EnsuredSleepMin, EnsuredSleepMax    float64
	RJMSDelay                           float64 // batsched's -d
	MonitoringPeriod                    float64
	IdleTimeToSedate                    float64
	SedateIdleOnClassicalEvents         bool
	AllowFutureSwitches                 bool
	UpperLLHThreshold                   float64
	InertialAlteration                  string
	FractionToLetAwake                  float64
	ToleratedSlowdownLossRatio          float64
	ComparisonSwitchOn                  bool // comparison_type switch_on (else remove_sleep_jobs)
	// missing are the options the variant requires that were not given:
	// like batsched, which stops when the simulation begins without them,
	// the twin refuses to begin (so that a variant table can name the
	// twin without the values its users give).
	missing []string
}

// SimulationBegins implements sched.Starter: the variant's required
// options must be there.
func (t *Twin) SimulationBegins(*sched.State) error {
	if len(t.o.missing) == 0 {
		return nil
	}
	names := make([]string, len(t.o.missing))
	for i, m := range t.o.missing {
		names[i] = fmt.Sprintf("%s (batsched's %s)", m, strings.ReplaceAll(m, "-", "_"))
	}
	return &sched.OptionError{Msg: fmt.Sprintf("batsched-energy %s: options required: %s; batsched stops when the simulation begins without them", t.o.Variant, strings.Join(names, ", "))}
}

// engine is what each variant implements over the common base.
type engine interface {
	base() *energyBF
	event(s *sched.State, d *sched.Decider, ev *batsim.Event)
	decide(s *sched.State, d *sched.Decider, date xtime.Time)
}

// Event implements sched.EventObserver.
func (t *Twin) Event(s *sched.State, d *sched.Decider, ev *batsim.Event) {
	defer catch(d)
	t.eng.event(s, d, ev)
}

// Decide implements sched.Policy: batsched's make_decisions at the
// message's date.
func (t *Twin) Decide(s *sched.State, d *sched.Decider) {
	defer catch(d)
	b := t.eng.base()
	b.flushReleased(s, d)
	t.eng.decide(s, d, xtime.Of(s.Now()))
	b.released, b.ended = b.released[:0], b.ended[:0]
}

// catch turns batsched's assertions into the run's error.
func catch(d *sched.Decider) {
	r := recover()
	if r == nil {
		return
	}
	if a, ok := r.(*assertion); ok {
		if a.crash {
			d.Fail(fmt.Errorf("batsched stops here: it crashes (a segmentation fault) where %s", a.msg))
			return
		}
		d.Fail(fmt.Errorf("batsched stops here on its assertion: %s", a.msg))
		return
	}
	panic(r)
}

// machineInfo is batsched's MachineInformation.
type machineInfo struct {
	id                          int
	son, soff, esleep, psleep   *bjob
	limited                     rangeSelector
	computePS, sleepPS          int
	compute, idle, sleepP       *big.Rat // powers
	switchOnPower, switchOffPow *big.Rat
}

// energyBF is batsched's EnergyBackfilling.
type energyBF struct {
	o     *TwinOptions
	n     int
	sched *schedule
	minfo []*machineInfo
	sel   basicSelector

	jobs      map[string]*bjob
	queue     []*bjob // by (release, id)
	released  []*bjob // this message's submissions
	ended     []*bjob
	nbKnown   int // batsched's _workload->nb_jobs()
	noMore    bool
	cmlCount  int // _nb_call_me_later_running
	submitted int
	completed int

	all, awake, asleep, wakable, nonWakable, switchingOn, switchingOff mset
}

func (b *energyBF) base() *energyBF { return b }

// start is on_simulation_start.
func (b *energyBF) start(s *sched.State, date xtime.Time) {
	b.n = s.NbHosts()
	b.sched = newSchedule(b.n, date)
	b.jobs = map[string]*bjob{}
	b.genMachineInfos()
	b.all = fullMset(b.n)
	b.awake = fullMset(b.n)
	b.asleep, b.wakable, b.nonWakable = newMset(b.n), newMset(b.n), newMset(b.n)
	b.switchingOn, b.switchingOff = newMset(b.n), newMset(b.n)
}

func rat(f float64) *big.Rat { return new(big.Rat).SetFloat64(f) }

// genMachineInfos is generate_machine_informations with create_jobs.
func (b *energyBF) genMachineInfos() {
	o := b.o
	ton, toff := rat(o.TimeSwitchOn), rat(o.TimeSwitchOff)
	eon, eoff := rat(o.EnergySwitchOn), rat(o.EnergySwitchOff)
	idle, sleep := rat(o.PowerIdle), rat(o.PowerSleep)
	// The sleep that costs no more than staying idle, through both switches:
	// ((off + on + 2·delay)·p_idle − e_off − e_on) / (p_sleep − p_idle).
	num := new(big.Rat).Add(toff, ton)
	num.Add(num, rat(2*o.RJMSDelay))
	num.Mul(num, idle)
	num.Sub(num, eoff).Sub(num, eon)
	minSleep := new(big.Rat).Quo(num, new(big.Rat).Sub(sleep, idle))
	if lo := rat(o.EnsuredSleepMin); minSleep.Cmp(lo) < 0 {
		minSleep = lo
	}
	if hi := rat(o.EnsuredSleepMax); minSleep.Cmp(hi) > 0 {
		minSleep = hi
	}
	esleep, _ := minSleep.Float64() // batsched keeps it as a double
	b.minfo = make([]*machineInfo, b.n)
	for i := range b.minfo {
		id := strconv.Itoa(i)
		mi := &machineInfo{id: i, computePS: o.PStateCompute, sleepPS: o.PStateSleep,
			compute: rat(o.PowerCompute), idle: idle, sleepP: sleep,
			switchOnPower: new(big.Rat).Quo(eon, ton), switchOffPow: new(big.Rat).Quo(eoff, toff),
			limited: rangeSelector{msetOf(b.n, i)}}
		mi.son = &bjob{id: "fakejob_son_" + id, res: 1, hasWalltime: true, kind: switchOn, machine: i, walltime: xtime.Of(o.TimeSwitchOn + o.RJMSDelay)}
		mi.soff = &bjob{id: "fakejob_soff_" + id, res: 1, hasWalltime: true, kind: switchOff, machine: i, walltime: xtime.Of(o.TimeSwitchOff + o.RJMSDelay)}
		mi.esleep = &bjob{id: "fakejob_esleep_" + id, res: 1, hasWalltime: true, kind: ensured, machine: i, walltime: xtime.Of(esleep)}
		mi.psleep = &bjob{id: "fakejob_psleep_" + id, res: 1, hasWalltime: true, kind: potential, machine: i, walltime: xtime.Of(math.MaxFloat64)}
		b.minfo[i] = mi
	}
}

// event handles one event as batsched's callbacks do.
func (b *energyBF) event(s *sched.State, d *sched.Decider, ev *batsim.Event) {
	date := xtime.Of(ev.Timestamp)
	switch e := ev.Data.(type) {
	case *batsim.SimulationBegins:
		b.start(s, date)
	case *batsim.JobSubmitted:
		b.release(s, e.JobID, ev.Timestamp)
	case *batsim.JobCompleted:
		j := b.jobs[e.JobID]
		if j == nil {
			fail("Job '%s' does not exist", e.JobID)
		}
		b.ended = append(b.ended, j)
	case *batsim.ResourceStateChanged:
		set, err := batsim.ParseIntervalSet(e.Resources)
		if err != nil {
			fail("RESOURCE_STATE_CHANGED: %v", err)
		}
		ps, err := strconv.Atoi(e.State)
		if err != nil {
			fail("RESOURCE_STATE_CHANGED: state %q", e.State)
		}
		b.machineStateChanged(date, set, ps)
	case *batsim.RequestedCall:
		b.requestedCall()
	case *batsim.Notify:
		if e.Kind == batsim.NotifyNoMoreStaticJobToSubmit {
			b.noMore = true
		}
	}
}

// release records a submitted job (Workload::add_job_from_json_object, with
// the RJMS delay added to its walltime).
func (b *energyBF) release(s *sched.State, id string, at float64) {
	j, ok := s.Job(id)
	if !ok {
		fail("Job '%s' does not exist", id)
	}
	bj := &bjob{id: id, res: j.Res(), hasWalltime: j.HasWalltime(), job: j, submit: at}
	if bj.hasWalltime {
		bj.walltime = xtime.Of(j.Walltime()).Add(xtime.Of(b.o.RJMSDelay))
	}
	b.jobs[id] = bj
	b.nbKnown++
	b.released = append(b.released, bj)
}

// flushReleased gives the message's submissions their release date (the
// date of the message's last event).
func (b *energyBF) flushReleased(s *sched.State, _ *sched.Decider) {
	for _, j := range b.released {
		j.release = s.LastEvent()
	}
}

// requestedCall is EnergyBackfilling::on_requested_call.
func (b *energyBF) requestedCall() {
	if b.cmlCount <= 0 {
		fail("Received a REQUESTED_CALL message from Batsim while there was no running call_me_later request.")
	}
	b.cmlCount--
}

// machineStateChanged is on_machine_state_changed.
func (b *energyBF) machineStateChanged(date xtime.Time, machines []int, ps int) {
	off := newMset(b.n)
	for _, m := range machines {
		if m < 0 || m >= b.n {
			fail("machine %d does not exist", m)
		}
		mi := b.minfo[m]
		if ps != mi.computePS && ps != mi.sleepPS {
			fail("Machine %d just changed its pstate to %d, but this pstate is unknown. compute_pstate=%d, sleep_pstate=%d.", m, ps, mi.computePS, mi.sleepPS)
		}
		if ps == mi.computePS {
			b.switched(m, mi.son, b.switchingOn, b.awake, "ON", "a switching ON one", "an awake machine")
			continue
		}
		b.switched(m, mi.soff, b.switchingOff, b.asleep, "OFF", "a switching OFF one", "an asleep one")
		if b.sched.containsJob(mi.esleep) {
			b.nonWakable.add(m)
		} else {
			if !b.sched.containsJob(mi.psleep) {
				fail("Machine %d has just been switched OFF, but there was no ensured nor potential sleep job in the schedule for this machine", m)
			}
			b.wakable.add(m)
		}
		off.add(m)
	}
	for _, m := range off.elements() {
		mi := b.minfo[m]
		b.sched.removeJobIfExists(mi.esleep)
		if !b.sched.removeJobIfExists(mi.psleep) {
			fail("Machine %d has just been switched OFF, but there was no potential sleep job in the schedule for this machine", m)
		}
		b.sedateWithoutSwitch(b.sched, m, date)
	}
}

// switched records that machine m ended its switch (job sw, from the
// switching set to the reached one).
func (b *energyBF) switched(m int, sw *bjob, switching, reached mset, what, wasName, isName string) {
	if !b.sched.removeJobIfExists(sw) {
		fail("Machine %d has just been switched %s, but there was no switch %s job for it in the schedule", m, what, what)
	}
	if !switching.has(m) {
		fail("Machine %d has just been switched %s, but the machine was not marked as %s", m, what, wasName)
	}
	switching.del(m)
	if reached.has(m) {
		fail("Machine %d has just been switched %s, but the machine was already marked as %s", m, what, isName)
	}
	reached.add(m)
}

// decide is EnergyBackfilling::make_decisions.
func (b *energyBF) decide(s *sched.State, d *sched.Decider, date xtime.Time) {
	b.removeEnded()
	b.queueReleased(s, d)
	b.updateFirstSlice(date)
	cur := b.sched.clone()
	b.putJobs(cur)
	b.sedateAtFurthest(cur, b.awake)
	b.decisionsOf(s, d, cur, true)
}

// removeEnded takes the jobs that ended out of the schedule.
func (b *energyBF) removeEnded() {
	for _, j := range b.ended {
		b.completed++
		if !b.sched.containsJob(j) {
			fail("Invalid schedule: job '%s' just finished, but it not in the schedule", j.id)
		}
		if b.inQueue(j) >= 0 {
			fail("Job '%s' just ended, but it is still in the queue", j.id)
		}
		b.sched.removeJob(j)
	}
}

// queueReleased queues the message's submissions (those larger than the
// platform are rejected, by the framework, in the same order).
func (b *energyBF) queueReleased(s *sched.State, _ *sched.Decider) {
	for _, j := range b.released {
		b.submitted++
		if b.sched.containsJob(j) {
			fail("Invalid schedule: job '%s' already exists", j.id)
		}
		if j.res > b.n {
			b.completed++
			continue
		}
		b.enqueue(j)
	}
}

// enqueue appends j to the queue, kept in batsched's fcfs order.
func (b *energyBF) enqueue(j *bjob) {
	i, _ := slices.BinarySearchFunc(b.queue, j, queueCmp)
	b.queue = slices.Insert(b.queue, i, j)
}

func queueCmp(a, b *bjob) int {
	if a.release != b.release {
		if a.release < b.release {
			return -1
		}
		return 1
	}
	return strings.Compare(a.id, b.id)
}

func (b *energyBF) inQueue(j *bjob) int {
	for i, q := range b.queue {
		if q == j {
			return i
		}
	}
	return -1
}

func (b *energyBF) dequeue(j *bjob) {
	if i := b.inQueue(j); i >= 0 {
		b.queue = slices.Delete(b.queue, i, i+1)
	}
}

// decisionsOf is make_decisions_of_schedule: what lies in the first slice
// of sc and is not done yet is done now.
func (b *energyBF) decisionsOf(s *sched.State, d *sched.Decider, sc *schedule, callOnNothing bool) {
	did := false
	slice := &sc.sl[0]
	if slice.begin != b.sched.firstSliceBegin() {
		fail("slice.begin == _schedule.first_slice_begin()")
	}
	switches := map[int]mset{}
	for _, sj := range slice.jobs {
		j := sj.j
		if j.fake() {
			if sj.m.size() != 1 {
				fail("job_machines.size() == 1")
			}
			m := sj.m.first()
			mi := b.minfo[m]
			switch j.kind {
			case switchOn:
				if b.sched.containsJob(j) {
					continue
				}
				e := b.sched.removeJobIfExists(mi.esleep)
				p := b.sched.removeJobIfExists(mi.psleep)
				if !e && !p {
					fail("ensured_removed || potential_removed")
				}
				a := b.sched.addJobFirstFit(j, mi.limited, true)
				if a.begin != slice.begin {
					fail("alloc.begin == slice.begin")
				}
				addSwitch(switches, mi.computePS, m, b.n)
				if !b.asleep.has(m) || !b.wakable.has(m) || b.switchingOn.has(m) {
					fail("machine %d switched ON: _asleep_machines.contains, _wakable_asleep_machines.contains, !_switching_on_machines.contains", m)
				}
				b.asleep.del(m)
				b.wakable.del(m)
				b.switchingOn.add(m)
			case switchOff:
				if b.sched.containsJob(j) {
					continue
				}
				b.sedate(b.sched, m, 0, true)
				addSwitch(switches, mi.sleepPS, m, b.n)
				if !b.awake.has(m) || b.switchingOff.has(m) {
					fail("machine %d switched OFF: _awake_machines.contains, !_switching_off_machines.contains", m)
				}
				b.awake.del(m)
				b.switchingOff.add(m)
			}
			continue
		}
		if b.inQueue(j) < 0 {
			continue
		}
		a := b.sched.addJobFirstFit(j, rangeSelector{sj.m}, true)
		if !a.startedInFirstSlice || a.begin != slice.begin {
			fail("alloc.started_in_first_slice && alloc.begin == slice.begin")
		}
		if !d.Start(j.job, a.used.elements()) {
			return
		}
		did = true
		b.dequeue(j)
	}
	pss := make([]int, 0, len(switches))
	for ps := range switches {
		pss = append(pss, ps)
	}
	slices.Sort(pss)
	for _, ps := range pss {
		if !d.SetPState(switches[ps].elements(), ps) {
			return
		}
		did = true
	}
	if callOnNothing && !did && b.completed < b.nbKnown && b.cmlCount == 0 {
		// (double) end + 1: the end rounded to a double, plus 1 in double.
		end, _ := b.sched.sl[0].end.Rat().Float64()
		if !d.CallMeLater(end + 1) {
			return
		}
		b.cmlCount++
	}
}

func addSwitch(sw map[int]mset, ps, m, n int) {
	if sw[ps] == nil {
		sw[ps] = newMset(n)
	}
	sw[ps].add(m)
}

// updateFirstSlice is update_first_slice_taking_sleep_jobs_into_account:
// the slices that ended by date may only differ by sleeps, which end
// without Batsim telling.
func (b *energyBF) updateFirstSlice(date xtime.Time) {
	sc := b.sched
	ended := !date.Less(sc.sl[0].end)
	if ended {
		sleeping := newMset(b.n)
		var others []*bjob
		for _, sj := range sc.sl[0].jobs {
			if sj.j.kind == ensured || sj.j.kind == potential {
				sleeping.or(sj.m)
			} else {
				others = append(others, sj.j)
			}
		}
		for i := 0; !date.Less(sc.sl[i].end); i++ {
			if i+1 == len(sc.sl) {
				// batsched's loop goes on past its last slice (of
				// end 1e19, its horizon): Batsim's wake-up at t=1e19,
				// when jobs without walltime are left, reads past the
				// end of a std::list.
				crash("update_first_slice_taking_sleep_jobs_into_account at t=%g reaches the end of the schedule (its horizon, 1e19) and goes on past its last time slice", date.Float())
			}
			inSlice := newMset(b.n)
			n := 0
			for _, sj := range sc.sl[i].jobs {
				if sj.j.kind == ensured || sj.j.kind == potential {
					inSlice.or(sj.m)
					continue
				}
				if !slices.Contains(others, sj.j) {
					fail("A time slice ended prematurely, which is only allowed if the ended slices only exist because of ensured sleep jobs, which is not the case here, since job '%s' is not in all involved slices. Date=%g", sj.j.id, date.Float())
				}
				n++
			}
			if n != len(others) {
				fail("A time slice ended prematurely, which is only allowed if the ended slices only exist because of ensured->potential sleep jobs, which is not the case here, because other jobs appeared/vanished. Date=%g", date.Float())
			}
			if !inSlice.equal(sleeping) {
				fail("A time slice ended prematurely, which is only allowed if the ended slices only exist because of ensured->potential sleep jobs, which is not the case here, since the sleeping machines are not the same in the first slice and in the current one")
			}
		}
	}
	sc.updateFirstSliceRemovingRemainingJobs(date)
	if !ended {
		return
	}
	wak, non := newMset(b.n), newMset(b.n)
	for _, sj := range sc.sl[0].jobs {
		switch sj.j.kind {
		case ensured:
			non.or(sj.m)
		case potential:
			wak.or(sj.m)
		}
	}
	if !wak.inter(non).empty() {
		fail("Invalid schedule update: the new wakable and non-wakable machines are not distinct")
	}
	if !wak.union(non).equal(b.asleep) {
		fail("Invalid schedule update: the asleep machines have changed")
	}
	b.wakable, b.nonWakable = wak, non
}

// putJobs is put_jobs_into_schedule: every waiting job, first fit, waking
// machines where one fits nowhere.
func (b *energyBF) putJobs(sc *schedule) {
	inf := sc.infiniteHorizon()
	for _, j := range b.queue {
		if sc.addJobFirstFit(j, b.sel, false).inserted {
			continue
		}
		last := &sc.sl[len(sc.sl)-1]
		can := potentiallyAwaken(last, b.n)
		need := j.res - last.avail.size()
		if need > can.size() {
			fail("nb_resources <= (int)potentially_awaken.size()")
		}
		toWake := can.left(need)
		if _, ok := b.sel.fit(j, last.avail.union(toWake)); !ok {
			fail("fit(job, (available + to_awaken), u)")
		}
		if toWake.empty() {
			fail("machines_to_awaken.size() > 0")
		}
		at := findEarliestMomentToAwaken(sc, toWake, b.n)
		for _, m := range toWake.elements() {
			b.awaken(sc, m, at)
		}
		a := sc.addJobFirstFitAfterTime(j, at, b.sel, true)
		if a.used.inter(toWake).empty() {
			fail("(job_alloc.used_machines & machines_to_awaken) != IntervalSet::empty_interval_set()")
		}
		if sc.infiniteHorizon() != inf {
			fail("initial_infinite_horizon == schedule.infinite_horizon()")
		}
	}
}

// potentiallyAwaken is compute_potentially_awaken_machines: the machines
// of the slice's potential sleeps.
func potentiallyAwaken(sl *tslice, n int) mset {
	out := newMset(n)
	for _, sj := range sl.jobs {
		if sj.j.kind == potential {
			out.or(sj.m)
		}
	}
	return out
}

// sleepingIn is compute_sleeping_machines: ensured and potential sleeps.
func sleepingIn(sl *tslice, n int) mset {
	out := newMset(n)
	for _, sj := range sl.jobs {
		if sj.j.kind == potential || sj.j.kind == ensured {
			out.or(sj.m)
		}
	}
	return out
}

// findEarliestMomentToAwaken is find_earliest_moment_to_awaken_machines.
func findEarliestMomentToAwaken(sc *schedule, machines mset, n int) xtime.Time {
	i := len(sc.sl) - 1
	if !potentiallyAwaken(&sc.sl[i], n).inter(machines).equal(machines) {
		fail("(sleeping_machines & machines_to_awaken) == machines_to_awaken")
	}
	for {
		if i != 0 {
			i--
		}
		if !potentiallyAwaken(&sc.sl[i], n).inter(machines).equal(machines) {
			return sc.sl[i].end
		}
		if i == 0 {
			break
		}
	}
	return sc.firstSliceBegin()
}

// sedateAtFurthest is sedate_machines_at_the_furthest_moment: each
// machine of toSedate that is on at the horizon is switched off right
// after the last thing it does (a job or a switch-on). It returns the
// earliest date of the switches.
func (b *energyBF) sedateAtFurthest(sc *schedule, toSedate mset) xtime.Time {
	i := len(sc.sl) - 1
	earliest := sc.infiniteHorizon()
	awake := sc.sl[i].avail.clone()
	for !toSedate.inter(awake).empty() {
		if i != 0 {
			i--
		}
		now := newMset(b.n)
		for _, sj := range sc.sl[i].jobs {
			if sj.j.fake() {
				if sj.m.size() != 1 {
					fail("job_machines.size() == 1")
				}
				if sj.j.kind == switchOn {
					now.or(sj.m)
				}
			} else {
				now.or(sj.m)
			}
		}
		now.and(awake)
		now.and(toSedate)
		for _, m := range now.elements() {
			b.sedate(sc, m, i, false)
			earliest = sc.sl[i].end
		}
		awake.andNot(now)
		if i == 0 {
			now = awake.inter(toSedate)
			for _, m := range now.elements() {
				b.sedate(sc, m, i, true)
				earliest = sc.sl[i].begin
			}
			awake.andNot(now)
			if !awake.inter(toSedate).empty() {
				fail("(awaken_machines & machines_to_sedate) == IntervalSet::empty_interval_set()")
			}
		}
	}
	return earliest
}

// sedate is sedate_machine: a switch-off in (or right after) slice i, then
// the sleeps.
func (b *energyBF) sedate(sc *schedule, m, i int, inSlice bool) {
	mi := b.minfo[m]
	a := sc.addJobFirstFitAfterSlice(mi.soff, i, mi.limited, true)
	if inSlice && a.begin != sc.sl[i].begin {
		fail("switch_off_alloc.begin = %g, time_slice->begin = %g,", a.begin.Float(), sc.sl[i].begin.Float())
	}
	if !inSlice && a.begin != sc.sl[i].end {
		fail("switch_off_alloc.begin = %g, time_slice->end = %g,", a.begin.Float(), sc.sl[i].end.Float())
	}
	b.sedateWithoutSwitch(sc, m, a.end)
}

// sedateWithoutSwitch is sedate_machine_without_switch: the ensured sleep
// from when, then the potential sleep until the horizon.
func (b *energyBF) sedateWithoutSwitch(sc *schedule, m int, when xtime.Time) {
	mi := b.minfo[m]
	esEnd := when
	if (mi.esleep.walltime != xtime.Time{}) {
		a := sc.addJobFirstFitAfterTime(mi.esleep, when, mi.limited, true)
		if a.begin != when {
			fail("ensured_sleep_alloc.begin = %g, when_it_should_start = %g", a.begin.Float(), when.Float())
		}
		esEnd = a.end
	}
	mi.psleep.walltime = sc.infiniteHorizon().Sub(esEnd)
	inf := sc.infiniteHorizon()
	a := sc.addJobFirstFitAfterTime(mi.psleep, when, mi.limited, true)
	if a.begin != esEnd || a.end != sc.infiniteHorizon() || sc.infiniteHorizon() != inf {
		fail("potential_sleep_alloc.begin == when_ensured_sleep_job_finishes && potential_sleep_alloc.end == schedule.infinite_horizon()")
	}
}

// awaken is awaken_machine: the potential sleep of m is cut at date, where
// the switch-on begins.
func (b *energyBF) awaken(sc *schedule, m int, date xtime.Time) {
	mi := b.minfo[m]
	i := sc.findLastOccurrence(mi.psleep, 0)
	if i < 0 {
		fail("Cannot awaken machine %d: The machine is not sleeping", m)
	}
	prev := sc.sl[i].begin
	sc.removeJobLastOccurrence(mi.psleep)
	if date.Less(prev) {
		fail("potential_sleep_maximum_length >= 0")
	}
	if prev.Less(date) {
		mi.psleep.walltime = date.Sub(prev)
		if a := sc.addJobFirstFitAfterTime(mi.psleep, prev, mi.limited, true); a.begin != prev {
			fail("potential_sleep_alloc.begin == previously_potential_job_beginning_time")
		}
	}
	if a := sc.addJobFirstFitAfterTime(mi.son, prev, mi.limited, true); a.begin != date {
		fail("wake_up_alloc.begin == awakening_date")
	}
}

// awakenASAP is awaken_machine_as_soon_as_possible.
func (b *energyBF) awakenASAP(sc *schedule, m int) xtime.Time {
	i := sc.findLastOccurrence(b.minfo[m].psleep, 0)
	if i < 0 {
		fail("Cannot awaken machine %d: The machine is not sleeping", m)
	}
	t := sc.sl[i].begin
	b.awaken(sc, m, t)
	return t
}

// containsNonFake is contains_any_nonfake_job.
func containsNonFake(sc *schedule) bool {
	for i := range sc.sl {
		for _, sj := range sc.sl[i].jobs {
			if !sj.j.fake() {
				return true
			}
		}
	}
	return false
}

// errUnknownVariant is an unknown variant name.
var errUnknownVariant = errors.New("unknown variant")
