// Package batsched holds batsched's own data structures, as bucma's twins
// of batsched's variants need them to take batsched's decisions exactly:
// its Schedule (src/schedule.cpp: the planned allocations in time slices,
// first fit), its resource selectors (src/locality.cpp: -p basic or
// contiguous), its queue (src/queue.cpp: release dates and the orders of
// -o) and its RJMS delay (-d, added to every walltime). They live apart
// from the framework (sched) because their rules are batsched's, not a
// general policy author's (the textbook counterpart is sched.Conservative
// over sched/profile), and apart from any one policy because several
// twins use them: conservative_bf (policies/conservative), easy_bf and
// easy_bf_fast (policies/basic).
//
// The twins of batsched's energy-aware variants (policies/energy) keep a
// copy of batsched's Schedule of their own, slice for slice, and this
// Schedule cannot serve them: they walk each slice's jobs in batsched's
// order (by job id), plan a machine's sleeps as pseudo-jobs that occur
// several times in the schedule, date their calls from the first slice's
// end, and take decisions on slice boundaries that insertions leave and
// that this Schedule does not keep (it merges a boundary where no
// allocation begins or ends, and keeps no list of jobs per slice). That
// copy cannot serve conservative_bf either: its first fit walks the slices
// one by one, 31 to 33 times slower than this one's over a profile
// (BenchmarkScheduleCompress in policies/energy: a compression of 1000 and
// 4000 planned jobs on 1000 machines, 0.35 s and 7.4 s there, 0.011 s and
// 0.24 s here, measured on 2 cores under a load of 13), where
// conservative at 100 000 waiting jobs is a speed target.
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
	free   profile.Hosts // scratch of Replan
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
// before t are merged into the first, and UpdateFirstSlice reports it
// (late is true): then an allocation may have begun before t (a job
// planned to start when a job ran past its plan), or ended (a job still
// running past its plan; the caller extends it beforehand, Extend).
func (s *Schedule) UpdateFirstSlice(t xtime.Time) (late bool) { return s.p.Advance(t) > 0 }

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
//
// The Alloc of an allocation planned again is the same value, updated.
func (s *Schedule) AddFirstFit(id string, res int, walltime xtime.Time, sel Selector) (*Alloc, bool) {
	return s.AddFirstFitAfter(id, res, walltime, sel, s.p.Begin())
}

// AddFirstFitAfter is AddFirstFit at a date from on (batsched's
// add_job_first_fit_after_time): the dates tried are from, then the slice
// begins after it. batsched splits the slice that holds from there and
// keeps the split; the schedule does not, which changes no first fit (a
// boundary where no allocation begins or ends is never the first date
// that fits: the slice before it fits as well).
func (s *Schedule) AddFirstFitAfter(id string, res int, walltime xtime.Time, sel Selector, from xtime.Time) (*Alloc, bool) {
	from = xtime.Max(from, s.p.Begin())
	a := s.allocs[id]
	s.Remove(id)
	begin, hosts, ok := s.p.EarliestFitHosts(from, walltime, res, sel.Fit, s.buf[:0])
	s.buf = hosts[:0]
	if !ok {
		return nil, false
	}
	end := Horizon
	if walltime != xtime.Inf {
		end = begin.Add(walltime)
	}
	if a == nil {
		a = &Alloc{ID: id, set: profile.NewHosts(s.hosts)}
	}
	a.Begin, a.End, a.StartedInFirstSlice = begin, end, begin == s.p.Begin()
	a.setHosts(hosts)
	s.p.ReserveHosts(a.Begin, a.End, a.set)
	s.allocs[id] = a
	return a, true
}

// setHosts makes hosts (sorted here) the allocation's machines.
func (a *Alloc) setHosts(hosts []int) {
	a.Hosts = append(a.Hosts[:0], hosts...)
	slices.Sort(a.Hosts)
	clear(a.set)
	for _, h := range a.Hosts {
		a.set.Add(h)
	}
}

// Replan takes id out of the schedule and plans it again, first fit (as
// batsched's compression does: remove_job_if_exists, then
// add_job_first_fit): AddFirstFit. When the allocation cannot begin
// earlier (no earlier slice begin has res available machines for its
// walltime, counting its own as available: profile.CanMoveEarlier), it
// would be planned again at the same date (its begin stays a slice
// boundary: the slice before it has too few), on the selector's pick
// among the machines available throughout its span once it is out, which
// are those available with it in plus its own: Replan then only picks
// them (and leaves the allocation as it is when they are the same),
// without taking it out.
func (s *Schedule) Replan(id string, res int, walltime xtime.Time, sel Selector) (*Alloc, bool) {
	a, ok := s.allocs[id]
	if !ok || !s.p.Begin().Less(a.Begin) {
		return s.AddFirstFit(id, res, walltime, sel)
	}
	if from, earlier := s.p.CanMoveEarlier(s.p.Begin(), a.Begin, a.Begin, walltime, res); earlier {
		// The slice begins before from have too few machines.
		return s.AddFirstFitAfter(id, res, walltime, sel, from)
	}
	free := s.p.FreeHostsInto(s.free, a.Begin, a.End)
	s.free = free
	for k := range free {
		free[k] |= a.set[k]
	}
	hosts, fit := sel.Fit(free, res, s.buf[:0])
	s.buf = hosts[:0]
	if !fit {
		return s.AddFirstFit(id, res, walltime, sel)
	}
	slices.Sort(hosts)
	if slices.Equal(hosts, a.Hosts) {
		return a, true
	}
	s.p.ReleaseHosts(a.Begin, a.End, a.set)
	a.setHosts(hosts)
	s.p.ReserveHosts(a.Begin, a.End, a.set)
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
