package energy

import (
	"math/big"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sched/xtime"
)

// This file is batsched's EnergyBackfillingMonitoringInertialShutdown
// (energy_bf_monitoring_inertial) and the variants that change its
// monitoring stage: EnergyBackfillingIdleSleeper (energy_bf_idle_sleeper)
// and EnergyBackfillingMachineSubpartSleeper (energy_bf_subpart_sleeper).

// stageKind is the monitoring stage of an inertial variant.
type stageKind uint8

const (
	inertialStage stageKind = iota
	idleStage
	subpartStage
)

// inertial is EnergyBackfillingMonitoringInertialShutdown.
type inertial struct {
	monitoring
	kind     stageKind
	alterSum bool
	alterN   *big.Rat
	upperLLH *big.Rat
	fraction *big.Rat

	isched                 *schedule // _inertial_schedule
	nbIdleSedated          int       // _nb_machines_sedated_for_being_idle
	nbInertiaSedated       int       // _nb_machines_sedated_by_inertia
	idleStart              []xtime.Time
	idle                   mset
	firstStage             bool
	lastAwaken             bool // _last_decision == AWAKEN_MACHINES
	inertialNumber         int
	lastLLH, lastLLHDate   *big.Rat
	integral, prevIntegral *big.Rat
	toSedate, toAwaken     mset
	awakenedSince          mset // _machines_awakened_since_last_monitoring_stage_inertia
	sedatedSince           mset
}

func newInertial(o *TwinOptions, kind stageKind) *inertial {
	in := &inertial{monitoring: monitoring{energyBF: energyBF{o: o}}, kind: kind}
	alt, _ := parseAlteration(o.InertialAlteration)
	in.alterSum, in.alterN = alt.Sum, rat(alt.N)
	in.upperLLH = rat(o.UpperLLHThreshold)
	in.fraction = rat(o.FractionToLetAwake)
	in.monitoring.stage = in.stage
	return in
}

func (in *inertial) event(s *sched.State, d *sched.Decider, ev *batsim.Event) {
	in.monitoring.event(s, d, ev)
	if _, ok := ev.Data.(*batsim.SimulationBegins); ok {
		in.isched = in.sched.clone()
		in.idleStart = make([]xtime.Time, in.n)
		for i := range in.idleStart {
			in.idleStart[i] = xtime.Of(ev.Timestamp)
		}
		in.idle = in.all.clone()
		in.firstStage, in.lastAwaken = true, false
		in.lastLLH, in.lastLLHDate, in.integral, in.prevIntegral = new(big.Rat), new(big.Rat), new(big.Rat), new(big.Rat)
		in.toSedate, in.toAwaken = newMset(in.n), newMset(in.n)
		in.awakenedSince, in.sedatedSince = newMset(in.n), newMset(in.n)
	}
}

func (in *inertial) stage(s *sched.State, d *sched.Decider, date xtime.Time) {
	switch in.kind {
	case idleStage:
		in.idleSleeperStage(s, d, date)
	case subpartStage:
		in.subpartStage(s, d, date)
	default:
		in.inertialStage(s, d, date)
	}
}

// asleepSoon is (asleep + switching off − switching on) + to sedate − to
// awaken.
func (in *inertial) asleepSoon() mset {
	m := in.asleep.union(in.switchingOff)
	m.andNot(in.switchingOn)
	m.or(in.toSedate)
	m.andNot(in.toAwaken)
	return m
}

// awakeSoon is (awake + switching on − switching off) + to awaken − to
// sedate.
func (in *inertial) awakeSoon() mset {
	m := in.awake.union(in.switchingOn)
	m.andNot(in.switchingOff)
	m.or(in.toAwaken)
	m.andNot(in.toSedate)
	return m
}

func (in *inertial) checkAsleepSoon() {
	if a := in.asleepSoon(); a.size() != in.nbInertiaSedated+in.nbIdleSedated {
		fail("Asleep machines inconsistency. nb_asleep_soon=%d (%s). nb_sedated_inertia=%d. nb_sedated_idle=%d", a.size(), a.String(), in.nbInertiaSedated, in.nbIdleSedated)
	}
}

