// Package batsched holds batsched's own data structures, as bucma's twins
// of batsched's variants need them to take batsched's decisions exactly:
// its Schedule (src/schedule.cpp: the planned allocations in time slices,
// first fit), its resource selectors (src/locality.cpp: -p basic or
// contiguous), its queue (src/queue.cpp: release dates and the orders of
// -o) and its RJMS delay (-d, added to every walltime). They live apart
// from the framework (sched) because their rules are batsched's, not a
// general policy author's (the textbook counterpart is sched.Conservative
// over sched/profile), and apart from any one policy because several
// twins use them: conservative_bf (policies/conservative), easy_bf
// (policies/basic) and the energy-aware variants.
package batsched

import (
	"iter"
	"maps"
	"slices"

	"github.com/bucma-sched/bucma/sched/profile"
	"github.com/bucma-sched/bucma/sched/xtime"
)

// HorizonSeconds is the end of the last slice of a Schedule, 1e19 s
// ("greater than the number of seconds elapsed since the big bang",
// schedule.cpp): nothing is planned past it.
const HorizonSeconds = 1e19

// Horizon is HorizonSeconds as an exact date.
var Horizon = xtime.Of(HorizonSeconds)

// Schedule is batsched's Schedule: the allocations planned on a
// platform's machines over time, in time slices, each with the set of its
// available machines, from the present (the first slice's begin) to
// Horizon. A slice boundary lies wherever an allocation begins or ends,
// and consecutive slices that would hold the same allocations are merged,
// as batsched merges them when it removes a job.
//
// Its time slices are a profile.Profile with host sets: the first fit
// (AddFirstFit) jumps over the stretches of slices with too few available
// machines (O(log S) each for S slices) and intersects the machine sets
// of the slices a candidate allocation spans only where every one of them
// has enough, instead of walking the slices one by one as batsched does;
// it finds batsched's allocation all the same. Dates are exact.
//
// Allocations are named by a string (a job id, or any name: the
// energy-aware variants plan machine sleeps as allocations too).
type Schedule struct {
	p      *profile.Profile
	hosts  int
	allocs map[string]*Alloc
	buf    []int
}

// Alloc is an allocation of a Schedule: batsched's JobAlloc.
type Alloc struct {
	// ID names the allocation (a job id).
	ID string
	// Begin and End are its dates: End is Begin plus the walltime (with
	// the RJMS delay), or Horizon for a job without walltime.
	Begin, End xtime.Time
	// Hosts are its machines, in increasing order.
	Hosts []int
	// StartedInFirstSlice: it began at the first slice when it was
	// placed (the job may start now).
	StartedInFirstSlice bool

	set profile.Hosts
}

// NewSchedule returns the empty schedule of machines 0..hosts-1 from
// begin: one slice, every machine available.
func NewSchedule(hosts int, begin xtime.Time) *Schedule {
	return &Schedule{p: profile.NewWithHosts(hosts, begin, Horizon), hosts: hosts, allocs: map[string]*Alloc{}}
}

// NbMachines is the number of machines.
func (s *Schedule) NbMachines() int { return s.hosts }

// FirstSliceBegin is the present: the begin of the first slice.
func (s *Schedule) FirstSliceBegin() xtime.Time { return s.p.Begin() }

// NbSlices is the number of time slices.
func (s *Schedule) NbSlices() int { return s.p.NbSlices() }

// Slices yields the time slices in date order (each with its available
// machines). The schedule must not change during the iteration.
func (s *Schedule) Slices() iter.Seq[profile.Slice] { return s.p.Slices() }

// UpdateFirstSlice moves the present to t: the first slice begins at t
// (batsched's update_first_slice). Where batsched requires t to lie in the
// first slice (and stops on an assertion otherwise), the slices that ended
// by t are merged into the first; an allocation that ended by t while its
// job still runs is extended with Extend by the caller.
func (s *Schedule) UpdateFirstSlice(t xtime.Time) { s.p.Advance(t) }

// Contains reports whether id has an allocation.
func (s *Schedule) Contains(id string) bool { _, ok := s.allocs[id]; return ok }

// Alloc is the allocation of id.
func (s *Schedule) Alloc(id string) (*Alloc, bool) {
	a, ok := s.allocs[id]
	return a, ok
}

