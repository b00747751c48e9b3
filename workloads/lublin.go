package workloads

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// The Lublin–Feitelson workload model of rigid parallel jobs:
//
//	U. Lublin and D. G. Feitelson, "The workload on parallel supercomputers:
//	modeling the characteristics of rigid jobs", J. Parallel Distrib.
//	Comput. 63(11), pp. 1105-1122, 2003,
//
// as its reference implementation, m_lublin99.c of the Parallel Workloads
// Archive (https://www.cs.huji.ac.il/labs/parallel/workload/models.html),
// draws it. Every number below is one of that program's constants, named
// beside it; the code is written from the model's description, not
// translated from the program.
//
// Per job class (batch, interactive; or one class with the whole sample's
// fit):
//   - size: serial (1 node) with probability SerialProb; otherwise
//     log2(size) is drawn from a two-stage uniform (uniform on [ULow, UMed]
//     with probability UProb, else on [UMed, UHi]), rounded to an integer
//     for a power-of-two job (probability Pow2Prob of all jobs), and the
//     size is round(2^x);
//   - run time: ln(run time) is hyper-gamma: gamma(A1, B1) with probability
//     p = PA × size + PB (kept in [0, 1]), else gamma(A2, B2) (shape,
//     scale); a draw above LublinMaxLogRuntime is drawn again; the run
//     time is the draw's exponential truncated to the second;
//   - arrivals: ln(inter-arrival) is gamma(AArr × ARAR, BArr), a draw above
//     LublinMaxLogInterarrival drawn again, counted in points of a day of
//     48 half-hour buckets whose weights follow the daily cycle (the
//     gamma(ANum, BNum) density over bucket numbers, the day starting at
//     bucket LublinCyclicDayStart); the classes arrive independently and
//     are merged in time order.

// LublinClass holds the model's parameters for one job class. Gamma laws
// are written (shape, scale).
type LublinClass struct {
	// SerialProb is the probability of a one-node job; Pow2Prob that of a
	// parallel job whose size is a power of two (m_lublin99.c:
	// SERIAL_PROB*, POW2_PROB*).
	SerialProb, Pow2Prob float64
	// ULow, UMed, UHi and UProb are the two-stage uniform of log2(size) of
	// a parallel job (ULOW*, UMED*, UHI*, UPROB*). UHi is log2 of the
	// largest size: 7 for the 128-node machines the model was fitted on.
	ULow, UMed, UHi, UProb float64
	// A1, B1, A2, B2 are the two gammas of ln(run time) and PA, PB the
	// line p = PA × size + PB giving the first one's probability (A1*,
	// B1*, A2*, B2*, PA*, PB*).
	A1, B1, A2, B2, PA, PB float64
	// AArr, BArr are the gamma of ln(inter-arrival) at rush hours, ARAR
	// the factor on AArr that makes it hold over the whole day (AARR*,
	// BARR*, ARAR*); ANum, BNum the gamma whose density over the day's
	// buckets gives the daily cycle (ANUM*, BNUM*).
	AArr, BArr, ARAR, ANum, BNum float64
}

// LublinBatch is the model's batch class (m_lublin99.c: the *_BATCH
// constants).
var LublinBatch = LublinClass{
	SerialProb: 0.2927, Pow2Prob: 0.6686, ULow: 1.2, UMed: 5, UHi: 7, UProb: 0.875,
	A1: 6.57, B1: 0.823, A2: 639.1, B2: 0.0156, PA: -0.003, PB: 0.6986,
	AArr: 6.0415, BArr: 0.8531, ARAR: 1.0519, ANum: 6.1271, BNum: 5.2740,
}

// LublinInteractive is the model's interactive class (m_lublin99.c: the
// *_ACTIVE constants).
var LublinInteractive = LublinClass{
	SerialProb: 0.1541, Pow2Prob: 0.625, ULow: 1, UMed: 3, UHi: 5.5, UProb: 0.705,
	A1: 3.8351, B1: 0.6605, A2: 7.073, B2: 0.6856, PA: -0.0118, PB: 0.9156,
	AArr: 6.5510, BArr: 0.6621, ARAR: 0.9797, ANum: 8.9186, BNum: 3.6680,
}

// LublinTypeless is the model fitted on the whole sample, without job
// types (m_lublin99.c: the constants without suffix, used when
// INCLUDE_JOBS_TYPE is 0).
var LublinTypeless = LublinClass{
	SerialProb: 0.244, Pow2Prob: 0.576, ULow: 0.8, UMed: 4.5, UHi: 7, UProb: 0.86,
	A1: 4.2, B1: 0.94, A2: 312, B2: 0.03, PA: -0.0054, PB: 0.78,
	AArr: 10.2303, BArr: 0.4871, ARAR: 1.0225, ANum: 8.1737, BNum: 3.9631,
}

