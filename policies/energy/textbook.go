package energy

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sched/profile"
	"github.com/bucma-sched/bucma/sched/xtime"
)

// Backfill is textbook energy-aware EASY backfilling (the energy policy).
//
// Starts are EASY's over the hosts that are on: jobs start in arrival
// order while they fit on free hosts; the first that does not (the head)
// gets a reservation, and later jobs start now if they fit and either end
// by its start or use only hosts it does not need. The reservation counts
// every host with the date it can take a job: a free host now, a busy one
// at its job's start + walltime, a host switching on when the switch ends,
// a sleeping one after min-sleep (counted from its switch-off) and
// SwitchOn, one switching off after SwitchOff, min-sleep and SwitchOn. The
// head starts at the earliest date its hosts are ready (hosts that are on
// preferred at equal dates), and a sleeping host it needs is switched on
// SwitchOn before that date: at once when the date is as early as it can
// be, later (a CALL_ME_LATER) when busy hosts make the head wait anyway.
// A later job that cannot start on the hosts that are on wakes sleeping
// hosts if, counted from when they are on, it ends by the reserved start,
// or else uses only hosts the reservation does not take; it starts when
// they are on. With WakeNeeded, sleeping hosts count only when the hosts
// that are on are too few for the job (the head or a later one).
//
// With Conservative, the starts are conservative backfilling's over the
// same ready dates instead (see conservative): every waiting job is
// planned, and the sleeping hosts of each plan are switched on SwitchOn
// before its start.
//
// Idle hosts are switched off (their first sleep pstate; a host without
// one stays on) when idle for IdleOff seconds, and, with a monitoring
// Period, by inertial shutdown: at each stage the integral of the queue's
// liquid load horizon over the last period is compared with the previous
// one's; while it grows, hosts are switched on, while it does not, idle
// hosts are switched off, and the number switched grows by Inertia from
// one stage to the next (it falls back to one when the direction changes,
// after one stage without switches). A host a reservation needs stays on
// unless it could be switched off and back by the reserved start.
// At least KeepAwake·hosts (truncated) hosts stay on or switching on.
type Backfill struct {
	// Hosts picks the hosts of a starting job among the free ones.
	Hosts sched.HostSelector
	// IdleOff is how long a host stays idle before it is switched off
	// (+Inf: never).
	IdleOff float64
	// KeepAwake is the fraction of the hosts never switched off.
	KeepAwake float64
	// Period is the time between two monitoring stages of inertial
	// shutdown (0: no inertial shutdown).
	Period float64
	// Inertia is how the number of hosts switched at a monitoring stage
	// follows the previous stage's.
	Inertia Inertia
	// SwitchOn and SwitchOff are the durations of the switches (seconds).
	SwitchOn, SwitchOff float64
	// MinSleep is the least time a host sleeps once asleep.
	MinSleep float64
	// WakeNeeded wakes sleeping hosts only when the hosts that are on are
	// too few for the head job (by default, also when waking them lets it
	// start earlier).
	WakeNeeded bool
	// Conservative plans with conservative backfilling instead of EASY
	// (see Backfill's doc).
	Conservative bool

	hosts   []hostInfo
	pending []float64 // CALL_ME_LATER targets asked and not reached

	// reservation of the head job (after the starts)
	resAt    float64   // +Inf: none
	reserved []bool    // by host
	promised []bool    // by host: taken by a later job waiting for hosts to wake
	neededAt []float64 // by host: the earliest reserved start that takes it (+Inf: none)

	// inertial shutdown
	started     bool // monitoring stages started (a job was submitted)
	nextStage   float64
	lastLLH     float64
	lastLLHAt   float64
	integral    float64 // of the liquid load horizon since the last stage
	prevInteg   float64
	firstStage  bool
	waking      bool // mode: switching hosts on (else off)
	lastSwitchd int  // hosts switched at the last stage

	// scratch
	order []int
	avail []float64
}

// hostInfo is what the policy remembers of a host.
type hostInfo struct {
	idleSince float64 // when it became idle and on (NaN: not idle and on)
	offAt     float64 // when its switch-off was asked
	asleepAt  float64 // when it was first seen asleep (NaN: not asleep)
	onAt      float64 // when its switch-on was asked
	wakeTo    int     // pstate to wake it to
}

