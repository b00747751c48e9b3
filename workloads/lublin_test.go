package workloads

import (
	"bytes"
	"fmt"
	"math"
	"math/bits"
	"os"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/bucma-sched/bucma/internal/fuzzguard"
)

// The Lublin–Feitelson generator against the model's own laws: every
// expectation below is computed from the published parameters (numerical
// integration of the laws the model states), never from a run of the
// generator; the tolerances are five standard errors of the sample, so that
// a correct generator passes at any seed and a generator that confuses two
// parameters, the classes or the size-runtime dependence fails.

// lublinSeed is the seed of the property tests (LUBLIN_SEED overrides it,
// to check that the tolerances are not tuned to one seed).
func lublinSeed(t *testing.T) uint64 {
	if s := os.Getenv("LUBLIN_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("LUBLIN_SEED=%q: %v", s, err)
		}
		return v
	}
	return 1
}

// tsuMean is E[f(X)] for X from the two-stage uniform of a class's sizes.
func tsuMean(c LublinClass, f func(x float64) float64) float64 {
	seg := func(lo, hi float64) float64 {
		if hi <= lo {
			return f(lo)
		}
		const n = 20000
		s := 0.0
		for i := 0; i < n; i++ {
			s += f(lo + (hi-lo)*(float64(i)+0.5)/n)
		}
		return s / n
	}
	return c.UProb*seg(c.ULow, c.UMed) + (1-c.UProb)*seg(c.UMed, c.UHi)
}

// expectedPow2Share is the probability that a parallel job of the class
// has a power-of-two size: the power-of-two jobs, and the others whose
// round(2^X) happens to be one.
func expectedPow2Share(c LublinClass) float64 {
	par := 1 - c.SerialProb
	other := par - c.Pow2Prob
	q := tsuMean(c, func(x float64) float64 {
		n := uint(math.Floor(math.Exp2(x) + 0.5))
		if bits.OnesCount(n) == 1 {
			return 1
		}
		return 0
	})
	return (c.Pow2Prob + other*q) / par
}

// expectedParallelSize is E[size] of a parallel job (no size cap).
func expectedParallelSize(c LublinClass) float64 {
	par := 1 - c.SerialProb
	pow2 := tsuMean(c, func(x float64) float64 { return math.Exp2(math.Floor(x + 0.5)) })
	other := tsuMean(c, func(x float64) float64 { return math.Floor(math.Exp2(x) + 0.5) })
	return (c.Pow2Prob*pow2 + (par-c.Pow2Prob)*other) / par
}

// truncGammaMoments returns E[g(X)] and E[g(X)²] for X ~ gamma(a, b)
// (shape, scale) conditioned on X ≤ cap.
func truncGammaMoments(a, b, cap float64, g func(float64) float64) (m1, m2 float64) {
	d := distuv.Gamma{Alpha: a, Beta: 1 / b}
	const n = 240000
	h := cap / n
	mass := 0.0
	for i := 0; i < n; i++ {
		x := (float64(i) + 0.5) * h
		p := d.Prob(x) * h
		v := g(x)
		mass += p
		m1 += p * v
		m2 += p * v * v
	}
	return m1 / mass, m2 / mass
}

// lnRuntime is ln of the run time a draw x of ln(run time) gives.
func lnRuntime(x float64) float64 { return math.Log(math.Max(math.Floor(math.Exp(x)), 1)) }

// runtimeExpect returns, for the jobs of a class (their sizes given), the
// expected mean and second moment of ln(run time) given the sizes.
type runtimeExpect struct{ e1, s1, e2, s2 float64 }

func newRuntimeExpect(c LublinClass) runtimeExpect {
	var r runtimeExpect
	r.e1, r.s1 = truncGammaMoments(c.A1, c.B1, LublinMaxLogRuntime, lnRuntime)
	r.e2, r.s2 = truncGammaMoments(c.A2, c.B2, LublinMaxLogRuntime, lnRuntime)
	return r
}

