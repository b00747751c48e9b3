package workloads

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/bucma-sched/bucma/internal/bagoftasks"
)

// Bags of tasks (BoTs) of the thesis (Santos, "Modelo de Escalonamento
// Aplicativo para Bag of Tasks em Ambientes de Nuvem Computacional",
// UFPel, 2016/2017) as Batsim workloads. A BoT is a list of quadruples
// [a, d, b, c]: b identical tasks arriving at step a of the application's
// uncontended execution, each lasting d steps at c percent of one
// processor; the BoT runs on its own number of virtual machines (VMs).
// Every unit-step job of every task is one Batsim job, so that a
// scheduler can place each step of a task anywhere (the thesis' tasks are
// preemptible and migrate freely between steps) and enforce the step
// structure itself; Batsim's compute sharing lets the jobs of a step share
// a core.
//
// The BoTs the thesis publishes are built in (NamedBoT); the others are
// drawn by an explicit generator (GenerateBoT) from the thesis' class
// notation (ParseBotClass), its own description of the classes being
// informal (see GenerateBoT).

// BotQuad is one group of identical tasks of a BoT: arrival step A,
// duration D steps, B tasks, CPU cost C percent (1..100) (the same type
// as schedulers.BotQuad, which plans it).
type BotQuad = bagoftasks.Quad

// BotSpec is one BoT: its name (the prefix of its job ids), its arrival
// step in the workload, the VMs it is consolidated on, and its
// quadruples.
type BotSpec struct {
	Name    string
	Arrival int // steps from the start of the workload
	VMs     int
	Quads   []BotQuad
}

// Tasks is the BoT's number of tasks, Σ b.
func (b BotSpec) Tasks() int {
	n := 0
	for _, q := range b.Quads {
		n += q.B
	}
	return n
}

// Jobs is the BoT's number of unit-step jobs, Σ d × b.
func (b BotSpec) Jobs() int {
	n := 0
	for _, q := range b.Quads {
		n += q.D * q.B
	}
	return n
}

// namedBoTs are the BoTs the thesis publishes, verbatim: the light BoTs of
// Hypothesis 1 (Table 7, on 10 VMs), the heavy BoTs of Hypothesis 2
// (Table 8, on the VMs given there), and the worked example of Figs. 11-13
// on 4 processors. The example's last quadruple arrives at step 4: the
// printed [3,1,2,80] does not give Fig. 13, [4,1,2,80] gives it exactly.
var namedBoTs = []BotSpec{
	{Name: "H1-1", VMs: 10, Quads: botQuads([][4]int{{0, 5, 3, 24}, {3, 6, 7, 30}})},
	{Name: "H1-2", VMs: 10, Quads: botQuads([][4]int{{0, 9, 4, 38}, {1, 14, 3, 23}, {4, 8, 5, 19}})},
	{Name: "H1-3", VMs: 10, Quads: botQuads([][4]int{{0, 11, 5, 18}, {2, 4, 8, 15}, {5, 6, 4, 29}, {6, 4, 2, 25}})},
	{Name: "H2-1", VMs: 10, Quads: botQuads([][4]int{{0, 5, 3, 84}, {3, 6, 7, 90}})},
	{Name: "H2-2", VMs: 17, Quads: botQuads([][4]int{{0, 3, 5, 78}, {2, 4, 5, 75}, {3, 2, 4, 80}, {3, 3, 8, 60}, {5, 5, 4, 69}, {6, 4, 2, 65}})},
	{Name: "H2-3", VMs: 24, Quads: botQuads([][4]int{{0, 5, 10, 68}, {1, 4, 5, 73}, {2, 6, 6, 83}, {2, 2, 3, 65}, {4, 3, 5, 65}})},
	{Name: "example", VMs: 4, Quads: botQuads([][4]int{{0, 2, 3, 20}, {1, 4, 3, 30}, {1, 2, 5, 50}, {2, 2, 2, 60}, {2, 3, 4, 40}, {4, 1, 2, 80}})},
}

// botQuads writes quadruples as [a, d, b, c], the thesis' notation.
func botQuads(qs [][4]int) []BotQuad {
	out := make([]BotQuad, len(qs))
	for i, q := range qs {
		out[i] = BotQuad{A: q[0], D: q[1], B: q[2], C: q[3]}
	}
	return out
}

