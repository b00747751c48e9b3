package osep

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"sort"

	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/expe/figures"
	"github.com/bucma-sched/bucma/metrics"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/workloads"
)

// The OSEP metrics (algorithms.md §5.2, experiments.md §3): each user's
// satisfaction (Eq. 4.4 of the thesis), each user's share of the grid's
// power over time, and the preemptions. They read Batsim's _jobs.csv, the
// workload file and the platform, like every other metric of the package,
// and follow each preempted job through its resubmitted pieces (see
// OriginalJob).

// GridHost is a compute host of an owner-share grid.
type GridHost struct {
	ID    int // Batsim resource id
	Name  string
	Speed float64 // flop/s
	Owner string  // "" when the host has no owner property
}

// OSEPGrid is a platform as the OSEP metrics see it: the compute hosts in
// resource-id order, each with its speed and owner.
type OSEPGrid struct {
	Hosts []GridHost // Hosts[i].ID == i
	Total float64    // Σ speed over every compute host
	// Users are the owners, in the order of their first host.
	Users []string
}

// NewOSEPGrid reads the owners of a platform's compute hosts from the host
// property prop ("" means DefaultOwnerProperty).
func NewOSEPGrid(p *platforms.Platform, prop string) (*OSEPGrid, error) {
	if prop == "" {
		prop = DefaultOwnerProperty
	}
	g := &OSEPGrid{}
	seen := map[string]bool{}
	for i, h := range p.Hosts {
		if !(h.Speed > 0) {
			return nil, fmt.Errorf("host %s: speed %g: must be > 0", h.Name, h.Speed)
		}
		owner := h.Properties[prop]
		g.Hosts = append(g.Hosts, GridHost{ID: i, Name: h.Name, Speed: h.Speed, Owner: owner})
		g.Total += h.Speed
		if owner != "" && !seen[owner] {
			seen[owner] = true
			g.Users = append(g.Users, owner)
		}
	}
	if len(g.Users) == 0 {
		return nil, fmt.Errorf("no compute host has a %q property: not an owner-share grid", prop)
	}
	return g, nil
}

// Owned lists the hosts a user owns, in resource-id order.
func (g *OSEPGrid) Owned(user string) []GridHost {
	var out []GridHost
	for _, h := range g.Hosts {
		if h.Owner == user {
			out = append(out, h)
		}
	}
	return out
}

// OwnedShare is the fraction of the grid's power a user owns (Porcao_u over
// the total; 0 for a user who owns nothing).
func (g *OSEPGrid) OwnedShare(user string) float64 {
	s := 0.0
	for _, h := range g.Owned(user) {
		s += h.Speed
	}
	return s / g.Total
}

// OSEPJob is an original job of an OSEP workload.
type OSEPJob struct {
	ID     string // job id in the workload (= job_id of its row in _jobs.csv)
	User   string
	Submit float64 // seconds
	Flop   float64 // work on one host
}

// ReadOSEPJobs reads the jobs of an OSEP workload file (see ParseOSEPJobs).
func ReadOSEPJobs(path string) ([]OSEPJob, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	jobs, err := ParseOSEPJobs(data)
	if err != nil {
		return nil, fmt.Errorf("workload %s: %w", path, err)
	}
	return jobs, nil
}

// ParseOSEPJobs reads the jobs of an OSEP workload: sequential jobs (res 1)
// whose profile is a computation (parallel_homogeneous, its _total form or
// parallel: the flops of the one host), each with a user ("user" field,
// else "user_id").
func ParseOSEPJobs(data []byte) ([]OSEPJob, error) {
	w, err := workloads.Parse(data, "workload")
	if err != nil {
		return nil, err
	}
	info, err := analysis.ParseJobInfo(data)
	if err != nil {
		return nil, err
	}
	out := make([]OSEPJob, 0, len(w.Jobs))
	for _, j := range w.Jobs {
		if j.Res != 1 {
			return nil, fmt.Errorf("job %s: %d resources: the OSEP metrics need sequential jobs (res 1)", j.ID, j.Res)
		}
		user := info[j.ID].User
		if user == "" {
			return nil, fmt.Errorf("job %s: no user field", j.ID)
		}
		p, ok := w.Profiles[j.Profile]
		if !ok {
			return nil, fmt.Errorf("job %s: unknown profile %q", j.ID, j.Profile)
		}
		var flop float64
		switch p.Type {
		case workloads.TypeParallelHomogeneous, workloads.TypeParallelHomogeneousTotal:
			flop = p.CPU
		case workloads.TypeParallel:
			if len(p.CPUs) == 1 {
				flop = p.CPUs[0]
			}
		}
		if !(flop > 0) || math.IsInf(flop, 0) {
			return nil, fmt.Errorf("job %s: profile %s (%s): the OSEP metrics need a computation of a positive number of flops", j.ID, j.Profile, p.Type)
		}
		out = append(out, OSEPJob{ID: j.ID, User: user, Submit: j.Subtime, Flop: flop})
	}
	return out, nil
}

