package osep

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/bucma-sched/bucma/sched"

	"github.com/bucma-sched/bucma/batsim"
)

// OSEP is the Owner Share Enforcement Policy (algorithms.md §5): the hosts
// of the grid belong to its users (host property Owner); every Interval
// seconds a round preempts jobs of the users served beyond their share to
// give their hosts to the users served below it. Hetero selects the
// heterogeneous version (Algorithm 3: shares in power); otherwise shares
// are counted in hosts (Algorithm 2).
//
// A preempted job is killed and its remaining work resubmitted (see
// Decider.Resubmit) with checkpoints every Checkpoint seconds of execution
// (0: it restarts from zero). Jobs must be sequential (res 1); others are
// rejected.
type OSEP struct {
	Hetero     bool
	Ticker     sched.Ticker
	MaxT       int // preemptions per round; < 0: one per underserved user
	Checkpoint float64
	Owner      string             // host property naming the owner
	Hosts      sched.HostSelector // host of a job (OwnFirst or Fastest)
	// AsPrinted applies the guard of Algorithm 3 as printed
	// (PR_Aloc(u_i,y) > PR_Preemp(u_j,y)); by default a preemption must
	// not overshoot: PR_Preemp(u_j,y) >= PR_Aloc(u_i,y).
	AsPrinted bool

	owners []string           // owner of each host ("" none)
	nOwned map[string]int     // hosts owned per user
	power  map[string]float64 // Porcao: summed speed of the hosts owned
	// reserved maps a host being freed by a kill to the waiting job it
	// goes to.
	reserved map[int]*sched.Job

	// The standings, kept up to date as jobs arrive (JobSubmitted), start
	// (the policy's own starts), are killed, get or lose a reserved host
	// and end (JobEnded), instead of being rebuilt from the whole queue at
	// every decision: users (by name) and byName hold every user seen, a
	// user with nothing left keeps a zero standing, which no rule picks.
	// Speeds are summed in whatever order jobs come and go: that gives the
	// sums the rebuild (running jobs by arrival, then reserved hosts in
	// queue order) gives, bit for bit, when exact is set: every host speed
	// is a whole number and all of them add up below 2^53, so that every
	// partial sum is exact. Otherwise (and when the standings went stale
	// or the State is another) every decision rebuilds them.
	st      *sched.State
	byName  map[string]*osepUser
	users   []*osepUser
	killing map[*sched.Job]bool // jobs whose kill was requested, until they end
	exact   bool
	stale   bool
}

// osepUser is a user's standing.
type osepUser struct {
	name      string
	running   int        // running jobs not being killed, plus reserved ones
	allocated float64    // their hosts' speeds (Alocado)
	demand    int        // unfinished jobs (running or waiting)
	waiting   []osepWait // waiting jobs without a reserved host, queue order
	first     int64      // Seq of the first of them
}

// osepWait is a waiting job with its work (State.JobWork), NaN until its
// profile is known: a profile never changes once known.
type osepWait struct {
	j    *sched.Job
	work float64
}

// RegistersDynamicJobs implements Registrar.
func (o *OSEP) RegistersDynamicJobs() bool { return true }

// Admits implements Admitter: OSEP schedules sequential jobs.
func (o *OSEP) Admits(_ *sched.State, j *sched.Job) bool { return j.Res() == 1 }

// Refusal implements RefusalExplainer.
func (o *OSEP) Refusal(j *sched.Job) string {
	return fmt.Sprintf("OSEP schedules sequential jobs only (one host each); this job asks for res=%d", j.Res())
}

// SimulationBegins implements Starter.
func (o *OSEP) SimulationBegins(s *sched.State) error {
	if !s.Config().DynamicJobsEnabled {
		return errors.New("OSEP preempts by killing jobs and resubmitting their remaining work: run Batsim with --enable-dynamic-jobs (and preferably --acknowledge-dynamic-jobs)")
	}
	o.owners = make([]string, s.NbHosts())
	o.nOwned = map[string]int{}
	o.power = map[string]float64{}
	for i := range s.NbHosts() {
		u := s.Host(i).Properties()[o.Owner]
		o.owners[i] = u
		if u != "" {
			o.nOwned[u]++
			o.power[u] += s.Host(i).Speed()
		}
	}
	if len(o.nOwned) == 0 {
		return fmt.Errorf("OSEP: no compute host has the property %q naming its owner (see platforms/osep.xml; option owner names the property)", o.Owner)
	}
	o.reserved = map[int]*sched.Job{}
	o.exact = exactSums(s)
	o.rebuild(s)
	return nil
}