// NamedBoT returns a published BoT by name (any case), arriving at step 0.
func NamedBoT(name string) (BotSpec, bool) {
	for _, b := range namedBoTs {
		if strings.EqualFold(b.Name, strings.TrimSpace(name)) {
			b.Quads = slices.Clone(b.Quads)
			return b, true
		}
	}
	return BotSpec{}, false
}

// BotNames lists the published BoTs.
func BotNames() []string {
	var n []string
	for _, b := range namedBoTs {
		n = append(n, b.Name)
	}
	return n
}

// BotClass is a BoT class in the thesis' notation Q_n N_shape^scale
// S_std^mean L_std^mean I_shape^scale: the number of quadruples, the
// Weibull law of the tasks per quadruple, the normal laws of the task
// duration (steps) and cost (percent), and the Weibull law of the interval
// (steps) between two quadruples' arrivals. A negative shape is the
// thesis' skew towards values above the scale (see GenerateBoT).
type BotClass struct {
	Quads          int
	NShape, NScale float64
	SStd, SMean    float64
	LStd, LMean    float64
	IShape, IScale float64
}

// String writes the class in the notation ParseBotClass reads.
func (c BotClass) String() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return fmt.Sprintf("Q%d N%s^%s S%s^%s L%s^%s I%s^%s", c.Quads, f(c.NShape), f(c.NScale),
		f(c.SStd), f(c.SMean), f(c.LStd), f(c.LMean), f(c.IShape), f(c.IScale))
}

// Check tells whether the class can be drawn from: at least one
// quadruple, non-zero Weibull shapes, a positive task scale, a
// non-negative interval scale (0: every quadruple at step 0), positive
// means and non-negative standard deviations, every value finite.
func (c BotClass) Check() error {
	for _, v := range []float64{c.NShape, c.NScale, c.SStd, c.SMean, c.LStd, c.LMean, c.IShape, c.IScale} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("bot class %s: values must be finite", c)
		}
	}
	switch {
	case c.Quads < 1:
		return fmt.Errorf("bot class %s: Q must be at least 1 quadruple", c)
	case c.NShape == 0 || !(c.NScale > 0):
		return fmt.Errorf("bot class %s: N needs a non-zero shape and a scale > 0", c)
	case c.SStd < 0 || !(c.SMean > 0):
		return fmt.Errorf("bot class %s: S needs a std ≥ 0 and a mean > 0", c)
	case c.LStd < 0 || !(c.LMean > 0):
		return fmt.Errorf("bot class %s: L needs a std ≥ 0 and a mean > 0", c)
	case c.IShape == 0 || c.IScale < 0:
		return fmt.Errorf("bot class %s: I needs a non-zero shape and a scale ≥ 0", c)
	}
	return nil
}

// ParseBotClass reads a class written like the thesis' tables, in ASCII:
// "Q10 N4^10 S1^3 L2^10 I1^2", the subscript first (shape or standard
// deviation), then ^ and the superscript (scale or mean); Q has only its
// number. Parts may be separated by spaces or commas, in any order, and
// the letter may be followed by '_' ("Q_10 N_4^10 ..."); the minus sign
// may be '−'. A standard deviation written with '%' ("S_10%^8") is
// relative to the mean. Every part is required once.
func ParseBotClass(s string) (BotClass, error) {
	parts, err := botClassParts("bot class", s, "QNSLI")
	if err != nil {
		return BotClass{}, err
	}
	for _, l := range "QNSLI" {
		if _, ok := parts[byte(l)]; !ok {
			return BotClass{}, fmt.Errorf("bot class %q: missing part %c", s, l)
		}
	}
	c := BotClass{Quads: int(parts['Q'][0]),
		NShape: parts['N'][0], NScale: parts['N'][1],
		SStd: parts['S'][0], SMean: parts['S'][1],
		LStd: parts['L'][0], LMean: parts['L'][1],
		IShape: parts['I'][0], IScale: parts['I'][1]}
	if err := c.Check(); err != nil {
		return BotClass{}, fmt.Errorf("bot class %q: %w", s, err)
	}
	return c, nil
}

// ParseBotInterval reads an interval part alone ("I4^8", "I_-2^4"): the
// Weibull shape and scale of the steps between two arrivals.
func ParseBotInterval(s string) (shape, scale float64, err error) {
	parts, err := botClassParts("bot interval", s, "I")
	if err != nil {
		return 0, 0, err
	}
	p, ok := parts['I']
	if !ok {
		return 0, 0, fmt.Errorf("bot interval %q: want I<shape>^<scale>", s)
	}
	if p[0] == 0 || p[1] < 0 || math.IsInf(p[0], 0) || math.IsInf(p[1], 0) {
		return 0, 0, fmt.Errorf("bot interval %q: want a non-zero finite shape and a finite scale ≥ 0", s)
	}
	return p[0], p[1], nil
}