// IdealCompletion simulates jobs alone on hosts by list scheduling and
// returns each job's completion time: jobs arrive at their submission time;
// whenever hosts are free, the smallest waiting job (fewest flops, ties by
// id) goes to the fastest free host (ties by resource id) and runs for
// flop / speed seconds, uninterrupted.
func IdealCompletion(jobs []OSEPJob, hosts []GridHost) (map[string]float64, error) {
	ct := make(map[string]float64, len(jobs))
	if len(jobs) == 0 {
		return ct, nil
	}
	if len(hosts) == 0 {
		return nil, errors.New("no host to run the jobs on")
	}
	hs := append([]GridHost(nil), hosts...)
	for _, h := range hs {
		if !(h.Speed > 0) {
			return nil, fmt.Errorf("host %s: speed %g: must be > 0", h.Name, h.Speed)
		}
	}
	sort.SliceStable(hs, func(a, b int) bool {
		if hs[a].Speed != hs[b].Speed {
			return hs[a].Speed > hs[b].Speed
		}
		return hs[a].ID < hs[b].ID
	})
	arrivals := append([]OSEPJob(nil), jobs...)
	seen := map[string]bool{}
	for _, j := range arrivals {
		if seen[j.ID] {
			return nil, fmt.Errorf("job %s given twice", j.ID)
		}
		seen[j.ID] = true
		if j.Flop < 0 || math.IsNaN(j.Flop) || math.IsInf(j.Flop, 0) || math.IsNaN(j.Submit) || math.IsInf(j.Submit, 0) {
			return nil, fmt.Errorf("job %s: submission %g, %g flops", j.ID, j.Submit, j.Flop)
		}
	}
	sort.SliceStable(arrivals, func(a, b int) bool { return arrivals[a].Submit < arrivals[b].Submit })
	busyUntil := make([]float64, len(hs)) // by position in hs
	busy := make([]bool, len(hs))
	var waiting []OSEPJob
	next := 0
	for len(ct) < len(jobs) {
		// The next event: an arrival or a completion.
		t := math.Inf(1)
		if next < len(arrivals) {
			t = arrivals[next].Submit
		}
		for i := range hs {
			if busy[i] {
				t = math.Min(t, busyUntil[i])
			}
		}
		for i := range hs {
			if busy[i] && busyUntil[i] <= t {
				busy[i] = false
			}
		}
		for next < len(arrivals) && arrivals[next].Submit <= t {
			waiting = append(waiting, arrivals[next])
			next++
		}
		sort.Slice(waiting, func(a, b int) bool {
			if waiting[a].Flop != waiting[b].Flop {
				return waiting[a].Flop < waiting[b].Flop
			}
			return waiting[a].ID < waiting[b].ID
		})
		for i := range hs {
			if len(waiting) == 0 {
				break
			}
			if busy[i] {
				continue
			}
			j := waiting[0]
			waiting = waiting[1:]
			busy[i], busyUntil[i] = true, t+j.Flop/hs[i].Speed
			ct[j.ID] = busyUntil[i]
		}
	}
	return ct, nil
}