// llh is compute_liquid_load_horizon: how long the machines available in
// sc take to absorb the queue's area (machines × walltime), from start.
func (in *inertial) llh(sc *schedule, start xtime.Time) *big.Rat {
	if start.Less(sc.firstSliceBegin()) || !start.Less(sc.infiniteHorizon()) {
		fail("starting_time >= schedule.first_slice_begin() && starting_time < schedule.infinite_horizon()")
	}
	load := new(big.Rat)
	for _, j := range in.queue {
		load.Add(load, new(big.Rat).Mul(big.NewRat(int64(j.res), 1), j.walltime.Rat()))
	}
	startR := start.Rat()
	cur := new(big.Rat).Set(startR)
	for i := sc.lastSliceBefore(start, false); load.Sign() > 0 && i < len(sc.sl); i++ {
		sl := &sc.sl[i]
		from := sl.begin
		if from.Less(start) {
			from = start
		}
		amount := new(big.Rat)
		if from.Less(sl.end) {
			amount = sl.end.Sub(from).Rat()
		}
		n := sl.avail.size()
		area := new(big.Rat).Mul(big.NewRat(int64(n), 1), amount)
		if area.Cmp(load) <= 0 {
			load.Sub(load, area)
			cur = sl.end.Rat()
			continue
		}
		if n == 0 {
			fail("slice.available_machines.size() > 0")
		}
		cur.Add(cur, new(big.Rat).Quo(load, big.NewRat(int64(n), 1)))
		load.SetInt64(0)
	}
	if load.Sign() > 0 {
		cur = sc.infiniteHorizon().Rat()
	}
	ret := new(big.Rat).Sub(cur, startR)
	if ret.Sign() < 0 {
		fail("ret_value >= 0")
	}
	return ret
}

// integrate adds the trapezoid from the last liquid load horizon to l.
func (in *inertial) integrate(l *big.Rat, date xtime.Time) {
	d := new(big.Rat).Sub(date.Rat(), in.lastLLHDate)
	area := new(big.Rat).Add(in.lastLLH, l)
	area.Quo(area, big.NewRat(2, 1)).Mul(area, d)
	if area.Sign() < 0 {
		fail("Invalid area computed (%s): Cannot be negative.", area.FloatString(6))
	}
	in.integral.Add(in.integral, area)
	in.lastLLH, in.lastLLHDate = l, date.Rat()
}

// alter is the number of machines the inertia gives after n.
func (in *inertial) alter(n int) int {
	var k *big.Rat
	if in.alterSum {
		k = new(big.Rat).Add(big.NewRat(int64(n), 1), in.alterN)
	} else {
		k = new(big.Rat).Mul(big.NewRat(int64(n), 1), in.alterN)
	}
	return ratInt(k)
}

// ratInt is a non-negative rational truncated to an int (batsched's (int)
// of a Rational).
func ratInt(r *big.Rat) int {
	q := new(big.Int).Quo(r.Num(), r.Denom())
	return int(q.Int64())
}

// cancelSedations is the accounting of cancelled switch-offs: inertial
// ones first, then idle ones.
func (in *inertial) cancelSedations(n int) {
	ci := min(n, in.nbInertiaSedated)
	cidle := 0
	if ci < n {
		cidle = n - ci
	}
	in.nbInertiaSedated -= ci
	in.nbIdleSedated -= cidle
	if in.nbInertiaSedated < 0 || in.nbIdleSedated < 0 {
		fail("_nb_machines_sedated_by_inertia >= 0 && _nb_machines_sedated_for_being_idle >= 0")
	}
}

// handleQueuedSwitches is handle_queued_switches: the wake-ups then the
// switch-offs are planned in sc, as early and as late as possible; those
// that happen now are added to sedNow and awNow.
func (in *inertial) handleQueuedSwitches(sc *schedule, toSed, toAw, sedNow, awNow mset) {
	for _, m := range toAw.elements() {
		if in.awakenASAP(sc, m) == sc.firstSliceBegin() {
			awNow.add(m)
		}
	}
	for _, m := range toSed.elements() {
		if in.sedateAtFurthest(sc, msetOf(in.n, m)) == sc.firstSliceBegin() {
			sedNow.add(m)
		}
	}
}

