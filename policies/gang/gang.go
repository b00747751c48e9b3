package gang

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"

	"github.com/bucma-sched/bucma/sched"

	"github.com/bucma-sched/bucma/batsim"
)

// Gang scheduling on a multicluster (docs/policies.md, "Gang scheduling"):
// a two-tier dispatcher in front of one queue per host. When a job
// arrives, the grid dispatcher picks a cluster that can hold all its
// tasks, and the cluster's local dispatcher puts each task in a distinct
// host's queue. Every queue is kept in the queue discipline's order; a job
// starts (one EXECUTE_JOB on its hosts) when each of its tasks heads its
// host's queue and all those hosts are idle. Migration moves waiting tasks
// only (never a running job), so Batsim sees nothing but the starts:
// locally, to idle hosts of the job's cluster; externally, the whole job to
// another cluster's idle hosts.

// GangDiscipline orders each host's queue.
type GangDiscipline int

const (
	// GangAFCFS: fewest tasks first (the paper's adapted FCFS), then
	// arrival.
	GangAFCFS GangDiscipline = iota
	// GangLJFS: most tasks first, then arrival.
	GangLJFS
	// GangLXF: largest expansion factor (estimate + wait) / estimate
	// first, recomputed at each decision, then arrival.
	GangLXF
)

// Gang is the gang policy family.
type Gang struct {
	ClusterProperty string // host property naming a host's cluster
	RandomGD        bool   // grid dispatcher: random eligible cluster (else least load, Alg. 2)
	LD              string // local dispatcher: olb, jseq or jsq
	Discipline      GangDiscipline
	Migration       int     // 0 none, 1 local, 2 local then external
	RefSpeed        float64 // flop/s of the host an estimate is for
	Seed            uint64

	rng      *rand.Rand
	clusters [][]int     // host ids of each cluster
	ofHost   []int       // host -> cluster
	queues   []hostQueue // per host, in discipline order
	resort   bool        // every queue sorted again at each decision (the reference of the tests)
	mark     int         // the current decision's number (gjob.mark)
	queued   []float64   // per host, the estimates of its queued tasks, summed
	jobs     map[*sched.Job]*gjob
	waiting  []*gjob // in arrival order
	est      map[*sched.Job]float64
	speed    []float64
}

// gjob is a waiting job's placement: its cluster and the host queue of
// each of its tasks.
type gjob struct {
	j       *sched.Job
	cluster int
	hosts   []int
	xf      float64 // LXF key at the current decision
	gone    bool    // left the queues (started or rejected)
	mark    int     // the decision it was last taken as a candidate at
	wpos    int     // its index in Gang.waiting
}

var gangDisciplines = []string{"afcfs", "ljfs", "lxf"}

// Register adds gang to r.
func Register(r *sched.Registry) {
	r.Add(sched.Spec{
		Name: "gang",
		Description: "gang scheduling on a multicluster (the MCMCA paper): a grid dispatcher picks a cluster, a local dispatcher a host queue per task, " +
			"a job starts when its tasks head idle hosts' queues; queues in AFCFS, LJFS or LXF order; optional migration of waiting tasks",
		Options: []sched.OptionSpec{
			{Name: "queue", Default: "afcfs", Values: gangDisciplines, Help: "queue discipline of every host: afcfs (fewest tasks first), ljfs (most tasks first), lxf (largest expansion factor first)"},
			{Name: "ld", Default: "jseq", Values: []string{"olb", "jseq", "jsq"}, Help: "local dispatcher: olb (idle hosts first, in random order, then busy ones), jseq (least estimated backlog), jsq (fewest tasks queued or running)"},
			{Name: "gd", Default: "least-load", Values: []string{"least-load", "random"}, Help: "grid dispatcher for a parallel job: the eligible cluster with the fewest tasks per host (Algorithm 2, ties to the first), or a random one; a sequential job always goes to a random eligible cluster"},
			{Name: "migration", Default: "none", Values: []string{"none", "local", "local+external"}, Help: "migration of waiting tasks: none; local (to idle hosts of the job's cluster); local+external (then a whole job to another cluster's idle hosts)"},
			{Name: "cluster", Default: "cluster", Help: "host property naming each host's cluster (hosts without it form one cluster)"},
			{Name: "ref-speed", Default: "2e9", Help: "speed (flop/s) the estimates are for: a job's estimate is its walltime, else its work per host at this speed; jseq scales it by ref-speed / host speed"},
			{Name: "seed", Default: "1", Help: "seed of the random choices (olb's shuffles, random dispatch)"},
		},
		Profiles: true,
		New:      newGang,
	})
}

