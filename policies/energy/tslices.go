package energy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sched/xtime"
)

// This file is batsched's Schedule (src/schedule.cpp) as its energy-aware
// variants use it, slice for slice: a list of time slices, each with its
// available machines and the jobs allocated in it (ordered by job id, as
// batsched's JobComparator orders them). Slices are split where an
// allocation begins or ends, or at the date of an insertion after a date,
// and merged only when a removal leaves two neighbours with the same jobs.
// The energy variants walk these slices and their jobs directly, plan a
// machine's sleeps as pseudo-jobs that may occur more than once, and time
// their CALL_ME_LATER from the first slice's end, so the twin keeps
// batsched's very structure. Dates are exact (xtime), as batsched's
// rationals.

// horizon is the end of the last slice (1e19 s).
var horizon = xtime.Of(1e19)

// jobKind tells real jobs from the pseudo-jobs of machine states.
type jobKind uint8

const (
	realJob   jobKind = iota
	switchOn          // fakejob_son_M
	switchOff         // fakejob_soff_M
	ensured           // fakejob_esleep_M: sleep that cannot be cut
	potential         // fakejob_psleep_M: sleep until needed
)

// bjob is a job as batsched's Schedule sees it.
type bjob struct {
	id          string
	res         int
	walltime    xtime.Time // with the RJMS delay; set at each fit when !hasWalltime
	hasWalltime bool
	kind        jobKind
	machine     int        // pseudo-jobs
	job         *sched.Job // real jobs
	release     float64    // queue release date
	submit      float64
}

func (j *bjob) fake() bool { return j.kind != realJob }

// sjob is a job's machines in one slice.
type sjob struct {
	j *bjob
	m mset
}

// tslice is a time slice.
type tslice struct {
	begin, end, length xtime.Time
	avail              mset
	navail             int
	jobs               []sjob // by job id
}

func (s *tslice) clone() tslice {
	c := *s
	c.avail = s.avail.clone()
	c.jobs = make([]sjob, len(s.jobs))
	for i, sj := range s.jobs {
		c.jobs[i] = sjob{sj.j, sj.m.clone()}
	}
	return c
}

// find is the index of j in the slice's jobs (-1: absent).
func (s *tslice) find(j *bjob) int {
	i, ok := slices.BinarySearchFunc(s.jobs, j.id, func(x sjob, id string) int { return strings.Compare(x.j.id, id) })
	if !ok || s.jobs[i].j != j {
		return -1
	}
	return i
}

// set allocates j on m in the slice (replacing an entry of the same id,
// as a std::map does).
func (s *tslice) set(j *bjob, m mset) {
	i, ok := slices.BinarySearchFunc(s.jobs, j.id, func(x sjob, id string) int { return strings.Compare(x.j.id, id) })
	if ok {
		s.jobs[i] = sjob{j, m.clone()}
		return
	}
	s.jobs = slices.Insert(s.jobs, i, sjob{j, m.clone()})
}

// erase takes j out of the slice's jobs; false when it was not there.
func (s *tslice) erase(j *bjob) bool {
	i := s.find(j)
	if i < 0 {
		return false
	}
	s.jobs = slices.Delete(s.jobs, i, i+1)
	return true
}

// sameJobs is std::map equality: the same jobs on the same machines.
func sameJobs(a, b *tslice) bool {
	if len(a.jobs) != len(b.jobs) {
		return false
	}
	for i := range a.jobs {
		if a.jobs[i].j != b.jobs[i].j || !a.jobs[i].m.equal(b.jobs[i].m) {
			return false
		}
	}
	return true
}

// schedule is batsched's Schedule.
type schedule struct {
	n  int
	sl []tslice
}

// assertion is where batsched stops on one of its assertions (PPK_ASSERT).
// assertion is batsched's stop: one of its assertions, or (crash) a step
// where it reads outside its data and crashes.
type assertion struct {
	msg   string
	crash bool
}

func (a *assertion) Error() string {
	if a.crash {
		return "batsched crashes where " + a.msg
	}
	return "batsched's assertion: " + a.msg
}

func fail(format string, args ...any) { panic(&assertion{msg: fmt.Sprintf(format, args...)}) }

// crash stops where batsched crashes.
func crash(format string, args ...any) {
	panic(&assertion{msg: fmt.Sprintf(format, args...), crash: true})
}

func newSchedule(n int, t xtime.Time) *schedule {
	return &schedule{n: n, sl: []tslice{{begin: t, end: horizon, length: horizon.Sub(t), avail: fullMset(n), navail: n}}}
}

func (s *schedule) clone() *schedule {
	c := &schedule{n: s.n, sl: make([]tslice, len(s.sl))}
	for i := range s.sl {
		c.sl[i] = s.sl[i].clone()
	}
	return c
}

func (s *schedule) firstSliceBegin() xtime.Time { return s.sl[0].begin }
func (s *schedule) finiteHorizon() xtime.Time   { return s.sl[len(s.sl)-1].begin }
func (s *schedule) infiniteHorizon() xtime.Time { return s.sl[len(s.sl)-1].end }