// OwnerAloneCompletion is the reference of the satisfaction metric
// (algorithms.md §5.2): the completion time of each job in a simulation
// where its user runs alone on exactly the hosts they own (IdealCompletion
// per user). The jobs of a user who owns no host have none.
func OwnerAloneCompletion(jobs []OSEPJob, g *OSEPGrid) (map[string]float64, error) {
	byUser := map[string][]OSEPJob{}
	for _, j := range jobs {
		byUser[j.User] = append(byUser[j.User], j)
	}
	out := make(map[string]float64, len(jobs))
	for _, u := range slices.Sorted(maps.Keys(byUser)) {
		owned := g.Owned(u)
		if len(owned) == 0 {
			continue
		}
		ct, err := IdealCompletion(byUser[u], owned)
		if err != nil {
			return nil, fmt.Errorf("user %s: %w", u, err)
		}
		for id, t := range ct {
			out[id] = t
		}
	}
	return out, nil
}

// jobOutcome is what the rows of _jobs.csv say about one original job.
type jobOutcome struct {
	finish    float64 // finish time of the row that completed it
	completed int     // rows that completed it (1 when all is well)
}

// outcomes maps each original job of jobs to its outcome; rows that belong
// to no job of jobs are counted in orphans.
func outcomes(rows []analysis.JobRow, jobs []OSEPJob) (out map[string]*jobOutcome, orphans int) {
	out = make(map[string]*jobOutcome, len(jobs))
	for _, j := range jobs {
		out[j.ID] = &jobOutcome{}
	}
	for i := range rows {
		r := &rows[i]
		_, name, _ := analysis.OriginalJob(r.Workload, r.ID)
		o, ok := out[name]
		if !ok {
			orphans++
			continue
		}
		if r.FinalState == metrics.SuccessState && r.HasTimes {
			if o.completed == 0 || r.Finish > o.finish {
				o.finish = r.Finish
			}
			o.completed++
		}
	}
	return out, orphans
}

// UserSatisfaction is the satisfaction of one user in one run.
type UserSatisfaction struct {
	// SU is Eq. 4.4 of the thesis, in %: the mean over the user's original
	// jobs that completed of (CT_ideal − AT) / (CT_real − AT) × 100. NaN
	// when none completed (or the user owns no host: no reference).
	SU float64
	// Jobs counts the user's original jobs, Completed those that some row
	// (the original or its last piece) completed successfully; the others
	// are left out of SU and must be reported.
	Jobs, Completed int
}

// Satisfaction computes each user's satisfaction (Eq. 4.4): AT_j is the
// original job's submission time, CT_real_j the finish time of the row that
// completed it (the original, or its last resubmitted piece), and
// CT_ideal_j its completion time in ideal (OwnerAloneCompletion). A job is
// 100 % satisfied when it ends when its owner alone would have ended it;
// more than 100 % when it ends sooner.
func Satisfaction(rows []analysis.JobRow, jobs []OSEPJob, ideal map[string]float64) map[string]UserSatisfaction {
	oc, _ := outcomes(rows, jobs)
	type acc struct {
		sum             float64
		n, jobs, closed int
	}
	accs := map[string]*acc{}
	for _, j := range jobs {
		a := accs[j.User]
		if a == nil {
			a = &acc{}
			accs[j.User] = a
		}
		a.jobs++
		o := oc[j.ID]
		if o.completed == 0 {
			continue
		}
		a.closed++
		ci, ok := ideal[j.ID]
		if !ok {
			continue
		}
		took := o.finish - j.Submit
		su := 100.0
		if took > 0 {
			su = (ci - j.Submit) / took * 100
		}
		a.sum += su
		a.n++
	}
	out := make(map[string]UserSatisfaction, len(accs))
	for u, a := range accs {
		s := UserSatisfaction{SU: math.NaN(), Jobs: a.jobs, Completed: a.closed}
		if a.n > 0 {
			s.SU = a.sum / float64(a.n)
		}
		out[u] = s
	}
	return out
}

