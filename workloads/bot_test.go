package workloads

import (
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	json "github.com/goccy/go-json"
)

// TestBotNamed: the published BoTs, their task and job counts (the worked
// example: 19 tasks, 46 jobs, as the thesis counts them) and VMs.
func TestBotNamed(t *testing.T) {
	want := []struct {
		name              string
		quads, tasks, job int
		vms               int
	}{
		{"H1-1", 2, 10, 57, 10},
		{"H1-2", 3, 12, 118, 10},
		{"H1-3", 4, 19, 119, 10},
		{"H2-1", 2, 10, 57, 10},
		{"H2-2", 6, 28, 95, 17},
		{"H2-3", 5, 29, 127, 24},
		{"example", 6, 19, 46, 4},
	}
	var names []string
	for _, c := range want {
		names = append(names, c.name)
		b, ok := NamedBoT(strings.ToLower(c.name))
		if !ok || b.Name != c.name || len(b.Quads) != c.quads || b.Tasks() != c.tasks || b.Jobs() != c.job || b.VMs != c.vms || b.Arrival != 0 {
			t.Errorf("%s: %v %+v (%d tasks, %d jobs)", c.name, ok, b, b.Tasks(), b.Jobs())
		}
	}
	if !slices.Equal(BotNames(), names) {
		t.Errorf("BotNames() = %v, want %v", BotNames(), names)
	}
	ex, _ := NamedBoT("example")
	if ex.Quads[5] != (BotQuad{A: 4, D: 1, B: 2, C: 80}) {
		t.Errorf("example's last quadruple %v, want [4,1,2,80]", ex.Quads[5])
	}
	ex.Quads[0].C = 99 // a copy
	if again, _ := NamedBoT("example"); again.Quads[0].C != 20 {
		t.Error("NamedBoT returns the table itself")
	}
	if _, ok := NamedBoT("H3-1"); ok {
		t.Error("H3-1 found")
	}
}

// botJobFields are the custom fields of a BoT job.
type botJobFields struct {
	Bot                       string
	Quad, Task, Step, A, D, B int
	C, VMs                    int
	Host                      *int
}

func botFields(t *testing.T, j Job) botJobFields {
	t.Helper()
	var f botJobFields
	if err := json.Unmarshal(j.Raw, &f); err != nil {
		t.Fatalf("job %s: %v", j.ID, err)
	}
	return f
}

