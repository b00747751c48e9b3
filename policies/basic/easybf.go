package basic

import (
	"math"
	"slices"

	"github.com/bucma-sched/bucma/policies/batsched"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sched/xtime"

	"github.com/bucma-sched/bucma/batsim"
)

// BatschedEASY is EASY backfilling as batsched's easy_bf (src/algo/easy_bf.cpp
// over src/schedule.cpp) decides it, decision for decision: the easy
// policy's backfill=batsched. It differs from the EASY start rule (the
// default, backfill=count) in four ways:
//
//   - Queue order. A job's release date is the timestamp of the last event
//     of the message that submitted it (Batsim prints times to the
//     microsecond, so jobs of different messages often share one); the
//     queue is ordered by release date, then by job id as a string.
//   - Pinned reservation. The first job of the queue (the priority job) is
//     placed, first fit, at the earliest date at which enough hosts are
//     free for its whole walltime, and on the very hosts it will get there
//     (the host selection's pick among them). A later job starts now only
//     if it finds enough free hosts for its whole walltime: hosts of the
//     reservation count only when the job ends by the reservation's start.
//     The textbook rule instead lets a job that runs past the reservation
//     take as many hosts as will be extra then, whichever they are.
//   - Reservation kept. The priority job is placed when it becomes the
//     priority job (the queue was empty, or a job sorted before it); then
//     again only when a job has ended and a host is free.
//   - When no job ended since the last decision, only the jobs submitted by
//     the current message are tried (in arrival order); otherwise the whole
//     queue is, in queue order.
//   - A job started as it becomes the priority job is dated with the date
//     of the message's last event (easy_bf's update information), every
//     other start with the message's now; a date earlier than a decision
//     already in the reply takes that decision's (there batsched itself
//     stops on an assertion).
//
// Dates are exact: a running job is expected to end at its start (the now
// of the decision that started it) plus its walltime plus batsched's RJMS
// delay (its -d option, 5 s by default), and these sums are compared
// exactly (xtime), as batsched does with rationals. (The delay shifts every
// expected end alike, so it changes no decision; it matters only to a job
// that runs past its walltime, which Batsim does not let happen.) A running
// job whose expected end has passed holds its hosts until it ends; a job
// without walltime holds them for ever. A priority job that cannot be
// placed (hosts unavailable for ever) has no reservation.
//
// Unlike easy_bf, which ignores them, hosts that Batsim reports unavailable
// are never given to a job.
type BatschedEASY struct {
	Hosts sched.HostSelector
	// Recent gathers the jobs submitted and ended between decisions; its
	// RejectNoWalltime refuses jobs without walltime at submission (as
	// easy_bf does).
	batsched.Recent

	queue *batsched.Queue // waiting jobs by (release date, id)
	res   reservation

	// scratch
	recent []*sched.Job
	ends   []runningEnd
	inRes  []bool // by host: held by the reservation
	mark   []bool // by host: free at the anchor being tried
}

// reservation is the priority job's place: hosts from begin to end.
type reservation struct {
	job        *sched.Job // nil: none
	begin, end xtime.Time
	hosts      []int
}

type runningEnd struct {
	end xtime.Time
	j   *sched.Job
}

// Decide implements Policy.
func (b *BatschedEASY) Decide(s *sched.State, d *sched.Decider) {
	if err := b.NoWalltimeStop(); err != nil {
		d.Fail(err)
		return
	}
	if len(b.inRes) != s.NbHosts() {
		b.inRes, b.mark = make([]bool, s.NbHosts()), make([]bool, s.NbHosts())
	}
	if b.queue == nil {
		b.queue = batsched.NewQueue(batsched.FCFS)
	}
	before := b.queue.First()
	recent := b.recent[:0]
	for _, j := range b.Released {
		if j.State() == batsim.StateSubmitted { // refused jobs are rejected already
			b.queue.Append(j, s.LastEvent())
			recent = append(recent, j)
		}
	}
	ended := len(b.Ended) > 0
	b.Recent.Clear()
	now := xtime.Of(s.Now())

	// A new priority job is placed; while it can start now, it starts and
	// the next job becomes the priority job.
	after := b.queue.First()
	if after != before {
		b.unreserve()
		for after != nil && b.place(s, after, now, s.LastEvent(), d) {
			after = b.queue.First()
		}
	}
	if !ended {
		// Only the jobs of this message, in arrival order.
		avail := b.firstSliceFree(s, now)
		for _, j := range recent {
			if avail <= 0 || d.Err() != nil {
				break
			}
			if j.State() == batsim.StateSubmitted && j != after && j.Res() <= avail && b.startNow(s, j, now, d) {
				avail -= j.Res()
			}
		}
	} else if b.firstSliceFree(s, now) > 0 {
		// The whole queue, in order; the priority job is placed anew.
		for i := b.queue.Head(); i < b.queue.Len() && d.Err() == nil; i++ {
			j := b.queue.At(i).Job
			if j.State() != batsim.StateSubmitted {
				continue
			}
			if j == after {
				b.unreserve()
				if b.place(s, j, now, s.Now(), d) {
					after = b.queue.FirstAfter(i + 1)
				}
				continue
			}
			if s.NbFree() == 0 {
				break // nothing else can start now
			}
			b.startNow(s, j, now, d)
		}
	}
	clear(recent)
	b.recent = recent[:0]
	b.queue.Compact()
}

// start starts queued job j on hosts.
func (b *BatschedEASY) start(j *sched.Job, hosts []int, at float64, d *sched.Decider) bool {
	if !d.StartAt(j, hosts, at) {
		return false
	}
	b.queue.Left()
	return true
}