// PowerShares computes the share of the grid's power each user held over
// time: every row with a start, killed ones included, occupies its hosts
// from starting_time to finish_time on behalf of the user of its original
// job. Rows of jobs not in jobs are left out.
func PowerShares(rows []analysis.JobRow, jobs []OSEPJob, g *OSEPGrid) (*figures.ShareSeries, error) {
	user := make(map[string]string, len(jobs))
	for _, j := range jobs {
		user[j.ID] = j.User
	}
	users := append([]string(nil), g.Users...)
	known := map[string]bool{}
	for _, u := range users {
		known[u] = true
	}
	for _, j := range jobs {
		if !known[j.User] {
			known[j.User] = true
			users = append(users, j.User)
		}
	}
	// deltas[t][u]: change of u's allocated speed at t (sums of speeds stay
	// exact for integral speeds; the division comes last).
	deltas := map[float64]map[string]float64{}
	add := func(t float64, u string, v float64) {
		d := deltas[t]
		if d == nil {
			d = map[string]float64{}
			deltas[t] = d
		}
		d[u] += v
	}
	for i := range rows {
		r := &rows[i]
		if r.Rejected() || !(r.Finish > r.Start) {
			continue
		}
		_, name, _ := analysis.OriginalJob(r.Workload, r.ID)
		u, ok := user[name]
		if !ok {
			continue
		}
		hosts, err := r.Hosts()
		if err != nil {
			return nil, fmt.Errorf("job %s!%s: %w", r.Workload, r.ID, err)
		}
		speed := 0.0
		for _, iv := range hosts.Intervals() {
			if iv[0] < 0 || iv[1] >= len(g.Hosts) {
				return nil, fmt.Errorf("job %s!%s: resources %s: the platform has %d compute hosts", r.Workload, r.ID, r.Alloc, len(g.Hosts))
			}
			for h := iv[0]; h <= iv[1]; h++ {
				speed += g.Hosts[h].Speed
			}
		}
		add(r.Start, u, speed)
		add(r.Finish, u, -speed)
	}
	s := &figures.ShareSeries{Users: users, Share: map[string][]float64{}}
	for t := range deltas {
		s.Times = append(s.Times, t)
	}
	sort.Float64s(s.Times)
	level := map[string]float64{}
	for _, t := range s.Times {
		for u, v := range deltas[t] {
			level[u] += v
		}
		for _, u := range users {
			s.Share[u] = append(s.Share[u], level[u]/g.Total)
		}
	}
	return s, nil
}

// OSEPRunStats are the OSEP metrics of one run.
type OSEPRunStats struct {
	Satisfaction map[string]UserSatisfaction
	// Preemptions counts the killed rows of each user's jobs, KilledExec
	// their execution time (s): work done and then lost, unless a
	// checkpoint kept part of it.
	Preemptions map[string]int
	KilledExec  map[string]float64
	// BusyShare is each user's share of the grid's power averaged over the
	// busy period [Busy[0], Busy[1]] (first start to last finish).
	BusyShare map[string]float64
	Busy      [2]float64
	// ContentionShare is each user's share averaged over the contention
	// window [Contention[0], Contention[1]]: from the time every user has
	// submitted to the time the first user has seen all their jobs complete
	// (NaN when that window is empty).
	ContentionShare map[string]float64
	Contention      [2]float64
	// OwnHostTime is the fraction of the execution time of each user's rows
	// (killed ones included) spent on hosts the user owns; HostSpeed the
	// mean speed (flop/s) of the hosts those rows ran on, weighted by
	// execution time. Both NaN for a user whose jobs never ran.
	OwnHostTime map[string]float64
	HostSpeed   map[string]float64
	// Orphans counts rows that belong to no job of the workload; Duplicates
	// the original jobs that more than one row completed. Both are 0 in a
	// consistent run.
	Orphans, Duplicates int
	// Shares is each user's share of the grid's power over time.
	Shares *figures.ShareSeries
}

// Unfinished is the number of original jobs no row completed, over every
// user.
func (s *OSEPRunStats) Unfinished() int {
	n := 0
	for _, us := range s.Satisfaction {
		n += us.Jobs - us.Completed
	}
	return n
}

// TotalPreemptions is the number of killed rows of the run.
func (s *OSEPRunStats) TotalPreemptions() int {
	n := 0
	for _, v := range s.Preemptions {
		n += v
	}
	return n
}