// of returns E[ln r] and E[(ln r)²] for a job of the given size: the
// hyper-gamma's mix p = PA × size + PB, kept in [0, 1]. (A draw above the
// cap is drawn again, mix included, which keeps the mix up to the tiny
// mass above e^12 s.)
func (r runtimeExpect) of(c LublinClass, nodes int) (float64, float64) {
	p := math.Min(math.Max(c.PA*float64(nodes)+c.PB, 0), 1)
	return p*r.e1 + (1-p)*r.e2, p*r.s1 + (1-p)*r.s2
}

// moments are a sample's mean, variance and the standard errors of both.
type moments struct {
	n               int
	mean, variance  float64
	seMean, seVaria float64
}

func sampleMoments(xs []float64) moments {
	m := moments{n: len(xs)}
	for _, x := range xs {
		m.mean += x
	}
	m.mean /= float64(len(xs))
	m4 := 0.0
	for _, x := range xs {
		d := (x - m.mean) * (x - m.mean)
		m.variance += d
		m4 += d * d
	}
	m.variance /= float64(len(xs))
	m4 /= float64(len(xs))
	m.seMean = math.Sqrt(m.variance / float64(len(xs)))
	m.seVaria = math.Sqrt(math.Max(m4-m.variance*m.variance, 0) / float64(len(xs)))
	return m
}

// within fails the test when got is more than k standard errors se from
// want.
func within(t *testing.T, what string, got, want, se, k float64) {
	t.Helper()
	if math.Abs(got-want) > k*se {
		t.Errorf("%s: %.5g, the model gives %.5g (tolerance %.3g = %g standard errors)", what, got, want, k*se, k)
	} else {
		t.Logf("%s: %.5g, the model gives %.5g (± %.3g)", what, got, want, k*se)
	}
}

func generateLublin(t *testing.T, o LublinOptions) *LublinTrace {
	t.Helper()
	tr, err := GenerateLublin(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Jobs) != o.Jobs {
		t.Fatalf("%d jobs, want %d", len(tr.Jobs), o.Jobs)
	}
	return tr
}

// The sizes and run times of each class follow the published laws: the
// share of serial jobs, the share of power-of-two sizes among parallel
// jobs, the mean parallel size, the mean and variance of ln(run time), and
// the dependence of run time on size (the means of serial and of wide jobs
// apart).
func TestLublinSizesAndRuntimes(t *testing.T) {
	for _, model := range []string{LublinTyped, LublinUntyped} {
		tr := generateLublin(t, LublinOptions{Jobs: 60000, Seed: lublinSeed(t), Model: model})
		for ci, name := range tr.ClassNames {
			c := tr.Classes[ci]
			queue := map[string]int{"batch": LublinBatchQueue, "interactive": LublinInteractiveQueue, "typeless": -1}[name]
			var jobs []LublinJob
			for _, j := range tr.Jobs {
				if j.Class == queue {
					jobs = append(jobs, j)
				}
			}
			n := float64(len(jobs))
			if n < 5000 {
				t.Fatalf("%s: only %.0f jobs of class %s", model, n, name)
			}
			serial, pow2, par := 0.0, 0.0, 0.0
			var sizes []float64
			for _, j := range jobs {
				if j.Nodes > LublinModelHosts || j.Nodes < 1 {
					t.Fatalf("%s job %d: %d nodes", name, j.ID, j.Nodes)
				}
				if j.Nodes == 1 {
					serial++
					continue
				}
				par++
				sizes = append(sizes, float64(j.Nodes))
				if bits.OnesCount(uint(j.Nodes)) == 1 {
					pow2++
				}
			}
			p := c.SerialProb
			within(t, name+": share of serial jobs", serial/n, p, math.Sqrt(p*(1-p)/n), 5)
			q := expectedPow2Share(c)
			within(t, name+": share of power-of-two sizes among parallel jobs", pow2/par, q, math.Sqrt(q*(1-q)/par), 5)
			sm := sampleMoments(sizes)
			within(t, name+": mean size of parallel jobs", sm.mean, expectedParallelSize(c), sm.seMean, 5)

			re := newRuntimeExpect(c)
			groups := map[string]func(int) bool{
				"all":    func(int) bool { return true },
				"serial": func(n int) bool { return n == 1 },
				"wide":   func(n int) bool { return n >= 16 },
			}
			for g, in := range groups {
				var lr []float64
				want1, want2 := 0.0, 0.0
				for _, j := range jobs {
					if !in(j.Nodes) {
						continue
					}
					lr = append(lr, math.Log(float64(j.Runtime)))
					e1, e2 := re.of(c, j.Nodes)
					want1 += e1
					want2 += e2
				}
				k := float64(len(lr))
				want1 /= k
				wantVar := want2/k - want1*want1
				m := sampleMoments(lr)
				within(t, name+": mean ln(run time) of "+g+" jobs", m.mean, want1, m.seMean, 5)
				if g == "all" {
					within(t, name+": variance of ln(run time)", m.variance, wantVar, m.seVaria, 5)
				}
			}
			for _, j := range jobs {
				if j.Runtime < 1 || float64(j.Runtime) > math.Exp(LublinMaxLogRuntime) {
					t.Fatalf("%s job %d: run time %d outside [1, e^12]", name, j.ID, j.Runtime)
				}
			}
		}
	}
}