// TestBotWorkload: every unit-step job of every task is a job of the
// written file, read back by the package's loader with its fields, ids,
// subtimes and profiles; background jobs per host and step; meta.
func TestBotWorkload(t *testing.T) {
	h21, _ := NamedBoT("H2-1")
	ex, _ := NamedBoT("example")
	ex.Arrival = 2
	bots := []BotSpec{ex, h21} // the later arrival first: jobs are sorted
	o := BotWorkloadOptions{Step: 300, CoreSpeed: 2e9, Hosts: 8, Background: 50, BackgroundSteps: 3,
		Meta: map[string]any{"seed": 7}}
	b := genBytes(t)(BotWorkload(bots, o))
	w := reparse(t, b, 8)
	if w.NbRes != 8 || len(w.Jobs) != 46+57+8*3 {
		t.Fatalf("nb_res %d, %d jobs; want 8, %d", w.NbRes, len(w.Jobs), 46+57+24)
	}
	// Profiles: one per cost, by increasing cost.
	wantProfiles := []string{"c20", "c30", "c40", "c50", "c60", "c80", "c84", "c90"}
	if !slices.Equal(w.ProfileOrder, wantProfiles) {
		t.Errorf("profiles %v, want %v", w.ProfileOrder, wantProfiles)
	}
	if p := w.Profiles["c84"]; p.Type != TypeParallelHomogeneous || p.CPU != 0.84*300*2e9 || p.Com != 0 {
		t.Errorf("c84: %+v", p)
	}
	seen := map[string]bool{}
	last := -1.0
	for i, j := range w.Jobs {
		if seen[j.ID] {
			t.Fatalf("duplicate id %s", j.ID)
		}
		seen[j.ID] = true
		if j.Subtime < last {
			t.Fatalf("job %d (%s) out of subtime order", i, j.ID)
		}
		last = j.Subtime
		f := botFields(t, j)
		if j.Res != 1 || j.Walltime != -1 || j.Profile != "c"+strconv.Itoa(f.C) {
			t.Fatalf("job %s: res %d, walltime %g, profile %s", j.ID, j.Res, j.Walltime, j.Profile)
		}
		if f.Bot == "background" {
			if j.Subtime != 0 || f.C != 50 || f.Host == nil || j.ID != "bg-h"+strconv.Itoa(*f.Host)+"-s"+strconv.Itoa(f.Step) {
				t.Fatalf("background job %s: %+v", j.ID, f)
			}
			continue
		}
		var bot BotSpec
		for _, b := range bots {
			if b.Name == f.Bot {
				bot = b
			}
		}
		q := bot.Quads[f.Quad]
		if q != (BotQuad{A: f.A, D: f.D, B: f.B, C: f.C}) || f.VMs != bot.VMs || f.Task >= q.B || f.Step >= q.D ||
			j.ID != f.Bot+"-q"+strconv.Itoa(f.Quad)+"-t"+strconv.Itoa(f.Task)+"-s"+strconv.Itoa(f.Step) || j.Subtime != float64(bot.Arrival)*300 {
			t.Fatalf("job %s (subtime %g): %+v", j.ID, j.Subtime, f)
		}
	}
	// Order: background, then H2-1 (step 0), then the example (step 2), each
	// in generation order.
	for i, id := range map[int]string{0: "bg-h0-s0", 2: "bg-h0-s2", 3: "bg-h1-s0", 24: "H2-1-q0-t0-s0", 25: "H2-1-q0-t0-s1", 29: "H2-1-q0-t1-s0",
		24 + 57: "example-q0-t0-s0", len(w.Jobs) - 1: "example-q5-t1-s0"} {
		if w.Jobs[i].ID != id {
			t.Errorf("job %d is %s, want %s", i, w.Jobs[i].ID, id)
		}
	}
	var meta struct {
		Generator string
		Seed      int
		Params    struct {
			Step            float64
			CoreSpeed       float64 `json:"core_speed"`
			Hosts           int
			Background      int
			BackgroundSteps int `json:"background_steps"`
		}
		Bots []struct {
			Name                string
			Arrival, VMs, Tasks int
			Jobs                int
			Quads               [][4]int
		}
	}
	if err := json.Unmarshal(w.Meta("meta"), &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Generator != "bot" || meta.Seed != 7 || meta.Params.CoreSpeed != 2e9 || meta.Params.BackgroundSteps != 3 ||
		len(meta.Bots) != 2 || meta.Bots[0].Name != "example" || meta.Bots[0].Arrival != 2 || meta.Bots[0].Jobs != 46 ||
		meta.Bots[1].Quads[1] != [4]int{3, 6, 7, 90} {
		t.Errorf("meta %+v", meta)
	}
	// Same input, same bytes.
	if b2 := genBytes(t)(BotWorkload(bots, o)); string(b2) != string(b) {
		t.Error("the same BoTs give different bytes")
	}
	// Defaults: 300 s steps, 1 Gflop/s cores, 36 hosts, no background.
	w = reparse(t, genBytes(t)(BotWorkload([]BotSpec{h21}, BotWorkloadOptions{})), 36)
	if w.NbRes != 36 || len(w.Jobs) != 57 || w.Profiles["c90"].CPU != 0.9*300*1e9 {
		t.Errorf("defaults: nb_res %d, %d jobs, c90 %g", w.NbRes, len(w.Jobs), w.Profiles["c90"].CPU)
	}
}

func TestBotWorkloadErrors(t *testing.T) {
	h21, _ := NamedBoT("H2-1")
	with := func(f func(*BotSpec)) []BotSpec {
		b := h21
		b.Quads = slices.Clone(h21.Quads)
		f(&b)
		return []BotSpec{b}
	}
	for _, c := range []struct {
		bots []BotSpec
		o    BotWorkloadOptions
		want string
	}{
		{[]BotSpec{h21}, BotWorkloadOptions{Step: -1}, "step"},
		{[]BotSpec{h21}, BotWorkloadOptions{CoreSpeed: math.NaN()}, "core speed"},
		{[]BotSpec{h21}, BotWorkloadOptions{Hosts: -2}, "hosts"},
		{[]BotSpec{h21}, BotWorkloadOptions{Background: 101, BackgroundSteps: 1}, "background"},
		{[]BotSpec{h21}, BotWorkloadOptions{Background: 50}, "number of steps"},
		{[]BotSpec{h21}, BotWorkloadOptions{BackgroundSteps: 4}, "without a background"},
		{[]BotSpec{h21}, BotWorkloadOptions{Meta: map[string]any{"bots": 1}}, `"bots" is reserved`},
		{nil, BotWorkloadOptions{}, "no BoT"},
		{[]BotSpec{h21, h21}, BotWorkloadOptions{}, "H2-1: the name is given twice"},
		{with(func(b *BotSpec) { b.Name = "a!b" }), BotWorkloadOptions{}, "'!'"},
		{with(func(b *BotSpec) { b.Name = "" }), BotWorkloadOptions{}, "empty"},
		{with(func(b *BotSpec) { b.Name = "background" }), BotWorkloadOptions{}, "background"},
		{with(func(b *BotSpec) { b.VMs = 0 }), BotWorkloadOptions{}, "0 VMs"},
		{with(func(b *BotSpec) { b.Arrival = -1 }), BotWorkloadOptions{}, "arrival step -1"},
		{with(func(b *BotSpec) { b.Quads = nil }), BotWorkloadOptions{}, "no quadruple"},
		{with(func(b *BotSpec) { b.Quads[1].D = 0 }), BotWorkloadOptions{}, "quadruple 1 [3,0,7,90]: duration"},
		{with(func(b *BotSpec) { b.Quads[1].B = 0 }), BotWorkloadOptions{}, "quadruple 1 [3,6,0,90]: task count"},
		{with(func(b *BotSpec) { b.Quads[0].C = 101 }), BotWorkloadOptions{}, "quadruple 0 [0,5,3,101]: cost"},
		{with(func(b *BotSpec) { b.Quads[0].A = -3 }), BotWorkloadOptions{}, "quadruple 0 [-3,5,3,84]: arrival"},
	} {
		w, err := BotWorkload(c.bots, c.o)
		if err == nil || w != nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error with %q", c.o, err, c.want)
		}
	}
}

