package workloads

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"
)

// newRand returns the generators' random source: PCG seeded from seed, so
// the same seed always gives the same stream.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9E3779B97F4A7C15))
}

// LilleHostSpeeds returns the speeds (flop/s) of the 39 compute nodes of
// the bundled Lille platform (platforms.md §1): 8 chifflet (1075.2 Gflop/s),
// 8 chifflot (1996.8), 8 chiclet (563.2), 15 chetemi (704.0).
func LilleHostSpeeds() []float64 {
	var s []float64
	for _, c := range []struct {
		n     int
		speed float64
	}{{8, 1075.2e9}, {8, 1996.8e9}, {8, 563.2e9}, {15, 704.0e9}} {
		for i := 0; i < c.n; i++ {
			s = append(s, c.speed)
		}
	}
	return s
}

// DefaultRefSpeed is the reference host speed of the generated compute
// profiles: cpu = run time × DefaultRefSpeed. It is the speed of the slowest
// Lille node (chiclet, 563.2 Gflop/s): a run time Te is what the job takes on
// the slowest node it may get, walltimes are drawn against it, so no job
// overruns its walltime because of the node it lands on, and faster nodes
// finish it sooner (0.28 to 0.80 of Te).
const DefaultRefSpeed = 5.632e11

// SlowestSpeed is the smallest of the host speeds (DefaultRefSpeed when
// there is none): the reference speed that keeps every job inside its
// walltime on any host of the platform.
func SlowestSpeed(speeds []float64) float64 {
	if len(speeds) == 0 {
		return DefaultRefSpeed
	}
	m := speeds[0]
	for _, s := range speeds[1:] {
		m = math.Min(m, s)
	}
	return m
}

// LilleOptions parameterises GenerateLille. Zero values take the defaults.
type LilleOptions struct {
	Jobs       int       // number of jobs (default 7056)
	Seed       uint64    // random seed (default 1)
	Load       float64   // target offered load (default 0.85)
	HostSpeeds []float64 // compute host speeds (default LilleHostSpeeds)
	RefSpeed   float64   // reference speed for cpu amounts (default DefaultRefSpeed)
	Platform   string    // platform name recorded in meta (default "lille")
	// AtOnce submits every job at time 0; the jobs are otherwise the
	// same (the arrival times are still drawn, then dropped).
	AtOnce bool
	// Shape of the trace, for sensitivity studies (zero values keep the
	// defaults; at the defaults, given or not, the output is the same
	// bytes as without them):
	// RuntimeScale multiplies every run time (the log-normal's median and
	// its clipping bounds, default 1), and so the walltimes drawn from them;
	// OneNodeShare is the probability of a one-node request (default 0.55;
	// the other sizes keep their relative weights); UserMix is the number
	// of precise, medium and imprecise users (default {6, 10, 24}, summing
	// to 40).
	RuntimeScale float64
	OneNodeShare float64
	UserMix      [3]int
}

// DefaultLilleJobs is the lille generator's default number of jobs, the
// Lille 2020 trace's.
const DefaultLilleJobs = 7056

// DefaultUserMix is the generator's number of precise, medium and
// imprecise users.
var DefaultUserMix = [3]int{lillePreciseUsers, lilleMediumUsers, lilleUsers - lillePreciseUsers - lilleMediumUsers}

// ParseUserMix reads a user mix written "precise/medium/imprecise"
// ("6/10/24"); the three counts must sum to the generator's 40 users.
func ParseUserMix(s string) ([3]int, error) {
	var m [3]int
	parts := strings.Split(s, "/")
	if len(parts) != 3 {
		return m, fmt.Errorf("user mix %q: want precise/medium/imprecise user counts, such as %s", s, FormatUserMix(DefaultUserMix))
	}
	sum := 0
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 0 {
			return m, fmt.Errorf("user mix %q: %q is not a count of users", s, p)
		}
		m[i] = n
		sum += n
	}
	if sum != lilleUsers {
		return m, fmt.Errorf("user mix %q: the counts sum to %d, the generator has %d users", s, sum, lilleUsers)
	}
	return m, nil
}

// FormatUserMix writes a user mix as ParseUserMix reads it.
func FormatUserMix(m [3]int) string { return fmt.Sprintf("%d/%d/%d", m[0], m[1], m[2]) }

