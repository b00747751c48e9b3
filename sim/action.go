package sim

import (
	"cmp"
	"math"
	"slices"
)

// The ptask_L07 host model of SimGrid 3.32 (surf/ptask_L07.cpp), the model
// Batsim runs: every activity (a computation on several hosts with
// transfers between them, a communication, a sleep) is one L07 action whose
// progress rate comes from the max-min system; a transfer first waits for
// its route's latency. Time advances from one action end to the next, and
// every running action is updated by each step exactly as SimGrid updates it.

type actionState uint8

const (
	actStarted actionState = iota
	actFinished
	actFailed
	actGone // freed
)

type suspendState uint8

const (
	running suspendState = iota
	suspended
	sleeping
)

// action is an L07Action.
type action struct {
	prev, next *action // in the started list
	// seq numbers the actions in creation order; slot is the position of
	// a started sleep in the kernel's sleeps (-1 for the others).
	seq     uint64
	slot    int32
	state   actionState
	remains float64
	// maxDuration is -1 when there is none.
	maxDuration float64
	latency     float64
	susp        suspendState
	v           *lmmVar // nil for a sleep (it never consumes anything)
	vstore      lmmVar
	// bound is the rate bound of the action once its latency is paid
	// (SimGrid's update_bound: the network and CPU bounds).
	bound    float64
	hasBound bool
	owner    activity
	// hosts are the hosts whose processors the action uses (SimGrid's
	// CpuAction::cpus: a parallel task's hosts, a transfer's two ends, a
	// sleep's host), for the energy plugin's updates.
	hosts []int
	ends  [2]int32
	nends uint8
}

func (a *action) rate() float64 {
	if a.v == nil {
		return 0
	}
	return a.v.value
}

func (a *action) penalty() float64 {
	if a.v == nil {
		return 0
	}
	return a.v.penalty
}

// actionList is the started action set, in creation order.
type actionList struct {
	head, tail *action
	n          int
}

func (l *actionList) pushBack(a *action) {
	a.prev, a.next = l.tail, nil
	if l.tail != nil {
		l.tail.next = a
	} else {
		l.head = a
	}
	l.tail = a
	l.n++
}

func (l *actionList) remove(a *action) {
	if a.prev != nil {
		a.prev.next = a.next
	} else {
		l.head = a.next
	}
	if a.next != nil {
		a.next.prev = a.prev
	} else {
		l.tail = a.prev
	}
	a.prev, a.next = nil, nil
	l.n--
}

// cpu is a host's processor: a constraint of cores × speed.
type cpu struct {
	speed float64
	cnst  *lmmCnst
}

// link is a network link's constraint.
type link struct {
	latency float64
	cnst    *lmmCnst
	// seen marks the link while an action counts its distinct links, or
	// adds up its weight on the link (weight, of the current mark).
	seen   uint64
	weight float64
}

// newPtask creates an L07 action on hosts with flops[i] on host i and
// bytes[i*n+j] sent from host i to host j (flops or bytes may be nil), as
// L07Action's constructor does.
func (k *kernel) newPtask(hosts []int, flops, bytes []float64) (*action, error) {
	n := len(hosts)
	a := k.newAction()
	used := 0
	for _, f := range flops {
		if f > 0 {
			used++
		}
	}
	var routes [][]int
	var lats []float64
	nlinks := 0
	latency := 0.0
	if bytes != nil {
		routes = make([][]int, n*n)
		lats = make([]float64, n*n)
		k.linkStamp++
		for i, b := range bytes {
			if b <= 0 {
				continue
			}
			r, lat, err := k.route(hosts[i/n], hosts[i%n])
			if err != nil {
				return nil, err
			}
			routes[i], lats[i] = r, lat
			latency = math.Max(latency, lat)
			nlinks += k.markLinks(r)
		}
	}
	a.latency = latency
	a.v = &a.vstore
	k.sys.initVariable(a.v, 1.0, -1, n+nlinks)
	if latency > 0 {
		k.sys.updatePenalty(a.v, 0)
	}
	for i, h := range hosts {
		f := 0.0
		if flops != nil {
			f = flops[i]
		}
		k.sys.expand(k.cpus[h].cnst, a.v, f, true)
	}
	if bytes != nil {
		k.expandLinks(a.v, bytes, routes)
	}
	if nlinks+used == 0 {
		a.remains = 0
	}
	// The bound: the network bound (TCP window over the worst latency
	// times the bytes) and the CPU bound (the slowest host's speed over
	// its flops).
	latCurrent := 0.0
	for i, b := range bytes {
		if b > 0 {
			latCurrent = math.Max(latCurrent, lats[i]*b)
		}
	}
	netBound := math.MaxFloat64
	if latCurrent > 0 {
		netBound = tcpGamma / (2.0 * latCurrent)
	}
	cpuBound := math.MaxFloat64
	for i, f := range flops {
		if f > 0 {
			cpuBound = math.Min(cpuBound, k.cpus[hosts[i]].speed/f)
		}
	}
	a.bound = math.Min(netBound, cpuBound)
	a.hasBound = a.bound < math.MaxFloat64
	a.hosts = hosts
	k.applyBound(a)
	k.started.pushBack(a)
	return a, nil
}

