package sched

import (
	"math"
	"slices"
)

// Line is a job's key in a TimeOrder: at time now it is
// Base + Rate·(now − Since). Since is usually the job's submission time,
// so that Rate·(now − Since) grows with the job's wait.
//
// Rate and Since must be finite, and Rate·(now − Since) stay so; Base may
// be ±Inf (a key that never changes). A line with a NaN, or an infinite
// Rate or Since, counts as a key of +Inf at every time (such a job comes
// last).
type Line struct {
	Rate, Since, Base float64
}

// At is the line's value at now: Base + Rate·(now − Since), each
// operation rounded on its own (never fused), NaN as +Inf. It is the key a
// TimeOrder compares.
func (l Line) At(now float64) float64 {
	d := now - l.Since
	v := l.Base + float64(l.Rate*d)
	if math.IsNaN(v) {
		return math.Inf(1)
	}
	return v
}

// sane is l, or the line of +Inf when l is not one a TimeOrder keeps.
func (l Line) sane() Line {
	if math.IsNaN(l.Base) || math.IsNaN(l.Rate) || math.IsNaN(l.Since) || math.IsInf(l.Rate, 0) || math.IsInf(l.Since, 0) {
		return Line{Base: math.Inf(1)}
	}
	return l
}

// TimeOrder orders the waiting jobs by a key that changes with the time,
// ascending (give a negative Rate for a key that should come first the
// longer a job waits), ties by submission time, then job id, then arrival.
// Each job's key is a line in the time (Line), computed once when the job
// joins the queue from what does not change while it waits (its size,
// walltime, user, submission time, profile, JSON fields), never from the
// time or the other jobs: the framework knows from the lines when two
// jobs' keys cross, and keeps the order without computing every key at
// every decision.
//
// A key that is an increasing function of a line orders the jobs as the
// line does: WFP3's (wait/walltime)³·hosts, largest first, orders as the
// opposite of its cube root, −wait·∛hosts/walltime, the line of Rate
// −∛hosts/walltime since the submission. NewWFP3Order, NewUNICEPOrder and
// NewExpansionOrder are the built-in ones; they compare their formulas
// themselves (the line orders as the formula but where the two round
// differently: keys equal to within about 1e-15 of each other).
//
// The framework indexes the waiting queue by the order, as it does
// KeyOrder's: a Composite and State.Walk walk the index and jump to the
// jobs that fit, and a decision costs about what the order's changes since
// the last decision cost, not a sort of the queue. The index belongs to
// the *TimeOrder value: build one per policy and keep it.
type TimeOrder struct {
	name string
	line func(*Job) Line
	// f, when set, is the key compared in place of the line (the built-in
	// orders' formulas), which orders as the line does.
	f timeFormula
}

// timeFormula is the exact key of a built-in TimeOrder: a function of
// what the index keeps of a job (timeLeaf) and of the time, increasing
// with the job's line.
type timeFormula interface {
	key(l *timeLeaf, now float64) float64
	// same reports whether a and b have the same key at every time.
	same(a, b *timeLeaf) bool
}

// NewTimeOrder returns the order of the jobs' lines, ascending; name
// describes it (in messages).
func NewTimeOrder(name string, line func(j *Job) Line) *TimeOrder {
	return &TimeOrder{name: name, line: line}
}

// Name is the order's name.
func (o *TimeOrder) Name() string { return o.name }

// Key is job j's key at now: its line's value (Line.At), or the built-in
// order's formula.
func (o *TimeOrder) Key(j *Job, now float64) float64 {
	l := o.leaf(j)
	return o.key(&l, now)
}

// Sort implements Order: q by key at the state's time, then submission
// time, job id and arrival.
func (o *TimeOrder) Sort(s *State, q []*Job) {
	type keyed struct {
		k float64
		l timeLeaf
	}
	ks := make([]keyed, len(q))
	for i, j := range q {
		ks[i].l = o.leaf(j)
		ks[i].k = o.key(&ks[i].l, s.now)
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		switch {
		case a.l.j == b.l.j:
			return 0
		case timeLess(&a.l, &b.l, a.k, b.k):
			return -1
		}
		return 1
	})
	for i := range ks {
		q[i] = ks[i].l.j
	}
}

// leaf is what the index keeps of job j.
func (o *TimeOrder) leaf(j *Job) timeLeaf {
	return timeLeaf{j: j, line: o.line(j).sane(), wall: j.WalltimeOrInf(), seq: j.seq, res: int32(min(max(j.res, 0), math.MaxInt32))}
}

// key is the key compared: the formula's, or the line's.
func (o *TimeOrder) key(l *timeLeaf, now float64) float64 {
	if o.f != nil {
		if v := o.f.key(l, now); !math.IsNaN(v) {
			return v
		}
		return math.Inf(1)
	}
	return l.line.At(now)
}

// same reports whether a and b have the same key at every time: equal
// lines (a line of rate 0 is its base whatever its Since), or the
// formula's own test.
func (o *TimeOrder) same(a, b *timeLeaf) bool {
	if o.f != nil {
		return o.f.same(a, b)
	}
	x, y := a.line, b.line
	return x.Rate == y.Rate && x.Base == y.Base && (x.Since == y.Since || x.Rate == 0)
}

// timeLess is the order: key, then submission time, job id, arrival.
func timeLess(a, b *timeLeaf, ka, kb float64) bool {
	if ka != kb {
		return ka < kb
	}
	return lessBySubmit(a.j, b.j)
}

// timeGap is the relative gap between two jobs' lines beyond which their
// keys compare as the lines do whatever the rounding: a line's value is
// computed to within a few units of 1e-16 of its terms, a built-in
// formula's to within a few units of 1e-16 of itself.
const timeGap = 1e-9