// Inertia is how many hosts a monitoring stage switches from the previous
// stage's count n: n·N (product) or n+N (sum), at least one.
type Inertia struct {
	Sum bool
	N   float64
}

// Next is the number of hosts to switch after a stage that switched n.
func (in Inertia) Next(n int) int {
	var k float64
	if in.Sum {
		k = float64(n) + in.N
	} else {
		k = float64(n) * in.N
	}
	return max(int(k), 1)
}

// ParseInertia reads "xN" (product, "x2" doubles) or "+N" ("pN", sum).
func ParseInertia(s string) (Inertia, error) {
	s = strings.TrimSpace(s)
	if len(s) < 2 {
		return Inertia{}, fmt.Errorf("inertia %q: want xN (product) or +N (sum)", s)
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(s[1:]), 64)
	if err != nil || n < 0 || math.IsInf(n, 0) {
		return Inertia{}, fmt.Errorf("inertia %q: %q is not a non-negative number", s, s[1:])
	}
	switch s[0] {
	case 'x':
		return Inertia{N: n}, nil
	case '+', 'p':
		return Inertia{Sum: true, N: n}, nil
	}
	return Inertia{}, fmt.Errorf("inertia %q: want xN (product) or +N (sum)", s)
}

func (b *Backfill) init(s *sched.State) {
	n := s.NbHosts()
	b.hosts = make([]hostInfo, n)
	for i := range b.hosts {
		b.hosts[i] = hostInfo{idleSince: math.NaN(), asleepAt: math.NaN()}
	}
	b.reserved = make([]bool, n)
	b.promised = make([]bool, n)
	b.neededAt = make([]float64, n)
	b.firstStage = true
	b.waking = true
}

// Decide implements sched.Policy.
func (b *Backfill) Decide(s *sched.State, d *sched.Decider) {
	if b.hosts == nil {
		b.init(s)
	}
	now := s.Now()
	b.observe(s)
	b.pending = slices.DeleteFunc(b.pending, func(t float64) bool { return t <= now })

	clear(b.promised)
	for i := range b.neededAt {
		b.neededAt[i] = math.Inf(1)
	}
	var next float64
	if b.Conservative {
		next = b.conservative(s, d)
	} else {
		b.start(s, d)
		if d.Err() != nil {
			return
		}
		next = b.reserve(s, d)
	}
	if d.Err() != nil {
		return
	}

	if b.Period > 0 {
		if !b.started && (s.NbWaiting() > 0 || len(s.Running()) > 0) {
			b.started = true
			b.nextStage = now + b.Period
			b.lastLLH, b.lastLLHAt = b.llh(s), now
		}
		if b.started {
			b.integrate(s)
			if now >= b.nextStage {
				b.stage(s, d)
				b.nextStage = now + b.Period
			}
			next = min(next, b.nextStage)
		}
	}
	if t := b.idleOff(s, d); t < next {
		next = t
	}
	b.observe(s)
	if !math.IsInf(next, 1) && (s.NbWaiting() > 0 || len(s.Running()) > 0 || !s.NoMoreStaticJobs()) {
		b.callAt(s, d, next)
	}
}

// observe updates what the policy knows of each host from the state.
func (b *Backfill) observe(s *sched.State) {
	now := s.Now()
	for i := range b.hosts {
		h, hi := s.Host(i), &b.hosts[i]
		if h.Power() == sched.PowerOn && h.Idle() && !h.Unavailable() {
			if math.IsNaN(hi.idleSince) {
				hi.idleSince = now
			}
		} else {
			hi.idleSince = math.NaN()
		}
		if h.Power() == sched.PowerSleeping {
			if math.IsNaN(hi.asleepAt) {
				hi.asleepAt = now
			}
		} else {
			hi.asleepAt = math.NaN()
		}
	}
}

// start starts the jobs that fit in arrival order, then backfills behind
// the head's reservation.
func (b *Backfill) start(s *sched.State, d *sched.Decider) {
	q := s.Waiting()
	i := 0
	for ; i < len(q); i++ {
		j := q[i]
		if !j.Waiting() {
			continue
		}
		if j.Res() > s.NbFree() {
			break
		}
		if !d.Start(j, b.Hosts.Select(s, j, j.Res())) {
			return
		}
	}
	if i == len(q) {
		return
	}
	at, extra := b.reservation(s, q[i].Res())
	sched.Backfill(s, q[i+1:], at, extra, b.Hosts, d)
	if d.Err() != nil {
		return
	}
	at, extra = b.reservation(s, q[i].Res())
	b.wakeForBackfill(s, d, i+1, at, extra)
}

