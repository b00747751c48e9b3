package sched

import (
	"cmp"
	"container/heap"
	"fmt"
	"math"
	"slices"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/batsim"
)

// Waiting-time estimates: Batsim's QUERY estimate_waiting_time asks how long
// a job that is not submitted (a "potential" job: an id, res and walltime)
// would wait if it were submitted now. A policy that can tell implements
// WaitingTimeEstimator; the framework asks it once the message's decisions
// are taken and answers with ANSWER estimate_waiting_time events, after the
// decisions. A policy that cannot tell gets no answer sent for it (as
// batsched's variants other than conservative_bf and
// waiting_time_estimator). Batsim 4.2.1 never sends the query (its producer
// is commented out), so the path is exercised by hand-written messages.

// WaitingTimeEstimator is implemented by policies that answer Batsim's
// QUERY estimate_waiting_time.
type WaitingTimeEstimator interface {
	// EstimateWaitingTime is how long potential job j, submitted now,
	// would wait before it starts if every job ran for its whole walltime
	// and no other job came; wait < 0 when it would never start. ok is
	// false when the policy cannot tell (no answer is sent then). j is not
	// in the state: it is neither waiting nor known by id.
	EstimateWaitingTime(s *State, j *Job) (wait float64, ok bool)
}

// waitQuery is one estimate_waiting_time request of the current message.
type waitQuery struct {
	job *Job
}