// certify returns the time until which job w, which comes before job l
// at t, is sure to stay before it: +Inf when their keys cannot cross (or
// are always equal: the tie-break decides), the next float after t when
// their keys are within the rounding of each other at t (they are
// compared again at every later time). Until then, the lines stay apart
// by more than timeGap of their terms: the keys compare as the lines do.
func (o *TimeOrder) certify(w, l *timeLeaf, t float64) float64 {
	if o.same(w, l) {
		return math.Inf(1)
	}
	a, b := w.line, l.line
	if math.IsInf(a.Base, 0) || math.IsInf(b.Base, 0) {
		// A constant key of ±Inf on one side: the order holds for ever
		// unless w's is +Inf (then l's is too, or the keys disagree
		// with the lines, and they are compared again).
		if a.Base == math.Inf(1) {
			return math.Nextafter(t, math.Inf(1))
		}
		return math.Inf(1)
	}
	pa, pb := float64(a.Rate*(t-a.Since)), float64(b.Rate*(t-b.Since))
	d := (b.Base + pb) - (a.Base + pa)
	m := math.Abs(a.Base) + math.Abs(pa) + math.Abs(b.Base) + math.Abs(pb)
	// From t on, the gap d changes by (b.Rate − a.Rate) a second and the
	// terms m by at most |a.Rate| + |b.Rate|: the gap stays above timeGap
	// of the terms while g0 + g1·(τ − t) > 0 (with twice the margin, for
	// the rounding of d and m).
	g0 := d - 2*timeGap*m
	if !(g0 > 0) || math.IsInf(g0, 0) {
		return math.Nextafter(t, math.Inf(1))
	}
	g1 := (b.Rate - a.Rate) - 2*timeGap*(math.Abs(a.Rate)+math.Abs(b.Rate))
	if g1 >= 0 {
		return math.Inf(1)
	}
	if u := t + g0/(-g1)/2; u > t {
		return u
	}
	return math.Nextafter(t, math.Inf(1))
}

// ---------------------------------------------------------------- built-in orders

// builtinFormula is a built-in order's formula of the wait w = now −
// submission, the requested time r (the walltime, +Inf without) and the
// requested hosts n, largest first (the key is its opposite). The line
// is Since the submission; a job without walltime has a constant key.
type builtinFormula struct {
	f func(w, r, n float64) float64
}

func (b builtinFormula) key(l *timeLeaf, now float64) float64 {
	return -b.f(now-l.line.Since, l.wall, float64(l.res))
}

// same: the same submission, walltime and size, or no walltime on both
// (the formulas are then constant, and the same for every job).
func (b builtinFormula) same(x, y *timeLeaf) bool {
	if math.IsInf(x.wall, 1) && math.IsInf(y.wall, 1) {
		return true
	}
	return x.line.Since == y.line.Since && x.wall == y.wall && x.res == y.res
}

// builtinOrder is the TimeOrder of formula f, whose line has rate
// -rate(r, n) since the submission, plus base.
func builtinOrder(name string, f func(w, r, n float64) float64, rate func(r, n float64) float64, base float64) *TimeOrder {
	return &TimeOrder{name: name, f: builtinFormula{f}, line: func(j *Job) Line {
		return Line{Rate: -rate(j.WalltimeOrInf(), float64(max(j.res, 0))), Since: j.submit, Base: -base}
	}}
}

// WFP3 is (w/r)³·n, computed as ((w/r)·(w/r))·(w/r)·n, each product
// rounded on its own.
func wfp3(w, r, n float64) float64 {
	x := w / r
	return float64(float64(float64(x*x)*x) * n)
}

// unicepLog is log2(n) for UNICEP, with n below 2 counted as 2: log2(1) =
// 0 would make a one-host job's key infinite (NaN before it waited).
func unicepLog(n float64) float64 { return math.Log2(max(n, 2)) }

// unicep is w / (log2(n)·r).
func unicep(w, r, n float64) float64 { return w / float64(unicepLog(n)*r) }

// expansion is (w + r)/r, 1 for a job without walltime (its limit).
func expansion(w, r, _ float64) float64 {
	if math.IsInf(r, 1) {
		return 1
	}
	return (w + r) / r
}

// NewWFP3Order returns WFP3's order: largest (wait/requested)³·hosts
// first, wait = now − submission, requested = the walltime (a job without
// walltime has 0: last but for the ties), ties by submission time, job id,
// arrival. The formula is compared as computed, ((w/r)·(w/r))·(w/r)·n;
// the index keeps it through its cube root, a line in the time.
func NewWFP3Order() *TimeOrder {
	return builtinOrder("wfp3", wfp3, func(r, n float64) float64 { return math.Cbrt(n) / r }, 0)
}

// NewUNICEPOrder returns UNICEP's order: largest wait / (log2(hosts) ×
// requested) first, a job of one host counted as two (log2(1) = 0 would
// give it an infinite key), a job without walltime 0; ties as
// NewWFP3Order's.
func NewUNICEPOrder() *TimeOrder {
	return builtinOrder("unicep", unicep, func(r, n float64) float64 { return 1 / float64(unicepLog(n)*r) }, 0)
}

// NewExpansionOrder returns the order of the largest expansion factor
// first: (wait + requested)/requested, 1 for a job without walltime; ties
// as NewWFP3Order's.
func NewExpansionOrder() *TimeOrder {
	return builtinOrder("expansion-factor", expansion, func(r, _ float64) float64 { return 1 / r }, 1)
}