// Constants of the model's program.
const (
	// LublinModelHosts is the size of the machines the model was fitted
	// on (2^UHI, UHI = 7).
	LublinModelHosts = 128
	// LublinMaxLogRuntime bounds ln(run time): no run time above
	// e^12 s ≈ 45 h (TOO_MUCH_TIME).
	LublinMaxLogRuntime = 12.0
	// LublinMaxLogInterarrival bounds ln(inter-arrival): none above
	// e^13 s ≈ 5 days (TOO_MUCH_ARRIVE_TIME).
	LublinMaxLogInterarrival = 13.0
	// LublinBuckets is the number of buckets of a day (BUCKETS: half
	// hours).
	LublinBuckets = 48
	// LublinCyclicDayStart is where the daily cycle's gamma starts: bucket
	// number x (1-based, from midnight) is at x on the gamma's axis from
	// this bucket on, at x + 48 before it (CYCLIC_DAY_START).
	LublinCyclicDayStart = 11
	// LublinUserZipf is the exponent of the users' activity (weights
	// 1/k^s) when users are added; the model has none, this is the lille
	// generator's exponent.
	LublinUserZipf = 1.1
	// DefaultLublinJobs is the lublin generator's default number of jobs.
	DefaultLublinJobs = 10000
	// LublinMaxWalltimeFactor bounds the walltime rule's factor: walltimes
	// stay below 10^12 s, which SWF readers and Batsim print.
	LublinMaxWalltimeFactor = 1e6
)

const lublinBucketSeconds = 86400 / LublinBuckets

// Walltime rules of the lublin generator (the model has no walltimes).
const (
	// LublinWallUniform is Mu'alem and Feitelson's "f model" (IEEE TPDS
	// 12(6), 2001): W uniform in [r, F × r], i.e. f = F − 1.
	LublinWallUniform = "uniform"
	// LublinWallFactor is W = F × r for every job.
	LublinWallFactor = "factor"
	// LublinWallExact is W = r.
	LublinWallExact = "exact"
	// LublinWallNone writes no walltime (-1).
	LublinWallNone = "none"
)

// LublinWalltimes lists the walltime rules.
var LublinWalltimes = []string{LublinWallUniform, LublinWallFactor, LublinWallExact, LublinWallNone}

// Models of the lublin generator.
const (
	// LublinTyped draws batch and interactive jobs, each class with its
	// own parameters (the model's default).
	LublinTyped = "typed"
	// LublinUntyped draws one class with the whole sample's parameters.
	LublinUntyped = "typeless"
)

// LublinOptions parameterise GenerateLublin. Zero values take the defaults.
type LublinOptions struct {
	Jobs int    // number of jobs (default DefaultLublinJobs)
	Seed uint64 // random seed (default 1)
	// Hosts is the machine's size: nb_res, the SWF header's MaxNodes and
	// the hosts of the offered load (default MaxSize, else 128).
	Hosts int
	// MaxSize is the largest job, in nodes (default Hosts): every class's
	// ULow, UMed and UHi are moved by log2(MaxSize/128), so that 128 gives
	// the published values (see lublinScaled).
	MaxSize int
	// Model is LublinTyped (default) or LublinUntyped.
	Model string
	// Load is the offered load Σ nodes × run time / (Hosts × (last −
	// first submission)) to reach by scaling every inter-arrival time by
	// one factor (the daily cycle keeps its 24 hours): the jobs are those
	// of the model's arrival rate, only their submit times move. 0 keeps
	// the model's arrival rate.
	Load float64
	// Users adds users 1..Users drawn Zipf-like (LublinUserZipf); 0 (the
	// model): none.
	Users int
	// Walltime is the walltime rule (default LublinWallUniform) and
	// WalltimeFactor its F (default 4; at least 1).
	Walltime       string
	WalltimeFactor float64
	// Set overrides model parameters after the size scaling:
	// "NAME=VALUE,..." where NAME is a parameter (serial_prob, pow2_prob,
	// ulow, umed, uhi, uprob, a1, b1, a2, b2, pa, pb, aarr, barr, arar,
	// anum, bnum) for every class, or "batch.NAME" / "interactive.NAME"
	// for one class of the typed model.
	Set string
	// Profiles makes the Batsim workload's profiles (Workload): delay
	// profiles by default, or compute profiles at a reference speed. The
	// SWF output has run times only.
	Profiles RuntimeProfiles
}

// LublinJob is one job drawn from the model.
type LublinJob struct {
	ID       int
	Submit   int64 // seconds from midnight of day 0, when the daily cycle starts
	Nodes    int
	Runtime  int64 // seconds
	Walltime int64 // seconds; -1 for none
	User     int   // 1..Users; -1 without users
	Class    int   // LublinInteractiveQueue, LublinBatchQueue, or -1 (typeless)
}

// SWF queue numbers of the job classes (field 15), as m_lublin99.c writes
// them: 0 interactive, 1 batch.
const (
	LublinInteractiveQueue = 0
	LublinBatchQueue       = 1
)

// LublinTrace is a generated trace: the options with defaults filled, the
// parameters used for each class, the jobs in submission order.
type LublinTrace struct {
	Options LublinOptions
	// ClassNames and Classes are the classes drawn, as the SWF queues and
	// the meta name them ("batch" and "interactive", or "typeless").
	ClassNames []string
	Classes    []LublinClass
	// ArrivalScale is the factor applied to every inter-arrival time (1
	// without Load); OfferedLoad the trace's offered load on Hosts.
	ArrivalScale float64
	OfferedLoad  float64
	Jobs         []LublinJob
}