// exactSums reports whether every sum of host speeds is exact in floating
// point whatever the order of the additions and subtractions: the speeds
// are whole numbers and their total is below 2^53.
func exactSums(s *sched.State) bool {
	total := 0.0
	for i := range s.NbHosts() {
		sp := s.Host(i).Speed()
		if sp < 0 || sp != math.Trunc(sp) || math.IsInf(sp, 0) {
			return false
		}
		total += sp
	}
	return total < 1<<53
}

// Decide implements Policy.
func (o *OSEP) Decide(s *sched.State, d *sched.Decider) {
	for _, k := range s.Killed() {
		if _, ok := d.Resubmit(k, o.Checkpoint); !ok {
			return
		}
	}
	o.startReserved(s, d)
	users, byName := o.standings(s)
	o.fill(s, d, users, byName)
	if o.Ticker.Due(s) {
		o.round(s, d, users)
	}
	if s.NbWaiting() > 0 {
		o.Ticker.Arm(s, d)
	}
}

// startReserved starts reserved jobs whose host is free, and drops the
// reservations that no longer hold.
func (o *OSEP) startReserved(s *sched.State, d *sched.Decider) {
	hosts := make([]int, 0, len(o.reserved))
	for h := range o.reserved {
		hosts = append(hosts, h)
	}
	sort.Ints(hosts)
	for _, h := range hosts {
		j := o.reserved[h]
		host := s.Host(h)
		switch {
		case j.State() != batsim.StateSubmitted || j.Refused():
			delete(o.reserved, h)
			o.stale = true // not a way a reserved job leaves: count again
		case host.Free():
			// It already counts as running on h.
			delete(o.reserved, h)
			if !d.Start(j, []int{h}) {
				return
			}
		case host.Idle() || !host.Jobs()[0].Killing():
			// Unavailable, or taken: the job waits again (the round will
			// see).
			delete(o.reserved, h)
			if u := o.byName[j.User()]; u != nil && o.st == s {
				u.running--
				u.allocated -= host.Speed()
				u.putBack(j)
			}
		}
	}
}

// standings are the users' standings (users sorted by name), rebuilt when
// they cannot be kept (see OSEP.exact).
func (o *OSEP) standings(s *sched.State) ([]*osepUser, map[string]*osepUser) {
	if o.st != s || o.stale || !o.exact {
		o.rebuild(s)
	}
	return o.users, o.byName
}

// rebuild computes the standings from the State.
func (o *OSEP) rebuild(s *sched.State) {
	o.st, o.stale = s, false
	o.byName, o.users = o.compute(s)
	o.killing = map[*sched.Job]bool{}
	for _, j := range s.Running() {
		if j.Killing() {
			o.killing[j] = true
		}
	}
}

// compute computes every user's standing from the State: the owners, and
// the users of the running jobs (by arrival) and of the waiting ones (in
// queue order), so that sums are made in a fixed order.
func (o *OSEP) compute(s *sched.State) (map[string]*osepUser, []*osepUser) {
	byName := map[string]*osepUser{}
	get := func(name string) *osepUser {
		u := byName[name]
		if u == nil {
			u = &osepUser{name: name, first: math.MaxInt64}
			byName[name] = u
		}
		return u
	}
	for name := range o.nOwned {
		get(name)
	}
	for _, j := range runningBySeq(s) {
		u := get(j.User())
		u.demand++
		if !j.Killing() {
			u.running++
			for _, h := range j.Alloc() {
				u.allocated += s.Host(h).Speed()
			}
		}
	}
	reservedSpeed := map[*sched.Job]float64{}
	for h, j := range o.reserved {
		reservedSpeed[j] = s.Host(h).Speed()
	}
	for _, j := range s.Waiting() {
		if j.State() != batsim.StateSubmitted || j.Refused() || j.Res() != 1 {
			continue
		}
		u := get(j.User())
		u.demand++
		if sp, ok := reservedSpeed[j]; ok {
			u.running++
			u.allocated += sp
			continue
		}
		if len(u.waiting) == 0 {
			u.first = j.Seq()
		}
		u.waiting = append(u.waiting, osepWait{j: j, work: math.NaN()})
	}
	users := make([]*osepUser, 0, len(byName))
	for _, u := range byName {
		users = append(users, u)
	}
	sort.Slice(users, func(a, b int) bool { return users[a].name < users[b].name })
	return byName, users
}

