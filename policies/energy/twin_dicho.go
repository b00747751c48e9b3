package energy

import (
	"math/big"

	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sched/xtime"
)

// dicho is EnergyBackfillingDichotomy (energy_bf_dicho): the number of
// machines to switch off (or on) now is searched by dichotomy, each
// candidate schedule (every waiting job put in first fit) kept when its
// mean slowdown stays within tolerated_slowdown_loss_ratio of the schedule
// with every machine on and its estimated energy is the lowest so far.
type dicho struct {
	energyBF
	ratio *big.Rat
}

func newDicho(o *TwinOptions) *dicho {
	return &dicho{energyBF: energyBF{o: o}, ratio: rat(o.ToleratedSlowdownLossRatio)}
}

func (dc *dicho) decide(s *sched.State, d *sched.Decider, date xtime.Time) {
	dc.removeEnded()
	dc.queueReleased(s, d)
	dc.updateFirstSlice(date)
	first := &dc.sched.sl[0]
	sleeping := sleepingIn(first, dc.n)
	awakenable := potentiallyAwaken(first, dc.n)
	available := first.avail.clone()

	awakened := dc.sched.clone()
	for _, m := range sleeping.elements() {
		if dc.o.ComparisonSwitchOn {
			dc.awaken(awakened, m, findEarliestMomentToAwaken(awakened, msetOf(dc.n, m), dc.n))
			continue
		}
		mi := dc.minfo[m]
		for awakened.removeJobIfExists(mi.esleep) {
		}
		for awakened.removeJobIfExists(mi.psleep) {
		}
	}
	dc.putJobs(awakened)
	online := dc.sched.clone()
	dc.putJobs(online)
	bound := new(big.Rat).Mul(meanSlowdown(awakened), dc.ratio)

	best := online
	bestNb := 0
	if meanSlowdown(online).Cmp(bound) <= 0 {
		// Switch machines off: how many of the available ones?
		lo, hi := 1, available.size()
		for lo < hi {
			nb := (lo + hi) / 2
			sc := dc.sched.clone()
			for _, m := range available.left(nb).elements() {
				dc.sedate(sc, m, 0, true)
			}
			dc.putJobs(sc)
			if meanSlowdown(sc).Cmp(bound) > 0 {
				hi = nb - 1
				continue
			}
			if e, be := dc.energies(sc, best); e.Cmp(be) < 0 || (e.Cmp(be) == 0 && nb > bestNb) {
				best, bestNb = sc, nb
			}
			lo = nb + 1
		}
	} else {
		// Switch machines on: how many of the sleeping ones that may be?
		lo, hi := 1, awakenable.size()
		for lo < hi {
			nb := (lo + hi) / 2
			sc := dc.sched.clone()
			for _, m := range awakenable.left(nb).elements() {
				dc.awaken(sc, m, findEarliestMomentToAwaken(sc, msetOf(dc.n, m), dc.n))
			}
			dc.putJobs(sc)
			if meanSlowdown(sc).Cmp(bound) > 0 {
				lo = nb + 1
				continue
			}
			if e, be := dc.energies(sc, best); e.Cmp(be) < 0 || (e.Cmp(be) == 0 && nb < bestNb) {
				best, bestNb = sc, nb
			}
			hi = nb - 1
		}
	}
	dc.decisionsOf(s, d, best, true)
}

// energies estimates the energy of sc and best up to the later of their
// finite horizons.
func (dc *dicho) energies(sc, best *schedule) (e, bestE *big.Rat) {
	h := best.finiteHorizon()
	if h.Less(sc.finiteHorizon()) {
		h = sc.finiteHorizon()
	}
	return dc.energy(sc, h), dc.energy(best, h)
}

// energy is estimate_energy_of_schedule: each slice's length (up to
// horizon) times the power of what its machines do.
func (dc *dicho) energy(sc *schedule, horizon xtime.Time) *big.Rat {
	if !horizon.Less(sc.infiniteHorizon()) {
		fail("horizon < schedule.infinite_horizon()")
	}
	e := new(big.Rat)
	for i := 0; i < len(sc.sl) && sc.sl[i].begin.Less(horizon); i++ {
		sl := &sc.sl[i]
		length := sl.length
		if horizon.Less(sl.end) {
			length = horizon.Sub(sl.begin)
		}
		l := length.Rat()
		idle := dc.all.clone()
		for _, sj := range sl.jobs {
			idle.andNot(sj.m)
			p := new(big.Rat)
			for _, m := range sj.m.elements() {
				mi := dc.minfo[m]
				switch sj.j.kind {
				case switchOn:
					p.Add(p, mi.switchOnPower)
				case switchOff:
					p.Add(p, mi.switchOffPow)
				case ensured, potential:
					p.Add(p, mi.sleepP)
				default:
					p.Add(p, mi.compute)
				}
			}
			e.Add(e, p.Mul(p, l))
		}
		for _, m := range idle.elements() {
			e.Add(e, new(big.Rat).Mul(dc.minfo[m].idle, l))
		}
	}
	return e
}

// meanSlowdown is compute_metrics_of_schedule's mean slowdown: each real
// job's (end − submission) / (end − start), from its first and last slices.
func meanSlowdown(sc *schedule) *big.Rat {
	type info struct {
		start *big.Rat
		done  bool
	}
	jobs := map[*bjob]*info{}
	for i := range sc.sl {
		for _, sj := range sc.sl[i].jobs {
			if !sj.j.fake() && jobs[sj.j] == nil {
				jobs[sj.j] = &info{start: sc.sl[i].begin.Rat()}
			}
		}
	}
	sum := new(big.Rat)
	for i := len(sc.sl) - 1; i >= 0; i-- {
		for _, sj := range sc.sl[i].jobs {
			in := jobs[sj.j]
			if sj.j.fake() || in.done {
				continue
			}
			in.done = true
			end := sc.sl[i].end.Rat()
			turnaround := new(big.Rat).Sub(end, new(big.Rat).SetFloat64(sj.j.submit))
			sum.Add(sum, turnaround.Quo(turnaround, new(big.Rat).Sub(end, in.start)))
		}
	}
	if len(jobs) > 0 {
		sum.Quo(sum, big.NewRat(int64(len(jobs)), 1))
	}
	return sum
}