// lublinParamNames are the names "Set" takes, in LublinClass field order.
var lublinParamNames = []string{"serial_prob", "pow2_prob", "ulow", "umed", "uhi", "uprob",
	"a1", "b1", "a2", "b2", "pa", "pb", "aarr", "barr", "arar", "anum", "bnum"}

// field returns a pointer to the parameter called name.
func (c *LublinClass) field(name string) *float64 {
	return [...]*float64{&c.SerialProb, &c.Pow2Prob, &c.ULow, &c.UMed, &c.UHi, &c.UProb,
		&c.A1, &c.B1, &c.A2, &c.B2, &c.PA, &c.PB, &c.AArr, &c.BArr, &c.ARAR, &c.ANum, &c.BNum}[slices.Index(lublinParamNames, name)]
}

// String writes the parameters as "name=value ...".
func (c LublinClass) String() string {
	var b strings.Builder
	for i, n := range lublinParamNames {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(n + "=" + strconv.FormatFloat(*c.field(n), 'g', -1, 64))
	}
	return b.String()
}

// lublinScaled moves the size law to a largest job of maxSize nodes: ULow,
// UMed and UHi move by log2(maxSize/128) (128 keeps the published values;
// the offsets UHi − UMed and the interactive class's smaller UHi are kept),
// then UHi is kept at least 0 and ULow and UMed within [·, UHi], so that
// small machines still have a law (the program's comment asks to fit these parameters to the
// machine; this is the rule that does it for any size).
func lublinScaled(c LublinClass, maxSize int) LublinClass {
	d := math.Log2(float64(maxSize)) - math.Log2(LublinModelHosts)
	c.UHi = math.Max(c.UHi+d, 0)
	c.UMed += d
	c.ULow = math.Min(c.ULow, c.UHi)
	c.UMed = math.Min(math.Max(c.UMed, c.ULow), c.UHi)
	return c
}

// check refuses parameters the model cannot draw from.
func (c LublinClass) check() error {
	prob := func(name string, v float64) error {
		if !(v >= 0 && v <= 1) {
			return fmt.Errorf("%s = %g: must be a probability in [0, 1]", name, v)
		}
		return nil
	}
	for _, n := range []string{"serial_prob", "pow2_prob", "uprob"} {
		if err := prob(n, *c.field(n)); err != nil {
			return err
		}
	}
	if c.SerialProb+c.Pow2Prob > 1+1e-12 {
		return fmt.Errorf("serial_prob + pow2_prob = %g: must be at most 1", c.SerialProb+c.Pow2Prob)
	}
	if !(c.ULow >= 0 && c.ULow <= c.UMed && c.UMed <= c.UHi && c.UHi <= 40) {
		return fmt.Errorf("ulow %g, umed %g, uhi %g: want 0 ≤ ulow ≤ umed ≤ uhi ≤ 40", c.ULow, c.UMed, c.UHi)
	}
	for _, n := range []string{"a1", "b1", "a2", "b2", "aarr", "barr", "arar", "anum", "bnum"} {
		if v := *c.field(n); !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("%s = %g: must be > 0", n, v)
		}
	}
	for _, n := range []string{"pa", "pb"} {
		if v := *c.field(n); math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s = %g: must be a number", n, v)
		}
	}
	// A draw above the bound is drawn again: a law with (almost) nothing
	// below it would never end.
	for _, g := range []struct {
		what, names string
		a, b, bound float64
	}{
		{"ln(run time)", "a1, b1", c.A1, c.B1, LublinMaxLogRuntime},
		{"ln(run time)", "a2, b2", c.A2, c.B2, LublinMaxLogRuntime},
		{"ln(inter-arrival)", "aarr × arar, barr", c.AArr * c.ARAR, c.BArr, LublinMaxLogInterarrival},
	} {
		if m := (distuv.Gamma{Alpha: g.a, Beta: 1 / g.b}).CDF(g.bound); !(m >= lublinMinMass) {
			return fmt.Errorf("%s: gamma(%g, %g) of %s puts %.3g of its mass below %g, where draws are kept: want at least %g",
				g.names, g.a, g.b, g.what, m, g.bound, lublinMinMass)
		}
	}
	return nil
}

// lublinMinMass is the least share of a gamma law below its bound (draws
// above it are drawn again): 1 %, at most about 100 draws a value.
const lublinMinMass = 0.01