func TestBotParseClass(t *testing.T) {
	leve := BotClass{Quads: 10, NShape: 4, NScale: 10, SStd: 1, SMean: 3, LStd: 2, LMean: 10, IShape: 1, IScale: 2}
	for _, s := range []string{
		"Q10 N4^10 S1^3 L2^10 I1^2",
		"Q_10 N_4^10 S_1^3 L_2^10 I_1^2",
		"q10, n4^10, s1^3, l2^10, i1^2",
		"I1^2 L2^10 S1^3 N4^10 Q10",
		"Q10 N4^10 S1^3 L20%^10 I1^2",
	} {
		c, err := ParseBotClass(s)
		if err != nil || c != leve {
			t.Errorf("%q: %+v, %v", s, c, err)
		}
	}
	if c, _ := ParseBotClass(leve.String()); c != leve || leve.String() != "Q10 N4^10 S1^3 L2^10 I1^2" {
		t.Errorf("String() = %q", leve.String())
	}
	// The thesis' example class (L1027): relative deviations, a negative shape.
	c, err := ParseBotClass("Q_10, N_15^75, S_10%^8, L_20%^30, I_−15^15")
	if want := (BotClass{10, 15, 75, 0.8, 8, 6, 30, -15, 15}); err != nil || c != want {
		t.Errorf("thesis example: %+v, %v; want %+v", c, err, want)
	}
	for _, e := range []struct{ s, want string }{
		{"", "empty"},
		{"Q10 N4^10 S1^3 L2^10", "missing part I"},
		{"Q10 N4^10 S1^3 L2^10 I1^2 X3", `"X3": unknown letter`},
		{"Q10 N4^10 N4^10 S1^3 L2^10 I1^2", `"N4^10": N given twice`},
		{"Q10 N4 S1^3 L2^10 I1^2", `"N4": want N<shape>^<scale>`},
		{"Q10 N4^10 S1^ L2^10 I1^2", `"S1^": want S<std>^<mean>`},
		{"Q0 N4^10 S1^3 L2^10 I1^2", `"Q0": want Q`},
		{"Q2.5 N4^10 S1^3 L2^10 I1^2", `"Q2.5"`},
		{"Q10 Nx^10 S1^3 L2^10 I1^2", `"Nx^10": want N<shape>^<scale> with numbers`},
		{"Q10 N4%^10 S1^3 L2^10 I1^2", `"N4%^10"`},
		{"Q10 N0^10 S1^3 L2^10 I1^2", "non-zero shape"},
		{"Q10 N4^10 S-1^3 L2^10 I1^2", "S needs"},
		{"Q10 N4^10 S1^3 L2^0 I1^2", "L needs"},
		{"Q10 N4^10 S1^3 L2^10 I1^-2", "I needs"},
		{"Q10 N4^Inf S1^3 L2^10 I1^2", "finite"},
	} {
		if _, err := ParseBotClass(e.s); err == nil || !strings.Contains(err.Error(), e.want) {
			t.Errorf("%q: %v, want an error with %q", e.s, err, e.want)
		}
	}
	if sh, sc, err := ParseBotInterval("I4^8"); err != nil || sh != 4 || sc != 8 {
		t.Errorf("I4^8: %g %g %v", sh, sc, err)
	}
	if sh, sc, err := ParseBotInterval("I_−2^4"); err != nil || sh != -2 || sc != 4 {
		t.Errorf("I_−2^4: %g %g %v", sh, sc, err)
	}
	for _, s := range []string{"N4^8", "I4", "I0^3", "I4^-1", "I4^8 I4^8", ""} {
		if _, _, err := ParseBotInterval(s); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
}

func TestBotProfileClass(t *testing.T) {
	names := BotProfileNames()
	if len(names) != 13 || names[0] != "leve" || names[12] != "UP-10" {
		t.Fatalf("BotProfileNames() = %v", names)
	}
	for _, n := range names {
		if _, vms, ok := BotProfileClass(n); !ok || vms < 1 || BotProfileName(strings.ToLower(n)) != n {
			t.Errorf("%s: %v %d", n, ok, vms)
		}
	}
	for _, c := range []struct {
		name  string
		class string
		vms   int
	}{
		{"leve", "Q10 N4^10 S1^3 L2^10 I1^2", 3},
		{"Medium", "Q10 N4^10 S1^3 L10^50 I1^2", 24},
		{"pesado", "Q10 N4^10 S1^3 L20^75 I1^2", 24},
		{"up-1", "Q5 N2^4 S1^3 L2^10 I1^2", 4},
		{"UP-6", "Q10 N3^4 S1^5 L5^25 I1^2", 8},
		{"UP-10", "Q20 N3^6 S1^5 L10^50 I2^4", 10},
	} {
		cl, vms, ok := BotProfileClass(c.name)
		if !ok || cl.String() != c.class || vms != c.vms {
			t.Errorf("%s: %s on %d VMs (%v), want %s on %d", c.name, cl, vms, ok, c.class, c.vms)
		}
	}
	// The per-class VM rule of Sec. 6.5: Q5 → 4, Q10 → 8, Q20 → 10.
	for i := 1; i <= 10; i++ {
		cl, vms, _ := BotProfileClass("UP-" + strconv.Itoa(i))
		if want := map[int]int{5: 4, 10: 8, 20: 10}[cl.Quads]; vms != want {
			t.Errorf("UP-%d: Q%d on %d VMs, want %d", i, cl.Quads, vms, want)
		}
	}
	if _, _, ok := BotProfileClass("UP-11"); ok || BotProfileName("UP-11") != "" {
		t.Error("UP-11 found")
	}
}

// TestBotGenerate: seeded determinism, the ranges and clipping of every
// drawn value, and the mirror of a negative shape (same seed, same
// uniform draws: b' = max(1, 2·scale − b), interval' = max(0, 2·scale − v)).
func TestBotGenerate(t *testing.T) {
	cl, _, _ := BotProfileClass("UP-10")
	a, err := GenerateBoT("x", cl, 10, NewBotRand(3))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := GenerateBoT("x", cl, 10, NewBotRand(3))
	c, _ := GenerateBoT("x", cl, 10, NewBotRand(4))
	if !reflect.DeepEqual(a, b) || reflect.DeepEqual(a, c) || len(a.Quads) != 20 || a.VMs != 10 || a.Arrival != 0 {
		t.Fatalf("determinism: %+v / %+v / %+v", a, b, c)
	}
	if err := checkBoT(a); err != nil {
		t.Fatal(err)
	}
	// Ranges: wide laws push d and c into their clips.
	wide := BotClass{Quads: 400, NShape: 0.7, NScale: 3, SStd: 4, SMean: 1, LStd: 80, LMean: 50, IShape: 0.8, IScale: 1}
	g, err := GenerateBoT("w", wide, 1, NewBotRand(1))
	if err != nil {
		t.Fatal(err)
	}
	var d1, c1, c100, b1 int
	for i, q := range g.Quads {
		if q.B < 1 || q.D < 1 || q.C < 1 || q.C > 100 || (i == 0 && q.A != 0) || (i > 0 && q.A < g.Quads[i-1].A) {
			t.Fatalf("quadruple %d: %+v", i, q)
		}
		d1 += b2i(q.D == 1)
		b1 += b2i(q.B == 1)
		c1 += b2i(q.C == 1)
		c100 += b2i(q.C == 100)
	}
	if d1 < 100 || c1 < 40 || c100 < 40 || b1 < 40 {
		t.Errorf("clips: %d d=1, %d b=1, %d c=1, %d c=100 of 400", d1, b1, c1, c100)
	}
	if err := checkBoT(g); err != nil {
		t.Fatal(err)
	}
	// A narrow law: the means come out.
	narrow := BotClass{Quads: 2000, NShape: 50, NScale: 20, SStd: 0, SMean: 7, LStd: 0, LMean: 33, IShape: 50, IScale: 5}
	g, _ = GenerateBoT("n", narrow, 1, NewBotRand(1))
	for i, q := range g.Quads {
		if q.D != 7 || q.C != 33 || q.B < 17 || q.B > 21 || q.A < 4*i || q.A > 5*i {
			t.Fatalf("narrow quadruple %d: %+v", i, q)
		}
	}
	// Mirror.
	pos := BotClass{Quads: 300, NShape: 2, NScale: 10, SStd: 1, SMean: 3, LStd: 5, LMean: 40, IShape: 1.5, IScale: 3}
	neg := pos
	neg.NShape, neg.IShape = -2, -1.5
	p, _ := GenerateBoT("p", pos, 1, NewBotRand(9))
	n, _ := GenerateBoT("n", neg, 1, NewBotRand(9))
	sumP, sumN := 0, 0
	for i := range p.Quads {
		qp, qn := p.Quads[i], n.Quads[i]
		if qn.B != max(1, 20-qp.B) || qn.D != qp.D || qn.C != qp.C {
			t.Fatalf("quadruple %d: %+v mirrored as %+v", i, qp, qn)
		}
		if i > 0 {
			vp, vn := qp.A-p.Quads[i-1].A, qn.A-n.Quads[i-1].A
			if vn != max(0, 6-vp) {
				t.Fatalf("interval %d: %d mirrored as %d", i, vp, vn)
			}
		}
		sumP += qp.B
		sumN += qn.B
	}
	if !(sumP < 10*300 && sumN > 10*300) {
		t.Errorf("mean tasks %g (positive shape) and %g (negative): want below and above the scale 10", float64(sumP)/300, float64(sumN)/300)
	}
	// Arrivals of several BoTs.
	if got := BotArrivals(1, 4, 8, NewBotRand(1)); !slices.Equal(got, []int{0}) {
		t.Errorf("one arrival: %v", got)
	}
	if got := BotArrivals(3, 4, 0, NewBotRand(1)); !slices.Equal(got, []int{0, 0, 0}) {
		t.Errorf("scale 0: %v", got)
	}
	arr := BotArrivals(50, 4, 8, NewBotRand(1))
	for i := 1; i < len(arr); i++ {
		if v := arr[i] - arr[i-1]; v < 1 || v > 20 {
			t.Errorf("interval %d = %d, far from the scale 8 with shape 4", i, v)
		}
	}
	// Errors.
	for _, e := range []struct {
		name string
		cl   BotClass
		vms  int
		want string
	}{
		{"", cl, 1, "empty"},
		{"a!b", cl, 1, "'!'"},
		{"x", cl, 0, "0 VMs"},
		{"x", BotClass{Quads: 0, NShape: 1, NScale: 1, SMean: 1, LMean: 1, IShape: 1}, 1, "Q must be"},
	} {
		if _, err := GenerateBoT(e.name, e.cl, e.vms, NewBotRand(1)); err == nil || !strings.Contains(err.Error(), e.want) {
			t.Errorf("%q %+v: %v, want %q", e.name, e.cl, err, e.want)
		}
	}
	if _, err := GenerateBoT("x", cl, 1, nil); err == nil {
		t.Error("no random source: no error")
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
