package bot

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The BoTs the thesis publishes: the worked example of Figs. 11-13 (its
// last quadruple arriving at step 4, the only arrival that gives Fig. 13),
// the example of Fig. 8, and the BoTs of Tables 7 and 8.
var (
	botFig13 = []BotQuad{{A: 0, D: 2, B: 3, C: 20}, {A: 1, D: 4, B: 3, C: 30}, {A: 1, D: 2, B: 5, C: 50}, {A: 2, D: 2, B: 2, C: 60}, {A: 2, D: 3, B: 4, C: 40}, {A: 4, D: 1, B: 2, C: 80}}
	botFig8  = []BotQuad{{A: 0, D: 5, B: 3, C: 50}, {A: 0, D: 8, B: 5, C: 30}, {A: 3, D: 4, B: 6, C: 80}, {A: 4, D: 10, B: 2, C: 20}}
	botH     = map[string][]BotQuad{
		"H1-1": {{A: 0, D: 5, B: 3, C: 24}, {A: 3, D: 6, B: 7, C: 30}},
		"H1-2": {{A: 0, D: 9, B: 4, C: 38}, {A: 1, D: 14, B: 3, C: 23}, {A: 4, D: 8, B: 5, C: 19}},
		"H1-3": {{A: 0, D: 11, B: 5, C: 18}, {A: 2, D: 4, B: 8, C: 15}, {A: 5, D: 6, B: 4, C: 29}, {A: 6, D: 4, B: 2, C: 25}},
		"H2-1": {{A: 0, D: 5, B: 3, C: 84}, {A: 3, D: 6, B: 7, C: 90}},
		"H2-2": {{A: 0, D: 3, B: 5, C: 78}, {A: 2, D: 4, B: 5, C: 75}, {A: 3, D: 2, B: 4, C: 80}, {A: 3, D: 3, B: 8, C: 60}, {A: 5, D: 5, B: 4, C: 69}, {A: 6, D: 4, B: 2, C: 65}},
		"H2-3": {{A: 0, D: 5, B: 10, C: 68}, {A: 1, D: 4, B: 5, C: 73}, {A: 2, D: 6, B: 6, C: 83}, {A: 2, D: 2, B: 3, C: 65}, {A: 4, D: 3, B: 5, C: 65}},
	}
)

// botFig11 is the worked example as printed (Fig. 11, L831): the last
// quadruple arrives at step 3.
func botFig11() []BotQuad {
	q := slices.Clone(botFig13)
	q[5].A = 3
	return q
}

func mustPlan(t *testing.T, quads []BotQuad, o BotPlanOptions) *BotPlan {
	t.Helper()
	p, err := PlanBoT(quads, o)
	if err != nil {
		t.Fatal(err)
	}
	checkBotPlan(t, quads, o, p)
	return p
}

func botLoadSum(p *BotPlan) int {
	s := 0
	for _, r := range p.Loads {
		for _, l := range r {
			s += l
		}
	}
	return s
}

// TestBotPlanFig13: the worked example on 4 processors, lowest cost first,
// global shift. Cyclic gives Fig. 13a exactly; lote gives Fig. 13b with
// cell g5/P3 = 60 (the figure prints 80, which makes its total 1880, not
// the application's 1860). With the arrival printed in Fig. 11 (step 3)
// the 80-cost jobs run at g7 and both plans are one step shorter.
func TestBotPlanFig13(t *testing.T) {
	cyclic := [][]int{
		{20, 20, 20, 0},
		{100, 100, 70, 80},
		{50, 0, 0, 0},
		{70, 70, 70, 90},
		{50, 50, 50, 50},
		{60, 60, 0, 0},
		{70, 70, 70, 100},
		{60, 0, 0, 0},
		{70, 70, 70, 40},
		{80, 80, 0, 0},
	}
	lote := [][]int{
		{60, 0, 0, 0},
		{90, 60, 100, 100},
		{50, 0, 0, 0},
		{90, 80, 80, 100},
		{100, 50, 60, 60},
		{90, 80, 80, 60},
		{60, 0, 0, 0},
		{90, 80, 80, 80},
		{80, 0, 0, 0},
	}
	for _, c := range []struct {
		name  string
		quads []BotQuad
		alloc BotAlloc
		want  [][]int // nil: check T and one row
		t     int
		row   int
		loads []int
	}{
		{"a=4 cyclic", botFig13, BotCyclic, cyclic, 10, 0, nil},
		{"a=4 lote", botFig13, BotLote, lote, 9, 0, nil},
		{"a=3 cyclic", botFig11(), BotCyclic, nil, 9, 7, []int{60, 80, 80, 0}},
		{"a=3 lote", botFig11(), BotLote, nil, 8, 6, []int{60, 80, 80, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := mustPlan(t, c.quads, BotPlanOptions{VMs: 4, Alloc: c.alloc, Priority: BotPrioCost})
			if p.T != c.t || len(p.Loads) != c.t {
				t.Fatalf("t = %d (%d rows), want %d", p.T, len(p.Loads), c.t)
			}
			if c.want != nil && !reflect.DeepEqual(p.Loads, c.want) {
				t.Errorf("matrix\n%v\nwant\n%v", p.Loads, c.want)
			}
			if c.loads != nil && !reflect.DeepEqual(p.Loads[c.row], c.loads) {
				t.Errorf("row g%d = %v, want %v", c.row, p.Loads[c.row], c.loads)
			}
			if s := botLoadSum(p); s != 1860 {
				t.Errorf("total load %d, want 1860", s)
			}
		})
	}
	// The catch-up rows of Fig. 13a follow the contention rows.
	p := mustPlan(t, botFig13, BotPlanOptions{VMs: 4, Alloc: BotCyclic, Priority: BotPrioCost})
	if want := []int{1, 3, 4, 6, 8}; !reflect.DeepEqual(p.Contention, want) {
		t.Errorf("contention rows %v, want %v", p.Contention, want)
	}
	// No other criterion reproduces Fig. 13a.
	for _, o := range []BotPlanOptions{
		{VMs: 4, Alloc: BotCyclic, Priority: BotPrioCost, Inverted: true},
		{VMs: 4, Alloc: BotCyclic, Priority: BotPrioNone},
		{VMs: 4, Alloc: BotCyclic, Priority: BotPrioCost, Shift: BotShiftDAG},
	} {
		if q := mustPlan(t, botFig13, o); reflect.DeepEqual(q.Loads, cyclic) {
			t.Errorf("%+v also gives Fig. 13a", o)
		}
	}
}

// TestBotPlanTable7: the light BoTs on 10 VMs take their uncontended
// length, 9, 15 and 11 steps (45, 75 and 55 min), whatever the cost
// direction and the allocation.
func TestBotPlanTable7(t *testing.T) {
	for _, c := range []struct {
		name string
		t    int
	}{{"H1-1", 9}, {"H1-2", 15}, {"H1-3", 11}} {
		if u := BotUncontendedSteps(botH[c.name]); u != c.t {
			t.Errorf("%s: uncontended %d, want %d", c.name, u, c.t)
		}
		for _, alloc := range []BotAlloc{BotLote, BotCyclic} {
			for _, inv := range []bool{false, true} {
				p := mustPlan(t, botH[c.name], BotPlanOptions{VMs: 10, Alloc: alloc, Priority: BotPrioCost, Inverted: inv})
				if p.T != c.t || len(p.Contention) != 0 {
					t.Errorf("%s %s inverted=%v: t = %d, contention %v; want %d, none", c.name, alloc, inv, p.T, p.Contention, c.t)
				}
			}
		}
	}
}

// TestBotPlanTable8: the heavy BoTs on "enough" VMs: H2-1 on 10 and H2-2
// on 17 take their uncontended length (9 and 10 steps); H2-3 on 24 takes
// 9 steps (45 min), not its uncontended 8, because 26 jobs over 50 percent
// compete at step 4 and the deferred ones delay the whole application.
func TestBotPlanTable8(t *testing.T) {
	for _, c := range []struct {
		name       string
		vms, t, u  int
		contention []int
	}{
		{"H2-1", 10, 9, 9, nil},
		{"H2-2", 17, 10, 10, nil},
		{"H2-3", 24, 9, 8, []int{4}},
	} {
		if u := BotUncontendedSteps(botH[c.name]); u != c.u {
			t.Errorf("%s: uncontended %d, want %d", c.name, u, c.u)
		}
		for _, alloc := range []BotAlloc{BotLote, BotCyclic} {
			for _, inv := range []bool{false, true} {
				p := mustPlan(t, botH[c.name], BotPlanOptions{VMs: c.vms, Alloc: alloc, Priority: BotPrioCost, Inverted: inv})
				if p.T != c.t || !slices.Equal(p.Contention, c.contention) {
					t.Errorf("%s/%d %s inverted=%v: t = %d, contention %v; want %d, %v", c.name, c.vms, alloc, inv, p.T, p.Contention, c.t, c.contention)
				}
			}
		}
	}
	p := mustPlan(t, botH["H2-3"], BotPlanOptions{VMs: 24, Alloc: BotCyclic, Priority: BotPrioCost})
	if n := len(p.Rows[4]) + len(p.Deferred[4]); n != 26 || len(p.Deferred[4]) != 2 {
		t.Errorf("H2-3 step 4: %d eligible, %d deferred; want 26, 2", n, len(p.Deferred[4]))
	}
}

// TestBotUncontendedSteps: Fig. 8's example lasts 14 steps, the worked
// example 5 (with its printed or its corrected last arrival).
func TestBotUncontendedSteps(t *testing.T) {
	for _, c := range []struct {
		name  string
		quads []BotQuad
		want  int
	}{
		{"Fig. 8", botFig8, 14},
		{"Fig. 11", botFig11(), 5},
		{"Fig. 13", botFig13, 5},
		{"empty", nil, 0},
	} {
		if got := BotUncontendedSteps(c.quads); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	// On as many processors as tasks the plan is the uncontended run.
	for _, shift := range []BotShift{BotShiftGlobal, BotShiftDAG} {
		p := mustPlan(t, botFig8, BotPlanOptions{VMs: 16, Alloc: BotCyclic, Priority: BotPrioCost, Shift: shift})
		if p.T != 14 || len(p.Contention) != 0 {
			t.Errorf("Fig. 8 on 16 VMs, %s: t = %d, contention %v", shift, p.T, p.Contention)
		}
	}
}

// checkBotPlan checks the thesis' correctness criteria on a plan: every
// job placed exactly once, no processor over 100 percent in a row, a
// task's steps in order and in strictly increasing rows, no job before
// its quadruple's arrival, the loads the sum of the placements, and no
// deferred job that fits a processor of its row (work conservation).
func checkBotPlan(t *testing.T, quads []BotQuad, o BotPlanOptions, p *BotPlan) {
	t.Helper()
	if p.T != len(p.Loads) || p.T != len(p.Rows) || p.T != len(p.Deferred) {
		t.Fatalf("t = %d, %d load rows, %d placement rows, %d deferred rows", p.T, len(p.Loads), len(p.Rows), len(p.Deferred))
	}
	type task struct{ q, k int }
	next := map[task]int{} // next step expected
	last := map[task]int{} // row of the last step
	contention := []int(nil)
	for r := range p.T {
		if len(p.Loads[r]) != o.VMs {
			t.Fatalf("row %d has %d columns, want %d", r, len(p.Loads[r]), o.VMs)
		}
		sum := make([]int, o.VMs)
		for _, pl := range p.Rows[r] {
			q := quads[pl.Quad]
			tk := task{pl.Quad, pl.Task}
			if pl.Task < 0 || pl.Task >= q.B || pl.Cost != q.C || pl.VM < 0 || pl.VM >= o.VMs {
				t.Fatalf("row %d: bad placement %+v", r, pl)
			}
			if pl.Step != next[tk] {
				t.Fatalf("row %d: q%d t%d step %d, want step %d", r, pl.Quad, pl.Task, pl.Step, next[tk])
			}
			if pl.Step > 0 && last[tk] >= r {
				t.Fatalf("row %d: q%d t%d step %d not after its previous step (row %d)", r, pl.Quad, pl.Task, pl.Step, last[tk])
			}
			if r < q.A+pl.Step {
				t.Fatalf("row %d: q%d t%d step %d before its uncontended step %d", r, pl.Quad, pl.Task, pl.Step, q.A+pl.Step)
			}
			next[tk]++
			last[tk] = r
			sum[pl.VM] += pl.Cost
		}
		if !slices.Equal(sum, p.Loads[r]) {
			t.Fatalf("row %d: loads %v, placements sum to %v", r, p.Loads[r], sum)
		}
		for v, l := range sum {
			if l > 100 {
				t.Fatalf("row %d: VM %d at %d%%", r, v, l)
			}
		}
		for _, d := range p.Deferred[r] {
			tk := task{d.Quad, d.Task}
			if d.VM != -1 || d.Step != next[tk] {
				t.Fatalf("row %d: bad deferred job %+v (next step %d)", r, d, next[tk])
			}
			for v, l := range p.Loads[r] {
				if l+d.Cost <= 100 {
					t.Fatalf("row %d: deferred q%d t%d (cost %d) fits VM %d at %d%%", r, d.Quad, d.Task, d.Cost, v, l)
				}
			}
		}
		if len(p.Deferred[r]) > 0 {
			contention = append(contention, r)
		}
	}
	if !slices.Equal(contention, p.Contention) {
		t.Fatalf("contention %v, rows with deferred jobs %v", p.Contention, contention)
	}
	for qi, q := range quads {
		for k := range q.B {
			if n := next[task{qi, k}]; n != q.D {
				t.Fatalf("q%d t%d: %d steps placed, want %d", qi, k, n, q.D)
			}
		}
	}
	if p.T > 0 && len(p.Rows[p.T-1]) == 0 {
		t.Fatalf("last row %d is empty", p.T-1)
	}
}

// TestBotPlanInvariants: the correctness criteria on the published BoTs
// and on random ones, for every allocation, criterion, direction and
// shift. The global shift also serves the uncontended steps in order:
// a row after a contention row runs only jobs deferred there.
func TestBotPlanInvariants(t *testing.T) {
	bots := [][]BotQuad{botFig13, botFig11(), botFig8}
	for _, n := range []string{"H1-1", "H1-2", "H1-3", "H2-1", "H2-2", "H2-3"} {
		bots = append(bots, botH[n])
	}
	r := rand.New(rand.NewPCG(3, 5))
	for range 60 {
		var q []BotQuad
		for range 1 + r.IntN(5) {
			q = append(q, BotQuad{A: r.IntN(8), D: 1 + r.IntN(5), B: 1 + r.IntN(6), C: 1 + r.IntN(100)})
		}
		bots = append(bots, q)
	}
	for bi, quads := range bots {
		for _, vms := range []int{1, 3, 8} {
			for _, alloc := range []BotAlloc{BotLote, BotCyclic} {
				for prio := BotPrioNone; prio <= BotPrioRemaining; prio++ {
					for _, inv := range []bool{false, true} {
						for _, shift := range []BotShift{BotShiftGlobal, BotShiftDAG} {
							o := BotPlanOptions{VMs: vms, Alloc: alloc, Priority: prio, Inverted: inv, Shift: shift}
							t.Run(fmt.Sprintf("%d/%d/%s/%s/%v/%s", bi, vms, alloc, prio, inv, shift), func(t *testing.T) {
								p := mustPlan(t, quads, o)
								if p.T < BotUncontendedSteps(quads) {
									t.Fatalf("t = %d below the uncontended %d", p.T, BotUncontendedSteps(quads))
								}
								if shift != BotShiftGlobal {
									return
								}
								if want := BotUncontendedSteps(quads) + len(p.Contention); p.T != want {
									t.Fatalf("t = %d, want uncontended + contention rows = %d", p.T, want)
								}
								for _, c := range p.Contention {
									def := map[[2]int]bool{}
									for _, d := range p.Deferred[c] {
										def[[2]int{d.Quad, d.Task}] = true
									}
									for _, pl := range p.Rows[c+1] {
										if !def[[2]int{pl.Quad, pl.Task}] {
											t.Fatalf("row %d runs q%d t%d, not deferred at row %d", c+1, pl.Quad, pl.Task, c)
										}
									}
								}
							})
						}
					}
				}
			}
		}
	}
}

// TestBotPlanDAGShift: the DAG shift is shorter than the global one on
// the thesis' contended examples (7 steps on Fig. 13 as printed, where
// g2 becomes [80,80,80,100]), the same on the uncontended ones, and can
// be longer: a task that keeps running pushes another back twice.
func TestBotPlanDAGShift(t *testing.T) {
	for _, c := range []struct {
		name   string
		quads  []BotQuad
		vms    int
		global int
		dag    int
	}{
		{"Fig. 13", botFig13, 4, 0, 8},
		{"Fig. 11", botFig11(), 4, 0, 7},
		{"H2-3", botH["H2-3"], 24, 9, 0},
		{"H2-3 on 8", botH["H2-3"], 8, 0, 0},
		{"H2-2 on 8", botH["H2-2"], 8, 0, 0},
	} {
		for _, alloc := range []BotAlloc{BotLote, BotCyclic} {
			g := mustPlan(t, c.quads, BotPlanOptions{VMs: c.vms, Alloc: alloc, Priority: BotPrioCost})
			d := mustPlan(t, c.quads, BotPlanOptions{VMs: c.vms, Alloc: alloc, Priority: BotPrioCost, Shift: BotShiftDAG})
			if d.T > g.T {
				t.Errorf("%s %s: DAG %d steps, global %d", c.name, alloc, d.T, g.T)
			}
			if c.dag != 0 && d.T != c.dag {
				t.Errorf("%s %s: DAG %d steps, want %d", c.name, alloc, d.T, c.dag)
			}
			if c.global != 0 && g.T != c.global {
				t.Errorf("%s %s: global %d steps, want %d", c.name, alloc, g.T, c.global)
			}
		}
	}
	d := mustPlan(t, botFig11(), BotPlanOptions{VMs: 4, Alloc: BotCyclic, Priority: BotPrioCost, Shift: BotShiftDAG})
	if want := []int{80, 80, 80, 100}; !slices.Equal(d.Loads[2], want) {
		t.Errorf("Fig. 11 DAG g2 = %v, want %v", d.Loads[2], want)
	}
	anomaly := []BotQuad{{A: 1, D: 2, B: 1, C: 40}, {A: 1, D: 1, B: 1, C: 80}, {A: 2, D: 1, B: 1, C: 30}}
	g := mustPlan(t, anomaly, BotPlanOptions{VMs: 1, Alloc: BotCyclic, Priority: BotPrioCost})
	d = mustPlan(t, anomaly, BotPlanOptions{VMs: 1, Alloc: BotCyclic, Priority: BotPrioCost, Shift: BotShiftDAG})
	if g.T != 4 || d.T != 5 {
		t.Errorf("anomaly: global %d, DAG %d; want 4, 5", g.T, d.T)
	}
	// The third quadruple waits for the 80-cost task's one job under DAG.
	if d.Rows[4][0].Quad != 2 || len(d.Rows[4]) != 1 {
		t.Errorf("anomaly: last row %+v", d.Rows[4])
	}
}

// TestBotPack: both modes on hand-worked cases. Costs 60, 50, 40, 30 on 3
// empty processors: lote fills P0 with 60+40, P1 with 50+30 and leaves P2
// empty; cyclic deals 60, 50, 40 to P0, P1, P2, then 30 to P0. With
// running loads, a job that fits no processor gets -1.
func TestBotPack(t *testing.T) {
	for _, c := range []struct {
		name      string
		costs     []int
		loads     []int
		alloc     BotAlloc
		want      []int
		wantLoads []int
	}{
		{"lote", []int{60, 50, 40, 30}, []int{0, 0, 0}, BotLote, []int{0, 1, 0, 1}, []int{100, 80, 0}},
		{"cyclic", []int{60, 50, 40, 30}, []int{0, 0, 0}, BotCyclic, []int{0, 1, 2, 0}, []int{90, 50, 40}},
		// P0 (at 80) takes 20, passing 50; P1 takes 50; 70 fits nowhere.
		{"lote running", []int{50, 20, 70}, []int{80, 30}, BotLote, []int{1, 0, -1}, []int{100, 80}},
		{"cyclic running", []int{50, 20, 70}, []int{80, 30}, BotCyclic, []int{1, 0, -1}, []int{100, 80}},
		// Cyclic deals 70, 40, 40, then 30, 30, 20; lote puts 70+30 on
		// P0, 40+40+20 on P1 (passing the 30s) and the last 30 on P2.
		{"cyclic first fit", []int{70, 40, 40, 30, 30, 20}, []int{0, 0, 0}, BotCyclic, []int{0, 1, 2, 0, 1, 2}, []int{100, 70, 60}},
		{"lote first fit", []int{70, 40, 40, 30, 30, 20}, []int{0, 0, 0}, BotLote, []int{0, 1, 1, 0, 2, 1}, []int{100, 100, 30}},
		{"too big", []int{101, 100}, []int{0}, BotCyclic, []int{-1, 0}, []int{100}},
		{"no processor", []int{10}, nil, BotLote, []int{-1}, nil},
		{"no job", nil, []int{0, 0}, BotCyclic, []int{}, []int{0, 0}},
	} {
		loads := slices.Clone(c.loads)
		got := BotPack(c.costs, loads, c.alloc)
		if !slices.Equal(got, c.want) || !slices.Equal(loads, c.wantLoads) {
			t.Errorf("%s: %v, loads %v; want %v, %v", c.name, got, loads, c.want, c.wantLoads)
		}
	}
}

// TestSortBotJobs: each criterion, its inversion, and ties by Seq.
func TestSortBotJobs(t *testing.T) {
	// Seq 0..3: arrival, duration, cost, completed, remaining.
	base := []BotJob{
		{Seq: 0, A: 2, D: 3, C: 50, Completed: 1, Remaining: 2},
		{Seq: 1, A: 0, D: 5, C: 20, Completed: 3, Remaining: 2},
		{Seq: 2, A: 1, D: 5, C: 80, Completed: 0, Remaining: 5},
		{Seq: 3, A: 0, D: 2, C: 20, Completed: 1, Remaining: 1},
	}
	for _, c := range []struct {
		p        BotPriority
		inverted bool
		want     []int
	}{
		{BotPrioNone, false, []int{0, 1, 2, 3}},
		{BotPrioNone, true, []int{0, 1, 2, 3}},
		{BotPrioArrival, false, []int{1, 3, 2, 0}},
		{BotPrioArrival, true, []int{0, 2, 1, 3}},
		{BotPrioDuration, false, []int{1, 2, 0, 3}},
		{BotPrioDuration, true, []int{3, 0, 1, 2}},
		{BotPrioCost, false, []int{1, 3, 0, 2}},
		{BotPrioCost, true, []int{2, 0, 1, 3}},
		{BotPrioCompleted, false, []int{1, 0, 3, 2}},
		{BotPrioCompleted, true, []int{2, 0, 3, 1}},
		{BotPrioRemaining, false, []int{3, 0, 1, 2}},
		{BotPrioRemaining, true, []int{2, 0, 1, 3}},
	} {
		js := slices.Clone(base)
		slices.Reverse(js) // the order does not depend on the input's
		SortBotJobs(js, c.p, c.inverted)
		var got []int
		for _, j := range js {
			got = append(got, j.Seq)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s inverted=%v: %v, want %v", c.p, c.inverted, got, c.want)
		}
	}
}

func TestBotParseOptions(t *testing.T) {
	for s, want := range map[string]BotAlloc{"lote": BotLote, "Batch": BotLote, "ciclico": BotCyclic, "Cíclico": BotCyclic, "CYCLIC": BotCyclic} {
		if got, err := ParseBotAlloc(s); err != nil || got != want {
			t.Errorf("ParseBotAlloc(%q) = %v, %v", s, got, err)
		}
	}
	for i, s := range []string{"none", "arrival", "duration", "cost", "completed", "remaining"} {
		if got, err := ParseBotPriority(strings.ToUpper(s)); err != nil || got != BotPriority(i) || got.String() != s {
			t.Errorf("ParseBotPriority(%q) = %v, %v", s, got, err)
		}
	}
	if got, err := ParseBotPriority("TaskArrivalTime"); err != nil || got != BotPrioArrival {
		t.Errorf("TaskArrivalTime: %v, %v", got, err)
	}
	for s, want := range map[string]BotShift{"global": BotShiftGlobal, "DAG": BotShiftDAG} {
		if got, err := ParseBotShift(s); err != nil || got != want {
			t.Errorf("ParseBotShift(%q) = %v, %v", s, got, err)
		}
	}
	for _, c := range []struct {
		f    func(string) error
		s    string
		want string
	}{
		{func(s string) error { _, err := ParseBotAlloc(s); return err }, "roundrobin", `"roundrobin"`},
		{func(s string) error { _, err := ParseBotPriority(s); return err }, "cost-inverted", "none, arrival"},
		{func(s string) error { _, err := ParseBotShift(s); return err }, "", "global or dag"},
	} {
		if err := c.f(c.s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.s, err, c.want)
		}
	}
}

func TestBotPlanErrors(t *testing.T) {
	ok := []BotQuad{{A: 0, D: 1, B: 1, C: 50}}
	bad := func(q BotQuad) []BotQuad { return []BotQuad{{A: 0, D: 2, B: 3, C: 20}, {A: 1, D: 1, B: 1, C: 10}, q} }
	for _, c := range []struct {
		quads []BotQuad
		o     BotPlanOptions
		want  string
	}{
		{ok, BotPlanOptions{VMs: 0}, "0 VMs"},
		{nil, BotPlanOptions{VMs: 1}, "empty"},
		{bad(BotQuad{A: -1, D: 1, B: 1, C: 10}), BotPlanOptions{VMs: 1}, "quadruple 2 [-1,1,1,10]: arrival"},
		{bad(BotQuad{A: 0, D: 0, B: 1, C: 10}), BotPlanOptions{VMs: 1}, "quadruple 2 [0,0,1,10]: duration"},
		{bad(BotQuad{A: 0, D: 1, B: 0, C: 10}), BotPlanOptions{VMs: 1}, "quadruple 2 [0,1,0,10]: task count"},
		{bad(BotQuad{A: 0, D: 1, B: 1, C: 0}), BotPlanOptions{VMs: 1}, "quadruple 2 [0,1,1,0]: cost"},
		{bad(BotQuad{A: 0, D: 1, B: 1, C: 101}), BotPlanOptions{VMs: 1}, "quadruple 2 [0,1,1,101]: cost"},
		{ok, BotPlanOptions{VMs: 1, Alloc: 7}, "allocation"},
		{ok, BotPlanOptions{VMs: 1, Priority: -1}, "priority"},
		{ok, BotPlanOptions{VMs: 1, Shift: 2}, "shift"},
	} {
		p, err := PlanBoT(c.quads, c.o)
		if err == nil || p != nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %+v: %v, want an error with %q", c.quads, c.o, err, c.want)
		}
	}
}