// addQuery records the estimate_waiting_time requests of a QUERY event.
func (s *Session) addQuery(q *batsim.BatsimQuery, at float64) error {
	for kind, raw := range q.Requests {
		if kind != "estimate_waiting_time" {
			s.log.Warn("ignoring QUERY request of an unknown kind", "kind", kind)
			continue
		}
		var r struct {
			JobID string          `json:"job_id"`
			Job   json.RawMessage `json:"job"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return fmt.Errorf("QUERY estimate_waiting_time: %v", err)
		}
		j, err := parseJob(&batsim.JobSubmitted{JobID: r.JobID, Job: r.Job}, at)
		if err != nil {
			return fmt.Errorf("QUERY estimate_waiting_time: job %q: %w", r.JobID, err)
		}
		j.seq = s.state.seq // after every job submitted so far
		s.queries = append(s.queries, waitQuery{job: j})
	}
	return nil
}

// answerQueries answers the estimate_waiting_time requests of the message,
// after its decisions.
func (s *Session) answerQueries(reply *batsim.Reply) error {
	if len(s.queries) == 0 {
		return nil
	}
	e, ok := s.policy.(WaitingTimeEstimator)
	for _, q := range s.queries {
		if !ok {
			s.log.Debug("no waiting-time estimate: the policy makes none", "job", q.job.id, "scheduler", s.cfg.Spec.Name)
			continue
		}
		wait, known := -1.0, true
		if q.job.res > 0 && q.job.res <= len(s.state.hosts) {
			wait, known = e.EstimateWaitingTime(s.state, q.job)
		}
		if !known {
			s.log.Debug("no waiting-time estimate for this job", "job", q.job.id, "scheduler", s.cfg.Spec.Name)
			continue
		}
		if math.IsInf(wait, 1) || math.IsNaN(wait) {
			wait = -1
		}
		if err := reply.AnswerWaitingTime(q.job.id, wait); err != nil {
			return err
		}
	}
	clear(s.queries)
	s.queries = s.queries[:0]
	return nil
}

// ForecastRule is a start rule that can forecast its own future decisions
// (Blocking, Greedy, EASY): see Forecast.
type ForecastRule interface {
	StartRule
	forecastStep(f *forecast)
}

// Forecast is when job target would start if the waiting jobs q (in queue
// order, target among them) were decided by rule from now on, every job
// running for exactly its walltime and no other job arriving: the rule is
// applied now and at every forecast end, on host counts (which hosts a job
// gets does not change when it can start under these rules). It returns
// +Inf when target never starts (it waits behind a job without walltime,
// or its hosts are unavailable). Hosts that are not free now (asleep,
// unavailable) stay so; a running job past its walltime ends now. It
// costs O(k·n) for k forecast ends and n jobs: meant for occasional
// queries, not for every decision.
func Forecast(s *State, q []*Job, target *Job, rule ForecastRule) float64 {
	f := &forecast{now: s.now, free: s.NbFree(), q: q, target: target, started: make([]bool, len(q))}
	for _, j := range s.running {
		if e := j.ExpectedEnd(); !math.IsInf(e, 1) {
			heap.Push(&f.ends, forecastEnd{max(e, s.now), s.availableOf(j)})
		}
	}
	for {
		rule.forecastStep(f)
		if f.done {
			return f.now
		}
		if f.ends.Len() == 0 {
			return math.Inf(1)
		}
		t := f.ends[0].at
		for f.ends.Len() > 0 && f.ends[0].at == t {
			f.free += heap.Pop(&f.ends).(forecastEnd).n
		}
		f.now = t
	}
}

// EstimateWait is Forecast as a waiting time for potential job j under
// order and rule: j is placed in the waiting queue by order; negative when
// it never starts; ok is false when hosts are shared (several slots), where
// host counts tell nothing.
func EstimateWait(s *State, o Order, rule ForecastRule, j *Job) (wait float64, ok bool) {
	for i := range s.hosts {
		if s.hosts[i].Capacity() > 1 {
			return 0, false
		}
	}
	q := append(s.WaitingCopy(), j)
	o.Sort(s, q)
	t := Forecast(s, q, j, rule)
	if math.IsInf(t, 1) {
		return -1, true
	}
	return t - s.now, true
}

// EstimateWaitingTime implements WaitingTimeEstimator when the Composite's
// start rule can forecast itself (Blocking, Greedy, EASY): see Forecast.
func (c *Composite) EstimateWaitingTime(s *State, j *Job) (float64, bool) {
	r, ok := c.Rule.(ForecastRule)
	if !ok {
		return 0, false
	}
	if c.RejectNoWalltime && !j.HasWalltime() {
		return -1, true
	}
	return EstimateWait(s, c.Order, r, j)
}

// forecast is the state of a Forecast: the time, the free host count,
// the ends to come, and which jobs of q have started.
type forecast struct {
	now     float64
	free    int
	ends    forecastEnds
	q       []*Job
	started []bool
	target  *Job
	done    bool
}

type forecastEnd struct {
	at float64
	n  int
}

type forecastEnds []forecastEnd

func (h forecastEnds) Len() int           { return len(h) }
func (h forecastEnds) Less(i, k int) bool { return h[i].at < h[k].at }
func (h forecastEnds) Swap(i, k int)      { h[i], h[k] = h[k], h[i] }
func (h *forecastEnds) Push(x any)        { *h = append(*h, x.(forecastEnd)) }
func (h *forecastEnds) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// waiting reports whether job i of the forecast queue still waits (a job
// of q no longer waiting in the state has left it for good).
func (f *forecast) waiting(i int) bool {
	return !f.started[i] && (f.q[i] == f.target || f.q[i].state == batsim.StateSubmitted && !f.q[i].refused)
}

// start starts job i of the forecast queue now.
func (f *forecast) start(i int) {
	j := f.q[i]
	f.started[i] = true
	f.free -= j.res
	if j == f.target {
		f.done = true
	}
	if j.HasWalltime() {
		heap.Push(&f.ends, forecastEnd{f.now + j.walltime, j.res})
	}
}

// shadow is the head's reservation in the forecast: when need hosts are
// free, and how many more are free then.
func (f *forecast) shadow(need int) (float64, int) {
	if f.free >= need {
		return f.now, f.free - need
	}
	ends := slices.Clone(f.ends)
	slices.SortFunc(ends, func(a, b forecastEnd) int { return cmp.Compare(a.at, b.at) })
	avail := f.free
	for k := 0; k < len(ends); k++ {
		avail += ends[k].n
		for k+1 < len(ends) && ends[k+1].at == ends[k].at {
			k++
			avail += ends[k].n
		}
		if avail >= need {
			return ends[k].at, avail - need
		}
	}
	return math.Inf(1), 0
}

func (Blocking) forecastStep(f *forecast) {
	for i := range f.q {
		if !f.waiting(i) {
			continue
		}
		if f.q[i].res > f.free {
			return
		}
		f.start(i)
	}
}

func (Greedy) forecastStep(f *forecast) {
	for i := range f.q {
		if f.free == 0 {
			return
		}
		if f.waiting(i) && f.q[i].res <= f.free {
			f.start(i)
		}
	}
}

func (EASY) forecastStep(f *forecast) {
	head := -1
	for i := range f.q {
		if !f.waiting(i) {
			continue
		}
		if f.q[i].res > f.free {
			head = i
			break
		}
		f.start(i)
	}
	if head < 0 {
		return
	}
	shadow, extra := f.shadow(f.q[head].res)
	for i := head + 1; i < len(f.q) && f.free > 0; i++ {
		j := f.q[i]
		if !f.waiting(i) || j.res > f.free {
			continue
		}
		switch {
		case f.now+j.WalltimeOrInf() <= shadow:
			f.start(i)
		case j.res <= extra:
			f.start(i)
			extra -= j.res
		}
	}
}