// priorityStuff is compute_priority_job_and_related_stuff.
type priorityStuff struct {
	job         *bjob
	needsWake   bool
	alloc       jalloc
	reserved    mset
	usableByJob mset
}

func (in *inertial) priorityStuff(sc *schedule) priorityStuff {
	p := priorityStuff{reserved: newMset(in.n), usableByJob: newMset(in.n)}
	if len(in.queue) == 0 {
		return p
	}
	p.job = in.queue[0]
	if sc.containsJob(p.job) {
		sc.removeJob(p.job)
	}
	p.alloc = sc.addJobFirstFit(p.job, in.sel, false)
	if !p.alloc.inserted {
		p.needsWake = true
		return p
	}
	p.reserved = p.alloc.used.clone()
	if !sc.containsJob(p.job) {
		fail("schedule.contains_job(priority_job)")
	}
	sc.removeJob(p.job)
	p.usableByJob = sc.availableDuring(p.alloc.begin, p.alloc.end)
	if !p.alloc.used.inter(p.usableByJob).equal(p.alloc.used) {
		fail("The priority job '%s' has been allocated in an invalid place", p.job.id)
	}
	return p
}

// expectancy is compute_priority_job_starting_time_expectancy (its value
// only goes to batsched's trace file, but it stops on its assertions).
func (in *inertial) expectancy(sc *schedule, j *bjob) {
	if j == nil {
		return
	}
	c := sc.clone()
	c.removeJobIfExists(j)
	for _, m := range in.asleepSoon().elements() {
		in.awakenASAP(c, m)
	}
	c.addJobFirstFit(j, in.sel, true)
}

// updateIdleStates is update_idle_states.
func (in *inertial) updateIdleStates(date xtime.Time, sc *schedule) {
	if sc.firstSliceBegin() != date {
		fail("schedule.first_slice_begin() == Rational(current_date)")
	}
	avail := sc.sl[0].avail
	newlyAvail := avail.inter(in.all.minus(in.idle))
	for _, m := range newlyAvail.elements() {
		in.idleStart[m] = date
	}
	newlyBusy := in.all.minus(avail)
	newlyBusy.and(in.idle)
	for _, m := range newlyBusy.elements() {
		in.idleStart[m] = sc.infiniteHorizon()
	}
	in.idle.or(newlyAvail)
	in.idle.andNot(newlyBusy)
}

// idleToSedate is select_idle_machines_to_sedate.
func (in *inertial) idleToSedate(date xtime.Time, awakeSoon mset, prio *bjob) mset {
	need := 0
	if prio != nil {
		need = prio.res
	}
	threshold := xtime.Of(in.o.IdleTimeToSedate)
	sedatable := newMset(in.n)
	for _, m := range in.idle.elements() {
		if !date.Less(in.idleStart[m].Add(threshold)) {
			sedatable.add(m)
		}
	}
	nb := max(0, min(awakeSoon.size()-need, sedatable.size()))
	if nb > 0 {
		return sedatable.left(nb)
	}
	return newMset(in.n)
}

// idleToAwaken is select_idle_machines_to_awaken with
// AWAKEN_FOR_ALL_JOBS_RESPECTING_PRIORITY_JOB.
func (in *inertial) idleToAwaken(sc *schedule, maxN int) mset {
	out := newMset(in.n)
	if maxN < 0 {
		fail("maximum_nb_machines_to_awaken >= 0")
	}
	if len(in.queue) == 0 {
		return out
	}
	c := sc.clone()
	awakable := potentiallyAwaken(&c.sl[0], in.n)
	if awakable.size() > maxN {
		awakable = awakable.left(maxN)
	}
	usable := in.idle.union(awakable)
	usableIdle := in.idle.clone()
	p := in.priorityStuff(c)
	usableIdle.andNot(p.reserved)
	usable.andNot(p.reserved)
	for _, j := range in.queue {
		if usable.size() == 0 {
			break
		}
		if j.res > usable.size() {
			continue
		}
		use := newMset(in.n)
		if usableIdle.size() > 0 {
			use = usableIdle.left(min(usableIdle.size(), j.res))
			usableIdle.andNot(use)
		}
		use.or(usable.left(j.res - use.size()))
		wake := awakable.inter(use)
		usable.andNot(use)
		awakable.andNot(wake)
		out.or(wake)
	}
	if out.size() > maxN {
		fail("(int)machines_to_awaken.size() <= maximum_nb_machines_to_awaken")
	}
	return out
}