// Arrivals, from the trace's submit times alone: each class's
// inter-arrival times, measured in points of the daily cycle (a bucket of
// weight w costs w points per half hour), are e^g seconds' worth, g ~
// gamma(AArr × ARAR, BArr) below 13, scaled by the arrival scale; and the
// share of each class's arrivals in each quarter of the day is the share
// of the day's weight there. Consecutive arrivals are not independent
// (they share a day's phase), so the shares' standard errors are those of
// blocks of 30 days (batch means).
func TestLublinArrivals(t *testing.T) {
	for _, load := range []float64{0, 0.6} {
		tr := generateLublin(t, LublinOptions{Jobs: 60000, Seed: lublinSeed(t), Hosts: 39, Load: load})
		for ci, name := range tr.ClassNames {
			c := tr.Classes[ci]
			queue := []int{LublinBatchQueue, LublinInteractiveQueue}[ci]
			w, err := LublinDayWeights(c)
			if err != nil {
				t.Fatal(err)
			}
			var cum [LublinBuckets + 1]float64
			for k := range w {
				cum[k+1] = cum[k] + w[k]
			}
			// points is the inverse of the day's clock: the points spent
			// by time s (seconds from midnight of day 0).
			points := func(s float64) float64 {
				day := math.Floor(s / 86400)
				b := (s - day*86400) / 1800
				k := int(b)
				return day*LublinBuckets + cum[k] + (b-float64(k))*w[k]
			}
			var g []float64
			prev := 0.0 // the classes' first gap is from time 0
			type block struct{ n, q [4]float64 }
			blocks := map[int64]*block{}
			for _, j := range tr.Jobs {
				if j.Class != queue {
					continue
				}
				p := points(float64(j.Submit))
				// Submit times are floored to the second: a gap of 0 s is
				// half a second's worth.
				g = append(g, math.Log(math.Max(1800*(p-prev), w[0]*0.5)/tr.ArrivalScale))
				prev = p
				b := blocks[j.Submit/(30*86400)]
				if b == nil {
					b = &block{}
					blocks[j.Submit/(30*86400)] = b
				}
				q := j.Submit % 86400 / 21600
				b.q[q]++
				for k := range b.n {
					b.n[k]++
				}
			}
			m := sampleMoments(g)
			want1, want2 := truncGammaMoments(c.AArr*c.ARAR, c.BArr, LublinMaxLogInterarrival, func(x float64) float64 { return x })
			within(t, name+": mean ln(inter-arrival) (load "+fmtNum(load)+")", m.mean, want1, m.seMean, 5)
			within(t, name+": variance of ln(inter-arrival) (load "+fmtNum(load)+")", m.variance, want2-want1*want1, m.seVaria, 5)

			for q := 0; q < 4; q++ {
				want := 0.0
				for k := q * 12; k < q*12+12; k++ {
					want += w[k] / LublinBuckets
				}
				var shares []float64
				var count, total float64
				for _, b := range blocks {
					if b.n[q] >= 20 {
						shares = append(shares, b.q[q]/b.n[q])
						count += b.q[q]
						total += b.n[q]
					}
				}
				bm := sampleMoments(shares)
				within(t, name+": share of arrivals at "+strconv.Itoa(q*6)+"-"+strconv.Itoa(q*6+6)+" h (load "+fmtNum(load)+")",
					count/total, want, bm.seMean, 5)
			}
		}
		if load > 0 && math.Abs(tr.OfferedLoad/load-1) > 1e-3 {
			t.Errorf("offered load %g, want %g", tr.OfferedLoad, load)
		}
	}
}