// Parameters of the Lille-like generator (documented in workloads/README.md).
const (
	lilleUsers          = 40
	lilleZipfExponent   = 1.1
	lilleRuntimeMedian  = 1200.0 // s
	lilleRuntimeSigma   = 1.7
	lilleRuntimeMin     = 60.0
	lilleRuntimeMax     = 2 * 86400.0
	lilleWalltimeMax    = 7 * 86400.0
	lilleUnderestimate  = 0.03 // fraction of jobs whose walltime is below the run time
	lilleDefaultWallP   = 0.20 // share of short jobs of non-precise users left at OAR's default 1 h
	lillePreciseUsers   = 6
	lilleMediumUsers    = 10
	lilleOneNodeShare   = 0.55
	lilleFullMachineShr = 0.02
)

// lillePow2 are the (size, probability) pairs of the power-of-two requests
// larger than one node; lilleOddShare is the probability of any other size,
// drawn uniformly among the sizes 3..hosts-1 that are not powers of two.
var lillePow2 = []struct {
	n int
	p float64
}{{2, 0.12}, {4, 0.08}, {8, 0.05}, {16, 0.03}, {32, 0.02}}

const lilleOddShare = 0.13

// lilleHourWeight is the relative arrival intensity per hour of day.
var lilleHourWeight = [24]float64{
	0.15, 0.12, 0.10, 0.10, 0.10, 0.12, 0.20, 0.40, // 0-7
	0.70, 1.00, 1.00, 1.00, 0.80, 0.90, 1.00, 1.00, // 8-15
	1.00, 0.90, 0.70, 0.50, 0.40, 0.35, 0.30, 0.20, // 16-23
}

// lilleDayWeight is the relative intensity per day of week, day 0 = Monday.
var lilleDayWeight = [7]float64{1.0, 1.0, 1.0, 1.0, 0.9, 0.35, 0.30}

type userClass int

const (
	classPrecise userClass = iota
	classMedium
	classImprecise
)

func (c userClass) String() string {
	return [...]string{"precise", "medium", "imprecise"}[c]
}