// wakeForBackfill switches on sleeping hosts for the later jobs that could
// not start on the hosts that are on: in queue order, a job gets the hosts
// ready soonest (free ones, then those switching on, then sleeping ones,
// ready SwitchOn from now) if it ends by the reserved start (at), or else
// the hosts the reservation does not take if it uses only extra hosts; the
// sleeping ones among them are switched on now, and the job starts when
// they are on. With WakeNeeded a job wakes hosts only when the hosts that
// are on are too few for it.
//
// The jobs are those of the waiting queue from index from on; only those
// that fit in the hosts still to give are visited (State.NextWaiting).
func (b *Backfill) wakeForBackfill(s *sched.State, d *sched.Decider, from int, at float64, extra int) {
	now := s.Now()
	var hosts []soonHost
	for i := range s.NbHosts() {
		h := s.Host(i)
		if h.Unavailable() {
			continue
		}
		switch h.Power() {
		case sched.PowerOn:
			if h.Free() {
				hosts = append(hosts, soonHost{i, now, false})
			}
		case sched.PowerSwitchingOn:
			hosts = append(hosts, soonHost{i, math.Max(now, b.hosts[i].onAt+b.SwitchOn), false})
		case sched.PowerSleeping:
			if b.wakeable(s, i) <= now {
				hosts = append(hosts, soonHost{i, now + b.SwitchOn, true})
			}
		}
	}
	slices.SortStableFunc(hosts, func(x, y soonHost) int { return cmp.Compare(x.ready, y.ready) })
	awakeN := awake(s)
	for k := s.NextWaiting(from, len(hosts)); k >= 0; k = s.NextWaiting(k+1, len(hosts)) {
		j := s.Waiting()[k]
		if !slices.ContainsFunc(hosts, func(x soonHost) bool { return x.sleep }) {
			return
		}
		if !j.Waiting() || j.Res() > len(hosts) || (b.WakeNeeded && awakeN >= j.Res()) {
			continue
		}
		take := hosts[:j.Res()]
		if take[len(take)-1].ready+j.WalltimeOrInf() > at {
			// It would run past the reserved start: extra hosts only.
			if j.Res() > extra {
				continue
			}
			take = nil
			for _, x := range hosts {
				if len(take) < j.Res() && !b.reserved[x.host] {
					take = append(take, x)
				}
			}
			if len(take) < j.Res() {
				continue
			}
			extra -= j.Res()
		}
		by := map[int][]int{}
		for _, x := range take {
			b.promised[x.host] = true
			if x.sleep {
				by[b.hosts[x.host].wakeTo] = append(by[b.hosts[x.host].wakeTo], x.host)
			}
		}
		for _, ps := range slices.Sorted(maps.Keys(by)) {
			slices.Sort(by[ps])
			b.switchOn(s, d, by[ps], ps)
		}
		if d.Err() != nil {
			return
		}
		hosts = slices.DeleteFunc(hosts, func(x soonHost) bool { return b.promised[x.host] })
	}
}

// soonHost is a host that can take a job at ready (sleep: once switched
// on).
type soonHost struct {
	host  int
	ready float64
	sleep bool
}

// ready is the date host i can take a job, and whether it is on or
// switching on.
func (b *Backfill) ready(s *sched.State, i int) (at float64, awake bool) {
	now := s.Now()
	h, hi := s.Host(i), &b.hosts[i]
	if h.Unavailable() {
		return math.Inf(1), false
	}
	switch h.Power() {
	case sched.PowerOn:
		at = now
		for _, j := range h.Jobs() {
			at = math.Max(at, j.ExpectedEnd())
		}
		return at, true
	case sched.PowerSwitchingOn:
		return math.Max(now, hi.onAt+b.SwitchOn), true
	case sched.PowerSleeping:
		return b.wakeable(s, i) + b.SwitchOn, false
	}
	// Switching off.
	asleep := math.Max(now, hi.offAt+b.SwitchOff)
	return math.Max(now, asleep+b.MinSleep) + b.SwitchOn, false
}