// The daily cycle's weights: mean 1; half hour k (from midnight) weighs
// the gamma(ANum, BNum) mass around bucket number k + 1, from half hour 10
// on (bucket number 11, LublinCyclicDayStart) to half hour 9 the next
// morning (bucket number 58); the busiest half hour is at the gamma's mode.
func TestLublinDayWeights(t *testing.T) {
	for _, c := range []LublinClass{LublinBatch, LublinInteractive, LublinTypeless} {
		w, err := LublinDayWeights(c)
		if err != nil {
			t.Fatal(err)
		}
		g := distuv.Gamma{Alpha: c.ANum, Beta: 1 / c.BNum}
		mass := func(x float64) float64 { return g.CDF(x+0.5) - g.CDF(x-0.5) }
		sum, hi := 0.0, 0
		for k, v := range w {
			sum += v
			if v > w[hi] {
				hi = k
			}
		}
		mode := int(math.Round((c.ANum-1)*c.BNum)) - 1
		rel := func(a, b float64) bool { return math.Abs(a/b-1) < 1e-9 }
		if math.Abs(sum-LublinBuckets) > 1e-9 || hi != mode ||
			!rel(w[10]/w[9], mass(11)/mass(58)) || !rel(w[47]/w[0], mass(48)/mass(49)) || !rel(w[hi]/w[10], mass(float64(hi+1))/mass(11)) {
			t.Errorf("%+v: weights sum %g, busiest half hour %d (mode %d), w10/w9 %g (want %g), w47/w0 %g (want %g)",
				c, sum, hi, mode, w[10]/w[9], mass(11)/mass(58), w[47]/w[0], mass(48)/mass(49))
		}
	}
}

// The day's clock: spending the weight of the buckets before bucket k
// brings the time to k half hours, half a bucket's weight half of it, and
// 48 points a whole day.
func TestLublinDayClock(t *testing.T) {
	w, err := LublinDayWeights(LublinBatch)
	if err != nil {
		t.Fatal(err)
	}
	c := &lublinClass{}
	for k := range w {
		c.cum[k+1] = c.cum[k] + w[k]
	}
	for k := 0; k < LublinBuckets; k++ {
		for day := 0.0; day < 3; day++ {
			base := day * 86400
			if got := c.at(day*LublinBuckets + c.cum[k]); math.Abs(got-base-float64(k)*1800) > 1e-6 {
				t.Fatalf("day %g, bucket %d: start at %g s", day, k, got-base)
			}
			if got := c.at(day*LublinBuckets + c.cum[k] + w[k]/2); math.Abs(got-base-float64(k)*1800-900) > 1e-6 {
				t.Fatalf("day %g, bucket %d: middle at %g s", day, k, got-base)
			}
		}
	}
}