// botClassParts splits a class string into its parts (letter → subscript,
// superscript), the letters allowed being given; what names the string in
// errors.
func botClassParts(what, s, allowed string) (map[byte][2]float64, error) {
	out := map[byte][2]float64{}
	norm := strings.NewReplacer("−", "-", ",", " ", ";", " ").Replace(s)
	fields := strings.Fields(norm)
	if len(fields) == 0 {
		return nil, fmt.Errorf("%s %q: empty", what, s)
	}
	for _, f := range fields {
		bad := func(why string) error { return fmt.Errorf("%s %q: part %q: %s", what, s, f, why) }
		l := strings.ToUpper(f[:1])[0]
		if !strings.ContainsRune(allowed, rune(l)) {
			return nil, bad(fmt.Sprintf("unknown letter (want %s)", strings.Join(strings.Split(allowed, ""), ", ")))
		}
		if _, dup := out[l]; dup {
			return nil, bad(fmt.Sprintf("%c given twice", l))
		}
		rest := strings.TrimPrefix(f[1:], "_")
		sub, sup, hasSup := strings.Cut(rest, "^")
		if l == 'Q' {
			n, err := strconv.Atoi(rest)
			if err != nil || n < 1 {
				return nil, bad("want Q<number of quadruples ≥ 1>")
			}
			out[l] = [2]float64{float64(n), 0}
			continue
		}
		form := "<std>^<mean>"
		if l == 'N' || l == 'I' {
			form = "<shape>^<scale>"
		}
		if !hasSup || sub == "" || sup == "" {
			return nil, bad(fmt.Sprintf("want %c%s", l, form))
		}
		pct := false
		if (l == 'S' || l == 'L') && strings.HasSuffix(sub, "%") {
			pct, sub = true, strings.TrimSuffix(sub, "%")
		}
		a, err1 := strconv.ParseFloat(sub, 64)
		b, err2 := strconv.ParseFloat(sup, 64)
		if err1 != nil || err2 != nil || math.IsNaN(a) || math.IsNaN(b) {
			return nil, bad(fmt.Sprintf("want %c%s with numbers", l, form))
		}
		if pct {
			a = a * b / 100
		}
		out[l] = [2]float64{a, b}
	}
	return out, nil
}

// botProfiles are the thesis' generated classes: the user profiles of
// Table 9 (light, medium and heavy, on 3, 24 and 24 VMs) and the ten
// production BoTs of Table 13, on 4, 8 or 10 VMs for 5, 10 or 20
// quadruples (Sec. 6.5).
var botProfiles = []struct {
	name, class string
	vms         int
}{
	{"leve", "Q10 N4^10 S1^3 L2^10 I1^2", 3},
	{"mediano", "Q10 N4^10 S1^3 L10^50 I1^2", 24},
	{"pesado", "Q10 N4^10 S1^3 L20^75 I1^2", 24},
	{"UP-1", "Q5 N2^4 S1^3 L2^10 I1^2", 4},
	{"UP-2", "Q5 N3^4 S1^5 L5^25 I1^2", 4},
	{"UP-3", "Q5 N2^6 S1^3 L10^50 I2^4", 4},
	{"UP-4", "Q5 N3^6 S1^5 L10^50 I2^4", 4},
	{"UP-5", "Q10 N2^4 S1^3 L2^10 I1^2", 8},
	{"UP-6", "Q10 N3^4 S1^5 L5^25 I1^2", 8},
	{"UP-7", "Q10 N2^6 S1^3 L10^50 I2^4", 8},
	{"UP-8", "Q10 N3^6 S1^5 L10^50 I2^4", 8},
	{"UP-9", "Q20 N2^4 S1^3 L2^10 I1^2", 10},
	{"UP-10", "Q20 N3^6 S1^5 L10^50 I2^4", 10},
}

// botProfileAliases are English names of the Table 9 profiles.
var botProfileAliases = map[string]string{"light": "leve", "medium": "mediano", "heavy": "pesado"}

