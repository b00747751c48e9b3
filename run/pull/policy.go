package pull

import (
	"fmt"
	"math"
	"slices"

	"github.com/bucma-sched/bucma/sched"
)

// Rules are the start rules a key policy runs over the order of the
// caller's keys, by the name of their option value.
var Rules = []string{"fcfs", "easy", "conservative", "greedy"}

func newRule(name string) (sched.StartRule, error) {
	switch name {
	case "fcfs":
		return sched.Blocking{}, nil
	case "easy":
		return sched.EASY{}, nil
	case "conservative":
		return sched.NewConservative(), nil
	case "greedy":
		return sched.Greedy{}, nil
	}
	return nil, fmt.Errorf("unknown rule %q", name)
}

// ruleOption is a key policy's start rule.
var ruleOption = sched.OptionSpec{
	Name:    "rule",
	Default: "easy",
	Help: "the start rule over the order of the keys: fcfs (start in order, stop at the first job that does not fit), " +
		"easy (EASY backfilling), conservative (conservative backfilling), greedy (start every job that fits)",
	Values: Rules,
}

// decideSpec is the spec of a policy whose decisions are the caller's:
// its hosts option chooses the hosts of a Start that names none.
func (r *Run) decideSpec(name string) *sched.Spec {
	return &sched.Spec{
		Name:        name,
		Description: "a policy whose decisions come from the caller of a pulled run, one decision point at a time",
		Options:     []sched.OptionSpec{sched.HostsOption},
		JobJSON:     true,
		New: func(opts sched.Options) (sched.Policy, error) {
			sel, err := sched.HostsFrom(opts)
			if err != nil {
				return nil, err
			}
			return &callerPolicy{r: r, hosts: sel}, nil
		},
	}
}

// keySpec is the spec of a key policy: a start rule over the order of
// the caller's keys, with the hosts option's selector; timeDependent asks
// the keys of the whole queue again at each decision.
func (r *Run) keySpec(name string, timeDependent bool) *sched.Spec {
	return &sched.Spec{
		Name:        name,
		Description: "a start rule over the order of keys the caller of a pulled run gives per job",
		Options:     []sched.OptionSpec{ruleOption, sched.HostsOption},
		JobJSON:     true,
		New: func(opts sched.Options) (sched.Policy, error) {
			sel, err := sched.HostsFrom(opts)
			if err != nil {
				return nil, err
			}
			rule, err := newRule(opts["rule"])
			if err != nil {
				return nil, err
			}
			var order sched.Order
			if timeDependent {
				order = &timeKeyOrder{r: r}
			} else {
				order = sched.NewKeyOrder(name, r.key)
			}
			return &keyedPolicy{Composite: &sched.Composite{Order: order, Rule: rule, Hosts: sel}, r: r}, nil
		},
	}
}

// callerPolicy hands each decision to the caller (a Decide point).
type callerPolicy struct {
	r     *Run
	hosts sched.HostSelector
}

func (p *callerPolicy) Decide(s *sched.State, d *sched.Decider) {
	r := p.r
	r.state, r.decider, r.hosts = s, d, p.hosts
	r.track.state = s
	if !r.yield(Decide) {
		d.Fail(r.stopCause())
	}
	r.decider = nil
}

// keyedPolicy is a Composite over the caller's keys.
type keyedPolicy struct {
	*sched.Composite
	r *Run
}

// keyTable holds the keys the caller gave, by arrival rank, and the jobs
// that joined the queue without one.
type keyTable struct {
	val     []float64
	has     []bool
	pending []*sched.Job
}

func (k *keyTable) get(seq int64) (float64, bool) {
	if seq < int64(len(k.has)) && k.has[seq] {
		return k.val[seq], true
	}
	return 0, false
}

func (k *keyTable) set(seq int64, v float64) {
	for int64(len(k.has)) <= seq {
		k.has = append(k.has, false)
		k.val = append(k.val, 0)
	}
	k.val[seq], k.has[seq] = v, true
}

// Submitted, Started, Ended: the keyTable notes the jobs without key.
func (k *keyTable) Submitted(_ *sched.State, j *sched.Job) {
	if _, ok := k.get(j.Seq()); !ok {
		k.pending = append(k.pending, j)
	}
}
func (k *keyTable) Started(*sched.State, *sched.Job) {}
func (k *keyTable) Ended(*sched.State, *sched.Job)   {}

// key is job j's key in a key policy's order: the caller's, asked at a
// Keys point with every waiting job that has none yet (the whole queue
// when the order is first walked, then each job as it joins it).
func (r *Run) key(j *sched.Job) float64 {
	if v, ok := r.keyed.get(j.Seq()); ok {
		return v
	}
	batch := []*sched.Job{j}
	for _, w := range r.keyed.pending {
		if _, ok := r.keyed.get(w.Seq()); !ok && w != j && w.Waiting() {
			batch = append(batch, w)
		}
	}
	clear(r.keyed.pending)
	r.keyed.pending = r.keyed.pending[:0]
	slices.SortFunc(batch, func(a, b *sched.Job) int { return int(a.Seq() - b.Seq()) })
	if !r.askKeys(batch) {
		return math.Inf(1) // the run is being stopped
	}
	v, _ := r.keyed.get(j.Seq())
	return v
}

// askKeys yields a Keys point for jobs; false when the run is stopped.
func (r *Run) askKeys(jobs []*sched.Job) bool {
	r.keyJobs = jobs
	return r.yield(Keys)
}

// SetKeys gives the keys of the current Keys point's jobs, in their order
// (NaN counts as +Inf).
func (r *Run) SetKeys(keys []float64) error {
	if r.at != Keys {
		return usage("no keys are asked now (the point is %s)", r.at)
	}
	if len(keys) != len(r.keyJobs) {
		return usage("%d keys given for the %d jobs of the point", len(keys), len(r.keyJobs))
	}
	for i, j := range r.keyJobs {
		v := keys[i]
		if math.IsNaN(v) {
			v = math.Inf(1)
		}
		r.keyed.set(j.Seq(), v)
	}
	r.keysGot = true
	return nil
}

// timeKeyOrder is the order of keys the caller gives again at each
// decision: a sort of the queue, as any order the framework does not
// index.
type timeKeyOrder struct{ r *Run }

// Sort implements sched.Order: the caller's keys of q at the state's
// time, ties by submission time, job id and arrival.
func (o *timeKeyOrder) Sort(s *sched.State, q []*sched.Job) {
	r := o.r
	r.state = s
	if len(q) == 0 || !r.askKeys(q) {
		return
	}
	type keyed struct {
		k float64
		j *sched.Job
	}
	ks := make([]keyed, len(q))
	for i, j := range q {
		ks[i].k, _ = r.keyed.get(j.Seq())
		ks[i].j = j
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		switch {
		case a.k < b.k:
			return -1
		case a.k > b.k:
			return 1
		}
		return sched.Compare(a.j, b.j)
	})
	for i := range ks {
		q[i] = ks[i].j
	}
}