// GenerateLille builds a synthetic stand-in for the Lille 2020 Grid'5000
// trace (see workloads/README.md for every distribution and parameter).
func GenerateLille(o LilleOptions) (*Workload, error) {
	if o.Jobs == 0 {
		o.Jobs = DefaultLilleJobs
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Load == 0 {
		o.Load = 0.85
	}
	if o.HostSpeeds == nil {
		o.HostSpeeds = LilleHostSpeeds()
	}
	if o.RefSpeed == 0 {
		o.RefSpeed = DefaultRefSpeed
	}
	if o.Platform == "" {
		o.Platform = "lille"
	}
	if o.RuntimeScale == 0 {
		o.RuntimeScale = 1
	}
	if o.OneNodeShare == 0 {
		o.OneNodeShare = lilleOneNodeShare
	}
	if o.UserMix == [3]int{} {
		o.UserMix = DefaultUserMix
	}
	if !(o.RuntimeScale > 0) || math.IsInf(o.RuntimeScale, 0) {
		return nil, fmt.Errorf("lille: run-time scale must be > 0 (got %g)", o.RuntimeScale)
	}
	if !(o.OneNodeShare > 0 && o.OneNodeShare <= 1) {
		return nil, fmt.Errorf("lille: one-node share must be in (0, 1] (got %g)", o.OneNodeShare)
	}
	if o.UserMix[0] < 0 || o.UserMix[1] < 0 || o.UserMix[2] < 0 || o.UserMix[0]+o.UserMix[1]+o.UserMix[2] != lilleUsers {
		return nil, fmt.Errorf("lille: user mix %s: three counts ≥ 0 summing to %d", FormatUserMix(o.UserMix), lilleUsers)
	}
	// Meta records the shape only when it is not the default one, so that
	// the default trace keeps its bytes however its options were given.
	shaped := o.RuntimeScale != 1 || o.OneNodeShare != lilleOneNodeShare || o.UserMix != DefaultUserMix
	if o.Jobs < 1 {
		return nil, fmt.Errorf("lille: --jobs must be at least 1 (got %d)", o.Jobs)
	}
	if !(o.Load > 0) || math.IsInf(o.Load, 0) {
		return nil, fmt.Errorf("lille: --load must be > 0 (got %g)", o.Load)
	}
	if !(o.RefSpeed > 0) {
		return nil, fmt.Errorf("lille: reference speed must be > 0 (got %g)", o.RefSpeed)
	}
	hosts := len(o.HostSpeeds)
	if hosts < 1 {
		return nil, fmt.Errorf("lille: the platform has no compute host")
	}
	r := newRand(o.Seed)

	// Users: Zipf-like activity, a precision class each.
	userW := make([]float64, lilleUsers)
	for i := range userW {
		userW[i] = 1 / math.Pow(float64(i+1), lilleZipfExponent)
	}
	classes := make([]userClass, lilleUsers)
	perm := r.Perm(lilleUsers)
	for rank, u := range perm {
		switch {
		case rank < o.UserMix[0]:
			classes[u] = classPrecise
		case rank < o.UserMix[0]+o.UserMix[1]:
			classes[u] = classMedium
		default:
			classes[u] = classImprecise
		}
	}
	userCum := cumulative(userW)

	type gen struct {
		user    int
		res     int
		runtime float64
		wall    float64
	}
	jobs := make([]gen, o.Jobs)
	area := 0.0
	under := 0
	for i := range jobs {
		g := &jobs[i]
		g.user = pick(r, userCum)
		g.res = lilleSize(r, hosts, o.OneNodeShare)
		mu := math.Log(lilleRuntimeMedian * o.RuntimeScale)
		rt := math.Exp(mu + lilleRuntimeSigma*r.NormFloat64())
		rt = math.Round(math.Min(math.Max(rt, lilleRuntimeMin*o.RuntimeScale), lilleRuntimeMax*o.RuntimeScale))
		if rt < 1 {
			rt = 1
		}
		g.runtime = rt
		area += float64(g.res) * rt
		g.wall = lilleWalltime(r, rt, classes[g.user])
		if g.wall < rt {
			under++
		}
	}

	// Span such that area / (hosts × span) = load; arrivals drawn from the
	// daily/weekly intensity over [0, span).
	span := math.Ceil(area / (float64(hosts) * o.Load))
	times := arrivals(r, o.Jobs, span)
	if o.AtOnce {
		clear(times)
	}

	w := &Workload{NbRes: hosts, Profiles: map[string]Profile{}}
	w.Jobs = make([]Job, 0, o.Jobs)
	for i, g := range jobs {
		id := fmt.Sprint(i + 1)
		pname := "j" + id
		w.AddProfile(computeProfile(pname, g.runtime*o.RefSpeed))
		var jb objBuilder
		jb.int("id", int64(i+1)).num("subtime", times[i]).int("res", int64(g.res)).
			num("walltime", g.wall).str("profile", pname).str("user", userName(g.user))
		w.Jobs = append(w.Jobs, Job{ID: id, IDIsInt: true, Subtime: times[i], Res: g.res,
			Walltime: g.wall, Profile: pname, Raw: jb.bytes()})
	}
	meta := map[string]any{
		"generator": "lille",
		"seed":      o.Seed,
		"params": map[string]any{
			"jobs": o.Jobs, "load": o.Load, "platform": o.Platform, "hosts": hosts,
			"ref_speed": o.RefSpeed, "users": lilleUsers, "zipf_exponent": lilleZipfExponent,
			"runtime_lognormal_median": lilleRuntimeMedian, "runtime_lognormal_sigma": lilleRuntimeSigma,
			"runtime_min": lilleRuntimeMin, "runtime_max": lilleRuntimeMax, "walltime_max": lilleWalltimeMax,
			"underestimate_share": lilleUnderestimate, "precise_users": lillePreciseUsers,
			"medium_users": lilleMediumUsers,
		},
		"ref_speed":              o.RefSpeed,
		"span":                   span,
		"offered_load":           round6(area / (float64(hosts) * span)),
		"walltime_below_runtime": under,
		"user_classes":           userClassMap(classes),
	}
	if o.AtOnce {
		meta["at_once"] = true
	}
	if shaped {
		meta["shape"] = map[string]any{"runtime_scale": o.RuntimeScale, "one_node_share": o.OneNodeShare,
			"user_mix": FormatUserMix(o.UserMix)}
	}
	mb, err := marshalSorted(meta)
	if err != nil {
		return nil, err
	}
	w.SetExtra("meta", mb)
	return w, nil
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

func userName(u int) string { return fmt.Sprintf("u%02d", u+1) }

func userClassMap(classes []userClass) map[string]string {
	m := make(map[string]string, len(classes))
	for i, c := range classes {
		m[userName(i)] = c.String()
	}
	return m
}

// marshalSorted marshals with map keys sorted (encoding/json semantics), so
// the output is deterministic.
func marshalSorted(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return b, nil
}

func computeProfile(name string, cpu float64) Profile {
	var b objBuilder
	b.str("type", TypeParallelHomogeneous).num("cpu", cpu).int("com", 0)
	return Profile{Name: name, Type: TypeParallelHomogeneous, CPU: cpu, Repeat: 1, Raw: b.bytes()}
}

func cumulative(w []float64) []float64 {
	c := make([]float64, len(w))
	s := 0.0
	for i, v := range w {
		s += v
		c[i] = s
	}
	return c
}

// pick draws an index with probability proportional to the weights whose
// running sums are cum.
func pick(r *rand.Rand, cum []float64) int {
	x := r.Float64() * cum[len(cum)-1]
	i := sort.SearchFloat64s(cum, x)
	if i >= len(cum) {
		i = len(cum) - 1
	}
	for i < len(cum)-1 && cum[i] == x {
		i++
	}
	return i
}

func isPow2(n int) bool { return n > 0 && n&(n-1) == 0 }

// lilleSize draws a request size in nodes, capped at hosts: one node with
// probability one, the other sizes with their weights scaled to share the
// rest (unscaled at the default one-node share).
func lilleSize(r *rand.Rand, hosts int, one float64) int {
	x := r.Float64()
	if x < one {
		return 1
	}
	x -= one
	if one != lilleOneNodeShare {
		x *= (1 - lilleOneNodeShare) / (1 - one)
	}
	for _, p := range lillePow2 {
		if x < p.p {
			return min(p.n, hosts)
		}
		x -= p.p
	}
	if x < lilleFullMachineShr {
		return hosts
	}
	var odd []int
	for n := 3; n < hosts; n++ {
		if !isPow2(n) {
			odd = append(odd, n)
		}
	}
	if len(odd) == 0 {
		return 1
	}
	return odd[r.IntN(len(odd))]
}

// roundUpTo rounds v up to a multiple of step.
func roundUpTo(v, step float64) float64 { return math.Ceil(v/step) * step }

// userRound rounds a walltime up the way users write them: 5 or 15 min
// steps below 1 h, 30 min or 1 h steps up to 6 h, whole hours beyond.
func userRound(r *rand.Rand, w float64) float64 {
	switch {
	case w <= 3600:
		if r.Float64() < 0.5 {
			return roundUpTo(w, 300)
		}
		return roundUpTo(w, 900)
	case w <= 6*3600:
		if r.Float64() < 0.5 {
			return roundUpTo(w, 1800)
		}
		return roundUpTo(w, 3600)
	default:
		return roundUpTo(w, 3600)
	}
}

// lilleWalltime draws the walltime a user of the given class gives to a job
// of run time rt (seconds, on the reference speed).
func lilleWalltime(r *rand.Rand, rt float64, c userClass) float64 {
	if r.Float64() < lilleUnderestimate {
		// Underestimate: the job will reach its walltime.
		w := math.Floor(rt*(0.5+0.5*r.Float64())/300) * 300
		if w < 300 {
			w = 300
		}
		return w
	}
	if c != classPrecise && rt <= 3600 && r.Float64() < lilleDefaultWallP {
		return 3600 // OAR's default walltime, left unchanged
	}
	var p float64
	switch c {
	case classPrecise:
		p = 0.85 + 0.15*r.Float64()
	case classMedium:
		p = 0.35 + 0.50*r.Float64()
	default:
		// log-uniform on [0.05, 0.5]
		p = math.Exp(math.Log(0.05) + (math.Log(0.5)-math.Log(0.05))*r.Float64())
	}
	w := rt / p
	if c != classPrecise {
		w = userRound(r, w)
	} else {
		w = math.Ceil(w)
	}
	w = math.Min(w, math.Max(lilleWalltimeMax, roundUpTo(rt, 3600)))
	return math.Max(w, rt)
}

// arrivals draws n submission times (integer seconds, sorted) on [0, span)
// from the non-homogeneous Poisson process with hourly intensity
// lilleHourWeight × lilleDayWeight (t = 0 is a Monday at 00:00); given the
// number of arrivals, the times of such a process are independent draws
// from the normalised intensity.
func arrivals(r *rand.Rand, n int, span float64) []float64 {
	nb := int(math.Ceil(span / 3600))
	if nb < 1 {
		nb = 1
	}
	cum := make([]float64, nb)
	s := 0.0
	for h := 0; h < nb; h++ {
		wgt := lilleHourWeight[h%24] * lilleDayWeight[(h/24)%7]
		width := math.Min(3600, span-float64(h)*3600)
		if width < 0 {
			width = 0
		}
		s += wgt * width / 3600
		cum[h] = s
	}
	t := make([]float64, n)
	for i := range t {
		h := pick(r, cum)
		width := math.Min(3600, span-float64(h)*3600)
		v := math.Floor(float64(h)*3600 + r.Float64()*width)
		if v >= span {
			v = math.Max(0, span-1)
		}
		t[i] = v
	}
	sort.Float64s(t)
	return t
}