// BotProfileClass returns a class of the thesis by name (any case: leve,
// mediano, pesado, or light, medium, heavy; UP-1 .. UP-10) with the VMs
// the thesis gives it.
func BotProfileClass(name string) (BotClass, int, bool) {
	n := strings.TrimSpace(name)
	if a, ok := botProfileAliases[strings.ToLower(n)]; ok {
		n = a
	}
	for _, p := range botProfiles {
		if strings.EqualFold(p.name, n) {
			c, err := ParseBotClass(p.class)
			if err != nil {
				panic(err) // the table is checked by the tests
			}
			return c, p.vms, true
		}
	}
	return BotClass{}, 0, false
}

// BotProfileName returns the canonical name of a class BotProfileClass
// knows ("" when it does not).
func BotProfileName(name string) string {
	n := strings.TrimSpace(name)
	if a, ok := botProfileAliases[strings.ToLower(n)]; ok {
		n = a
	}
	for _, p := range botProfiles {
		if strings.EqualFold(p.name, n) {
			return p.name
		}
	}
	return ""
}

// BotProfileNames lists the classes of BotProfileClass.
func BotProfileNames() []string {
	var n []string
	for _, p := range botProfiles {
		n = append(n, p.name)
	}
	return n
}

// NewBotRand returns the random source of the BoT generator for a seed:
// PCG seeded like every generator of the package, so the same seed gives
// the same BoTs.
func NewBotRand(seed uint64) *rand.Rand { return newRand(seed) }

// botWeibull draws a Weibull variate of scale λ and shape |k| (one
// uniform draw, inverted).
func botWeibull(r *rand.Rand, k, lambda float64) float64 {
	return lambda * math.Pow(-math.Log(1-r.Float64()), 1/math.Abs(k))
}

// botRound rounds half away from zero and keeps the result within ±1e9.
func botRound(x float64) int {
	return int(math.Max(-1e9, math.Min(1e9, math.Round(x))))
}

// botTasks draws a quadruple's task count: max(1, round(Weibull)), then,
// for a negative shape, mirrored around the scale and kept ≥ 1.
func botTasks(r *rand.Rand, shape, scale float64) int {
	b := max(1, botRound(botWeibull(r, shape, scale)))
	if shape < 0 {
		b = max(1, botRound(2*scale-float64(b)))
	}
	return b
}

// botInterval draws the steps between two arrivals: round(Weibull), then,
// for a negative shape, mirrored around the scale; never negative.
func botInterval(r *rand.Rand, shape, scale float64) int {
	v := botRound(botWeibull(r, shape, scale))
	if shape < 0 {
		v = botRound(2*scale - float64(v))
	}
	return max(0, v)
}

// BotArrivals draws n arrival steps: the first at 0, each next one a
// rounded Weibull interval (scale, |shape|; mirrored around the scale for
// a negative shape; at least 0) after the previous one.
func BotArrivals(n int, shape, scale float64, r *rand.Rand) []int {
	a := make([]int, n)
	for i := 1; i < n; i++ {
		a[i] = a[i-1] + botInterval(r, shape, scale)
	}
	return a
}

// GenerateBoT draws a BoT of class cl on vms VMs, arriving at step 0,
// from r (NewBotRand(seed) for a seeded one). The thesis draws its BoTs
// from the laws of Iosup et al. but calls the Weibull scale "the most
// probable value" and gives the shape a sign for the skew, which a
// Weibull law cannot have; its classes are read here as an explicit
// generator instead. For each quadruple, in order: the interval since the
// previous quadruple (none for the first, which arrives at 0), rounded
// Weibull(IScale, |IShape|), mirrored around the scale (2·scale − x) for
// a negative shape, at least 0, the arrival being the sum of the
// intervals; the tasks b = max(1, round(Weibull(NScale, |NShape|))),
// mirrored (b' = 2·scale − b, at least 1) for a negative shape; the
// duration d = max(1, round(Normal(SMean, SStd))) steps; the cost
// c = round(Normal(LMean, LStd)) kept within 1..100.
func GenerateBoT(name string, cl BotClass, vms int, r *rand.Rand) (BotSpec, error) {
	if err := checkBotName(name); err != nil {
		return BotSpec{}, err
	}
	if vms < 1 {
		return BotSpec{}, fmt.Errorf("bot %s: %d VMs: want at least 1", name, vms)
	}
	if r == nil {
		return BotSpec{}, fmt.Errorf("bot %s: no random source", name)
	}
	if err := cl.Check(); err != nil {
		return BotSpec{}, fmt.Errorf("bot %s: %w", name, err)
	}
	b := BotSpec{Name: name, VMs: vms}
	a := 0
	for i := range cl.Quads {
		if i > 0 {
			a += botInterval(r, cl.IShape, cl.IScale)
		}
		q := BotQuad{A: a, B: botTasks(r, cl.NShape, cl.NScale)}
		q.D = max(1, botRound(cl.SMean+cl.SStd*r.NormFloat64()))
		q.C = min(100, max(1, botRound(cl.LMean+cl.LStd*r.NormFloat64())))
		b.Quads = append(b.Quads, q)
	}
	return b, nil
}

