package batsched

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/sched"
)

// Order is one of batsched's queue orders (its -o option). Every order
// breaks ties by job id as a string ("w0!10" before "w0!9"). The release
// date of a job is the date of the last event of the message that
// submitted it.
type Order int

// batsched's queue orders, in the order of OrderNames.
const (
	FCFS                Order = iota // release date ascending
	LCFS                             // release date descending
	DescBoundedSlowdown              // bounded slowdown descending: (now − release) / 1, so release date ascending
	DescSlowdown                     // slowdown descending: now − release, so release date ascending
	AscSize                          // requested machines ascending
	DescSize                         // requested machines descending
	AscWalltime                      // walltime ascending
	DescWalltime                     // walltime descending
)

// OrderNames are batsched's names of the orders (-o values), by Order.
var OrderNames = []string{"fcfs", "lcfs", "desc_bounded_slowdown", "desc_slowdown", "asc_size", "desc_size", "asc_walltime", "desc_walltime"}

// String is batsched's name of the order.
func (o Order) String() string {
	if int(o) < len(OrderNames) {
		return OrderNames[o]
	}
	return fmt.Sprintf("Order(%d)", int(o))
}

// ParseOrder reads batsched's name of an order.
func ParseOrder(name string) (Order, error) {
	if i := slices.Index(OrderNames, name); i >= 0 {
		return Order(i), nil
	}
	return 0, fmt.Errorf("unknown queue order %q (batsched's are %s)", name, strings.Join(OrderNames, ", "))
}

// Queue is batsched's queue of waiting jobs, in one of its orders. The
// slowdown orders, which batsched sorts anew at every decision from the
// decision's date, give the order of release dates (every job's slowdown
// grows alike), so every order is kept sorted as jobs arrive. Jobs that
// left the waiting state are dropped lazily (Compact).
type Queue struct {
	order Order
	items []Entry
	head  int // items[:head] have all left the queue
	dead  int // items that left the queue
}

// Entry is a queued job with its release date.
type Entry struct {
	Job     *sched.Job
	Release float64
}

// NewQueue returns an empty queue in order o.
func NewQueue(o Order) *Queue { return &Queue{order: o} }

// Order is the queue's order.
func (q *Queue) Order() Order { return q.order }

// before reports whether e comes before job j released at release.
func (q *Queue) before(e Entry, j *sched.Job, release float64) bool {
	var a, b float64 // keys: e's and j's, the smaller first
	switch q.order {
	case FCFS, DescBoundedSlowdown, DescSlowdown:
		a, b = e.Release, release
	case LCFS:
		a, b = -e.Release, -release
	case AscSize:
		a, b = float64(e.Job.Res()), float64(j.Res())
	case DescSize:
		a, b = -float64(e.Job.Res()), -float64(j.Res())
	case AscWalltime:
		a, b = walltimeKey(e.Job), walltimeKey(j)
	case DescWalltime:
		a, b = -walltimeKey(e.Job), -walltimeKey(j)
	}
	if a != b {
		return a < b
	}
	return e.Job.ID() < j.ID()
}

// walltimeKey orders walltimes as batsched does with the RJMS delay
// added to each (the same delay for all: it changes no comparison), a job
// without walltime counting as -1.
func walltimeKey(j *sched.Job) float64 {
	if !j.HasWalltime() {
		return -1
	}
	return j.Walltime()
}

// Append queues j, released at release, at its place in the order.
func (q *Queue) Append(j *sched.Job, release float64) {
	i := sort.Search(len(q.items), func(k int) bool { return !q.before(q.items[k], j, release) })
	q.items = slices.Insert(q.items, i, Entry{j, release})
	if i < q.head {
		q.head = i
	}
}

// Len is the number of entries, jobs that left included (see At).
func (q *Queue) Len() int { return len(q.items) }

// Head is the position of the first entry that may still wait: the
// entries before it have all left the queue.
func (q *Queue) Head() int { return q.head }

// At is the entry at position i (Head <= i < Len): its job may have left
// the queue (check Job.Waiting).
func (q *Queue) At(i int) Entry { return q.items[i] }

// First is the first waiting job, or nil.
func (q *Queue) First() *sched.Job {
	for q.head < len(q.items) && !q.items[q.head].Job.Waiting() {
		q.head++
	}
	if q.head == len(q.items) {
		return nil
	}
	return q.items[q.head].Job
}

// FirstAfter is the first waiting job at or after position i, or nil.
func (q *Queue) FirstAfter(i int) *sched.Job {
	for ; i < len(q.items); i++ {
		if j := q.items[i].Job; j.Waiting() {
			return j
		}
	}
	return nil
}

// Left records that a queued job left the queue (started or rejected).
func (q *Queue) Left() { q.dead++ }

// Compact drops the jobs that left the queue once they are half of it
// (amortised O(1) per job). Positions change.
func (q *Queue) Compact() {
	if q.dead == 0 || 2*q.dead < len(q.items) {
		return
	}
	live := q.items[:0]
	for _, e := range q.items {
		if e.Job.State() == batsim.StateSubmitted {
			live = append(live, e)
		}
	}
	clear(q.items[len(live):])
	q.items, q.head, q.dead = live, 0, 0
}