func newGang(opts sched.Options) (sched.Policy, error) {
	g := &Gang{ClusterProperty: opts["cluster"], RandomGD: opts["gd"] == "random", LD: opts["ld"]}
	for i, d := range gangDisciplines {
		if opts["queue"] == d {
			g.Discipline = GangDiscipline(i)
		}
	}
	switch opts["migration"] {
	case "local":
		g.Migration = 1
	case "local+external":
		g.Migration = 2
	}
	var err error
	if g.RefSpeed, err = strconv.ParseFloat(opts["ref-speed"], 64); err != nil || !(g.RefSpeed > 0) || math.IsInf(g.RefSpeed, 0) {
		return nil, &sched.OptionError{Msg: fmt.Sprintf("option ref-speed=%q: want a speed in flop/s > 0", opts["ref-speed"])}
	}
	if g.Seed, err = strconv.ParseUint(opts["seed"], 10, 64); err != nil {
		return nil, &sched.OptionError{Msg: fmt.Sprintf("option seed=%q: want a whole number >= 0", opts["seed"])}
	}
	if g.ClusterProperty == "" {
		return nil, &sched.OptionError{Msg: "option cluster: the host property name must not be empty"}
	}
	return g, nil
}

// SimulationBegins groups the hosts into clusters.
func (g *Gang) SimulationBegins(s *sched.State) error {
	g.rng = rand.New(rand.NewPCG(g.Seed, 0x6761_6e67))
	g.jobs, g.est = map[*sched.Job]*gjob{}, map[*sched.Job]float64{}
	g.queues = make([]hostQueue, s.NbHosts())
	g.queued = make([]float64, s.NbHosts())
	g.speed = make([]float64, s.NbHosts())
	g.clusters, g.ofHost = sched.GroupHosts(s, g.ClusterProperty, false)
	for i := range s.NbHosts() {
		g.speed[i] = s.Host(i).Speed()
	}
	return nil
}

// Admits refuses a job no cluster can hold (more tasks than any cluster
// has hosts).
func (g *Gang) Admits(s *sched.State, j *sched.Job) bool {
	for _, c := range g.clusters {
		if len(c) >= j.Res() {
			return true
		}
	}
	return false
}

// Refusal says why.
func (g *Gang) Refusal(j *sched.Job) string {
	most := 0
	for _, c := range g.clusters {
		most = max(most, len(c))
	}
	return fmt.Sprintf("%d tasks: no cluster has that many hosts (the largest has %d); a gang runs within one cluster", j.Res(), most)
}

// JobSubmitted dispatches a job: cluster, then a host queue per task.
func (g *Gang) JobSubmitted(s *sched.State, j *sched.Job) {
	if j.Refused() {
		return
	}
	est := j.Walltime()
	if !(est > 0) && j.Res() > 0 {
		est = s.JobWork(j) / float64(j.Res()) / g.RefSpeed
	}
	if !(est > 0) {
		est = 1
	}
	g.est[j] = est
	c := g.gridDispatch(s, j)
	gj := &gjob{j: j, cluster: c, hosts: g.localDispatch(s, c, j)}
	g.jobs[j] = gj
	gj.wpos = len(g.waiting)
	g.waiting = append(g.waiting, gj)
	for _, h := range gj.hosts {
		g.enqueue(h, gj)
		g.queued[h] += est
	}
}