// checkBotName checks a BoT name: not empty, no '!' (Batsim's separator
// of job ids), no space, and not "background" (the background jobs' name).
func checkBotName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("bot: empty BoT name")
	case strings.ContainsAny(name, "! \t\n\"\\"):
		return fmt.Errorf("bot %q: a name must not contain '!', spaces, quotes or backslashes", name)
	case name == "background":
		return fmt.Errorf("bot %q: the name is kept for the background jobs", name)
	}
	return nil
}

// checkBoT checks a BoT: its name, VMs ≥ 1, arrival ≥ 0, at least one
// quadruple, each with a ≥ 0, d ≥ 1, b ≥ 1, 1 ≤ c ≤ 100 (the error names
// the quadruple by its 0-based index, as in the job ids).
func checkBoT(b BotSpec) error {
	if err := checkBotName(b.Name); err != nil {
		return err
	}
	switch {
	case b.VMs < 1:
		return fmt.Errorf("bot %s: %d VMs: want at least 1", b.Name, b.VMs)
	case b.Arrival < 0:
		return fmt.Errorf("bot %s: arrival step %d: want ≥ 0", b.Name, b.Arrival)
	case len(b.Quads) == 0:
		return fmt.Errorf("bot %s: no quadruple", b.Name)
	}
	for i, q := range b.Quads {
		if why := q.Problem(); why != "" {
			return fmt.Errorf("bot %s: quadruple %d [%d,%d,%d,%d]: %s", b.Name, i, q.A, q.D, q.B, q.C, why)
		}
	}
	return nil
}

// BotWorkloadOptions are BotWorkload's parameters.
type BotWorkloadOptions struct {
	Step      float64 // seconds per step (default 300, the thesis' 5 minutes)
	CoreSpeed float64 // flop/s of a core (default 1e9): a step at 100 percent is Step × CoreSpeed flop
	Hosts     int     // nb_res (default 36, the thesis' 9 nodes × 4 cores)
	// Background is the external load, percent of each host (0: none),
	// as one job per host and step: the thesis loads its nodes with
	// stress-ng before the VMs start.
	Background      int
	BackgroundSteps int // steps of background load (required with Background)
	// Meta adds members to the workload's "meta" object (e.g. the seed and
	// classes the BoTs were drawn from); generator, params and bots are
	// reserved.
	Meta map[string]any
}