// TotalKilledExec is the execution time of the killed rows of the run (s).
func (s *OSEPRunStats) TotalKilledExec() float64 {
	v := 0.0
	for _, x := range s.KilledExec {
		v += x
	}
	return v
}

// ComputeOSEP computes the OSEP metrics of one run from its rows, the
// original jobs of its workload, their owner-alone completion times
// (OwnerAloneCompletion) and the grid.
func ComputeOSEP(rows []analysis.JobRow, jobs []OSEPJob, ideal map[string]float64, g *OSEPGrid) (*OSEPRunStats, error) {
	s := &OSEPRunStats{
		Satisfaction: Satisfaction(rows, jobs, ideal),
		Preemptions:  map[string]int{}, KilledExec: map[string]float64{},
		BusyShare: map[string]float64{}, ContentionShare: map[string]float64{},
		OwnHostTime: map[string]float64{}, HostSpeed: map[string]float64{},
	}
	shares, err := PowerShares(rows, jobs, g)
	if err != nil {
		return nil, err
	}
	s.Shares = shares
	oc, orphans := outcomes(rows, jobs)
	s.Orphans = orphans
	user := make(map[string]string, len(jobs))
	firstSubmit, lastFinish := map[string]float64{}, map[string]float64{}
	allDone := map[string]bool{}
	for _, j := range jobs {
		user[j.ID] = j.User
		if t, ok := firstSubmit[j.User]; !ok || j.Submit < t {
			firstSubmit[j.User] = j.Submit
		}
		if _, ok := allDone[j.User]; !ok {
			allDone[j.User] = true
		}
		o := oc[j.ID]
		if o.completed > 1 {
			s.Duplicates++
		}
		if o.completed == 0 {
			allDone[j.User] = false
			continue
		}
		lastFinish[j.User] = math.Max(lastFinish[j.User], o.finish)
	}
	s.Busy = [2]float64{math.NaN(), math.NaN()}
	ran, own, speedTime := map[string]float64{}, map[string]float64{}, map[string]float64{}
	for i := range rows {
		r := &rows[i]
		if r.Rejected() {
			continue
		}
		if _, name, _ := analysis.OriginalJob(r.Workload, r.ID); user[name] != "" {
			// PowerShares has checked the allocations.
			hosts, _ := r.Hosts()
			u, d := user[name], r.Finish-r.Start
			for _, iv := range hosts.Intervals() {
				for h := iv[0]; h <= iv[1]; h++ {
					ran[u] += d
					speedTime[u] += d * g.Hosts[h].Speed
					if g.Hosts[h].Owner == u {
						own[u] += d
					}
				}
			}
		}
		if math.IsNaN(s.Busy[0]) || r.Start < s.Busy[0] {
			s.Busy[0] = r.Start
		}
		if math.IsNaN(s.Busy[1]) || r.Finish > s.Busy[1] {
			s.Busy[1] = r.Finish
		}
		_, name, _ := analysis.OriginalJob(r.Workload, r.ID)
		if u, ok := user[name]; ok && r.FinalState == metrics.KilledState {
			s.Preemptions[u]++
			s.KilledExec[u] += r.Finish - r.Start
		}
	}
	// The contention window ends when the first user is done; a user whose
	// jobs did not all complete is never done.
	s.Contention = [2]float64{math.Inf(-1), math.Inf(1)}
	for u, t := range firstSubmit {
		s.Contention[0] = math.Max(s.Contention[0], t)
		if allDone[u] {
			s.Contention[1] = math.Min(s.Contention[1], lastFinish[u])
		}
	}
	if math.IsInf(s.Contention[1], 1) {
		s.Contention[1] = s.Busy[1]
	}
	for _, u := range shares.Users {
		s.BusyShare[u] = shares.Mean(u, s.Busy[0], s.Busy[1])
		s.ContentionShare[u] = shares.Mean(u, s.Contention[0], s.Contention[1])
		s.OwnHostTime[u], s.HostSpeed[u] = math.NaN(), math.NaN()
		if ran[u] > 0 {
			s.OwnHostTime[u], s.HostSpeed[u] = own[u]/ran[u], speedTime[u]/ran[u]
		}
	}
	return s, nil
}