// updateFirstSliceRemovingRemainingJobs moves the present to t, dropping
// the slices that ended by then (update_first_slice_removing_remaining_jobs).
func (s *schedule) updateFirstSliceRemovingRemainingJobs(t xtime.Time) {
	if !t.Less(s.infiniteHorizon()) {
		fail("current_time < infinite_horizon()")
	}
	if t.Less(s.sl[0].begin) {
		fail("current_time=%g, slice->begin=%g", t.Float(), s.sl[0].begin.Float())
	}
	k := 0
	for !t.Less(s.sl[k].end) {
		k++
	}
	s.sl = slices.Delete(s.sl, 0, k)
	s.sl[0].begin = t
	s.sl[0].length = s.sl[0].end.Sub(t)
}

func (s *schedule) findFirstOccurrence(j *bjob, from int) int {
	for i := from; i < len(s.sl); i++ {
		if s.sl[i].find(j) >= 0 {
			return i
		}
	}
	return -1
}

// findLastOccurrence is the first slice of j's last run of slices, looking
// back from the end down to from (find_last_occurence_of_job); -1 when j is
// not there.
func (s *schedule) findLastOccurrence(j *bjob, from int) int {
	found := false
	i := len(s.sl)
	for {
		i--
		if s.sl[i].find(j) >= 0 {
			found = true
		} else if found {
			return i + 1
		}
		if i == from {
			break
		}
	}
	if found {
		return from
	}
	return -1
}

func (s *schedule) containsJob(j *bjob) bool { return s.findFirstOccurrence(j, 0) >= 0 }

// removeJob removes j's first occurrence (it must be there).
func (s *schedule) removeJob(j *bjob) {
	i := s.findFirstOccurrence(j, 0)
	if i < 0 {
		fail("Cannot remove job '%s' from the schedule since it is not in it", j.id)
	}
	s.removeJobInternal(j, i)
}

func (s *schedule) removeJobIfExists(j *bjob) bool {
	i := s.findFirstOccurrence(j, 0)
	if i < 0 {
		return false
	}
	s.removeJobInternal(j, i)
	return true
}

func (s *schedule) removeJobLastOccurrence(j *bjob) {
	i := s.findLastOccurrence(j, 0)
	if i < 0 {
		fail("Cannot remove job '%s' from the schedule since it is not in it", j.id)
	}
	s.removeJobInternal(j, i)
}

// mergeWithPrevious merges slice i into slice i-1 when they hold the same
// jobs; it returns the index of the (merged) slice.
func (s *schedule) mergeWithPrevious(i int) int {
	if i == 0 || !sameJobs(&s.sl[i-1], &s.sl[i]) {
		return i
	}
	if !s.sl[i-1].avail.equal(s.sl[i].avail) {
		fail("Two consecutive time slices, do NOT use the same resources whereas they contain the same jobs")
	}
	s.sl[i].begin = s.sl[i-1].begin
	s.sl[i].length = s.sl[i].end.Sub(s.sl[i].begin)
	s.sl = slices.Delete(s.sl, i-1, i)
	return i - 1
}

// removeJobInternal removes j's run of slices starting at (or after) from,
// merging slices as batsched does.
func (s *schedule) removeJobInternal(j *bjob, from int) {
	k := s.sl[from].find(j)
	if k < 0 {
		fail("removal_point->allocated_jobs.count(job) == 1")
	}
	m := s.sl[from].jobs[k].m.clone()
	for p := from; p < len(s.sl); p++ {
		if !s.sl[p].erase(j) {
			continue
		}
		s.sl[p].avail.or(m)
		s.sl[p].navail += j.res
		p = s.mergeWithPrevious(p)
		for p++; p < len(s.sl) && s.sl[p].erase(j); p++ {
			s.sl[p].avail.or(m)
			s.sl[p].navail += j.res
			p = s.mergeWithPrevious(p)
		}
		if p < len(s.sl) {
			s.mergeWithPrevious(p)
		}
		return
	}
}

// split splits slice i at date when date is strictly inside it; it returns
// the indexes of the slices before and after date (the same slice when no
// split was needed).
func (s *schedule) split(i int, date xtime.Time) (int, int) {
	sl := &s.sl[i]
	if !(sl.begin.Less(date) && date.Less(sl.end)) {
		return i, i
	}
	second := sl.clone()
	second.begin = date
	second.length = second.end.Sub(date)
	sl.end = date
	sl.length = date.Sub(sl.begin)
	s.sl = slices.Insert(s.sl, i+1, second)
	return i, i + 1
}

// selector is batsched's ResourceSelector.
type selector interface {
	fit(j *bjob, avail mset) (mset, bool)
}

// basicSelector is -p basic: the lowest machines.
type basicSelector struct{}

func (basicSelector) fit(j *bjob, avail mset) (mset, bool) {
	if j.res <= avail.size() {
		return avail.left(j.res), true
	}
	return nil, false
}

// rangeSelector is LimitedRangeResourceSelector: the lowest machines of a
// range.
type rangeSelector struct{ r mset }