// user returns the standing of a user, created (zero) when new.
func (o *OSEP) user(name string) *osepUser {
	if u := o.byName[name]; u != nil {
		return u
	}
	u := &osepUser{name: name, first: math.MaxInt64}
	o.byName[name] = u
	i := sort.Search(len(o.users), func(i int) bool { return o.users[i].name >= name })
	o.users = slices.Insert(o.users, i, u)
	return u
}

// JobSubmitted implements SubmitObserver: a sequential job the policy
// admitted waits for its user.
func (o *OSEP) JobSubmitted(s *sched.State, j *sched.Job) {
	if o.st != s || j.Refused() || j.Res() != 1 {
		return
	}
	u := o.user(j.User())
	u.demand++
	u.putBack(j)
}

// JobEnded implements EndObserver.
func (o *OSEP) JobEnded(s *sched.State, j *sched.Job) {
	if o.st != s {
		return
	}
	if j.Alloc() == nil {
		// Rejected while waiting: OSEP's jobs never are (it rejects
		// nothing, the framework only the jobs it refused).
		if !j.Refused() && j.Res() == 1 {
			o.stale = true
		}
		return
	}
	u := o.user(j.User())
	u.demand--
	if o.killing[j] {
		delete(o.killing, j)
		return
	}
	u.running--
	for _, h := range j.Alloc() {
		u.allocated -= s.Host(h).Speed()
	}
}

// putBack adds a waiting job at its place in the queue order.
func (u *osepUser) putBack(j *sched.Job) {
	i := len(u.waiting)
	if i > 0 && u.waiting[i-1].j.Seq() > j.Seq() {
		i = sort.Search(len(u.waiting), func(k int) bool { return u.waiting[k].j.Seq() > j.Seq() })
	}
	u.waiting = slices.Insert(u.waiting, i, osepWait{j: j, work: math.NaN()})
	u.first = u.waiting[0].j.Seq()
}

// auditState compares the kept standings with standings computed from the
// State (the session's audit, policyAuditor).
func (o *OSEP) auditState(s *sched.State) error {
	if o.st != s || o.stale {
		return nil // rebuilt at the next decision
	}
	byName, _ := o.compute(s)
	for name, u := range o.byName {
		want := byName[name]
		if want == nil {
			want = &osepUser{name: name, first: math.MaxInt64}
		}
		if u.running != want.running || u.demand != want.demand || u.first != want.first ||
			math.Float64bits(u.allocated) != math.Float64bits(want.allocated) && (o.exact || u.allocated != want.allocated) {
			return fmt.Errorf("OSEP standing of user %q: running %d, demand %d, allocated %v, first %d; from the state: %d, %d, %v, %d",
				name, u.running, u.demand, u.allocated, u.first, want.running, want.demand, want.allocated, want.first)
		}
		if len(u.waiting) != len(want.waiting) {
			return fmt.Errorf("OSEP standing of user %q: %d waiting jobs, %d from the state", name, len(u.waiting), len(want.waiting))
		}
		for i := range u.waiting {
			if u.waiting[i].j != want.waiting[i].j {
				return fmt.Errorf("OSEP standing of user %q: waiting job %d is %s, %s from the state", name, i, u.waiting[i].j.ID(), want.waiting[i].j.ID())
			}
		}
	}
	for name := range byName {
		if o.byName[name] == nil {
			return fmt.Errorf("OSEP standing of user %q is missing", name)
		}
	}
	for _, j := range s.Running() {
		if j.Killing() != o.killing[j] {
			return fmt.Errorf("OSEP: job %s killing=%v, recorded %v", j.ID(), j.Killing(), o.killing[j])
		}
	}
	if len(o.killing) != s.NbKilling() {
		return fmt.Errorf("OSEP: %d kills recorded, %d under way", len(o.killing), s.NbKilling())
	}
	return nil
}