// selectToAwaken is select_machines_to_awaken (SEDATE/AWAKEN_FIRST_MACHINES):
// the machines of awakable whose potential sleep comes first in the
// inertial schedule.
func (in *inertial) selectToAwaken(nb int, awakable mset) mset {
	if nb > awakable.size() {
		fail("nb_machines <= (int)awakable_machines.size()")
	}
	out := newMset(in.n)
	for i := range in.isched.sl {
		now := potentiallyAwaken(&in.isched.sl[i], in.n)
		now.and(awakable)
		now.andNot(out)
		if now.size()+out.size() >= nb {
			out.or(now.left(nb - out.size()))
			return out
		}
		out.or(now)
	}
	fail("Couldn't select %d machines to awaken", nb)
	return nil
}

// selectToSedate is select_machines_to_sedate (SEDATE_FIRST_MACHINES): the
// machines of sedatable available first in the inertial schedule, taking
// from the priority job's place only what it can spare.
func (in *inertial) selectToSedate(nb int, sedatable, usableByPrio mset, prio *bjob) mset {
	if nb > sedatable.size() {
		fail("nb_machines <= (int)sedatable_machines.size()")
	}
	if !sedatable.inter(in.awake.union(in.switchingOn)).equal(sedatable) {
		fail("(sedatable_machines & (_awake_machines + _switching_on_machines)) == sedatable_machines")
	}
	out := newMset(in.n)
	stolen := newMset(in.n)
	stealable := sedatable.inter(usableByPrio)
	need := 0
	if prio != nil {
		need = prio.res
	}
	canSteal := max(0, stealable.size()-need)
	done := false
	for i := range in.isched.sl {
		now := in.isched.sl[i].avail.inter(sedatable)
		now.andNot(out)
		annoying := now.inter(stealable.minus(stolen))
		if !annoying.empty() {
			if k := canSteal - stolen.size(); k > 0 {
				st := annoying.left(min(k, annoying.size()))
				want := min(st.size(), nb-out.size())
				got := st.left(want)
				stolen.or(got)
				out.or(got)
			}
		}
		now.andNot(annoying)
		if now.size()+out.size() >= nb {
			out.or(now.left(nb - out.size()))
			done = true
			break
		}
		out.or(now)
	}
	if !done {
		fail("Couldn't select %d machines to sedate", nb)
	}
	if out.size() != nb || !out.inter(sedatable).equal(out) {
		fail("machines_to_sedate.size() == nb_machines && (machines_to_sedate & sedatable_machines) == machines_to_sedate")
	}
	return out
}

