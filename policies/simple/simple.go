// Package simple holds the simple policies batsched ships beside its
// backfilling ones: filler (every job that fits starts), sequencer (one job
// at a time), random (seeded), rejecter, killer (each job killed after a
// delay), killer2 (the running job killed for each waiting one), submitter
// (dynamic jobs) and sleeper (one job at a time, idle hosts asleep). Each is a textbook policy by default, over the
// framework's indexed queue orders; with queue=batsched and
// hosts=first-fit it takes the decisions of batsched's variant of the same
// name (policies.BatschedVariants lists the options of each twin).
//
// batsched's queue (queue=batsched) differs from the framework's orders in
// two ways: a job's release date is the date of the last event of the
// message that submitted it (not its own JOB_SUBMITTED date), and ties are
// broken by job id alone, as a string (w0!10 before w0!9), where the
// framework breaks them by submission time, then id.
package simple

import (
	"math"
	"slices"
	"strings"

	"github.com/bucma-sched/bucma/sched"
)

// Register adds filler, sequencer, random, rejecter, killer, killer2,
// submitter and sleeper to r.
func Register(r *sched.Registry) {
	r.Add(fillerSpec())
	r.Add(sequencerSpec())
	r.Add(randomSpec())
	r.Add(rejecterSpec())
	r.Add(killerSpec())
	r.Add(killer2Spec())
	r.Add(submitterSpec())
	r.Add(sleeperSpec())
}

// orderNames are the queue orders, by batsched's names (its -o flag).
var orderNames = []string{"fcfs", "lcfs", "asc_size", "desc_size", "asc_walltime", "desc_walltime", "desc_slowdown", "desc_bounded_slowdown"}

var orderOption = sched.OptionSpec{
	Name:    "order",
	Default: "fcfs",
	Help: "queue order, by batsched's names: fcfs (submission), lcfs (latest first), asc_size / desc_size (requested hosts), " +
		"asc_walltime / desc_walltime; desc_slowdown and desc_bounded_slowdown (the longest wait first) are fcfs at a decision. " +
		"Ties by submission time, then job id (queue=indexed; a job without walltime is last in asc_walltime) " +
		"or by job id alone (queue=batsched; a job without walltime is first in asc_walltime, as batsched's -1)",
	Values: orderNames,
}

var queueOption = sched.OptionSpec{
	Name:    "queue",
	Default: "indexed",
	Help: "indexed: the framework's queue orders, kept as jobs arrive and leave; batsched: batsched's queue, sorted at each decision, " +
		"a job released at the date of the last event of the message that submitted it, ties by job id alone " +
		"(with hosts=first-fit the policy then decides as batsched's variant of the same name)",
	Values: []string{"indexed", "batsched"},
}

// hostsOption is the framework's hosts option with batsched's contiguous
// selection.
var hostsOption = func() sched.OptionSpec {
	o := sched.HostsOption
	o.Values = append(slices.Clone(o.Values), "contiguous")
	o.Help += "; contiguous: the first run of consecutive free hosts (by id) long enough, its lowest ids (batsched's contiguous: a job that finds none waits)"
	return o
}()

// queueOptions are the options of the policies that walk a queue.
func queueOptions() []sched.OptionSpec {
	return []sched.OptionSpec{orderOption, queueOption, hostsOption}
}

// queued is what the queue policies share: their queue and how they place
// a job.
type queued struct {
	q     *queue
	place placement
}

// newQueued reads the order, queue and hosts options.
func newQueued(opts sched.Options) (queued, error) {
	p, err := placementFrom(opts)
	return queued{q: newQueue(opts), place: p}, err
}

// JobSubmitted implements sched.SubmitObserver.
func (p *queued) JobSubmitted(_ *sched.State, j *sched.Job) { p.q.submitted(j) }

// placement picks a job's hosts: a framework selector, or contiguous.
type placement struct {
	sel        sched.HostSelector
	contiguous bool
}

// placementFrom reads the hosts option (none: first fit).
func placementFrom(opts sched.Options) (placement, error) {
	if _, ok := opts["hosts"]; !ok {
		return placement{sel: sched.FirstFit{}}, nil
	}
	if opts["hosts"] == "contiguous" {
		return placement{contiguous: true}, nil
	}
	sel, err := sched.HostsFrom(opts)
	return placement{sel: sel}, err
}

// fit gives j's hosts when it can start now.
func (p placement) fit(s *sched.State, j *sched.Job) ([]int, bool) {
	if j.Res() > s.NbFree() || j.Res() <= 0 {
		return nil, false
	}
	if !p.contiguous {
		return p.sel.Select(s, j, j.Res()), true
	}
	return p.fitOn(s, j, func(h int) bool { return s.Host(h).Free() })
}

// fitOn gives j's hosts among those usable accepts: the lowest, or the
// first run of consecutive ones long enough (contiguous).
func (p placement) fitOn(s *sched.State, j *sched.Job, usable func(h int) bool) ([]int, bool) {
	if j.Res() <= 0 {
		return nil, false
	}
	var hosts []int
	run := 0
	for h := range s.NbHosts() {
		if !p.contiguous {
			if usable(h) {
				if hosts = append(hosts, h); len(hosts) == j.Res() {
					return hosts, true
				}
			}
			continue
		}
		if !usable(h) {
			run = 0
			continue
		}
		run++
		if run == j.Res() {
			hosts := make([]int, run)
			for i := range hosts {
				hosts[i] = h - run + 1 + i
			}
			return hosts, true
		}
	}
	return nil, false
}