// f is OSEP's f_u = p_u − running_u with p_u = min(hosts owned, demand).
func (o *OSEP) f(u *osepUser) int { return min(o.nOwned[u.name], u.demand) - u.running }

// dif is DifPoder_u = (Alocado_u − Porcao_u) / Porcao_u (+Inf for a user
// who owns nothing and uses something, 0 when they use nothing).
func (o *OSEP) dif(u *osepUser) float64 {
	p := o.power[u.name]
	if p <= 0 {
		if u.allocated > 0 {
			return math.Inf(1)
		}
		return 0
	}
	return (u.allocated - p) / p
}

// next is the waiting job user u gets next: the first in queue order
// (OSEP), the smallest (heterogeneous OSEP: by walltime when both have
// one, else by work; ties by arrival).
func (o *OSEP) next(s *sched.State, u *osepUser) (*sched.Job, int) {
	if !o.Hetero {
		return u.waiting[0].j, 0
	}
	best := 0
	for i := 1; i < len(u.waiting); i++ {
		if smaller(s, &u.waiting[i], &u.waiting[best]) {
			best = i
		}
	}
	return u.waiting[best].j, best
}

func smaller(s *sched.State, a, b *osepWait) bool {
	if a.j.HasWalltime() && b.j.HasWalltime() && a.j.Walltime() != b.j.Walltime() {
		return a.j.Walltime() < b.j.Walltime()
	}
	if wa, wb := a.workIn(s), b.workIn(s); wa != wb {
		return wa < wb
	}
	return a.j.Seq() < b.j.Seq()
}

// workIn is State.JobWork, kept once the job's profile is known.
func (w *osepWait) workIn(s *sched.State) float64 {
	if !math.IsNaN(w.work) {
		return w.work
	}
	if _, ok := s.Profile(w.j.Workload(), w.j.Profile()); !ok {
		return 0
	}
	w.work = s.JobWork(w.j)
	return w.work
}

// take removes u's i-th waiting job.
func (u *osepUser) take(i int) {
	u.waiting = slices.Delete(u.waiting, i, i+1)
	u.first = math.MaxInt64
	if len(u.waiting) > 0 {
		u.first = u.waiting[0].j.Seq()
	}
}

// fill gives the free hosts (not reserved) to waiting jobs.
func (o *OSEP) fill(s *sched.State, d *sched.Decider, users []*osepUser, byName map[string]*osepUser) {
	for s.NbFree() > 0 {
		u := o.pick(users)
		if u == nil {
			return
		}
		j, i := o.next(s, u)
		hosts := o.Hosts.Select(s, j, 1)
		if len(hosts) != 1 || !d.Start(j, hosts) {
			return
		}
		h := hosts[0]
		u.take(i)
		u.running++
		u.allocated += s.Host(h).Speed()
	}
}

// pick chooses who gets a free host. OSEP: the most underserved user
// (largest f_u > 0) with waiting jobs, else the user of the first waiting
// job. Heterogeneous OSEP: the user with waiting jobs with the smallest
// DifPoder, users who own hosts before those who do not. Ties go to the
// user whose first waiting job arrived first.
func (o *OSEP) pick(users []*osepUser) *osepUser {
	var best *osepUser
	for _, u := range users {
		if len(u.waiting) == 0 {
			continue
		}
		if best == nil {
			best = u
			continue
		}
		if o.Hetero {
			ob, ou := o.power[best.name] > 0, o.power[u.name] > 0
			db, du := o.dif(best), o.dif(u)
			switch {
			case ob != ou:
				if ou {
					best = u
				}
			case du != db:
				if du < db {
					best = u
				}
			case u.first < best.first:
				best = u
			}
			continue
		}
		fb, fu := max(o.f(best), 0), max(o.f(u), 0)
		switch {
		case fu != fb:
			if fu > fb {
				best = u
			}
		case u.first < best.first:
			best = u
		}
	}
	return best
}