// applyLublinSet applies "NAME=VALUE,..." overrides to the classes.
func applyLublinSet(set string, names []string, classes []LublinClass) error {
	for _, item := range strings.Split(set, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		key, val, ok := strings.Cut(item, "=")
		if !ok {
			return fmt.Errorf("set: %q: want NAME=VALUE", item)
		}
		key = strings.TrimSpace(key)
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("set: %q: %q is not a number", item, strings.TrimSpace(val))
		}
		class, name, scoped := strings.Cut(key, ".")
		if !scoped {
			name, class = class, ""
		} else if class == "" {
			return fmt.Errorf("set: %q: no class before the '.' (classes: %s)", item, strings.Join(names, ", "))
		}
		if !slices.Contains(lublinParamNames, name) {
			return fmt.Errorf("set: %q: unknown parameter %q (valid: %s)", item, name, strings.Join(lublinParamNames, ", "))
		}
		hit := false
		for i := range classes {
			if class == "" || class == names[i] {
				*classes[i].field(name) = v
				hit = true
			}
		}
		if !hit {
			return fmt.Errorf("set: %q: no class %q in this model (classes: %s)", item, class, strings.Join(names, ", "))
		}
	}
	return nil
}

// lublinClass draws one class's jobs and arrivals. Each class has two
// random streams of its own, so that the k-th job of a class is the same
// whatever the other class draws and whatever the arrival scale.
type lublinClass struct {
	p       LublinClass
	queue   int
	maxSize int
	// cum are the cumulative bucket weights of a day (cum[0] = 0,
	// cum[48] = 48: the weights have mean 1).
	cum    [LublinBuckets + 1]float64
	arr    *rand.Rand
	draw   *rand.Rand
	points []float64 // points[k]: the points up to the (k+1)-th arrival
	jobs   []LublinJob
	o      *LublinOptions
	users  []float64 // cumulative user weights
}

// lublinStream returns the random source of one class's stream: PCG seeded
// from the seed and a constant per stream.
func lublinStream(seed uint64, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x4C75626C696E0000+stream))
}

// LublinDayWeights returns the weights of a class's daily cycle, its
// relative arrival rate in each half hour of the day (bucket k is the half
// hour from k × 30 min after midnight), normalised to mean 1: the
// gamma(ANum, BNum) probability of [x − ½, x + ½], x = k + 1 from the
// bucket LublinCyclicDayStart − 1 on and k + 49 before it.
func LublinDayWeights(c LublinClass) ([LublinBuckets]float64, error) {
	g := distuv.Gamma{Alpha: c.ANum, Beta: 1 / c.BNum}
	var w [LublinBuckets]float64
	sum := 0.0
	for k := range w {
		x := float64(k + 1)
		if k+1 < LublinCyclicDayStart {
			x += LublinBuckets
		}
		w[k] = g.CDF(x+0.5) - g.CDF(x-0.5)
		sum += w[k]
	}
	if !(sum > 0) || math.IsInf(sum, 0) {
		return w, fmt.Errorf("anum %g, bnum %g: the daily cycle has no weight over the day", c.ANum, c.BNum)
	}
	for k := range w {
		w[k] *= LublinBuckets / sum
	}
	return w, nil
}

// lublinGamma draws from gamma(shape a, scale b).
func lublinGamma(r *rand.Rand, a, b float64) float64 {
	return distuv.Gamma{Alpha: a, Beta: 1 / b, Src: r}.Rand()
}

// point returns the points up to the (k+1)-th arrival, drawing as needed:
// each inter-arrival is e^g seconds' worth of points, g ~ gamma(AArr ×
// ARAR, BArr) drawn again above LublinMaxLogInterarrival, one point being
// a bucket of mean weight.
func (c *lublinClass) point(k int) float64 {
	for len(c.points) <= k {
		g := lublinGamma(c.arr, c.p.AArr*c.p.ARAR, c.p.BArr)
		for g > LublinMaxLogInterarrival {
			g = lublinGamma(c.arr, c.p.AArr*c.p.ARAR, c.p.BArr)
		}
		prev := 0.0
		if n := len(c.points); n > 0 {
			prev = c.points[n-1]
		}
		c.points = append(c.points, prev+math.Exp(g)/lublinBucketSeconds)
	}
	return c.points[k]
}

// at returns the time (seconds from midnight of day 0) at which the
// points x are spent, each bucket costing its weight.
func (c *lublinClass) at(x float64) float64 {
	days := math.Floor(x / LublinBuckets)
	r := x - days*LublinBuckets
	// The bucket k with cum[k] ≤ r < cum[k+1] (a bucket of no weight is
	// passed at once).
	k := 0
	for k < LublinBuckets-1 && c.cum[k+1] <= r {
		k++
	}
	frac := 0.0
	if w := c.cum[k+1] - c.cum[k]; w > 0 {
		frac = math.Min((r-c.cum[k])/w, 1)
	}
	return days*86400 + (float64(k)+frac)*lublinBucketSeconds
}

// job returns the k-th job of the class (its size, run time, walltime,
// user and class; the caller sets id and submit time), drawing as needed.
func (c *lublinClass) job(k int) *LublinJob {
	for len(c.jobs) <= k {
		r := c.draw
		nodes := c.size(r)
		rt := c.runtime(r, nodes)
		wall := int64(-1)
		switch c.o.Walltime {
		case LublinWallUniform:
			wall = int64(math.Ceil(float64(rt) * (1 + (c.o.WalltimeFactor-1)*r.Float64())))
		case LublinWallFactor:
			wall = int64(math.Ceil(float64(rt) * c.o.WalltimeFactor))
		case LublinWallExact:
			wall = rt
		}
		user := -1
		if c.users != nil {
			user = pick(r, c.users) + 1
		}
		c.jobs = append(c.jobs, LublinJob{Nodes: nodes, Runtime: rt, Walltime: wall, User: user, Class: c.queue})
	}
	return &c.jobs[k]
}