// decide is EnergyBackfillingMonitoringInertialShutdown::make_decisions.
func (in *inertial) decide(s *sched.State, d *sched.Decider, date xtime.Time) {
	if in.nbIdleSedated < 0 || in.nbIdleSedated > in.all.size() {
		fail("Invalid nb_machines_sedated_for_being_idle value: %d", in.nbIdleSedated)
	}
	if len(in.ended) > 0 {
		in.removeEnded()
		if in.noMore && len(in.queue) == 0 && !containsNonFake(in.sched) {
			in.stopCalls = true
		}
	}
	in.updateFirstSlice(date)
	in.integrate(in.llh(in.isched, date), date)
	for _, j := range in.released {
		if !j.hasWalltime {
			fail("new_job->has_walltime: This scheduler only supports jobs with walltimes.")
		}
	}
	in.queueReleased(s, d)
	in.isched = in.sched.clone()
	var prio *bjob
	allocated := map[*bjob]bool{}
	sedTurn, awTurn := newMset(in.n), newMset(in.n)
	in.handleQueuedSwitches(in.isched, in.toSedate, in.toAwaken, sedTurn, awTurn)
	if len(in.queue) == 0 {
		in.toSedate.andNot(sedTurn)
		in.toAwaken.andNot(awTurn)
	} else {
		launched := true
		for k := 0; launched && k < len(in.queue); k++ {
			j := in.queue[k]
			prio = j
			a := in.isched.addJobFirstFit(prio, in.sel, false)
			if a.inserted {
				if a.startedInFirstSlice {
					prio = nil
					allocated[j] = true
					continue
				}
				launched = false
				in.expectancy(in.isched, prio)
				continue
			}
			launched = false
			in.expectancy(in.isched, prio)
			for _, m := range in.toSedate.elements() {
				mi := in.minfo[m]
				in.isched.removeJobLastOccurrence(mi.soff)
				if (mi.esleep.walltime != xtime.Time{}) {
					in.isched.removeJobLastOccurrence(mi.esleep)
				}
				in.isched.removeJobLastOccurrence(mi.psleep)
			}
			a = in.isched.addJobFirstFit(prio, in.sel, false)
			if a.inserted {
				keep := in.toSedate.minus(a.used)
				disturbing := in.toSedate.inter(a.used)
				in.cancelSedations(disturbing.size())
				thrash, tmp := newMset(in.n), newMset(in.n)
				in.handleQueuedSwitches(in.isched, keep, newMset(in.n), tmp, thrash)
				if !tmp.inter(keep).equal(tmp) || !thrash.empty() {
					fail("The machines that have been sedated are not the expected ones")
				}
				sedTurn.andNot(disturbing)
				in.toSedate.andNot(disturbing)
				continue
			}
			awakeInPrediction := in.awake.union(in.switchingOn)
			awakeInPrediction.or(in.toAwaken)
			minWake := j.res - awakeInPrediction.size()
			if minWake <= 0 {
				fail("Schedule seems to be inconsistent. job->nb_requested_resources=%d. machines_awake_in_the_prediction_schedule=%d", j.res, awakeInPrediction.size())
			}
			wakeForPrio := in.selectToAwaken(minWake, in.asleep.union(in.switchingOff))
			thrash, really := newMset(in.n), newMset(in.n)
			in.handleQueuedSwitches(in.isched, newMset(in.n), wakeForPrio, thrash, really)
			if !thrash.empty() || !really.inter(wakeForPrio).equal(really) {
				fail("The machines that have been awakened by this call are not the expected ones")
			}
			a = in.isched.addJobFirstFit(prio, in.sel, false)
			if !a.inserted {
				fail("Cannot insert the priority job, which should not happen now! priority_job='%s'", prio.id)
			}
			if !in.isched.firstSliceBegin().Less(a.begin) {
				fail("alloc.begin > _inertial_schedule.first_slice_begin()")
			}
			in.cancelSedations(in.toSedate.size())
			nw := wakeForPrio.size()
			wi := min(nw, in.nbInertiaSedated)
			widle := 0
			if wi < nw {
				widle = nw - wi
			}
			in.nbInertiaSedated -= wi
			in.nbIdleSedated -= widle
			if in.nbInertiaSedated < 0 || in.nbIdleSedated < 0 {
				fail("_nb_machines_sedated_by_inertia >= 0 && _nb_machines_sedated_for_being_idle >= 0")
			}
			sedTurn.andNot(in.toSedate)
			in.toSedate = newMset(in.n)
			awTurn.or(really)
			in.toAwaken.or(wakeForPrio.minus(really))
		}
		in.toSedate.andNot(sedTurn)
		in.toAwaken.andNot(awTurn)
		in.sedatedSince.or(sedTurn)
		in.awakenedSince.or(awTurn)
		if !in.toAwaken.inter(in.toSedate).empty() {
			fail("The machines to awaken and those to sedate should be distinct")
		}
		free := in.isched.sl[0].avail.size()
		for _, j := range in.queue {
			if free <= 0 {
				break
			}
			if j == prio || allocated[j] || j.res > free {
				continue
			}
			a := in.isched.addJobFirstFit(j, in.sel, false)
			if !a.inserted {
				continue
			}
			if a.startedInFirstSlice {
				allocated[j] = true
				free -= j.res
			} else {
				in.isched.removeJob(j)
			}
		}
	}
	in.decisionsOf(s, d, in.isched, false)
	if d.Err() != nil {
		return
	}
	in.checkAsleepSoon()
	in.updateIdleStates(date, in.isched)
	wake := in.idleToAwaken(in.isched, in.nbIdleSedated)
	if wake.size() > 0 {
		in.toAwaken.or(wake)
		in.nbIdleSedated -= wake.size()
		if in.nbIdleSedated < 0 {
			fail("Invalid nb_machines_sedated_for_being_idle value: %d", in.nbIdleSedated)
		}
		sed, aw := newMset(in.n), newMset(in.n)
		in.handleQueuedSwitches(in.isched, newMset(in.n), wake, sed, aw)
		if !aw.equal(wake) || !sed.empty() {
			fail("Unexpected awakened machines. Awakened=%s. Expected=%s.", aw.String(), wake.String())
		}
		in.toAwaken.andNot(aw)
		in.decisionsOf(s, d, in.isched, false)
		if d.Err() != nil {
			return
		}
		in.checkAsleepSoon()
	} else if in.o.SedateIdleOnClassicalEvents && in.switchingOn.empty() && in.toAwaken.empty() {
		in.updateIdleStates(date, in.isched)
		if !in.sedateIdleNow(s, d, in.idleToSedate(date, in.awakeSoon(), prio)) {
			return
		}
	}
	in.lastLLH, in.lastLLHDate = in.llh(in.isched, date), date.Rat()
	in.checkAsleepSoon()
}