// round is one decision round (Algorithm 2 or 3): at most maxt
// preemptions, each giving the victim's host to the most underserved
// user's next job once the kill completes.
func (o *OSEP) round(s *sched.State, d *sched.Decider, users []*osepUser) {
	maxt := o.MaxT
	if maxt < 0 {
		maxt = 0
		for _, u := range users {
			if len(u.waiting) > 0 && ((!o.Hetero && o.f(u) > 0) || (o.Hetero && o.power[u.name] > 0 && o.dif(u) < 0)) {
				maxt++
			}
		}
	}
	for ; maxt > 0; maxt-- {
		var ok bool
		if o.Hetero {
			ok = o.preemptHetero(s, d, users)
		} else {
			ok = o.preemptHomogeneous(s, d, users)
		}
		if !ok {
			return
		}
	}
}

// runningBySeq lists the running jobs in arrival order (a fixed order,
// so that sums of speeds are the same from run to run).
func runningBySeq(s *sched.State) []*sched.Job {
	out := make([]*sched.Job, 0, len(s.Running()))
	for _, j := range s.Running() {
		out = append(out, j)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Seq() < out[b].Seq() })
	return out
}

// victims lists u's running jobs that may be killed.
func victims(s *sched.State, u string) []*sched.Job {
	var out []*sched.Job
	for _, j := range runningBySeq(s) {
		if j.User() == u && !j.Killing() && len(j.Alloc()) == 1 {
			out = append(out, j)
		}
	}
	return out
}

// preempt kills victim and reserves its host for the receiver's job.
func (o *OSEP) preempt(s *sched.State, d *sched.Decider, victim *sched.Job, from, to *osepUser) bool {
	j, i := o.next(s, to)
	h := victim.Alloc()[0]
	if !d.Kill(victim) {
		return false
	}
	o.killing[victim] = true
	o.reserved[h] = j
	to.take(i)
	to.running++
	to.allocated += s.Host(h).Speed()
	from.running--
	from.allocated -= s.Host(h).Speed()
	return true
}

// preemptHomogeneous is one step of Algorithm 2.
func (o *OSEP) preemptHomogeneous(s *sched.State, d *sched.Decider, users []*osepUser) bool {
	var umax, umin *osepUser
	for _, u := range users {
		if f := o.f(u); f > 0 && len(u.waiting) > 0 && (umax == nil || f > o.f(umax) || (f == o.f(umax) && u.first < umax.first)) {
			umax = u
		}
		if f := o.f(u); f < 0 && (umin == nil || f < o.f(umin)) {
			umin = u
		}
	}
	if umax == nil || umin == nil {
		return false
	}
	// The job that has run for the least time (ties: the last arrived).
	var victim *sched.Job
	for _, j := range victims(s, umin.name) {
		if victim == nil || j.Start() > victim.Start() || (j.Start() == victim.Start() && j.Seq() > victim.Seq()) {
			victim = j
		}
	}
	if victim == nil {
		return false
	}
	return o.preempt(s, d, victim, umin, umax)
}

// preemptHetero is one step of Algorithm 3.
func (o *OSEP) preemptHetero(s *sched.State, d *sched.Decider, users []*osepUser) bool {
	var ui, uj *osepUser
	for _, u := range users {
		du := o.dif(u)
		if o.power[u.name] > 0 && du < 0 && len(u.waiting) > 0 && (ui == nil || du < o.dif(ui) || (du == o.dif(ui) && u.first < ui.first)) {
			ui = u
		}
		if du > 0 && (uj == nil || du > o.dif(uj)) {
			uj = u
		}
	}
	if ui == nil || uj == nil {
		return false
	}
	cands := victims(s, uj.name)
	// The least powerful host first; then the job that ran the least.
	sort.Slice(cands, func(a, b int) bool {
		sa, sb := s.Host(cands[a].Alloc()[0]).Speed(), s.Host(cands[b].Alloc()[0]).Speed()
		if sa != sb {
			return sa < sb
		}
		if cands[a].Start() != cands[b].Start() {
			return cands[a].Start() > cands[b].Start()
		}
		return cands[a].Seq() > cands[b].Seq()
	})
	pi, pj := o.power[ui.name], o.power[uj.name]
	for _, v := range cands {
		y := s.Host(v.Alloc()[0]).Speed()
		if pj > 0 {
			prAloc := (ui.allocated - pi + y) / pi
			prPreemp := (uj.allocated - pj - y) / pj
			if o.AsPrinted && !(prAloc > prPreemp) || !o.AsPrinted && !(prPreemp >= prAloc) {
				continue
			}
		}
		return o.preempt(s, d, v, uj, ui)
	}
	return false
}