// wakeable is the earliest date sleeping host i may be switched on.
func (b *Backfill) wakeable(s *sched.State, i int) float64 {
	t := s.Now()
	if a := b.hosts[i].asleepAt; !math.IsNaN(a) {
		t = math.Max(t, a+b.MinSleep)
	}
	return t
}

// reservation computes the head job's reservation for need hosts: the
// date (+Inf when the hosts can never be gathered), the hosts beyond need
// ready by then, and which hosts it takes (b.reserved, b.order[:need]).
func (b *Backfill) reservation(s *sched.State, need int) (at float64, extra int) {
	n := s.NbHosts()
	b.order, b.avail = b.order[:0], b.avail[:0]
	awakeN := 0
	isAwake := make([]bool, n)
	for i := 0; i < n; i++ {
		t, aw := b.ready(s, i)
		b.avail = append(b.avail, t)
		b.order = append(b.order, i)
		isAwake[i] = aw
		if aw && !math.IsInf(t, 1) {
			awakeN++
		}
	}
	if b.WakeNeeded && awakeN >= need {
		for i := 0; i < n; i++ {
			if !isAwake[i] {
				b.avail[i] = math.Inf(1)
			}
		}
	}
	slices.SortFunc(b.order, func(x, y int) int {
		if c := cmp.Compare(b.avail[x], b.avail[y]); c != 0 {
			return c
		}
		if b.promised[x] != b.promised[y] {
			// Hosts woken for a later job come last.
			if b.promised[y] {
				return -1
			}
			return 1
		}
		if isAwake[x] != isAwake[y] {
			if isAwake[x] {
				return -1
			}
			return 1
		}
		return x - y
	})
	clear(b.reserved)
	if need > n || need <= 0 || math.IsInf(b.avail[b.order[need-1]], 1) {
		return math.Inf(1), 0
	}
	at = b.avail[b.order[need-1]]
	for _, i := range b.order {
		if b.avail[i] <= at {
			extra++
		}
	}
	for _, i := range b.order[:need] {
		b.reserved[i] = true
	}
	return at, extra - need
}

// reserve places the head job (the first waiting job, which could not
// start) and wakes the sleeping hosts its reservation takes, each
// SwitchOn before the reserved start. It returns when it must decide again
// (a later wake-up; +Inf when none).
func (b *Backfill) reserve(s *sched.State, d *sched.Decider) float64 {
	b.resAt = math.Inf(1)
	clear(b.reserved)
	var head *sched.Job
	for _, j := range s.Waiting() {
		if j.Waiting() {
			head = j
			break
		}
	}
	if head == nil {
		return math.Inf(1)
	}
	at, _ := b.reservation(s, head.Res())
	b.resAt = at
	if math.IsInf(at, 1) {
		return at
	}
	return b.wakeFor(s, d, b.order[:head.Res()], at)
}

// wakeFor switches on the sleeping hosts among hosts, which a job is
// planned to start on at at, SwitchOn before at (at once when that is
// now or past); it returns the earliest later wake-up (+Inf: none).
func (b *Backfill) wakeFor(s *sched.State, d *sched.Decider, hosts []int, at float64) float64 {
	next := math.Inf(1)
	now := s.Now()
	var wake map[int][]int // by pstate
	for _, i := range hosts {
		b.neededAt[i] = math.Min(b.neededAt[i], at)
		if s.Host(i).Power() != sched.PowerSleeping {
			continue
		}
		t := math.Max(b.wakeable(s, i), at-b.SwitchOn)
		if t-now >= batsim.MinCallMeLaterDelay {
			next = min(next, t)
			continue
		}
		if wake == nil {
			wake = map[int][]int{}
		}
		wake[b.hosts[i].wakeTo] = append(wake[b.hosts[i].wakeTo], i)
	}
	for _, ps := range slices.Sorted(maps.Keys(wake)) {
		b.switchOn(s, d, wake[ps], ps)
	}
	return next
}