// xRJMSDelay is batsched's default RJMS delay (its -d option), which it
// adds to every walltime.
var xRJMSDelay = xtime.Of(batsched.DefaultRJMSDelay)

// endFrom is when j is expected to end if it starts at t: t + walltime +
// RJMS delay; xtime.Inf without walltime.
func (b *BatschedEASY) endFrom(t xtime.Time, j *sched.Job) xtime.Time {
	return t.Add(batsched.Walltime(j.Walltime(), xRJMSDelay))
}

func (b *BatschedEASY) unreserve() {
	for _, h := range b.res.hosts {
		b.inRes[h] = false
	}
	b.res = reservation{hosts: b.res.hosts[:0]}
}

// overlaps reports whether the reservation holds its hosts at some time of
// [from, to).
func (b *BatschedEASY) overlaps(from, to xtime.Time) bool {
	return b.res.job != nil && b.res.begin.Less(to) && from.Less(b.res.end)
}

// freeOfReservation counts the free hosts the reservation holds.
func (b *BatschedEASY) freeOfReservation(s *sched.State) int {
	n := 0
	for _, h := range b.res.hosts {
		if s.Host(h).Free() {
			n++
		}
	}
	return n
}

// firstSliceFree is the number of hosts free now and not reserved now.
func (b *BatschedEASY) firstSliceFree(s *sched.State, now xtime.Time) int {
	n := s.NbFree()
	if b.res.job != nil && b.res.begin.Cmp(now) <= 0 && now.Less(b.res.end) {
		n -= b.freeOfReservation(s)
	}
	return n
}

// startNow starts j now if enough hosts are free for its whole walltime
// (the reservation's hosts count when j ends by the reservation's start).
func (b *BatschedEASY) startNow(s *sched.State, j *sched.Job, now xtime.Time, d *sched.Decider) bool {
	if j.Res() > s.NbFree() {
		return false
	}
	skipRes := b.overlaps(now, b.endFrom(now, j))
	if skipRes && j.Res() > s.NbFree()-b.freeOfReservation(s) {
		return false
	}
	hosts := selectAmong(s, b.Hosts, j.Res(), func(h int) bool {
		return s.Host(h).Free() && !(skipRes && b.inRes[h])
	})
	return b.start(j, hosts, s.Now(), d)
}

// place puts the priority job j at the earliest date at which j.Res hosts
// are free for its whole walltime (there is no other reservation): it
// starts j, its EXECUTE_JOB dated at, and returns true when that date is
// now, otherwise it reserves the hosts.
func (b *BatschedEASY) place(s *sched.State, j *sched.Job, now xtime.Time, at float64, d *sched.Decider) bool {
	if j.Res() <= s.NbFree() {
		return b.start(j, selectAmong(s, b.Hosts, j.Res(), func(h int) bool { return s.Host(h).Free() }), at, d)
	}
	ends := b.ends[:0]
	for _, r := range s.Running() {
		if e := b.endFrom(xtime.Of(r.Start()), r); now.Less(e) && e != xtime.Inf {
			ends = append(ends, runningEnd{e, r})
		}
	}
	slices.SortFunc(ends, func(x, y runningEnd) int { return x.end.Cmp(y.end) })
	free := s.NbFree()
	var marked []int
	for i := 0; i < len(ends); {
		t := ends[i].end
		for ; i < len(ends) && ends[i].end == t; i++ {
			for _, h := range ends[i].j.Alloc() {
				if !s.Host(h).Unavailable() && !b.mark[h] {
					b.mark[h] = true
					marked = append(marked, h)
					free++
				}
			}
		}
		if free >= j.Res() {
			hosts := selectAmong(s, b.Hosts, j.Res(), func(h int) bool { return s.Host(h).Free() || b.mark[h] })
			b.res = reservation{job: j, begin: t, end: b.endFrom(t, j), hosts: append(b.res.hosts[:0], hosts...)}
			for _, h := range hosts {
				b.inRes[h] = true
			}
			break
		}
	}
	for _, h := range marked {
		b.mark[h] = false
	}
	clear(ends)
	b.ends = ends[:0]
	return false
}

// selectAmong picks n hosts among those ok accepts, in the order of the
// host selection: fastest first (ties by id) for Fastest, by id otherwise.
func selectAmong(s *sched.State, sel sched.HostSelector, n int, ok func(h int) bool) []int {
	out := make([]int, 0, n)
	if _, fastest := sel.(sched.Fastest); fastest {
		for _, h := range s.HostsByFastest() {
			if len(out) == n {
				break
			}
			if ok(h) {
				out = append(out, h)
			}
		}
		return out
	}
	for h := range s.NbHosts() {
		if len(out) == n {
			break
		}
		if ok(h) {
			out = append(out, h)
		}
	}
	return out
}

// EstimateWaitingTime implements sched.WaitingTimeEstimator: the start of
// the potential job j, queued last, in EASY's forecast over the queue in
// release-date order (sched.Forecast; host counts rather than pinned
// hosts, so an estimate rather than easy_bf's exact plan).
func (b *BatschedEASY) EstimateWaitingTime(s *sched.State, j *sched.Job) (float64, bool) {
	if b.RejectNoWalltime && !j.HasWalltime() {
		return -1, true
	}
	var q []*sched.Job
	if b.queue != nil {
		q = make([]*sched.Job, 0, b.queue.Len()-b.queue.Head()+1)
		for i := b.queue.Head(); i < b.queue.Len(); i++ {
			if e := b.queue.At(i).Job; e.State() == batsim.StateSubmitted {
				q = append(q, e)
			}
		}
	}
	t := sched.Forecast(s, append(q, j), j, sched.EASY{})
	if math.IsInf(t, 1) {
		return -1, true
	}
	return t - s.Now(), true
}