// The same options give the same trace; another seed another one; the
// offered load moves the arrivals only: the same jobs of each class, each
// with its size, run time, walltime and user.
func TestLublinDeterminism(t *testing.T) {
	o := LublinOptions{Jobs: 3000, Seed: 7, Hosts: 39, Users: 12}
	a, b := generateLublin(t, o), generateLublin(t, o)
	var sa, sb bytes.Buffer
	if err := a.WriteSWF(&sa); err != nil {
		t.Fatal(err)
	}
	if err := b.WriteSWF(&sb); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(sa.Bytes(), sb.Bytes()) {
		t.Fatal("the same seed gave two traces")
	}
	o.Seed = 8
	c := generateLublin(t, o)
	same := 0
	for i := range c.Jobs {
		if c.Jobs[i] == a.Jobs[i] {
			same++
		}
	}
	if same > 10 {
		t.Errorf("seeds 7 and 8 share %d of %d jobs", same, len(a.Jobs))
	}
	o.Seed, o.Load = 7, 0.9
	l := generateLublin(t, o)
	if l.ArrivalScale == 1 || l.Jobs[len(l.Jobs)-1].Submit == a.Jobs[len(a.Jobs)-1].Submit {
		t.Fatalf("load 0.9: arrival scale %g", l.ArrivalScale)
	}
	byClass := func(tr *LublinTrace) map[int][]LublinJob {
		m := map[int][]LublinJob{}
		for _, j := range tr.Jobs {
			j.ID, j.Submit = 0, 0
			m[j.Class] = append(m[j.Class], j)
		}
		return m
	}
	ca, cl := byClass(a), byClass(l)
	for class, js := range ca {
		if len(js) != len(cl[class]) {
			t.Fatalf("class %d: %d jobs without a load, %d with", class, len(js), len(cl[class]))
		}
		for k := range js {
			if js[k] != cl[class][k] {
				t.Fatalf("class %d job %d: %+v without a load, %+v with", class, k, js[k], cl[class][k])
			}
		}
	}
}

// The SWF the generator writes converts, through FromSWF, to exactly the
// jobs and profiles of its Batsim workload; its header names the model.
func TestLublinSWFRoundTrip(t *testing.T) {
	tr := generateLublin(t, LublinOptions{Jobs: 2000, Seed: 3, Hosts: 39, Users: 40, Load: 0.8})
	var swf bytes.Buffer
	if err := tr.WriteSWF(&swf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"; Version: 2.2\n", "Lublin-Feitelson", "; MaxNodes: 39\n", "batch class: serial_prob=0.2927 pow2_prob=0.6686",
		"offered load of 0.8 on 39 hosts", "f model, f = 3", "--load 0.8"} {
		if !strings.Contains(swf.String(), want) {
			t.Errorf("SWF header lacks %q", want)
		}
	}
	for i, line := range strings.Split(strings.TrimSpace(swf.String()), "\n") {
		if !strings.HasPrefix(line, ";") && len(strings.Fields(line)) != 18 {
			t.Fatalf("SWF line %d has %d fields: %s", i+1, len(strings.Fields(line)), line)
		}
	}
	direct, err := tr.Workload()
	if err != nil {
		t.Fatal(err)
	}
	conv, st, err := FromSWFBytes(swf.Bytes(), SWFOptions{})
	if err != nil || st.Kept != 2000 {
		t.Fatalf("from-swf: %v, %s", err, st)
	}
	if direct.NbRes != conv.NbRes || len(direct.Jobs) != len(conv.Jobs) {
		t.Fatalf("nb_res %d / %d, jobs %d / %d", direct.NbRes, conv.NbRes, len(direct.Jobs), len(conv.Jobs))
	}
	for i := range direct.Jobs {
		if !bytes.Equal(direct.Jobs[i].Raw, conv.Jobs[i].Raw) {
			t.Fatalf("job %d: generator %s, from-swf %s", i, direct.Jobs[i].Raw, conv.Jobs[i].Raw)
		}
	}
	if strings.Join(direct.ProfileOrder, ",") != strings.Join(conv.ProfileOrder, ",") {
		t.Fatal("profiles differ")
	}
	for _, name := range direct.ProfileOrder {
		if !bytes.Equal(direct.Profiles[name].Raw, conv.Profiles[name].Raw) {
			t.Fatalf("profile %s differs", name)
		}
	}
	if errs, _ := direct.Validate(ValidateOptions{PlatformHosts: 39}); len(errs) > 0 {
		t.Fatalf("the workload does not check on 39 hosts: %v", errs[0])
	}
	if l, err := direct.OfferedLoad(39, 1); err != nil || math.Abs(l-0.8) > 1e-3 {
		t.Errorf("offered load of the workload %g (%v), want 0.8", l, err)
	}
}