// inertialStage is EnergyBackfillingMonitoringInertialShutdown's
// on_monitoring_stage.
func (in *inertial) inertialStage(s *sched.State, d *sched.Decider, date xtime.Time) {
	if in.nbIdleSedated < 0 || in.nbIdleSedated > in.all.size() {
		fail("Invalid nb_machines_sedated_for_being_idle value: %d", in.nbIdleSedated)
	}
	in.updateFirstSlice(date)
	llh := in.llh(in.isched, date)
	in.integrate(llh, date)
	in.isched = in.sched.clone()
	if in.toSedate.size() > 0 {
		in.cancelSedations(in.toSedate.size())
		in.toSedate = newMset(in.n)
	}
	p := in.priorityStuff(in.isched)
	switch {
	case in.firstStage:
		in.firstStage = false
		in.lastAwaken = true
		in.inertialNumber = 0
	case !p.needsWake:
		mean := new(big.Rat).Quo(in.integral, rat(in.o.MonitoringPeriod))
		if mean.Cmp(in.upperLLH) >= 0 {
			if !in.lastAwaken {
				in.lastAwaken = true
				in.inertialNumber = 0
			}
			in.prevIntegral = new(big.Rat)
		}
		if in.lastAwaken {
			if in.integral.Cmp(in.prevIntegral) > 0 {
				awakable := in.asleep.minus(in.toAwaken)
				if !in.o.AllowFutureSwitches {
					awakable.andNot(in.nonWakable)
				}
				in.inertialNumber = min(max(in.alter(in.awakenedSince.size()), 1), awakable.size())
				if in.inertialNumber > 0 {
					w := in.selectToAwaken(in.inertialNumber, awakable)
					in.toAwaken.or(w)
					wi := min(w.size(), in.nbInertiaSedated)
					widle := 0
					if wi < w.size() {
						widle = w.size() - wi
					}
					in.nbInertiaSedated -= wi
					in.nbIdleSedated -= widle
					if in.nbInertiaSedated < 0 || in.nbIdleSedated < 0 {
						fail("_nb_machines_sedated_by_inertia >= 0 && _nb_machines_sedated_for_being_idle >= 0")
					}
				}
			} else {
				in.lastAwaken = false
				in.inertialNumber = 0
			}
		} else {
			if in.integral.Cmp(in.prevIntegral) <= 0 {
				sedatable := in.awake.minus(in.toSedate)
				if !in.o.AllowFutureSwitches {
					sedatable.andNot(in.all.minus(in.isched.sl[0].avail))
				}
				nbSedatable := sedatable.size()
				if p.job != nil {
					nbSedatable = max(0, sedatable.size()-p.reserved.size())
				}
				in.inertialNumber = min(max(in.alter(in.sedatedSince.size()), 1), nbSedatable)
				if in.inertialNumber > 0 {
					steal, fresh := 0, in.inertialNumber
					if in.nbIdleSedated > 0 {
						steal = min(in.nbIdleSedated, in.inertialNumber)
						fresh = in.inertialNumber - steal
					}
					toSed := newMset(in.n)
					if fresh > 0 {
						toSed = in.selectToSedate(in.inertialNumber, sedatable, p.usableByJob, p.job)
					}
					in.nbInertiaSedated += toSed.size() + steal
					in.nbIdleSedated -= steal
					in.toSedate.or(toSed)
					if in.nbInertiaSedated+in.nbIdleSedated > in.n || in.nbIdleSedated < 0 {
						fail("_nb_machines_sedated_by_inertia + _nb_machines_sedated_for_being_idle <= _nb_machines")
					}
				}
			} else {
				in.lastAwaken = true
				in.inertialNumber = 0
			}
		}
	}
	if p.job != nil && !p.needsWake {
		a2 := in.isched.addJobFirstFit(p.job, in.sel, true)
		if !a2.inserted || p.alloc.begin.Less(a2.begin) {
			fail("Invalid energy-related decisions have been made: These decisions delayed the priority job. Starting time before:%g. Starting time after:%g", p.alloc.begin.Float(), a2.begin.Float())
		}
	}
	in.lastLLH, in.lastLLHDate = llh, date.Rat()
	in.prevIntegral, in.integral = in.integral, new(big.Rat)
	sed, aw := newMset(in.n), newMset(in.n)
	in.handleQueuedSwitches(in.isched, in.toSedate, in.toAwaken, sed, aw)
	in.toSedate.andNot(sed)
	in.toAwaken.andNot(aw)
	in.sedatedSince, in.awakenedSince = sed, aw
	in.decisionsOf(s, d, in.isched, false)
	if d.Err() != nil {
		return
	}
	in.checkAsleepSoon()
	if p.needsWake {
		in.isched.addJobFirstFit(p.job, in.sel, false)
	}
	in.updateIdleStates(date, in.isched)
	awakeSoon := in.awakeSoon()
	if in.switchingOn.empty() && in.toAwaken.empty() {
		if !in.sedateIdleNow(s, d, in.idleToSedate(date, awakeSoon, p.job)) {
			return
		}
	}
	llh = in.llh(in.isched, date)
	in.checkAsleepSoon()
	in.lastLLH, in.lastLLHDate = llh, date.Rat()
}