// size draws a job's size: serial, power of two, or other (the two-stage
// uniform of log2(size)), at most maxSize nodes (a power-of-two job that
// rounds above it takes the largest power of two within it).
func (c *lublinClass) size(r *rand.Rand) int {
	u := r.Float64()
	if u <= c.p.SerialProb {
		return 1
	}
	lo, hi := c.p.ULow, c.p.UMed
	if r.Float64() > c.p.UProb {
		lo, hi = c.p.UMed, c.p.UHi
	}
	x := lo + (hi-lo)*r.Float64()
	pow2 := u <= c.p.SerialProb+c.p.Pow2Prob
	if pow2 {
		x = math.Floor(x + 0.5)
	}
	n := int(math.Floor(math.Exp2(x) + 0.5))
	if n > c.maxSize {
		n = c.maxSize
		if pow2 {
			n = 1 << (bits.Len(uint(c.maxSize)) - 1)
		}
	}
	return max(n, 1)
}

// runtime draws a job's run time from the hyper-gamma of ln(run time) whose
// mix depends on the size.
func (c *lublinClass) runtime(r *rand.Rand, nodes int) int64 {
	p := math.Min(math.Max(c.p.PA*float64(nodes)+c.p.PB, 0), 1)
	for {
		a, b := c.p.A2, c.p.B2
		if r.Float64() <= p {
			a, b = c.p.A1, c.p.B1
		}
		if g := lublinGamma(r, a, b); g <= LublinMaxLogRuntime {
			return max(int64(math.Exp(g)), 1)
		}
	}
}

// GenerateLublin draws a trace from the Lublin–Feitelson model.
func GenerateLublin(o LublinOptions) (*LublinTrace, error) {
	t, classes, err := prepareLublin(o)
	if err != nil {
		return nil, err
	}
	o = t.Options
	// The jobs are the first o.Jobs at the model's arrival rate; a load
	// only moves their submit times.
	counts := lublinCounts(classes, o.Jobs)
	t.ArrivalScale = 1
	if o.Load > 0 {
		s, err := lublinArrivalScale(classes, counts, o.Hosts, o.Load)
		if err != nil {
			return nil, err
		}
		t.ArrivalScale = s
	}
	t.Jobs = lublinPlace(classes, counts, t.ArrivalScale)
	first, last := t.Jobs[0].Submit, t.Jobs[len(t.Jobs)-1].Submit
	if end := t.Jobs[len(t.Jobs)-1]; !(float64(end.Submit) < swfMaxSeconds && end.Submit >= 0) {
		return nil, fmt.Errorf("lublin: job %d would be submitted at %d s, beyond what SWF readers take (%g s): fewer jobs, or a higher load",
			end.ID, end.Submit, float64(swfMaxSeconds))
	}
	if last > first {
		t.OfferedLoad = lublinArea(t.Jobs) / (float64(o.Hosts) * float64(last-first))
	}
	return t, nil
}

// CheckLublin checks options as GenerateLublin does, without drawing.
func CheckLublin(o LublinOptions) error {
	_, _, err := prepareLublin(o)
	return err
}