// clusterLoad is Algorithm 2's load: tasks queued or running per host.
func (g *Gang) clusterLoad(s *sched.State, c int) float64 {
	n := 0
	for _, h := range g.clusters[c] {
		n += g.queues[h].n + len(s.Host(h).Jobs())
	}
	return float64(n) / float64(len(g.clusters[c]))
}

func (g *Gang) gridDispatch(s *sched.State, j *sched.Job) int {
	var eligible []int
	for c, hosts := range g.clusters {
		if len(hosts) >= j.Res() {
			eligible = append(eligible, c)
		}
	}
	if j.Res() <= 1 || g.RandomGD {
		return eligible[g.rng.IntN(len(eligible))]
	}
	best, load := eligible[0], g.clusterLoad(s, eligible[0])
	for _, c := range eligible[1:] {
		if l := g.clusterLoad(s, c); l < load {
			best, load = c, l
		}
	}
	return best
}

// backlog is a host's estimated work in seconds: its running job's
// remaining estimate and its queued tasks' estimates, scaled to its speed.
func (g *Gang) backlog(s *sched.State, h int) float64 {
	b := 0.0
	for _, j := range s.Host(h).Jobs() {
		b += max(g.estimate(j)-(s.Now()-j.Start()), 0)
	}
	b += max(g.queued[h], 0)
	if g.speed[h] > 0 {
		b *= g.RefSpeed / g.speed[h]
	}
	return b
}

func (g *Gang) estimate(j *sched.Job) float64 {
	if e, ok := g.est[j]; ok {
		return e
	}
	return max(j.Walltime(), 0)
}

// localDispatch picks j.Res distinct host queues of cluster c.
func (g *Gang) localDispatch(s *sched.State, c int, j *sched.Job) []int {
	hosts := append([]int(nil), g.clusters[c]...)
	if j.Res() == 1 {
		// A sequential job: the fastest available host (idle, its queue
		// empty), else the queue with the least backlog (it goes to that queue's head: sequential
		// jobs come first in every discipline).
		best := -1
		for _, h := range hosts {
			if g.idle(s, h) && g.queues[h].n == 0 && (best < 0 || g.speed[h] > g.speed[best]) {
				best = h
			}
		}
		if best >= 0 {
			return []int{best}
		}
		b := make(map[int]float64, len(hosts))
		for _, h := range hosts {
			b[h] = g.backlog(s, h)
		}
		sort.SliceStable(hosts, func(x, y int) bool { return b[hosts[x]] < b[hosts[y]] })
		return hosts[:1]
	}
	switch g.LD {
	case "olb":
		var idle, busy []int
		for _, h := range hosts {
			if len(s.Host(h).Jobs()) == 0 {
				idle = append(idle, h)
			} else {
				busy = append(busy, h)
			}
		}
		g.rng.Shuffle(len(idle), func(x, y int) { idle[x], idle[y] = idle[y], idle[x] })
		g.rng.Shuffle(len(busy), func(x, y int) { busy[x], busy[y] = busy[y], busy[x] })
		hosts = append(idle, busy...)
	case "jsq":
		n := make(map[int]int, len(hosts))
		for _, h := range hosts {
			n[h] = g.queues[h].n + len(s.Host(h).Jobs())
		}
		sort.SliceStable(hosts, func(x, y int) bool { return n[hosts[x]] < n[hosts[y]] })
	default: // jseq
		b := make(map[int]float64, len(hosts))
		for _, h := range hosts {
			b[h] = g.backlog(s, h)
		}
		sort.SliceStable(hosts, func(x, y int) bool { return b[hosts[x]] < b[hosts[y]] })
	}
	return hosts[:j.Res()]
}

// idle: the host runs nothing and is available.
func (g *Gang) idle(s *sched.State, h int) bool { return s.Host(h).Free() }

// before is the discipline's order: sequential jobs first, then the
// discipline's key, then arrival.
func (g *Gang) before(a, b *gjob) bool {
	if (a.j.Res() == 1) != (b.j.Res() == 1) {
		return a.j.Res() == 1
	}
	switch g.Discipline {
	case GangAFCFS:
		if a.j.Res() != b.j.Res() {
			return a.j.Res() < b.j.Res()
		}
	case GangLJFS:
		if a.j.Res() != b.j.Res() {
			return a.j.Res() > b.j.Res()
		}
	case GangLXF:
		if a.xf != b.xf {
			return a.xf > b.xf
		}
	}
	return a.j.Seq() < b.j.Seq()
}