// Sizes follow the machine: at most MaxSize nodes, the power-of-two jobs
// kept powers of two, the serial share unchanged.
func TestLublinMaxSize(t *testing.T) {
	for _, size := range []int{1, 5, 39, 46, 1000} {
		tr := generateLublin(t, LublinOptions{Jobs: 4000, Seed: 2, MaxSize: size, Hosts: max(size, 64)})
		largest, serial := 0, 0
		for _, j := range tr.Jobs {
			largest = max(largest, j.Nodes)
			if j.Nodes == 1 {
				serial++
			}
		}
		if largest > size || size >= 32 && largest < size/2 {
			t.Errorf("max size %d: largest job %d", size, largest)
		}
		if size >= 5 && math.Abs(float64(serial)/4000-0.17) > 0.04 {
			t.Errorf("max size %d: %d serial jobs of 4000", size, serial)
		}
	}
}

// Walltimes by rule; users Zipf-like.
func TestLublinWalltimesAndUsers(t *testing.T) {
	for _, rule := range LublinWalltimes {
		tr := generateLublin(t, LublinOptions{Jobs: 5000, Seed: 4, Walltime: rule, WalltimeFactor: 3, Users: 10})
		ratio, long := 0.0, 0.0
		count := map[int]int{}
		for _, j := range tr.Jobs {
			count[j.User]++
			r := float64(j.Runtime)
			w := float64(j.Walltime)
			if r >= 600 { // the rounding up weighs little
				ratio += w / r
				long++
			}
			switch rule {
			case LublinWallUniform:
				if w < r || w > math.Ceil(3*r) {
					t.Fatalf("uniform: job %d walltime %g for run time %g", j.ID, w, r)
				}
			case LublinWallFactor:
				if w != math.Ceil(3*r) {
					t.Fatalf("factor: job %d walltime %g for run time %g", j.ID, w, r)
				}
			case LublinWallExact:
				if w != r {
					t.Fatalf("exact: job %d walltime %g for run time %g", j.ID, w, r)
				}
			case LublinWallNone:
				if w != -1 {
					t.Fatalf("none: job %d walltime %g", j.ID, w)
				}
			}
		}
		if rule == LublinWallUniform && math.Abs(ratio/long-2) > 0.05 {
			t.Errorf("uniform in [r, 3r]: mean walltime / run time %g, want about 2", ratio/long)
		}
		if len(count) != 10 || count[1] < count[2] || count[2] < count[10] || count[-1] != 0 {
			t.Errorf("users: %v", count)
		}
		// Zipf 1.1 over 10 users: user 1 has 1/H share, H = Σ 1/k^1.1.
		h := 0.0
		for k := 1; k <= 10; k++ {
			h += 1 / math.Pow(float64(k), LublinUserZipf)
		}
		if got := float64(count[1]) / 5000; math.Abs(got-1/h) > 0.03 {
			t.Errorf("user 1 submits %g of the jobs, want %g", got, 1/h)
		}
	}
}

// Set overrides parameters per class; bad options are errors naming them.
func TestLublinOptionsAndErrors(t *testing.T) {
	tr := generateLublin(t, LublinOptions{Jobs: 3000, Seed: 5, Set: "serial_prob=1, pow2_prob=0, interactive.pa=0"})
	for _, j := range tr.Jobs {
		if j.Nodes != 1 {
			t.Fatalf("serial_prob=1: job %d has %d nodes", j.ID, j.Nodes)
		}
	}
	if tr.Classes[1].PA != 0 || tr.Classes[0].PA != LublinBatch.PA {
		t.Errorf("interactive.pa=0: classes %+v", tr.Classes)
	}
	for _, c := range []struct {
		o    LublinOptions
		want string
	}{
		{LublinOptions{Jobs: -1}, "jobs"},
		{LublinOptions{Hosts: 16, MaxSize: 32}, "max size 32"},
		{LublinOptions{Model: "mixed"}, `model "mixed"`},
		{LublinOptions{Load: -1}, "load"},
		{LublinOptions{Load: 0.5, Jobs: 1}, "at least 2 jobs"},
		{LublinOptions{Users: -3}, "users"},
		{LublinOptions{Walltime: "tsafrir"}, "walltime rule"},
		{LublinOptions{WalltimeFactor: 0.5}, "walltime factor"},
		{LublinOptions{WalltimeFactor: 2e6}, "walltime factor"},
		{LublinOptions{Jobs: 1000, Load: 1e-12}, "beyond what SWF readers take"},
		{LublinOptions{Set: "serial=0.1"}, `unknown parameter "serial"`},
		{LublinOptions{Set: "pa"}, "NAME=VALUE"},
		{LublinOptions{Set: "pa=x"}, "not a number"},
		{LublinOptions{Set: "batch.pa=0", Model: LublinUntyped}, `no class "batch"`},
		{LublinOptions{Set: "serial_prob=0.5,pow2_prob=0.6"}, "at most 1"},
		{LublinOptions{Set: "batch.umed=8"}, "batch class: ulow"},
		{LublinOptions{Set: "b1=0"}, "b1 = 0"},
		{LublinOptions{Set: "uprob=2"}, "uprob = 2"},
		{LublinOptions{Set: ".pa=0"}, "no class before"},
		{LublinOptions{Set: "interactive.a1=1e6"}, "interactive class: a1, b1: gamma(1e+06, 0.6605) of ln(run time) puts 0 of its mass below 12"},
		{LublinOptions{Set: "barr=100"}, "aarr × arar, barr"},
		{LublinOptions{Hosts: 1 << 40}, "hosts"},
	} {
		_, err := GenerateLublin(c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "lublin: ") {
			t.Errorf("%+v: error %v, want one naming %q", c.o, err, c.want)
		}
	}
}