// conservative is conservative backfilling over the hosts' ready dates:
// every waiting job, in arrival order, is planned at the earliest date
// where enough hosts are free for its whole walltime, given the running
// jobs, the hosts' switches (as reservation counts them) and the jobs
// planned before it, on hosts that are on first; it starts when that date
// is now and its hosts are on, and the sleeping hosts it is planned on are
// switched on SwitchOn before. The plan is made again at each decision
// (the reservations of Mu'alem and Feitelson, compressed whenever jobs end
// early). It returns the earliest later wake-up (+Inf: none).
func (b *Backfill) conservative(s *sched.State, d *sched.Decider) float64 {
	n := s.NbHosts()
	now := xtime.Of(s.Now())
	p := profile.NewWithHosts(n, now, xtime.Inf)
	awake := make([]bool, n)
	for i := range n {
		t, aw := b.ready(s, i)
		awake[i] = aw
		if rt := xtime.Of(t); now.Less(rt) {
			p.ReserveHosts(now, rt, profile.HostsOf(n, i))
		}
	}
	pick := func(free profile.Hosts, k int, dst []int) ([]int, bool) {
		for _, on := range []bool{true, false} {
			for i := 0; i < n && k > 0; i++ {
				if awake[i] == on && free.Has(i) {
					dst = append(dst, i)
					k--
				}
			}
		}
		return dst, k == 0
	}
	next := math.Inf(1)
	var buf []int
	for _, j := range s.Waiting() {
		if !j.Waiting() || j.Refused() {
			continue
		}
		dur := xtime.Inf
		if j.HasWalltime() {
			dur = xtime.Of(j.Walltime())
		}
		at, hosts, ok := p.EarliestFitHosts(now, dur, j.Res(), pick, buf[:0])
		if !ok {
			continue
		}
		hosts = slices.Clone(hosts)
		slices.Sort(hosts)
		p.ReserveHosts(at, at.Add(dur), profile.HostsOf(n, hosts...))
		if at == now && slices.IndexFunc(hosts, func(i int) bool { return !s.Host(i).Free() }) < 0 {
			if !d.Start(j, hosts) {
				return next
			}
			continue
		}
		next = min(next, b.wakeFor(s, d, hosts, at.Float()))
		if d.Err() != nil {
			return next
		}
	}
	return next
}

// switchOn wakes hosts to pstate ps.
func (b *Backfill) switchOn(s *sched.State, d *sched.Decider, hosts []int, ps int) {
	if len(hosts) == 0 || !d.SetPState(hosts, ps) {
		return
	}
	for _, i := range hosts {
		b.hosts[i].onAt = s.Now()
	}
}

// switchOff puts hosts to sleep, each in its first sleep pstate.
func (b *Backfill) switchOff(s *sched.State, d *sched.Decider, hosts []int) {
	by := map[int][]int{}
	for _, i := range hosts {
		ps := s.Host(i).SleepPStates()
		if len(ps) == 0 {
			continue
		}
		by[ps[0]] = append(by[ps[0]], i)
	}
	for _, ps := range slices.Sorted(maps.Keys(by)) {
		hs := by[ps]
		wake := make([]int, len(hs))
		for k, i := range hs {
			wake[k] = s.Host(i).PState()
		}
		if !d.SetPState(hs, ps) {
			return
		}
		for k, i := range hs {
			b.hosts[i].offAt = s.Now()
			b.hosts[i].wakeTo = wake[k]
		}
	}
}

// awake counts the hosts on or switching on.
func awake(s *sched.State) int {
	n := 0
	for i := range s.NbHosts() {
		if h := s.Host(i); !h.Unavailable() && (h.Power() == sched.PowerOn || h.Power() == sched.PowerSwitchingOn) {
			n++
		}
	}
	return n
}

// floor is the number of hosts KeepAwake keeps on.
func (b *Backfill) floor(s *sched.State) int {
	return int(b.KeepAwake * float64(s.NbHosts()))
}

// sedatable lists the idle hosts that may be switched off now, longest
// idle first (then by id): on, idle, with a sleep pstate, and not needed
// by the reservation unless they can be back by its start.
func (b *Backfill) sedatable(s *sched.State) []int {
	now := s.Now()
	var out []int
	for i := range s.NbHosts() {
		h := s.Host(i)
		if h.Power() != sched.PowerOn || !h.Idle() || h.Unavailable() || len(h.SleepPStates()) == 0 {
			continue
		}
		if b.promised[i] || now+b.SwitchOff+b.MinSleep+b.SwitchOn > b.neededAt[i] {
			continue
		}
		out = append(out, i)
	}
	slices.SortStableFunc(out, func(x, y int) int { return cmp.Compare(b.hosts[x].idleSince, b.hosts[y].idleSince) })
	return out
}