func (r rangeSelector) fit(j *bjob, avail mset) (mset, bool) {
	a := avail.inter(r.r)
	if j.res <= a.size() {
		return a.left(j.res), true
	}
	return nil, false
}

// jalloc is batsched's JobAlloc.
type jalloc struct {
	begin, end          xtime.Time
	used                mset
	startedInFirstSlice bool
	inserted            bool
}

func (s *schedule) addJobFirstFit(j *bjob, sel selector, must bool) jalloc {
	if s.containsJob(j) {
		fail("Invalid Schedule::add_job_first_fit call: Cannot add job '%s' because it is already in the schedule", j.id)
	}
	return s.addJobFirstFitAfterSlice(j, 0, sel, must)
}

// addJobFirstFitAfterSlice places j at the first slice from slice from on
// where the selector finds its machines available until its end
// (add_job_first_fit_after_time_slice).
func (s *schedule) addJobFirstFitAfterSlice(j *bjob, from int, sel selector, must bool) jalloc {
	for p := from; p < len(s.sl); p++ {
		if s.sl[p].navail < j.res {
			continue
		}
		if !j.hasWalltime {
			j.walltime = horizon.Sub(s.sl[p].begin)
		}
		total := s.sl[p].length
		if !total.Less(j.walltime) {
			used, ok := sel.fit(j, s.sl[p].avail)
			if !ok {
				continue
			}
			begin := s.sl[p].begin
			a := jalloc{begin: begin, end: begin.Add(j.walltime), used: used, startedInFirstSlice: p == 0, inserted: true}
			first, _ := s.split(p, begin.Add(j.walltime))
			s.take(first, j, used)
			return a
		}
		avail := s.sl[p].avail.clone()
		for p2 := p + 1; p2 < len(s.sl) && s.sl[p2].navail >= j.res; p2++ {
			avail.and(s.sl[p2].avail)
			total = total.Add(s.sl[p2].length)
			if avail.size() < j.res {
				break
			}
			if total.Less(j.walltime) {
				continue
			}
			used, ok := sel.fit(j, avail)
			if !ok {
				continue
			}
			begin := s.sl[p].begin
			a := jalloc{begin: begin, end: begin.Add(j.walltime), used: used, startedInFirstSlice: p == 0, inserted: true}
			for p3 := p; p3 < p2; p3++ {
				s.take(p3, j, used)
			}
			first, _ := s.split(p2, begin.Add(j.walltime))
			s.take(first, j, used)
			return a
		}
	}
	if must {
		fail("Error in Schedule::add_job_first_fit: could not add job '%s'", j.id)
	}
	return jalloc{}
}

// take allocates used to j in slice i.
func (s *schedule) take(i int, j *bjob, used mset) {
	s.sl[i].avail.andNot(used)
	s.sl[i].navail -= j.res
	s.sl[i].set(j, used)
}

// addJobFirstFitAfterTime splits the slice holding date there and places j
// from it on (add_job_first_fit_after_time).
func (s *schedule) addJobFirstFitAfterTime(j *bjob, date xtime.Time, sel selector, must bool) jalloc {
	i := 0
	for ; i < len(s.sl); i++ {
		if !date.Less(s.sl[i].begin) && date.Less(s.sl[i].end) {
			break
		}
	}
	if i == len(s.sl) {
		fail("Cannot find the insertion slice of date %g", date.Float())
	}
	_, second := s.split(i, date)
	return s.addJobFirstFitAfterSlice(j, second, sel, must)
}

// availableDuring is available_machines_during_period.
func (s *schedule) availableDuring(begin, end xtime.Time) mset {
	if begin.Less(s.firstSliceBegin()) || s.infiniteHorizon().Less(end) {
		fail("available_machines_during_period: [%g, %g) outside the schedule", begin.Float(), end.Float())
	}
	i := 0
	for i < len(s.sl) && s.sl[i].begin.Less(begin) {
		i++
	}
	if i == len(s.sl) {
		fail("No time slice starting after date %g could be found", begin.Float())
	}
	a := s.sl[i].avail.clone()
	for ; i < len(s.sl) && s.sl[i].begin.Less(end); i++ {
		a.and(s.sl[i].avail)
	}
	return a
}

// lastSliceBefore is find_last_time_slice_before_date (the first slice when
// none begins by date and must is false).
func (s *schedule) lastSliceBefore(date xtime.Time, must bool) int {
	for i := len(s.sl) - 1; i >= 0; i-- {
		if !date.Less(s.sl[i].begin) {
			return i
		}
	}
	if must {
		fail("No time slice beginning before date %g could be found", date.Float())
	}
	return 0
}

// String lists the slices and their jobs (for errors and tests).
func (s *schedule) String() string {
	var b strings.Builder
	for _, sl := range s.sl {
		fmt.Fprintf(&b, "[%g, %g) avail %q:", sl.begin.Float(), sl.end.Float(), sl.avail.String())
		for _, sj := range sl.jobs {
			fmt.Fprintf(&b, " %s@%s", sj.j.id, sj.m.String())
		}
		b.WriteByte('\n')
	}
	return b.String()
}