// prepareLublin fills the defaults, checks the options and the parameters
// of each class, and sets up the classes' streams.
func prepareLublin(o LublinOptions) (*LublinTrace, []*lublinClass, error) {
	if o.Jobs == 0 {
		o.Jobs = DefaultLublinJobs
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Hosts == 0 {
		o.Hosts = o.MaxSize
		if o.Hosts == 0 {
			o.Hosts = LublinModelHosts
		}
	}
	if o.MaxSize == 0 {
		o.MaxSize = o.Hosts
	}
	if o.Model == "" {
		o.Model = LublinTyped
	}
	if o.Walltime == "" {
		o.Walltime = LublinWallUniform
	}
	if o.WalltimeFactor == 0 {
		o.WalltimeFactor = 4
	}
	if err := o.Profiles.check(); err != nil {
		return nil, nil, fmt.Errorf("lublin: %w", err)
	}
	switch {
	case o.Jobs < 1:
		return nil, nil, fmt.Errorf("lublin: jobs must be at least 1 (got %d)", o.Jobs)
	case o.Hosts < 1 || o.Hosts > math.MaxInt32:
		return nil, nil, fmt.Errorf("lublin: %d hosts: want 1 to %d", o.Hosts, math.MaxInt32)
	case o.MaxSize < 1 || o.MaxSize > o.Hosts:
		return nil, nil, fmt.Errorf("lublin: max size %d: must be in 1..%d, the machine's hosts", o.MaxSize, o.Hosts)
	case o.Model != LublinTyped && o.Model != LublinUntyped:
		return nil, nil, fmt.Errorf("lublin: model %q: want %s or %s", o.Model, LublinTyped, LublinUntyped)
	case o.Load < 0 || o.Load > 100 || math.IsNaN(o.Load):
		return nil, nil, fmt.Errorf("lublin: load %g: must be in (0, 100], or 0 for the model's arrival rate", o.Load)
	case o.Load > 0 && o.Jobs < 2:
		return nil, nil, fmt.Errorf("lublin: an offered load needs at least 2 jobs (got %d)", o.Jobs)
	case o.Users < 0:
		return nil, nil, fmt.Errorf("lublin: users %d: must be at least 0", o.Users)
	case !slices.Contains(LublinWalltimes, o.Walltime):
		return nil, nil, fmt.Errorf("lublin: walltime rule %q: want one of %s", o.Walltime, strings.Join(LublinWalltimes, ", "))
	case !(o.WalltimeFactor >= 1 && o.WalltimeFactor <= LublinMaxWalltimeFactor):
		return nil, nil, fmt.Errorf("lublin: walltime factor %g: must be in [1, %g]", o.WalltimeFactor, float64(LublinMaxWalltimeFactor))
	}
	t := &LublinTrace{Options: o}
	queues := []int{LublinBatchQueue, LublinInteractiveQueue}
	if o.Model == LublinTyped {
		t.ClassNames = []string{"batch", "interactive"}
		t.Classes = []LublinClass{lublinScaled(LublinBatch, o.MaxSize), lublinScaled(LublinInteractive, o.MaxSize)}
	} else {
		t.ClassNames = []string{"typeless"}
		t.Classes = []LublinClass{lublinScaled(LublinTypeless, o.MaxSize)}
		queues = []int{-1}
	}
	if err := applyLublinSet(o.Set, t.ClassNames, t.Classes); err != nil {
		return nil, nil, fmt.Errorf("lublin: %w", err)
	}
	var users []float64
	if o.Users > 0 {
		w := make([]float64, o.Users)
		for i := range w {
			w[i] = 1 / math.Pow(float64(i+1), LublinUserZipf)
		}
		users = cumulative(w)
	}
	classes := make([]*lublinClass, len(t.Classes))
	for i, p := range t.Classes {
		if err := p.check(); err != nil {
			return nil, nil, fmt.Errorf("lublin: %s class: %w", t.ClassNames[i], err)
		}
		w, err := LublinDayWeights(p)
		if err != nil {
			return nil, nil, fmt.Errorf("lublin: %s class: %w", t.ClassNames[i], err)
		}
		c := &lublinClass{p: p, queue: queues[i], maxSize: o.MaxSize, o: &t.Options, users: users,
			arr: lublinStream(o.Seed, uint64(2*i)), draw: lublinStream(o.Seed, uint64(2*i+1))}
		for k := range w {
			c.cum[k+1] = c.cum[k] + w[k]
		}
		c.cum[LublinBuckets] = LublinBuckets
		classes[i] = c
	}
	return t, classes, nil
}

// lublinCounts returns how many of the first n jobs each class gives at
// the model's arrival rate: the class whose next job arrives first gives
// the next job (the later class on a tie, as m_lublin99.c's arrive()
// does).
func lublinCounts(classes []*lublinClass, n int) []int {
	counts := make([]int, len(classes))
	at := make([]float64, len(classes))
	for i, c := range classes {
		at[i] = c.at(c.point(0))
	}
	for range n {
		best := 0
		for i := 1; i < len(classes); i++ {
			if at[i] <= at[best] {
				best = i
			}
		}
		counts[best]++
		at[best] = classes[best].at(classes[best].point(counts[best]))
	}
	return counts
}

// lublinPlace returns the first counts[i] jobs of each class, their
// inter-arrival times scaled by s, in arrival order (the later class first
// on a tie): ids 1..n, submit times floored to the second.
func lublinPlace(classes []*lublinClass, counts []int, s float64) []LublinJob {
	n := 0
	for _, k := range counts {
		n += k
	}
	next := make([]int, len(classes))
	at := make([]float64, len(classes))
	for i, c := range classes {
		at[i] = math.Inf(1)
		if counts[i] > 0 {
			at[i] = c.at(s * c.point(0))
		}
	}
	out := make([]LublinJob, n)
	for id := range out {
		best := 0
		for i := 1; i < len(classes); i++ {
			if at[i] <= at[best] {
				best = i
			}
		}
		c := classes[best]
		j := *c.job(next[best])
		j.ID = id + 1
		j.Submit = int64(at[best])
		out[id] = j
		next[best]++
		at[best] = math.Inf(1)
		if next[best] < counts[best] {
			at[best] = c.at(s * c.point(next[best]))
		}
	}
	return out
}

func lublinArea(jobs []LublinJob) float64 {
	area := 0.0
	for _, j := range jobs {
		area += float64(j.Nodes) * float64(j.Runtime)
	}
	return area
}

// lublinArrivalScale finds the factor s on every inter-arrival time that
// gives the jobs (counts[i] of class i) the offered load on hosts. The jobs
// are the same whatever s, only their submit times move, so the load is
// their area over a span that grows with s (from the earliest class's first
// arrival to the latest class's last, each class's arrivals being in
// order): s is bracketed, then bisected on its logarithm until the load is
// within 1e-6 of the target, or the submit times' one-second resolution
// stops it; the closest is kept, and more than 1 % away is an error.
func lublinArrivalScale(classes []*lublinClass, counts []int, hosts int, load float64) (float64, error) {
	area := 0.0
	for i, c := range classes {
		for k := 0; k < counts[i]; k++ {
			j := c.job(k)
			area += float64(j.Nodes) * float64(j.Runtime)
		}
	}
	if !(area > 0) {
		return 0, fmt.Errorf("lublin: the jobs' work is %g: no offered load to scale", area)
	}
	f := func(s float64) float64 {
		first, last := math.Inf(1), math.Inf(-1)
		for i, c := range classes {
			if counts[i] > 0 {
				first = math.Min(first, math.Floor(c.at(s*c.point(0))))
				last = math.Max(last, math.Floor(c.at(s*c.point(counts[i]-1))))
			}
		}
		if !(last > first) {
			return math.Inf(1)
		}
		return area / (float64(hosts) * (last - first))
	}
	best, bestErr, bestLoad := 1.0, math.Inf(1), 0.0
	try := func(s float64) float64 {
		l := f(s)
		if e := math.Abs(l/load - 1); e < bestErr {
			best, bestErr, bestLoad = s, e, l
		}
		return l
	}
	if math.IsInf(try(1), 0) {
		return 0, fmt.Errorf("lublin: every job is submitted in the same second: no offered load to scale")
	}
	// Bracket: lo gives a load ≥ the target, hi one ≤ it.
	lo, hi := 1.0, 1.0
	for try(lo) < load && lo > 1e-12 {
		lo /= 2
	}
	for try(hi) > load && hi < 1e12 {
		hi *= 2
	}
	for i := 0; i < 200 && bestErr > 1e-6 && hi/lo > 1+1e-12; i++ {
		mid := math.Sqrt(lo * hi)
		if try(mid) >= load {
			lo = mid
		} else {
			hi = mid
		}
	}
	if bestErr > 0.01 {
		return 0, fmt.Errorf("lublin: load %g cannot be reached: the closest is %g (inter-arrival times scaled by %g)", load, bestLoad, best)
	}
	return best, nil
}

// WriteSWF writes the trace in the Standard Workload Format (18 fields a
// job): a header naming the model, its parameters and the options, then
// one line per job: id, submit time (seconds from midnight of day 0), wait
// -1, run time, allocated processors = requested processors = nodes,
// requested time = walltime (-1 without), status 1, user (-1 without),
// queue 1 batch / 0 interactive (-1 typeless), the other fields -1.
func (t *LublinTrace) WriteSWF(out io.Writer) error {
	o := t.Options
	bw := bufio.NewWriterSize(out, 1<<16)
	fmt.Fprintf(bw, "; Version: 2.2\n")
	fmt.Fprintf(bw, "; Computer: the Lublin-Feitelson workload model of rigid parallel jobs, drawn by bucma workload lublin\n")
	fmt.Fprintf(bw, "; Acknowledge: U. Lublin and D. G. Feitelson, The workload on parallel supercomputers: modeling the characteristics of rigid jobs, J. Parallel Distrib. Comput. 63(11), 2003\n")
	fmt.Fprintf(bw, "; Information: https://www.cs.huji.ac.il/labs/parallel/workload/models.html (m_lublin99.c: the reference implementation and its parameters)\n")
	fmt.Fprintf(bw, "; Conversion: %s\n", t.command())
	fmt.Fprintf(bw, "; MaxJobs: %d\n; MaxRecords: %d\n", len(t.Jobs), len(t.Jobs))
	fmt.Fprintf(bw, "; MaxNodes: %d\n; MaxProcs: %d\n", o.Hosts, o.Hosts)
	fmt.Fprintf(bw, "; MaxRuntime: %d\n", int64(math.Exp(LublinMaxLogRuntime)))
	if o.Model == LublinTyped {
		fmt.Fprintf(bw, "; MaxQueues: 2\n; Queue: 0 interactive jobs\n; Queue: 1 batch jobs\n")
	}
	fmt.Fprintf(bw, "; Note: submit times are seconds from midnight of day 0 (the model's daily cycle); run times truncated to the second\n")
	fmt.Fprintf(bw, "; Note: largest job %d nodes on %d hosts; ulow, umed and uhi moved by log2(%d/128) from the published values\n", o.MaxSize, o.Hosts, o.MaxSize)
	for i, name := range t.ClassNames {
		fmt.Fprintf(bw, "; Note: %s class: %s\n", name, t.Classes[i])
	}
	if o.Load > 0 {
		fmt.Fprintf(bw, "; Note: inter-arrival times scaled by %s for an offered load of %s on %d hosts (reached: %s)\n",
			fmtNum(round6(t.ArrivalScale)), fmtNum(o.Load), o.Hosts, fmtNum(round6(t.OfferedLoad)))
	} else {
		fmt.Fprintf(bw, "; Note: the model's arrival rate; offered load %s on %d hosts\n", fmtNum(round6(t.OfferedLoad)), o.Hosts)
	}
	fmt.Fprintf(bw, "; Note: %s (not part of the model)\n", t.walltimeNote())
	if o.Users > 0 {
		fmt.Fprintf(bw, "; Note: users 1..%d drawn with weights 1/k^%g (not part of the model)\n", o.Users, LublinUserZipf)
	}
	for _, j := range t.Jobs {
		fmt.Fprintf(bw, "%d %d -1 %d %d -1 -1 %d %d -1 1 %d -1 -1 %d -1 -1 -1\n",
			j.ID, j.Submit, j.Runtime, j.Nodes, j.Nodes, j.Walltime, j.User, j.Class)
	}
	return bw.Flush()
}

// command is the bucma command that draws the trace again.
func (t *LublinTrace) command() string {
	o := t.Options
	s := fmt.Sprintf("bucma workload lublin --jobs %d --seed %d --max-size %d --model %s --walltime %s --walltime-factor %s --users %d",
		o.Jobs, o.Seed, o.MaxSize, o.Model, o.Walltime, fmtNum(o.WalltimeFactor), o.Users)
	if o.Load > 0 {
		s += " --load " + fmtNum(o.Load)
	}
	if o.Set != "" {
		s += " --set " + strconv.Quote(o.Set)
	}
	return s + fmt.Sprintf(" (on %d hosts)", o.Hosts)
}

func (t *LublinTrace) walltimeNote() string {
	f := fmtNum(t.Options.WalltimeFactor)
	switch t.Options.Walltime {
	case LublinWallUniform:
		return "requested time uniform in [run time, " + f + " x run time], rounded up (the f model, f = " + fmtNum(t.Options.WalltimeFactor-1) + ")"
	case LublinWallFactor:
		return "requested time " + f + " x run time, rounded up"
	case LublinWallExact:
		return "requested time = run time"
	}
	return "no requested time"
}

// Workload returns the trace as a Batsim workload, the jobs exactly as
// "bucma workload from-swf" converts the trace's SWF: id, subtime (submit
// time minus the first job's), res = nodes, walltime, profile "d<run
// time>" (one delay profile per distinct run time), user (the SWF's user
// field as text: "-1" without users). nb_res is the machine's hosts; meta
// records the generator, the options, each class's parameters and the
// offered load.
func (t *LublinTrace) Workload() (*Workload, error) {
	w := &Workload{NbRes: t.Options.Hosts, Profiles: map[string]Profile{}}
	w.Jobs = make([]Job, 0, len(t.Jobs))
	t0 := t.Jobs[0].Submit
	for _, j := range t.Jobs {
		rt := float64(j.Runtime)
		pname := t.Options.Profiles.name(rt)
		if _, ok := w.Profiles[pname]; !ok {
			w.AddProfile(t.Options.Profiles.profile(rt))
		}
		sub := float64(j.Submit - t0)
		var jb objBuilder
		jb.int("id", int64(j.ID)).num("subtime", sub).int("res", int64(j.Nodes)).num("walltime", float64(j.Walltime)).
			str("profile", pname).str("user", strconv.Itoa(j.User))
		w.Jobs = append(w.Jobs, Job{ID: strconv.Itoa(j.ID), IDIsInt: true, Subtime: sub, Res: j.Nodes,
			Walltime: float64(j.Walltime), Profile: pname, Raw: jb.bytes()})
	}
	o := t.Options
	classes := map[string]any{}
	counts := map[string]int{}
	for i, name := range t.ClassNames {
		m := map[string]float64{}
		for _, n := range lublinParamNames {
			m[n] = *t.Classes[i].field(n)
		}
		classes[name] = m
	}
	for _, j := range t.Jobs {
		counts[t.className(j.Class)]++
	}
	params := map[string]any{
		"jobs": o.Jobs, "hosts": o.Hosts, "max_size": o.MaxSize, "model": o.Model, "load": o.Load,
		"users": o.Users, "walltime": o.Walltime, "walltime_factor": o.WalltimeFactor, "set": o.Set,
	}
	o.Profiles.describe(params)
	meta := map[string]any{
		"generator":     "lublin",
		"seed":          o.Seed,
		"model":         "Lublin and Feitelson, JPDC 63(11) 2003 (m_lublin99.c)",
		"params":        params,
		"classes":       classes,
		"class_jobs":    counts,
		"arrival_scale": round6(t.ArrivalScale),
		"offered_load":  round6(t.OfferedLoad),
		"first_submit":  t0,
		"walltimes":     t.walltimeNote(),
	}
	mb, err := marshalSorted(meta)
	if err != nil {
		return nil, err
	}
	w.SetExtra("meta", mb)
	return w, nil
}

func (t *LublinTrace) className(queue int) string {
	switch queue {
	case LublinBatchQueue:
		return "batch"
	case LublinInteractiveQueue:
		return "interactive"
	}
	return "typeless"
}