// sedateIdleNow plans the switch-offs of toSed (idle machines) as late as
// possible, does those that happen now and counts them as idle-sedated;
// false when a decision failed.
func (in *inertial) sedateIdleNow(s *sched.State, d *sched.Decider, toSed mset) bool {
	if toSed.empty() {
		return true
	}
	sed, aw := newMset(in.n), newMset(in.n)
	in.handleQueuedSwitches(in.isched, toSed, newMset(in.n), sed, aw)
	if !sed.inter(toSed).equal(sed) || !aw.empty() {
		fail("The sedated machines are not the expected ones. Sedated=%s. Expected=subset of %s", sed.String(), toSed.String())
	}
	in.decisionsOf(s, d, in.isched, false)
	if d.Err() != nil {
		return false
	}
	in.nbIdleSedated += sed.size()
	if in.nbIdleSedated > in.n {
		fail("_nb_machines_sedated_for_being_idle <= _nb_machines")
	}
	return true
}

// idleSleeperStage is EnergyBackfillingIdleSleeper::on_monitoring_stage:
// only the machines idle for idle_time_to_sedate are switched off.
func (in *inertial) idleSleeperStage(s *sched.State, d *sched.Decider, date xtime.Time) {
	in.updateFirstSlice(date)
	in.isched = in.sched.clone()
	in.updateIdleStates(date, in.isched)
	var prio *bjob
	if len(in.queue) > 0 {
		prio = in.queue[0]
	}
	toSed := in.idleToSedate(date, in.awakeSoon(), prio)
	if toSed.size() == 0 {
		return
	}
	in.toSedate.or(toSed)
	in.nbIdleSedated += toSed.size()
	sed, aw := newMset(in.n), newMset(in.n)
	in.handleQueuedSwitches(in.isched, in.toSedate, in.toAwaken, sed, aw)
	in.toSedate.andNot(sed)
	in.toAwaken.andNot(aw)
	in.sedatedSince, in.awakenedSince = sed, aw
	if !in.toAwaken.inter(in.toSedate).empty() {
		fail("(_machines_to_awaken & _machines_to_sedate) == IntervalSet::empty_interval_set()")
	}
	in.decisionsOf(s, d, in.isched, false)
}