// Register adds osep and osep-hetero to r.
func Register(r *sched.Registry) {
	for _, hetero := range []bool{false, true} {
		name, desc := "osep", "OSEP (Algorithm 2): owner shares counted in hosts; periodic rounds preempt the most over-served user's newest job for the most under-served user (kill and resubmit)"
		if hetero {
			name, desc = "osep-hetero", "heterogeneous OSEP (Algorithm 3): owner shares in computing power (DifPoder); preempts on the least powerful host that keeps the pair fair (kill and resubmit)"
		}
		opts := []sched.OptionSpec{
			{Name: "interval", Default: "60", Help: "seconds between update rounds (CALL_ME_LATER on the multiples of it)"},
			{Name: "maxt", Default: "auto", Help: "preemptions per round: a number, or auto (one per under-served user with waiting jobs)"},
			{Name: "checkpoint", Default: "0", Help: "checkpoint block in seconds of execution: a preempted job keeps its whole blocks (0: it restarts from zero)"},
			{Name: "owner", Default: "owner", Help: "host property naming each host's owner (a job's user is its user field)"},
			{Name: "hosts", Default: "own-fastest", Values: []string{"own-fastest", "fastest"}, Help: "host for a job: its user's own free hosts first, fastest first, then the fastest free host; or the fastest free host"},
		}
		if hetero {
			opts = append(opts, sched.OptionSpec{Name: "guard", Default: "no-overshoot", Values: []string{"no-overshoot", "as-printed"},
				Help: "preemption guard on host y: no-overshoot PR_Preemp(u_j,y) >= PR_Aloc(u_i,y) (the victim stays at least as served as the receiver becomes), or as-printed PR_Aloc(u_i,y) > PR_Preemp(u_j,y)"})
		}
		hetero := hetero
		r.Add(sched.Spec{
			Name: name, Description: desc, Options: opts, DynamicJobs: true,
			New: func(opts sched.Options) (sched.Policy, error) { return newOSEP(hetero, opts) },
		})
	}
}

func newOSEP(hetero bool, opts sched.Options) (*OSEP, error) {
	o := &OSEP{Hetero: hetero, Owner: opts["owner"], Hosts: sched.Fastest{}, AsPrinted: opts["guard"] == "as-printed"}
	if opts["hosts"] == "own-fastest" {
		o.Hosts = sched.OwnFirst{Property: opts["owner"]}
	}
	iv, err := strconv.ParseFloat(opts["interval"], 64)
	if err != nil || !(iv >= 1e-3) || math.IsInf(iv, 0) {
		return nil, &sched.OptionError{Msg: fmt.Sprintf("option interval=%q: want a number of seconds >= 0.001", opts["interval"])}
	}
	o.Ticker.Interval = iv
	if opts["maxt"] == "auto" {
		o.MaxT = -1
	} else if o.MaxT, err = strconv.Atoi(opts["maxt"]); err != nil || o.MaxT < 0 {
		return nil, &sched.OptionError{Msg: fmt.Sprintf("option maxt=%q: want auto or an integer >= 0", opts["maxt"])}
	}
	if o.Checkpoint, err = strconv.ParseFloat(opts["checkpoint"], 64); err != nil || o.Checkpoint < 0 || math.IsInf(o.Checkpoint, 0) || math.IsNaN(o.Checkpoint) {
		return nil, &sched.OptionError{Msg: fmt.Sprintf("option checkpoint=%q: want a block length in seconds >= 0 (0: no checkpointing)", opts["checkpoint"])}
	}
	if o.Owner == "" {
		return nil, &sched.OptionError{Msg: "option owner: the host property name must not be empty"}
	}
	return o, nil
}