// idleOff switches off the hosts idle for IdleOff seconds, and returns
// when the next one will be.
func (b *Backfill) idleOff(s *sched.State, d *sched.Decider) float64 {
	if math.IsInf(b.IdleOff, 1) {
		return math.Inf(1)
	}
	now := s.Now()
	room := awake(s) - b.floor(s)
	next := math.Inf(1)
	var off []int
	for _, i := range b.sedatable(s) {
		if room <= 0 {
			break
		}
		if t := b.hosts[i].idleSince + b.IdleOff; t-now >= batsim.MinCallMeLaterDelay {
			next = min(next, t)
			continue
		}
		off = append(off, i)
		room--
	}
	b.switchOff(s, d, off)
	return next
}

// llh is the liquid load horizon: how long the hosts that are on (or
// switching on) take to compute the waiting jobs' area (hosts × walltime;
// jobs without walltime are left out) poured as a liquid into the time
// they are free, from now. It is capped at maxLLH (no host on).
func (b *Backfill) llh(s *sched.State) float64 {
	load := 0.0
	for _, j := range s.Waiting() {
		if j.Waiting() && j.HasWalltime() {
			load += float64(j.Res()) * j.Walltime()
		}
	}
	if load == 0 {
		return 0
	}
	now := s.Now()
	var ready []float64
	for i := range s.NbHosts() {
		if t, aw := b.ready(s, i); aw && !math.IsInf(t, 1) {
			ready = append(ready, t)
		}
	}
	slices.Sort(ready)
	t, free := now, 0
	for k := 0; k <= len(ready); k++ {
		until := math.Inf(1)
		if k < len(ready) {
			until = ready[k]
		}
		if free > 0 {
			if area := float64(free) * (until - t); area >= load {
				return math.Min(t+load/float64(free)-now, maxLLH)
			} else {
				load -= area
			}
		}
		t = until
		free++
	}
	return maxLLH
}

// maxLLH caps the liquid load horizon when no host can take the load.
const maxLLH = 1e12

// integrate adds the liquid load horizon since the last decision to the
// stage's integral (trapezoids).
func (b *Backfill) integrate(s *sched.State) {
	now := s.Now()
	l := b.llh(s)
	b.integral += (b.lastLLH + l) / 2 * (now - b.lastLLHAt)
	b.lastLLH, b.lastLLHAt = l, now
}

// stage is a monitoring stage of inertial shutdown.
func (b *Backfill) stage(s *sched.State, d *sched.Decider) {
	integ := b.integral
	b.integral = 0
	defer func() { b.prevInteg = integ }()
	if b.firstStage {
		b.firstStage, b.waking, b.lastSwitchd = false, true, 0
		return
	}
	if b.waking != (integ > b.prevInteg) {
		// The direction changed: this stage switches nothing.
		b.waking, b.lastSwitchd = !b.waking, 0
		return
	}
	k := b.Inertia.Next(b.lastSwitchd)
	if b.waking {
		var asleep []int
		for i := range s.NbHosts() {
			if h := s.Host(i); h.Power() == sched.PowerSleeping && !h.Unavailable() && b.wakeable(s, i) <= s.Now() {
				asleep = append(asleep, i)
			}
		}
		slices.SortStableFunc(asleep, func(x, y int) int { return cmp.Compare(b.hosts[x].asleepAt, b.hosts[y].asleepAt) })
		asleep = asleep[:min(k, len(asleep))]
		by := map[int][]int{}
		for _, i := range asleep {
			by[b.hosts[i].wakeTo] = append(by[b.hosts[i].wakeTo], i)
		}
		for _, ps := range slices.Sorted(maps.Keys(by)) {
			slices.Sort(by[ps])
			b.switchOn(s, d, by[ps], ps)
		}
		b.lastSwitchd = len(asleep)
		return
	}
	cand := b.sedatable(s)
	room := max(awake(s)-b.floor(s), 0)
	cand = cand[:min(k, len(cand), room)]
	b.switchOff(s, d, cand)
	b.lastSwitchd = len(cand)
}

// callAt asks to be called at t unless a call at or before t is pending.
func (b *Backfill) callAt(s *sched.State, d *sched.Decider, t float64) {
	for _, p := range b.pending {
		if p <= t {
			return
		}
	}
	if t-s.Now() < batsim.MinCallMeLaterDelay {
		t = s.Now() + batsim.MinCallMeLaterDelay
	}
	if d.CallMeLater(t) {
		b.pending = append(b.pending, t)
	}
}