// FuzzLublin: any options and overrides give a trace whose jobs fit the
// machine and check as a Batsim workload, or an error; never a panic nor a
// stall (the guard's 2 s while fuzzing).
func FuzzLublin(f *testing.F) {
	f.Add(uint64(1), 39, 0, 0.0, "typed", "")
	f.Add(uint64(2), 128, 16, 0.9, "typeless", "pa=0,uprob=0.8")
	f.Add(uint64(3), 5, 5, 3.0, "typed", "interactive.serial_prob=1,interactive.pow2_prob=0,batch.umed=0.5")
	f.Add(uint64(4), 1, 0, 0.5, "typed", "aarr=0.01,a1=0.001")
	f.Fuzz(func(t *testing.T, seed uint64, hosts, maxSize int, load float64, model, set string) {
		fuzzguard.Run(t, func() error { return checkLublin(seed, hosts, maxSize, load, model, set) })
	})
}

func checkLublin(seed uint64, hosts, maxSize int, load float64, model, set string) error {
	if hosts > 1<<20 || maxSize > 1<<20 {
		return nil // the machine's size only changes the size law's bounds
	}
	o := LublinOptions{Jobs: 300, Seed: seed, Hosts: hosts, MaxSize: maxSize, Load: load, Model: model, Set: set, Users: 3}
	tr, err := GenerateLublin(o)
	if err != nil {
		if CheckLublin(o) == nil && !strings.Contains(err.Error(), "load") {
			return fmt.Errorf("CheckLublin accepts what GenerateLublin refuses: %v", err)
		}
		return nil
	}
	prev := int64(0)
	for i, j := range tr.Jobs {
		if j.ID != i+1 || j.Submit < prev || j.Nodes < 1 || j.Nodes > tr.Options.MaxSize || j.Runtime < 1 ||
			float64(j.Runtime) > math.Exp(LublinMaxLogRuntime) || j.Walltime < j.Runtime || j.User < 1 || j.User > 3 {
			return fmt.Errorf("job %+v (max size %d)", j, tr.Options.MaxSize)
		}
		prev = j.Submit
	}
	w, err := tr.Workload()
	if err != nil {
		return err
	}
	if errs, _ := w.Validate(ValidateOptions{PlatformHosts: tr.Options.Hosts}); len(errs) > 0 {
		return fmt.Errorf("the workload does not check: %v", errs[0])
	}
	var swf bytes.Buffer
	if err := tr.WriteSWF(&swf); err != nil {
		return err
	}
	if _, st, err := FromSWFBytes(swf.Bytes(), SWFOptions{}); err != nil || st.Kept != len(tr.Jobs) {
		return fmt.Errorf("from-swf of the trace: %v, %s", err, st)
	}
	return nil
}