// expandLinks adds to v an element on each link of the routes of the
// positive bytes, of weight the sum of those bytes over the routes through
// the link (their maximum on a fatpipe), in the order of the links' first
// appearance: what expanding each (link, bytes) in turn without force
// gives, as SimGrid's expand_add does, but with one element lookup per
// link rather than a scan of v's elements per (link, bytes), which made a
// parallel task quadratic in its elements (seconds for one task of a
// hundred hosts over a multi-hop network). The sums are taken in the same
// order, so they are the same numbers.
func (k *kernel) expandLinks(v *lmmVar, bytes []float64, routes [][]int) {
	k.linkStamp++
	order := k.linkOrder[:0]
	for i, b := range bytes {
		if b <= 0 {
			continue
		}
		for _, l := range routes[i] {
			lk := &k.links[l]
			switch {
			case lk.seen != k.linkStamp:
				lk.seen, lk.weight = k.linkStamp, b
				order = append(order, l)
			case lk.cnst.fatpipe:
				lk.weight = math.Max(lk.weight, b)
			default:
				lk.weight += b
			}
		}
	}
	for _, l := range order {
		k.sys.expand(k.links[l].cnst, v, k.links[l].weight, true)
	}
	k.linkOrder = order
}

// markLinks marks the links of route as seen under the current linkStamp
// and returns how many of them were not seen yet: the distinct links of a
// new action, counted across its routes.
func (k *kernel) markLinks(route []int) int {
	n := 0
	for _, l := range route {
		if k.links[l].seen != k.linkStamp {
			k.links[l].seen = k.linkStamp
			n++
		}
	}
	return n
}

// newComm is NetworkL07Model::communicate: a transfer of size bytes from
// host src to host dst, the L07 action of a two-host parallel task that
// computes nothing (newPtask specialised for that case).
func (k *kernel) newComm(src, dst int, size float64) (*action, error) {
	a := k.newAction()
	var route []int
	lat := 0.0
	nlinks := 0
	if size > 0 {
		var err error
		if route, lat, err = k.route(src, dst); err != nil {
			return nil, err
		}
		k.linkStamp++
		nlinks = k.markLinks(route)
	}
	a.latency = lat
	a.v = &a.vstore
	k.sys.initVariable(a.v, 1.0, -1, nlinks)
	if lat > 0 {
		k.sys.updatePenalty(a.v, 0)
	}
	for _, l := range route {
		k.sys.expand(k.links[l].cnst, a.v, size, false)
	}
	if nlinks == 0 {
		a.remains = 0
	}
	a.bound = math.MaxFloat64
	if lc := lat * size; size > 0 && lc > 0 {
		a.bound = tcpGamma / (2.0 * lc)
	}
	a.hasBound = a.bound < math.MaxFloat64
	a.ends, a.nends = [2]int32{int32(src), int32(dst)}, 2
	k.applyBound(a)
	k.started.pushBack(a)
	return a, nil
}

// applyBound is update_bound: once the latency is paid, the variable gets
// the action's bound.
func (k *kernel) applyBound(a *action) {
	if a.hasBound && a.latency <= 0 {
		k.sys.updateBound(a.v, a.bound)
	}
}

// newSleep is CpuL07::sleep: an action that only ends when its maximum
// duration has elapsed (-1: never). It consumes nothing, so it has no
// variable.
func (k *kernel) newSleep(duration float64) *action {
	a := k.newAction()
	a.maxDuration, a.susp = duration, sleeping
	a.slot = int32(len(k.sleeps))
	k.sleeps = append(k.sleeps, a)
	k.sleepDur = append(k.sleepDur, duration)
	return a
}

// unstart removes a started action from the started ones.
func (k *kernel) unstart(a *action) {
	if a.slot < 0 {
		k.started.remove(a)
		return
	}
	i, last := a.slot, int32(len(k.sleeps)-1)
	a.maxDuration = k.sleepDur[i]
	if i != last {
		m := k.sleeps[last]
		k.sleeps[i], k.sleepDur[i] = m, k.sleepDur[last]
		m.slot = i
	}
	k.sleeps[last] = nil
	k.sleeps, k.sleepDur = k.sleeps[:last], k.sleepDur[:last]
	a.slot = -1
}