// queue is a policy's waiting queue: the framework's index of an order
// (queue=indexed) or batsched's (queue=batsched).
type queue struct {
	order   string
	indexed sched.Order
	// batsched's queue: the jobs released so far with their release dates,
	// and the jobs submitted since the last decision.
	batsched bool
	entries  []entry
	release  map[*sched.Job]float64
	recent   []*sched.Job
}

type entry struct {
	j       *sched.Job
	release float64
}

// newQueue reads the order and queue options.
func newQueue(opts sched.Options) *queue {
	q := &queue{order: opts["order"], batsched: opts["queue"] == "batsched"}
	if q.batsched {
		q.release = map[*sched.Job]float64{}
		return q
	}
	switch q.order {
	case "lcfs":
		q.indexed = sched.NewKeyOrder("lcfs", func(j *sched.Job) float64 { return -j.Submit() })
	case "asc_size":
		q.indexed = sched.NewKeyOrder("asc_size", func(j *sched.Job) float64 { return float64(j.Res()) })
	case "desc_size":
		q.indexed = sched.NewKeyOrder("desc_size", func(j *sched.Job) float64 { return -float64(j.Res()) })
	case "asc_walltime":
		q.indexed = sched.WalltimeOrder{}
	case "desc_walltime":
		q.indexed = sched.WalltimeOrder{Descending: true}
	default: // fcfs, desc_slowdown, desc_bounded_slowdown
		// FCFSOrder's order, as an index that a walk jumps through to
		// the jobs that fit (the arrival order is walked job by job).
		q.indexed = sched.NewKeyOrder("fcfs", (*sched.Job).Submit)
	}
	return q
}

// submitted records a job that joined the waiting queue (SubmitObserver).
func (q *queue) submitted(j *sched.Job) {
	if q.batsched {
		q.recent = append(q.recent, j)
	}
}

// update releases the jobs submitted since the last decision (batsched's
// queue: at the date of the message's last event) and drops the jobs that
// left; a refused job is never queued (batsched rejects it at once).
func (q *queue) update(s *sched.State) {
	if !q.batsched {
		return
	}
	for _, j := range q.recent {
		if j.Waiting() && !j.Refused() {
			q.entries = append(q.entries, entry{j, s.LastEvent()})
			q.release[j] = s.LastEvent()
		}
	}
	clear(q.recent)
	q.recent = q.recent[:0]
	live := q.entries[:0]
	for _, e := range q.entries {
		if e.j.Waiting() {
			live = append(live, e)
		} else {
			delete(q.release, e.j)
		}
	}
	clear(q.entries[len(live):])
	q.entries = live
	slices.SortStableFunc(q.entries, func(a, b entry) int { return q.compare(a, b) })
}

// compare is batsched's order of two queued jobs (its SortableJobOrder).
func (q *queue) compare(a, b entry) int {
	key := func(e entry) float64 {
		switch q.order {
		case "lcfs":
			return -e.release
		case "asc_size":
			return float64(e.j.Res())
		case "desc_size":
			return -float64(e.j.Res())
		case "asc_walltime":
			return batschedWalltime(e.j)
		case "desc_walltime":
			return -batschedWalltime(e.j)
		}
		return e.release
	}
	if ka, kb := key(a), key(b); ka != kb {
		if ka < kb {
			return -1
		}
		return 1
	}
	return strings.Compare(a.j.ID(), b.j.ID())
}

// batschedWalltime is the walltime batsched sorts by: -1 without one (it
// adds its RJMS delay to every walltime, which changes no comparison).
func batschedWalltime(j *sched.Job) float64 {
	if !j.HasWalltime() {
		return -1
	}
	return j.Walltime()
}

// walk is the waiting queue in order, for one decision (after update).
func (q *queue) walk(s *sched.State) sched.Walk {
	if !q.batsched {
		return s.Walk(q.indexed)
	}
	jobs := make([]*sched.Job, len(q.entries))
	for i, e := range q.entries {
		jobs[i] = e.j
	}
	return &listWalk{q: jobs}
}

// first is the first waiting job of the queue, or nil.
func (q *queue) first(s *sched.State) *sched.Job {
	w := q.walk(s)
	for j := w.Next(math.MaxInt); j != nil; j = w.Next(math.MaxInt) {
		if j.Waiting() {
			return j
		}
	}
	return nil
}

// Sort implements sched.Order (waiting-time estimates): the queue's order,
// a job not released yet (a potential job) released now.
func (q *queue) Sort(s *sched.State, jobs []*sched.Job) {
	if !q.batsched {
		q.indexed.Sort(s, jobs)
		return
	}
	es := make([]entry, len(jobs))
	for i, j := range jobs {
		r, ok := q.release[j]
		if !ok {
			r = s.Now()
		}
		es[i] = entry{j, r}
	}
	slices.SortStableFunc(es, func(a, b entry) int { return q.compare(a, b) })
	for i, e := range es {
		jobs[i] = e.j
	}
}

// listWalk walks a list of jobs, skipping those no longer waiting.
type listWalk struct {
	q []*sched.Job
	i int
}

// Next implements sched.Walk.
func (w *listWalk) Next(int) *sched.Job {
	for w.i < len(w.q) {
		j := w.q[w.i]
		w.i++
		if j.Waiting() {
			return j
		}
	}
	return nil
}

// wait converts a forecast start time into a waiting time (-1: never).
func wait(s *sched.State, t float64) float64 {
	if math.IsInf(t, 1) {
		return -1
	}
	return t - s.Now()
}