// JobEnded forgets a job's estimate.
func (g *Gang) JobEnded(s *sched.State, j *sched.Job) { delete(g.est, j) }

// Decide orders the queues, starts the gangs that head idle hosts, then
// migrates.
func (g *Gang) Decide(s *sched.State, d *sched.Decider) {
	g.dropLeft(s)
	if g.Discipline == GangLXF {
		for _, gj := range g.waiting {
			e := g.estimate(gj.j)
			gj.xf = (e + (s.Now() - gj.j.Submit())) / e
		}
	}
	// The queues are kept in the discipline's order as jobs arrive, but for
	// LXF's, which moves with time: the waiting jobs sorted, then each
	// job's tasks queued in that order.
	var order []*gjob
	if g.Discipline == GangLXF || g.resort {
		order = g.sortedWaiting()
		for h := range g.queues {
			g.queues[h].reset()
		}
		for _, gj := range order {
			for _, h := range gj.hosts {
				g.queues[h].push(gj)
			}
		}
	}
	// Only a job that heads an idle host's queue can start: starting one
	// makes its hosts busy, so the jobs it leaves heading their queues
	// cannot. The candidates are tried in the discipline's order.
	if !g.resort {
		order = g.candidates(s)
	}
	for _, gj := range order {
		if g.heads(s, gj) && !g.start(s, d, gj, gj.hosts) {
			return
		}
	}
	if g.Migration >= 1 {
		for c := range g.clusters {
			for g.migrateLocal(s, d, c) {
			}
			if d.Err() != nil {
				return
			}
		}
	}
	if g.Migration >= 2 {
		for g.migrateExternal(s, d) {
		}
	}
}

// dropLeft forgets the jobs that left the queue other than by a start of
// this policy (rejected). Every job the state has waiting was submitted
// to the policy, which holds it until it starts it: when the state has as
// many waiting jobs as the policy, none left, and the pass over them is
// not needed.
func (g *Gang) dropLeft(s *sched.State) {
	if len(g.waiting) == s.NbWaiting() {
		return
	}
	k := 0
	for _, gj := range g.waiting {
		if gj.j.State() == batsim.StateSubmitted {
			gj.wpos = k
			g.waiting[k] = gj
			k++
			continue
		}
		g.unqueue(gj)
	}
	clear(g.waiting[k:])
	g.waiting = g.waiting[:k]
}

// removeWaiting takes gj out of g.waiting, the last job taking its place
// (the order of g.waiting does not matter: sortedWaiting sorts it in an
// order with no ties).
func (g *Gang) removeWaiting(gj *gjob) {
	i, last := gj.wpos, len(g.waiting)-1
	if i > last || g.waiting[i] != gj {
		return
	}
	g.waiting[i] = g.waiting[last]
	g.waiting[i].wpos = i
	g.waiting[last] = nil
	g.waiting = g.waiting[:last]
}

func (g *Gang) sortedWaiting() []*gjob {
	out := append([]*gjob(nil), g.waiting...)
	sort.SliceStable(out, func(x, y int) bool { return g.before(out[x], out[y]) })
	return out
}

// enqueue queues gj's task on host h (in its discipline's bucket; LXF's
// queues are filled at each decision, in order).
func (g *Gang) enqueue(h int, gj *gjob) {
	if g.Discipline == GangLXF || g.resort {
		g.queues[h].push(gj) // in arrival order until the decision sorts it
		return
	}
	k := gj.j.Res()
	switch {
	case k == 1:
		k = math.MinInt // sequential jobs first
	case g.Discipline == GangLJFS:
		k = -k
	}
	g.queues[h].add(gj, k)
}