// newAction returns a new started action (remains 1, no maximum
// duration), reusing one that ended if there is one. Its variable's
// element storage is kept for the next variable.
func (k *kernel) newAction() *action {
	k.actionSeq++
	a := popFree(&k.freeActions)
	if a == nil {
		return &action{remains: 1.0, maxDuration: -1, seq: k.actionSeq, slot: -1}
	}
	v := a.vstore
	*a = action{remains: 1.0, maxDuration: -1, seq: k.actionSeq, slot: -1}
	a.vstore.elems, a.vstore.store = v.elems[:0], v.store[:0]
	return a
}

// finish moves a started action to the finished (or failed) set.
func (k *kernel) finishAction(a *action, st actionState) {
	if a.state != actStarted {
		return
	}
	k.unstart(a)
	a.state = st
	if k.onActionEnd != nil {
		k.onActionEnd(a)
	}
	if st == actFinished {
		a.remains = 0
		k.done = append(k.done, a)
	} else {
		k.failed = append(k.failed, a)
	}
}

// cancelAction is Action::cancel: the action fails.
func (k *kernel) cancelAction(a *action) {
	switch a.state {
	case actStarted:
		k.finishAction(a, actFailed)
	case actFinished:
		// from the finished to the failed set (handleEnded skips it in
		// the former)
		a.state = actFailed
		k.failed = append(k.failed, a)
	}
}

// freeAction destroys an action (its variable leaves the system).
func (k *kernel) freeAction(a *action) {
	if a == nil || a.state == actGone {
		return
	}
	if a.state == actStarted {
		k.unstart(a)
	}
	a.state = actGone
	if a.v != nil {
		k.sys.freeVariable(a.v)
		a.v = nil
	}
}

// dropAction frees an action nothing refers to any more (an execution's
// timeout when the execution ends) and has it reused as a posted one is,
// once the ended actions are handled (it may still be in their lists).
// Without it every job's timeout was left to the collector.
func (k *kernel) dropAction(a *action) {
	if a == nil || a.state == actGone {
		return
	}
	k.freeAction(a)
	a.owner = nil
	k.posted = append(k.posted, a)
}

// nextEvent is HostL07Model::next_occurring_event: the time until the next
// action end or latency end, -1 when nothing will ever happen.
func (k *kernel) nextEvent() float64 {
	k.sys.solve()
	// One pass for the three kinds of dates SimGrid takes the minimum of
	// (action ends, maximum durations, then latencies in a second pass):
	// the minimum does not depend on the order it is taken in.
	min := -1.0
	for a := k.started.head; a != nil; a = a.next {
		if a.v != nil {
			if r := a.v.value; r > 0 {
				value := 0.0
				if a.remains > 0 {
					value = a.remains / r
				}
				if min < 0 || value < min {
					min = value
				}
			}
		}
		if a.maxDuration >= 0 && (min < 0 || a.maxDuration < min) {
			min = a.maxDuration
		}
		if a.latency > 0 && (min < 0 || a.latency < min) {
			min = a.latency
		}
	}
	for _, d := range k.sleepDur {
		if d >= 0 && (min < 0 || d < min) {
			min = d
		}
	}
	return min
}

// updateActions is HostL07Model::update_actions_state after a step delta.
// Sleeps, which only count their maximum duration down, are kept apart
// (sleeps, sleepDur) and updated in one loop over their durations; the
// actions that end are finished in creation order, as SimGrid's list of
// started actions finishes them.
func (k *kernel) updateActions(delta float64) {
	ended := k.endedScratch[:0]
	for a := k.started.head; a != nil; a = a.next {
		if a.latency > 0 {
			if a.latency > delta {
				doubleUpdate(&a.latency, delta, surfPrecision)
			} else {
				a.latency = 0
			}
			if a.latency <= 0 && a.susp == running {
				k.applyBound(a)
				k.sys.updatePenalty(a.v, 1.0)
			}
		}
		doubleUpdate(&a.remains, a.rate()*delta, maxminPrecision*surfPrecision)
		if a.maxDuration != -1 {
			doubleUpdate(&a.maxDuration, delta, surfPrecision)
		}
		if (a.remains <= 0 && a.penalty() > 0) || (a.maxDuration != -1 && a.maxDuration <= 0) {
			ended = append(ended, a)
		}
	}
	others := len(ended)
	for i := range k.sleepDur {
		if d := &k.sleepDur[i]; *d != -1 {
			doubleUpdate(d, delta, surfPrecision)
			if *d <= 0 {
				ended = append(ended, k.sleeps[i])
			}
		}
	}
	if len(ended) > others && len(ended) > 1 {
		// Sleeps are in no particular order among themselves.
		slices.SortFunc(ended, func(a, b *action) int { return cmp.Compare(a.seq, b.seq) })
	}
	for i, a := range ended {
		k.finishAction(a, actFinished)
		ended[i] = nil
	}
	k.endedScratch = ended[:0]
}