// Allocs yields the allocations by id, in id order.
func (s *Schedule) Allocs() iter.Seq[*Alloc] {
	return func(yield func(*Alloc) bool) {
		for _, id := range slices.Sorted(maps.Keys(s.allocs)) {
			if !yield(s.allocs[id]) {
				return
			}
		}
	}
}

// Remove takes the allocation of id out of the schedule, its machines
// available again (batsched's remove_job_if_exists); false when id has
// none.
func (s *Schedule) Remove(id string) bool {
	a, ok := s.allocs[id]
	if !ok {
		return false
	}
	s.p.ReleaseHosts(a.Begin, a.End, a.set)
	delete(s.allocs, id)
	return true
}

// Extend moves the end of id's allocation to end (later than its end):
// a job that runs past its planned end keeps its machines.
func (s *Schedule) Extend(id string, end xtime.Time) {
	a, ok := s.allocs[id]
	if !ok || !a.End.Less(end) {
		return
	}
	s.p.ReleaseHosts(a.Begin, a.End, a.set)
	a.End = end
	s.p.ReserveHosts(a.Begin, a.End, a.set)
}

// DefaultRJMSDelay is batsched's default RJMS delay (its -d option), in
// seconds: what it adds to every walltime ("the expected time that the
// RJMS takes to do some things like killing a job").
const DefaultRJMSDelay = 5.0

// Walltime is a job's planned duration in a schedule: its walltime plus
// the RJMS delay (as batsched adds it to every walltime), or xtime.Inf
// (until the horizon) for a job without walltime (walltime <= 0).
func Walltime(walltime float64, delay xtime.Time) xtime.Time {
	if walltime <= 0 {
		return xtime.Inf
	}
	return xtime.Of(walltime).Add(delay)
}

// AddFirstFit plans id (res machines for walltime, as Walltime gives it)
// at the earliest slice begin where res machines of the selector's choice
// are available until its end, on those machines (batsched's
// add_job_first_fit). ok is false when it fits nowhere before the horizon
// (where batsched stops on an assertion). An allocation id already has is
// replaced.
func (s *Schedule) AddFirstFit(id string, res int, walltime xtime.Time, sel Selector) (*Alloc, bool) {
	s.Remove(id)
	begin, hosts, ok := s.p.EarliestFitHosts(s.p.Begin(), walltime, res, sel.Fit, s.buf[:0])
	s.buf = hosts[:0]
	if !ok {
		return nil, false
	}
	end := Horizon
	if walltime != xtime.Inf {
		end = begin.Add(walltime)
	}
	a := &Alloc{ID: id, Begin: begin, End: end, Hosts: slices.Clone(hosts), StartedInFirstSlice: begin == s.p.Begin()}
	slices.Sort(a.Hosts)
	a.set = profile.HostsOf(s.hosts, a.Hosts...)
	s.p.ReserveHosts(a.Begin, a.End, a.set)
	s.allocs[id] = a
	return a, true
}

// Place plans id on given machines from begin to end, whatever the
// machines' availability (a job that runs already, or one placed by the
// caller's own rule).
func (s *Schedule) Place(id string, begin, end xtime.Time, hosts []int) *Alloc {
	s.Remove(id)
	a := &Alloc{ID: id, Begin: begin, End: end, Hosts: slices.Sorted(slices.Values(hosts)), StartedInFirstSlice: begin == s.p.Begin()}
	a.set = profile.HostsOf(s.hosts, a.Hosts...)
	s.p.ReserveHosts(a.Begin, a.End, a.set)
	s.allocs[id] = a
	return a
}

// QueryWait is the date at which res machines would be available for
// walltime, were a job planned now (batsched's query_wait, which answers
// Batsim's estimate_waiting_time); ok is false when they would never be
// (batsched answers -1).
func (s *Schedule) QueryWait(res int, walltime xtime.Time, sel Selector) (xtime.Time, bool) {
	begin, hosts, ok := s.p.EarliestFitHosts(s.p.Begin(), walltime, res, sel.Fit, s.buf[:0])
	s.buf = hosts[:0]
	return begin, ok
}

// AvailableDuring is the set of machines available throughout [begin,
// end) (batsched's available_machines_during_period).
func (s *Schedule) AvailableDuring(begin, end xtime.Time) profile.Hosts {
	return s.p.FreeHosts(xtime.Max(begin, s.p.Begin()), end)
}

// String lists the slices (dates, number and ids of the available
// machines).
func (s *Schedule) String() string { return s.p.String() }