// candidates are the jobs heading an idle host's queue, in the
// discipline's order.
func (g *Gang) candidates(s *sched.State) []*gjob {
	g.mark++
	var out []*gjob
	for h := range g.queues {
		if !g.idle(s, h) {
			continue
		}
		if gj := g.queues[h].head(); gj != nil && gj.mark != g.mark {
			gj.mark = g.mark
			out = append(out, gj)
		}
	}
	sort.SliceStable(out, func(x, y int) bool { return g.before(out[x], out[y]) })
	return out
}

// heads: each task of gj heads its host's queue and the host is idle.
func (g *Gang) heads(s *sched.State, gj *gjob) bool {
	for _, h := range gj.hosts {
		if g.queues[h].head() != gj || !g.idle(s, h) {
			return false
		}
	}
	return true
}

func (g *Gang) unqueue(gj *gjob) {
	est := g.estimate(gj.j)
	gj.gone = true
	for _, h := range gj.hosts {
		g.queued[h] -= est
		if g.queues[h].n--; g.queues[h].n == 0 {
			g.queued[h] = 0 // no rounding left over
		}
	}
	delete(g.jobs, gj.j)
}

// start runs gj on hosts and forgets its placement (its estimate stays
// until it ends: the backlog of its hosts counts what remains of it).
func (g *Gang) start(s *sched.State, d *sched.Decider, gj *gjob, hosts []int) bool {
	g.unqueue(gj)
	gj.hosts = hosts
	g.removeWaiting(gj)
	return d.Start(gj.j, hosts)
}

// migrateLocal is m_l on cluster c: among the waiting jobs of c with a
// task heading an idle host's queue and no more tasks than c has idle
// hosts, the one with the fewest tasks (then the discipline's order)
// starts at once: its tasks that head idle hosts stay, the others move to
// other idle hosts. It reports whether a job started.
func (g *Gang) migrateLocal(s *sched.State, d *sched.Decider, c int) bool {
	var idle []int
	for _, h := range g.clusters[c] {
		if g.idle(s, h) {
			idle = append(idle, h)
		}
	}
	if len(idle) == 0 {
		return false
	}
	var best *gjob
	for _, h := range idle {
		gj := g.queues[h].head()
		if gj == nil {
			continue
		}
		if gj.cluster != c || gj.j.Res() > len(idle) {
			continue
		}
		if best == nil || gj.j.Res() < best.j.Res() || gj.j.Res() == best.j.Res() && g.before(gj, best) {
			best = gj
		}
	}
	if best == nil {
		return false
	}
	var hosts []int
	used := map[int]bool{}
	for _, h := range best.hosts {
		if g.idle(s, h) && g.queues[h].head() == best {
			hosts = append(hosts, h)
			used[h] = true
		}
	}
	for _, h := range idle {
		if len(hosts) == best.j.Res() {
			break
		}
		if !used[h] {
			hosts = append(hosts, h)
			used[h] = true
		}
	}
	return g.start(s, d, best, hosts)
}

// migrateExternal is m_e: the waiting job with the fewest tasks (then the
// discipline's order) that another cluster's idle hosts can hold moves
// there whole and starts; the cluster with the most idle hosts takes it.
func (g *Gang) migrateExternal(s *sched.State, d *sched.Decider) bool {
	idle := make([][]int, len(g.clusters))
	for c, hosts := range g.clusters {
		for _, h := range hosts {
			if g.idle(s, h) {
				idle[c] = append(idle[c], h)
			}
		}
	}
	for _, gj := range g.sortedBySize() {
		best := -1
		for c := range g.clusters {
			if c != gj.cluster && len(idle[c]) >= gj.j.Res() && (best < 0 || len(idle[c]) > len(idle[best])) {
				best = c
			}
		}
		if best >= 0 {
			gj.cluster = best
			return g.start(s, d, gj, append([]int(nil), idle[best][:gj.j.Res()]...))
		}
	}
	return false
}

func (g *Gang) sortedBySize() []*gjob {
	out := g.sortedWaiting()
	sort.SliceStable(out, func(x, y int) bool { return out[x].j.Res() < out[y].j.Res() })
	return out
}