// subpartStage is EnergyBackfillingMachineSubpartSleeper::on_monitoring_stage:
// every machine beyond the fraction kept on (and the priority job's) is
// switched off, then the idle ones as energy_bf_idle_sleeper does.
func (in *inertial) subpartStage(s *sched.State, d *sched.Decider, date xtime.Time) {
	in.updateFirstSlice(date)
	in.isched = in.sched.clone()
	in.checkAsleepSoon()
	if in.toSedate.size() > 0 {
		in.cancelSedations(in.toSedate.size())
		in.toSedate = newMset(in.n)
		in.checkAsleepSoon()
	}
	var prio *bjob
	if len(in.queue) > 0 {
		prio = in.queue[0]
	}
	awakeSoon := in.awakeSoon()
	keep := ratInt(new(big.Rat).Mul(in.fraction, big.NewRat(int64(in.all.size()), 1)))
	p := in.priorityStuff(in.isched)
	prio = p.job
	if !p.needsWake {
		if prio != nil {
			keep = max(keep, prio.res)
		}
		if nb := awakeSoon.size() - keep; nb > 0 {
			if in.nbIdleSedated > 0 {
				steal := min(in.nbIdleSedated, nb)
				in.nbInertiaSedated += steal
				in.nbIdleSedated -= steal
			}
			toSed := in.selectToSedate(nb, awakeSoon, p.usableByJob, prio)
			in.toSedate.or(toSed)
			in.nbInertiaSedated += toSed.size()
			sed, aw := newMset(in.n), newMset(in.n)
			in.handleQueuedSwitches(in.isched, in.toSedate, newMset(in.n), sed, aw)
			if !aw.empty() {
				fail("machines_awakened_this_turn == IntervalSet::empty_interval_set()")
			}
			in.toSedate.andNot(sed)
			if !in.toAwaken.inter(in.toSedate).empty() {
				fail("(_machines_to_awaken & _machines_to_sedate) == IntervalSet::empty_interval_set()")
			}
			in.decisionsOf(s, d, in.isched, false)
			if d.Err() != nil {
				return
			}
			in.checkAsleepSoon()
		}
		in.updateIdleStates(date, in.isched)
		awakeSoon = in.awake.union(in.switchingOn)
		awakeSoon.or(in.toAwaken)
		awakeSoon.andNot(in.toSedate)
		if in.switchingOn.empty() && in.toAwaken.empty() {
			toSed := in.idleToSedate(date, awakeSoon, prio)
			if !in.sedateIdleNow(s, d, toSed) {
				return
			}
			if toSed.size() > 0 {
				in.checkAsleepSoon()
			}
		}
	}
	if in.nbInertiaSedated > in.n-keep {
		fail("_nb_machines_sedated_by_inertia <= _nb_machines - nb_machines_to_let_awakened")
	}
	if in.nbIdleSedated > keep {
		k := in.nbIdleSedated - keep
		in.nbIdleSedated -= k
		in.nbInertiaSedated += k
	}
	if in.nbIdleSedated > keep {
		fail("_nb_machines_sedated_for_being_idle <= nb_machines_to_let_awakened")
	}
}