// BotWorkload makes a Batsim workload of BoTs. Every unit-step job of
// every task is one job: id "<bot>-q<i>-t<k>-s<j>" (quadruple, task,
// step, 0-based), submitted at the BoT's arrival (Arrival × Step
// seconds), res 1, no walltime, profile "c<C>", a parallel_homogeneous
// profile of C/100 × Step × CoreSpeed flop and no communication (a core
// busy at C percent during one step). A job carries "bot", "quad",
// "task", "step", "a", "d", "b", "c" (its quadruple) and "vms" (the BoT's
// VMs): the scheduler holds the jobs and releases each one at its step.
// With Background > 0, host h gets one job "bg-h<h>-s<s>" per step s <
// BackgroundSteps, submitted at 0, profile "c<Background>", carrying
// "bot": "background", "host", "step" and "c". Jobs are in subtime
// order, then background, then the BoTs in order (quadruple, task,
// step); profiles by increasing cost. The top-level "meta" records the
// options and the BoTs.
func BotWorkload(bots []BotSpec, o BotWorkloadOptions) (*Workload, error) {
	if o.Step == 0 {
		o.Step = 300
	}
	if o.CoreSpeed == 0 {
		o.CoreSpeed = 1e9
	}
	if o.Hosts == 0 {
		o.Hosts = 36
	}
	switch {
	case !(o.Step > 0) || math.IsInf(o.Step, 0):
		return nil, fmt.Errorf("bot: step must be > 0 seconds (got %g)", o.Step)
	case !(o.CoreSpeed > 0) || math.IsInf(o.CoreSpeed, 0):
		return nil, fmt.Errorf("bot: core speed must be > 0 flop/s (got %g)", o.CoreSpeed)
	case o.Hosts < 1:
		return nil, fmt.Errorf("bot: hosts must be at least 1 (got %d)", o.Hosts)
	case o.Background < 0 || o.Background > 100:
		return nil, fmt.Errorf("bot: background must be in 0..100 percent (got %d)", o.Background)
	case o.BackgroundSteps < 0:
		return nil, fmt.Errorf("bot: background steps must be ≥ 0 (got %d)", o.BackgroundSteps)
	case o.Background > 0 && o.BackgroundSteps == 0:
		return nil, fmt.Errorf("bot: a background load needs its number of steps")
	case o.Background == 0 && o.BackgroundSteps > 0:
		return nil, fmt.Errorf("bot: background steps without a background load")
	case len(bots) == 0:
		return nil, fmt.Errorf("bot: no BoT")
	}
	seen := map[string]bool{}
	for _, b := range bots {
		if err := checkBoT(b); err != nil {
			return nil, err
		}
		if seen[b.Name] {
			return nil, fmt.Errorf("bot %s: the name is given twice", b.Name)
		}
		seen[b.Name] = true
	}
	for _, k := range []string{"generator", "params", "bots"} {
		if _, ok := o.Meta[k]; ok {
			return nil, fmt.Errorf("bot: meta member %q is reserved", k)
		}
	}
	w := &Workload{NbRes: o.Hosts, Profiles: map[string]Profile{}}
	costs := map[int]bool{}
	profile := func(c int) string {
		costs[c] = true
		return "c" + strconv.Itoa(c)
	}
	if o.Background > 0 {
		p := profile(o.Background)
		for host := range o.Hosts {
			for step := range o.BackgroundSteps {
				id := fmt.Sprintf("bg-h%d-s%d", host, step)
				var jb objBuilder
				jb.str("id", id).int("subtime", 0).int("res", 1).str("profile", p).
					str("bot", "background").int("host", int64(host)).int("step", int64(step)).int("c", int64(o.Background))
				w.Jobs = append(w.Jobs, Job{ID: id, Subtime: 0, Res: 1, Walltime: -1, Profile: p, Raw: jb.bytes()})
			}
		}
	}
	var metaBots []map[string]any
	for _, b := range bots {
		sub := float64(b.Arrival) * o.Step
		var quads [][4]int
		for qi, q := range b.Quads {
			quads = append(quads, [4]int{q.A, q.D, q.B, q.C})
			p := profile(q.C)
			for k := range q.B {
				for s := range q.D {
					id := fmt.Sprintf("%s-q%d-t%d-s%d", b.Name, qi, k, s)
					var jb objBuilder
					jb.str("id", id).num("subtime", sub).int("res", 1).str("profile", p).
						str("bot", b.Name).int("quad", int64(qi)).int("task", int64(k)).int("step", int64(s)).
						int("a", int64(q.A)).int("d", int64(q.D)).int("b", int64(q.B)).int("c", int64(q.C)).
						int("vms", int64(b.VMs))
					w.Jobs = append(w.Jobs, Job{ID: id, Subtime: sub, Res: 1, Walltime: -1, Profile: p, Raw: jb.bytes()})
				}
			}
		}
		metaBots = append(metaBots, map[string]any{
			"name": b.Name, "arrival": b.Arrival, "vms": b.VMs, "quads": quads,
			"tasks": b.Tasks(), "jobs": b.Jobs(),
		})
	}
	sortJobsBySubtime(w.Jobs)
	for c := 1; c <= 100; c++ {
		if costs[c] {
			name := "c" + strconv.Itoa(c)
			w.AddProfile(computeProfile(name, float64(c)*o.Step*o.CoreSpeed/100))
		}
	}
	meta := map[string]any{
		"generator": "bot",
		"params": map[string]any{
			"step": o.Step, "core_speed": o.CoreSpeed, "hosts": o.Hosts,
			"background": o.Background, "background_steps": o.BackgroundSteps,
		},
		"bots": metaBots,
	}
	for k, v := range o.Meta {
		meta[k] = v
	}
	mb, err := marshalSorted(meta)
	if err != nil {
		return nil, err
	}
	w.SetExtra("meta", mb)
	return w, nil
}
