package bucma

import (
	"bytes"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/policies/basic"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit"
)

// ---------------------------------------------------------------- precision table

func TestScoreDeltaTable(t *testing.T) {
	// Each row of bucma.txt Table 1 at its boundary (the boundary belongs to
	// the row below: "P > 80" excludes 80) and just around it.
	cases := []struct {
		p    float64
		want int
	}{
		{150, 0}, {100.001, 0},
		{100, 10}, {99.999, 10}, {80.001, 10},
		{80, 6}, {79.999, 6}, {65.001, 6},
		{65, 3}, {64.999, 3}, {50.001, 3},
		{50, 1}, {49.999, 1}, {35.001, 1},
		{35, 0}, {34.999, 0}, {25.001, 0},
		{25, -1}, {24.999, -1}, {15.001, -1},
		{15, -2}, {14.999, -2}, {10.001, -2},
		{10, -3}, {9.999, -3}, {0.001, -3}, {0, -3},
	}
	for _, c := range cases {
		if got := ScoreDelta(c.p); got != c.want {
			t.Errorf("ScoreDelta(%v) = %d, want %d", c.p, got, c.want)
		}
	}
}

// endedJob is a job of user u with walltime w that ran te seconds and ended
// in state st.
func endedJob(u string, w, te float64, st string) endJob {
	if w <= 0 {
		return endJob{user: u, state: st}
	}
	return endJob{user: u, state: st, p: 100 * te / w, ok: true}
}

// endJob is the end of a job as a score learns from it: owner, final
// state and precision (ok false: none).
type endJob struct {
	user, state string
	p           float64
	ok          bool
}

// update applies e to s (Scores.Update on such a job).
func (e endJob) update(s *Scores) int { return s.learn(e.user, e.state, e.p, e.ok) }

func TestScoreUpdateAtBoundaries(t *testing.T) {
	// Precision computed from real run times: W = 3600 s, Te = P·36, so that
	// P lands exactly on each boundary (100·Te/W is exact here), and W = 100
	// s where Te is P itself.
	cases := []struct {
		w, te float64
		want  int // Su after one job, from 50
	}{
		{3600, 3600, 60},   // P = 100: +10
		{3600, 3601, 50},   // P > 100: +0
		{3600, 2880, 56},   // P = 80: +6
		{3600, 2881, 60},   // P > 80: +10
		{3600, 2340, 53},   // P = 65: +3
		{3600, 2341, 56},   // +6
		{3600, 1800, 51},   // P = 50: +1
		{3600, 1801, 53},   // +3
		{3600, 1260, 50},   // P = 35: 0
		{3600, 1261, 51},   // +1
		{3600, 900, 49},    // P = 25: −1
		{3600, 901, 50},    // 0
		{100, 15, 48},      // P = 15: −2 (Te/W·100 would give 15.000000000000002)
		{100, 15.5, 49},    // −1
		{100, 10, 47},      // P = 10: −3
		{100, 10.5, 48},    // −2
		{100, 0, 47},       // P = 0: −3
		{3600, 0.001, 47},  // −3
		{7200, 7200.0, 60}, // P = 100
	}
	for _, c := range cases {
		s := NewScores(50, nil)
		d := endedJob("u", c.w, c.te, batsim.StateSuccess).update(s)
		if got := s.Score("u"); got != c.want || d != c.want-50 {
			p := endedJob("u", c.w, c.te, batsim.StateSuccess).p
			t.Errorf("W=%v Te=%v (P=%v): Su=%d delta=%d, want %d", c.w, c.te, p, got, d, c.want)
		}
	}
}

func TestScoreClampingAndInitial(t *testing.T) {
	s := NewScores(95, nil)
	if s.Score("new") != 95 {
		t.Fatalf("initial score %d, want 95", s.Score("new"))
	}
	// 95 + 10 clamps at 100; the applied increment is 5.
	if d := endedJob("a", 100, 90, batsim.StateSuccess).update(s); d != 5 || s.Score("a") != 100 {
		t.Errorf("95+10: Su=%d delta=%d, want 100 and 5", s.Score("a"), d)
	}
	if d := endedJob("a", 100, 90, batsim.StateSuccess).update(s); d != 0 || s.Score("a") != 100 {
		t.Errorf("100+10: Su=%d delta=%d, want 100 and 0", s.Score("a"), d)
	}
	s = NewScores(2, nil)
	// 2 − 3 clamps at 0, and stays there.
	endedJob("b", 100, 1, batsim.StateSuccess).update(s)
	if s.Score("b") != 0 {
		t.Errorf("2-3: Su=%d, want 0", s.Score("b"))
	}
	endedJob("b", 100, 1, batsim.StateSuccess).update(s)
	if s.Score("b") != 0 {
		t.Errorf("0-3: Su=%d, want 0", s.Score("b"))
	}
	// Other users are untouched by b's jobs.
	if s.Score("c") != 2 {
		t.Errorf("untouched user: Su=%d, want 2", s.Score("c"))
	}
	// The initial score can be the bounds.
	for _, init := range []int{0, 100} {
		if got := NewScores(init, nil).Score("x"); got != init {
			t.Errorf("initial %d: got %d", init, got)
		}
	}
}

func TestScoreUnchangedCases(t *testing.T) {
	cases := []struct {
		name string
		j    endJob
	}{
		{"walltime reached", endedJob("u", 100, 100, batsim.StateWalltimeReached)},
		{"walltime reached early (P 90)", endedJob("u", 100, 90, batsim.StateWalltimeReached)},
		{"killed", endedJob("u", 100, 90, batsim.StateKilled)},
		{"failed", endedJob("u", 100, 90, batsim.StateFailed)},
		{"failed imprecise", endedJob("u", 100, 1, batsim.StateFailed)},
		{"rejected", endJob{user: "u", state: batsim.StateRejected}},
		{"no walltime", endedJob("u", 0, 90, batsim.StateSuccess)},
	}
	for _, c := range cases {
		s := NewScores(50, nil)
		if d := c.j.update(s); d != 0 || s.Score("u") != 50 {
			t.Errorf("%s: Su=%d delta=%d, want 50 unchanged", c.name, s.Score("u"), d)
		}
	}
}

func TestPinnedScores(t *testing.T) {
	pins, err := ParsePinnedScores(" alice:100 , bob:0,carol:50.0,team:a:7,:20")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"alice": 100, "bob": 0, "carol": 50, "team:a": 7, "": 20}
	if len(pins) != len(want) {
		t.Fatalf("got %v, want %v", pins, want)
	}
	for u, v := range want {
		if pins[u] != v {
			t.Errorf("user %q: %d, want %d", u, pins[u], v)
		}
	}
	s := NewScores(50, pins)
	for i := 0; i < 3; i++ {
		endedJob("bob", 100, 90, batsim.StateSuccess).update(s)   // would be +10
		endedJob("alice", 100, 1, batsim.StateSuccess).update(s)  // would be −3
		endedJob("dave", 100, 90, batsim.StateSuccess).update(s)  // learns
		endedJob("team:a", 100, 1, batsim.StateSuccess).update(s) // pinned
		endedJob("", 100, 90, batsim.StateSuccess).update(s)      // the anonymous user is pinned too
	}
	for u, v := range map[string]int{"alice": 100, "bob": 0, "team:a": 7, "": 20, "dave": 80} {
		if s.Score(u) != v {
			t.Errorf("user %q: Su=%d, want %d", u, s.Score(u), v)
		}
		if s.Pinned(u) != (u != "dave") {
			t.Errorf("user %q: pinned=%v", u, s.Pinned(u))
		}
	}
	if p, err := ParsePinnedScores(""); err != nil || len(p) != 0 {
		t.Errorf("empty: %v %v", p, err)
	}
	for _, bad := range []string{"alice", "alice:", "alice:x", "alice:-1", "alice:101", "alice:1.5", "a:1,a:2", "a:1,,b:2"} {
		if _, err := ParsePinnedScores(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseWeights(t *testing.T) {
	w, err := ParseWeights(" 0.4, 0.3 ,0,0.3")
	if err != nil || w != Weights4303 {
		t.Fatalf("got %v %v", w, err)
	}
	// Within 1e-9 of 1 is accepted (a third three times).
	if _, err := ParseWeights("0.3333333333,0.3333333333,0.3333333334,0"); err != nil {
		t.Error(err)
	}
	if w, err := ParseWeights(Weights5302.String()); err != nil || w != Weights5302 {
		t.Errorf("round trip of %s: %v %v", Weights5302, w, err)
	}
	for _, bad := range []string{"", "1", "0.5,0.5,0,0,0", "0.5,0.3,0,0.19", "0.5,0.3,0,0.2000001", "NaN,0,0,1", "1.1,-0.1,0,0", "0.5;0.3;0;0.2"} {
		if _, err := ParseWeights(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// ---------------------------------------------------------------- Sf

// sfQueue is the small queue of the hand-computed Sf cases, at now = 100:
//
//	job  submit  user  Su   W
//	j1   10      u0    0    100
//	j2   40      u100  100  400
//	j3   70      u50   50   unlimited
//	j4   100     u100  100  300
//
// FCFS ranks 0..3, so Ab/MaxAb = 4/4, 3/4, 2/4, 1/4 = 1, .75, .5, .25.
// E = 90, 60, 30, 0, MaxE = 90: E/MaxE = 1, 2/3, 1/3, 0.
// MaxW = 400 (j3 has none and counts as W = MaxW): 1 − W/MaxW = .75, 0, 0, .25.
func sfQueue(t *testing.T, submits [4]float64) (*sched.State, []*sched.Job) {
	t.Helper()
	h, err := testkit.NewState(testkit.StateSpec{Now: 100, Hosts: testkit.Hosts(1), Waiting: []testkit.Job{
		{Name: "j1", Submit: submits[0], User: "u0", Res: 1, Walltime: 100},
		{Name: "j2", Submit: submits[1], User: "u100", Res: 1, Walltime: 400},
		{Name: "j3", Submit: submits[2], User: "u50", Res: 1},
		{Name: "j4", Submit: submits[3], User: "u100", Res: 1, Walltime: 300},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return h.State(), h.State().WaitingCopy()
}

func sfScores() *Scores { return NewScores(50, map[string]int{"u0": 0, "u50": 50, "u100": 100}) }

func TestSfHandComputed(t *testing.T) {
	normal := [4]float64{10, 40, 70, 100}
	same := [4]float64{100, 100, 100, 100}
	cases := []struct {
		name    string
		base    sched.Order
		w       Weights
		submits [4]float64
		order   []string
		sf      map[string]float64
	}{
		{
			// Sf = .5·Su/100 + .3·Ab + .2·(1 − W/MaxW)
			//   j1: 0 + .3 + .15 = .45;  j2: .5 + .225 + 0 = .725
			//   j3: .25 + .15 + 0 = .4;  j4: .5 + .075 + .05 = .625
			name: "5302 fcfs", base: sched.FCFSOrder{}, w: Weights5302, submits: normal,
			order: []string{"j2", "j4", "j1", "j3"},
			sf:    map[string]float64{"j1": .45, "j2": .725, "j3": .4, "j4": .625},
		},
		{
			// Sf = .4·Su/100 + .3·Ab + .3·(1 − W/MaxW)
			//   j1: 0 + .3 + .225 = .525;  j2: .4 + .225 + 0 = .625
			//   j3: .2 + .15 + 0 = .35;    j4: .4 + .075 + .075 = .55
			name: "4303 fcfs", base: sched.FCFSOrder{}, w: Weights4303, submits: normal,
			order: []string{"j2", "j4", "j1", "j3"},
			sf:    map[string]float64{"j1": .525, "j2": .625, "j3": .35, "j4": .55},
		},
		{
			// γ ≠ 0: Sf = .35·Su/100 + .15·Ab + .3·E/MaxE + .2·(1 − W/MaxW)
			//   j1: 0 + .15 + .3 + .15 = .6
			//   j2: .35 + .1125 + .2 + 0 = .6625
			//   j3: .175 + .075 + .1 + 0 = .35
			//   j4: .35 + .0375 + 0 + .05 = .4375
			name: "gamma fcfs", base: sched.FCFSOrder{}, w: Weights{.35, .15, .3, .2}, submits: normal,
			order: []string{"j2", "j1", "j4", "j3"},
			sf:    map[string]float64{"j1": .6, "j2": .6625, "j3": .35, "j4": .4375},
		},
		{
			// Same weights, every job submitted at now: MaxE = 0, E term 0.
			// FCFS ranks are then by id: j1..j4 as before.
			//   j1: .15 + .15 = .3;  j2: .35 + .1125 = .4625
			//   j3: .175 + .075 = .25;  j4: .35 + .0375 + .05 = .4375
			name: "gamma MaxE=0", base: sched.FCFSOrder{}, w: Weights{.35, .15, .3, .2}, submits: same,
			order: []string{"j2", "j4", "j1", "j3"},
			sf:    map[string]float64{"j1": .3, "j2": .4625, "j3": .25, "j4": .4375},
		},
		{
			// MIN-MIN base: ranks by W ascending: j1 (100), j4 (300), j2
			// (400), j3 (unlimited): Ab/MaxAb = 1, .75, .5, .25.
			//   j1: 0 + .3 + .15 = .45;   j4: .5 + .225 + .05 = .775
			//   j2: .5 + .15 + 0 = .65;   j3: .25 + .075 + 0 = .325
			name: "5302 minmin", base: sched.WalltimeOrder{}, w: Weights5302, submits: normal,
			order: []string{"j4", "j2", "j1", "j3"},
			sf:    map[string]float64{"j1": .45, "j2": .65, "j3": .325, "j4": .775},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := &sched.Rerank{Base: c.base, Weights: c.w.rerankWeights(), Scores: sfScores()}
			s, q := sfQueue(t, c.submits)
			ranked := o.Rank(s, q)
			for i, name := range c.order {
				if q[i].ID() != "w0!"+name {
					t.Fatalf("position %d: %s, want %s (order %v)", i+1, q[i].ID(), name, ids(q))
				}
				if ranked[i].Job != q[i] {
					t.Fatalf("scores not aligned with the queue at %d", i)
				}
				if want := c.sf[name]; math.Abs(ranked[i].Sf-want) > 1e-12 {
					t.Errorf("Sf(%s) = %v, want %v", name, ranked[i].Sf, want)
				}
			}
		})
	}
}

func ids(q []*sched.Job) []string {
	out := make([]string, len(q))
	for i, j := range q {
		out[i] = j.ID()
	}
	return out
}

func TestSfTiesAndNoWalltime(t *testing.T) {
	// β = 0 and equal Su and W: every Sf is equal, the base order stays.
	hand := func(jobs ...testkit.Job) (*sched.State, []*sched.Job) {
		t.Helper()
		h, err := testkit.NewState(testkit.StateSpec{Now: 10, Hosts: testkit.Hosts(1), Waiting: jobs})
		if err != nil {
			t.Fatal(err)
		}
		return h.State(), h.State().WaitingCopy()
	}
	s, q := hand(
		testkit.Job{Name: "c", Submit: 3, User: "x", Res: 1, Walltime: 50},
		testkit.Job{Name: "a", Submit: 1, User: "y", Res: 1, Walltime: 50},
		testkit.Job{Name: "b", Submit: 2, User: "x", Res: 1, Walltime: 50})
	o := &sched.Rerank{Base: sched.FCFSOrder{}, Weights: Weights{.5, 0, 0, .5}.rerankWeights(), Scores: NewScores(50, nil)}
	o.Sort(s, q)
	if got := ids(q); got[0] != "w0!a" || got[1] != "w0!b" || got[2] != "w0!c" {
		t.Errorf("ties: order %v, want the FCFS order a, b, c", got)
	}
	// No job has a walltime: MaxW = 0, the W term is 0 for every job.
	// Sf = .5·Su/100 + .3·Ab (+ .2·0): p (Su 100, rank 1 of 2) = .5 + .15 =
	// .65; o (Su 0, rank 0) = .3.
	s, q = hand(
		testkit.Job{Name: "o", Submit: 0, User: "low", Res: 1},
		testkit.Job{Name: "p", Submit: 1, User: "high", Res: 1})
	o = &sched.Rerank{Base: sched.FCFSOrder{}, Weights: Weights5302.rerankWeights(), Scores: NewScores(50, map[string]int{"low": 0, "high": 100})}
	r := o.Rank(s, q)
	if q[0].ID() != "w0!p" || math.Abs(r[0].Sf-.65) > 1e-12 || math.Abs(r[1].Sf-.3) > 1e-12 {
		t.Errorf("no walltime: %v with %v, %v", ids(q), r[0].Sf, r[1].Sf)
	}
	// Empty queue.
	if r := o.Rank(s, nil); len(r) != 0 {
		t.Errorf("empty queue ranked %d jobs", len(r))
	}
}

// ---------------------------------------------------------------- BUCMA on a session

// One host. A blocker z (carol) runs 0-99. bob (pinned Su 0) submits B at
// 1, alice (pinned Su 100) submits A at 2, both 1 host, W 50, running 40 s.
//   - FCFS: B at 99, A at 139.
//   - BUCMA 5302 over FCFS, at 99: n = 2, B rank 0, A rank 1, both W = MaxW:
//     Sf(B) = .5·0 + .3·2/2 + .2·0 = .3, Sf(A) = .5·1 + .3·1/2 + 0 = .65,
//     so A overtakes B: A at 99, B at 139.
//
// Submission records: at 0, z is alone: Sf = .5·.5 + .3 = .55; at 1, B is
// alone (n = 1, no gain); at 2, A ranks first of 2 (Sf .65 vs .3): gain
// (2−1)/(2−1)·100 = 100.
var overtakeJobs = []testkit.Job{
	{Name: "z", Submit: 0, Res: 1, Walltime: 100, Run: 99, User: "carol"},
	{Name: "B", Submit: 1, Res: 1, Walltime: 50, Run: 40, User: "bob"},
	{Name: "A", Submit: 2, Res: 1, Walltime: 50, Run: 40, User: "alice"},
}

func TestBUCMAPreciseUserOvertakesUnderFCFS(t *testing.T) {
	one := []float64{1}
	testkit.CheckStarts(t, testkit.Run(t, testkit.Scenario{Registry: reg, Policy: "fcfs", Speeds: one, Jobs: overtakeJobs}),
		map[string]testkit.Start{"z": {At: 0, Alloc: "0"}, "B": {At: 99, Alloc: "0"}, "A": {At: 139, Alloc: "0"}})

	// Pins given through Batsim's sched-config, as a JSON object; weights
	// as a JSON array.
	for _, sc := range []testkit.Scenario{
		{Registry: reg, Policy: "bucma", SchedConfig: `{"weights":[0.5,0.3,0,0.2],"pinned-scores":{"alice":100,"bob":0}}`},
		{Registry: reg, Policy: "bucma5302", Options: sched.Options{"pinned-scores": "alice:100,bob:0"}},
		{Registry: reg, Policy: "bucma4303", Options: sched.Options{"pinned-scores": "alice:100,bob:0"}},
		{Registry: reg, Policy: "bucma", Options: sched.Options{"base": "easy", "pinned-scores": "alice:100,bob:0"}},
	} {
		sc.Speeds, sc.Jobs = one, overtakeJobs
		d := testkit.NewDriver(t, sc)
		got := d.Run()
		for id, w := range map[string]float64{"w0!z": 0, "w0!A": 99, "w0!B": 139} {
			if got[id].Start != w {
				t.Errorf("%s %v %s: %s started at %v, want %v", sc.Policy, sc.Options, sc.SchedConfig, id, got[id].Start, w)
			}
		}
	}
}

func TestBUCMASubmitInfo(t *testing.T) {
	sc := testkit.Scenario{Registry: reg, Policy: "bucma", Options: sched.Options{"pinned-scores": "alice:100,bob:0"}, Speeds: []float64{1}, Jobs: overtakeJobs,
		Observers: []sched.Observer{sched.NewTrace(io.Discard)}} // a trace has BUCMA record submissions
	d := testkit.NewDriver(t, sc)
	var b *BUCMA
	seen := map[string]sched.SubmitInfo{}
	d.After = func(now float64) {
		if b == nil {
			b = d.Session().Policy().(*BUCMA)
		}
		for _, id := range []string{"w0!z", "w0!A", "w0!B"} {
			if si, ok := b.SubmitInfo(id); ok {
				seen[id] = si
			}
		}
	}
	d.Run()
	exp := map[string]sched.SubmitInfo{
		"w0!z": {Su: 50, Queued: true, Sf: .5*.5 + .3, QueueLen: 1, Position: 1},
		"w0!B": {Su: 0, Queued: true, Sf: .3, QueueLen: 1, Position: 1},
		"w0!A": {Su: 100, Queued: true, Sf: .65, QueueLen: 2, Position: 1, Gain: 100, HasGain: true},
	}
	for id, w := range exp {
		g, ok := seen[id]
		if !ok {
			t.Errorf("%s: no submission record", id)
			continue
		}
		if math.Abs(g.Sf-w.Sf) > 1e-12 {
			t.Errorf("%s: Sf %v, want %v", id, g.Sf, w.Sf)
		}
		g.Sf = w.Sf
		if g != w {
			t.Errorf("%s: %+v, want %+v", id, g, w)
		}
	}
	// Records go once the jobs have ended and a decision has passed.
	if len(b.info) != 0 {
		t.Errorf("%d records left after the run", len(b.info))
	}
}

// Several jobs submitted in one message are ranked together, in the queue
// as of the end of that message (before any start). One host busy until 10
// with z; at 5, three jobs arrive together: l (Su 0), m (Su 50), h (Su 100),
// all W 100. FCFS ranks (same submit time, by id): h, l, m, z is running.
// Queue n = 3: Ab/MaxAb = 1 (h), 2/3 (l), 1/3 (m); E = 0 for all (MaxE = 0).
// 5302: Sf(h) = .5 + .3 = .8, Sf(l) = 0 + .2 = .2, Sf(m) = .25 + .1 = .35.
// Positions: h 1, m 2, l 3; gains 100, 50, 0.
func TestBUCMASubmissionsInOneMessage(t *testing.T) {
	sc := testkit.Scenario{Registry: reg, Policy: "bucma5302", Options: sched.Options{"pinned-scores": "l:0,m:50,h:100"}, Speeds: []float64{1}, Jobs: []testkit.Job{
		{Name: "z", Submit: 0, Res: 1, Walltime: 10, Run: 10, User: "x"},
		{Name: "l", Submit: 5, Res: 1, Walltime: 100, Run: 1, User: "l"},
		{Name: "m", Submit: 5, Res: 1, Walltime: 100, Run: 1, User: "m"},
		{Name: "h", Submit: 5, Res: 1, Walltime: 100, Run: 1, User: "h"},
		{Name: "huge", Submit: 5, Res: 2, Walltime: 100, Run: 1, User: "h"},
	}, Observers: []sched.Observer{sched.NewTrace(io.Discard)}}
	d := testkit.NewDriver(t, sc)
	var got map[string]sched.SubmitInfo
	d.After = func(now float64) {
		if now == 5 {
			b := d.Session().Policy().(*BUCMA)
			got = map[string]sched.SubmitInfo{}
			for _, n := range []string{"l", "m", "h", "huge"} {
				got[n], _ = b.SubmitInfo("w0!" + n)
			}
		}
	}
	out := d.Run()
	for name, w := range map[string]struct {
		pos  int
		gain float64
		sf   float64
	}{"h": {1, 100, .8}, "m": {2, 50, .35}, "l": {3, 0, .2}} {
		g := got[name]
		if !g.Queued || g.QueueLen != 3 || g.Position != w.pos || !g.HasGain || math.Abs(g.Gain-w.gain) > 1e-12 || math.Abs(g.Sf-w.sf) > 1e-12 {
			t.Errorf("%s: %+v, want position %d of 3, gain %v, Sf %v", name, g, w.pos, w.gain, w.sf)
		}
	}
	// The job rejected at submission has its owner's score only.
	if g := got["huge"]; g.Queued || g.Su != 100 {
		t.Errorf("rejected job: %+v", g)
	}
	// And the starts follow Sf: h at 10, m at 11, l at 12.
	for name, st := range map[string]float64{"h": 10, "m": 11, "l": 12} {
		if out["w0!"+name].Start != st {
			t.Errorf("%s started at %v, want %v", name, out["w0!"+name].Start, st)
		}
	}
}

// Scores are learnt through the session: alice's job ends with P = 90 (+10),
// bob's with P = 5 (−3), dave's hits its walltime (unchanged), erin has no
// walltime (unchanged), frank's job fails (unchanged).
func TestBUCMALearnsScoresThroughSession(t *testing.T) {
	sc := testkit.Scenario{Registry: reg, Policy: "bucma", Speeds: []float64{1, 1, 1, 1, 1}, Jobs: []testkit.Job{
		{Name: "a", Submit: 0, Res: 1, Walltime: 100, Run: 90, User: "alice"},
		{Name: "b", Submit: 0, Res: 1, Walltime: 100, Run: 5, User: "bob"},
		{Name: "d", Submit: 0, Res: 1, Walltime: 100, Run: 500, User: "dave"},
		{Name: "e", Submit: 0, Res: 1, Run: 10, User: "erin"},
		{Name: "f", Submit: 0, Res: 1, Walltime: 100, Run: 90, User: "frank", Ret: 1},
	}}
	d := testkit.NewDriver(t, sc)
	out := d.Run()
	if out["w0!d"].State != batsim.StateWalltimeReached || out["w0!f"].State != batsim.StateFailed {
		t.Fatalf("driver states: d %s, f %s", out["w0!d"].State, out["w0!f"].State)
	}
	b := d.Session().Policy().(*BUCMA)
	for u, want := range map[string]int{"alice": 60, "bob": 47, "dave": 50, "erin": 50, "frank": 50} {
		if got := b.UserScore(u); got != want {
			t.Errorf("%s: Su %d, want %d", u, got, want)
		}
	}
}

// BUCMA keeps the base's start rule. Two equal hosts. At 0, y (W 1000) and
// z (W 10) of the same user arrive; z's shorter walltime gives it the higher
// Sf under every base (δ term .2·(1 − 10/1000) against 0), so z gets host 0
// until 10 and y host 1 until 1000. At 1, Q (alice, Su 100, 2 hosts, W 100)
// and R (bob, Su 0, 1 host, W 10) arrive together. At 10 one host is free.
//   - base minmin: base ranks R (W 10) 0, Q 1: Ab/MaxAb 1 and .5; MaxW =
//     100: W terms .9 and 0. Sf(R) = 0 + .3 + .18 = .48, Sf(Q) = .5 + .15 =
//     .65: Q first, does not fit, and the greedy scan goes on: R starts at
//     10 on host 0. Q starts at 1000 on 0-1.
//   - base maxmin: base ranks Q 0, R 1: Sf(Q) = .5 + .3 = .8, Sf(R) = .15 +
//     .18 = .33; greedy again: R at 10, Q at 1000.
//   - base fcfs: ranks Q 0 (same submit time, id Q < R), R 1: Q first as
//     for maxmin, and blocking stops at Q: R waits for Q (1000-1100) and
//     starts at 1100 on host 0.
//   - base easy: same order; Q is the head, shadow 1000 (y's end), no extra
//     host; R ends at 20 <= 1000, so it is backfilled at 10 on host 0.
func TestBUCMAKeepsBaseStartRule(t *testing.T) {
	jobs := []testkit.Job{
		{Name: "y", Submit: 0, Res: 1, Walltime: 1000, Run: 1000, User: "x"},
		{Name: "z", Submit: 0, Res: 1, Walltime: 10, Run: 10, User: "x"},
		{Name: "Q", Submit: 1, Res: 2, Walltime: 100, Run: 100, User: "alice"},
		{Name: "R", Submit: 1, Res: 1, Walltime: 10, Run: 10, User: "bob"},
	}
	pins := "alice:100,bob:0"
	cases := map[string]map[string]testkit.Start{
		"minmin": {"z": {At: 0, Alloc: "0"}, "y": {At: 0, Alloc: "1"}, "R": {At: 10, Alloc: "0"}, "Q": {At: 1000, Alloc: "0-1"}},
		"maxmin": {"z": {At: 0, Alloc: "0"}, "y": {At: 0, Alloc: "1"}, "R": {At: 10, Alloc: "0"}, "Q": {At: 1000, Alloc: "0-1"}},
		"fcfs":   {"z": {At: 0, Alloc: "0"}, "y": {At: 0, Alloc: "1"}, "Q": {At: 1000, Alloc: "0-1"}, "R": {At: 1100, Alloc: "0"}},
		"easy":   {"z": {At: 0, Alloc: "0"}, "y": {At: 0, Alloc: "1"}, "R": {At: 10, Alloc: "0"}, "Q": {At: 1000, Alloc: "0-1"}},
	}
	for base, exp := range cases {
		t.Run(base, func(t *testing.T) {
			got := testkit.Run(t, testkit.Scenario{Registry: reg, Policy: "bucma", Options: sched.Options{"base": base, "pinned-scores": pins}, Speeds: []float64{1, 1}, Jobs: jobs})
			testkit.CheckStarts(t, got, exp)
		})
	}
}

func TestScoresChangedList(t *testing.T) {
	sc := NewScores(50, nil)
	end := func(u string) {
		sc.learn(u, batsim.StateSuccess, 90, true)
	}
	end("a")
	end("b")
	if users, all := sc.Changed(); !slices.Equal(users, []string{"a", "b"}) || all {
		t.Fatalf("changed %v %v", users, all)
	}
	for i := 0; i < maxChanged+3; i++ {
		sc.cur["x"] = 0
		end("x")
	}
	if users, all := sc.Changed(); !all || len(users) != 3 {
		t.Fatalf("after an overflow: %d users, all=%v", len(users), all)
	}
	if users, all := sc.Changed(); len(users) != 0 || all {
		t.Fatalf("not emptied: %v %v", users, all)
	}
}

// TestBUCMADecidesTheSameWithoutTrace: BUCMA ranks submissions in the
// queue only for a decision trace; its decisions must not depend on it.
func TestBUCMADecidesTheSameWithoutTrace(t *testing.T) {
	for _, v := range []testkit.Scenario{
		{Registry: reg, Policy: "bucma5302"}, {Registry: reg, Policy: "bucma4303", Options: sched.Options{"base": "easy"}},
		{Registry: reg, Policy: "bucma", Options: sched.Options{"base": "minmin", "weights": "0.25,0.25,0.25,0.25"}},
	} {
		var outs [2][]byte
		for k := range outs {
			sc := v
			sc.Speeds, sc.Jobs = testkit.Crowded(2, 250)
			if k == 1 {
				sc.Observers = []sched.Observer{sched.NewTrace(io.Discard)}
			}
			d := testkit.NewDriver(t, sc)
			d.Replies = &outs[k]
			d.Run()
			b := d.Session().Policy().(*BUCMA)
			if k == 0 && (len(b.info) > 0 || len(b.pending) > 0) {
				t.Errorf("%s%v: submissions recorded without a trace", v.Policy, v.Options)
			}
		}
		if !bytes.Equal(outs[0], outs[1]) {
			t.Errorf("%s%v: the replies differ with and without a trace", v.Policy, v.Options)
		}
	}
}

// The overtaking testkit.Scenario of bucma_test.go (z by carol 0-99; B by bob Su 0
// at 1; A by alice Su 100 at 2; A overtakes B), plus a job too big for the
// platform (rejected at 3) and one that hits its walltime. Rows come in end
// order.
//   - big: rejected at 3 (2 hosts on a 1-host platform): Su at submission
//     100 (alice), nothing else; its row comes at the decision point of 3.
//   - z: submitted alone into an empty queue: Su 50 (carol's initial score),
//     Sf = .5·.5 + .3·1 + .2·0 = .55, n = 1, p = 1, no gain; P = 100·99/100
//     = 99: +10, Su after 60.
//   - w: carol again, submitted at 4 while z still runs (carol's Su is
//     still 50): the queue is B, A and w; FCFS ranks B 0, A 1, w 2; MaxW 50
//     (w asks 30 s: W term .2·(1 − 30/50) = .08). Sf(B) = .3, Sf(A) = .5 +
//     .3·2/3 = .7, Sf(w) = .5·.5 + .3·1/3 + .08 = .43: order A, w, B:
//     position 2 of 3, gain 50.
//   - A: Sf .65, n 2, p 1, gain 100; starts at 99 (waited 97), ends at 139,
//     P = 100·40/50 = 80, but alice is pinned: Su after 100.
//   - At 139, carol has 60 since z's end: Sf(w) = .3 + .3·1/2 + .08 = .53 >
//     Sf(B) = .3: w overtakes B, runs 139-169 and hits its walltime (it
//     needs 40 s): P = 100, Su unchanged at 60.
//   - B: Sf .3, n 1, p 1; starts at 169, ends at 209, P 80, Su after 0
//     (pinned).
func TestTraceBUCMA(t *testing.T) {
	var buf bytes.Buffer
	tr := sched.NewTrace(&buf)
	sc := testkit.Scenario{Registry: reg, Policy: "bucma", Options: sched.Options{"pinned-scores": "alice:100,bob:0"}, Speeds: []float64{1},
		Jobs: append(append([]testkit.Job{}, overtakeJobs...),
			testkit.Job{Name: "big", Submit: 3, Res: 2, Walltime: 10, Run: 10, User: "alice"},
			testkit.Job{Name: "w", Submit: 4, Res: 1, Walltime: 30, Run: 40, User: "carol"}),
		Observers: []sched.Observer{tr}}
	d := testkit.NewDriver(t, sc)
	// Rows are flushed as jobs end: after the message at 99 (z ends), z's
	// and big's rows are already there.
	d.After = func(now float64) {
		if now == 99 {
			if rows := testkit.ReadTrace(t, buf.Bytes()); len(rows) != 2 {
				t.Errorf("after t=99: %d rows, want 2", len(rows))
			}
		}
	}
	d.Run()
	if tr.Err() != nil || tr.Rows() != 5 {
		t.Fatalf("err %v, %d rows", tr.Err(), tr.Rows())
	}
	rows := testkit.ReadTrace(t, buf.Bytes())
	order := []string{}
	for _, r := range rows {
		order = append(order, r["job_id"])
	}
	if strings.Join(order, " ") != "w0!big w0!z w0!A w0!w w0!B" {
		t.Fatalf("row order %v", order)
	}
	testkit.CheckRow(t, rows[0], map[string]string{"user": "alice", "res": "2", "walltime": "10", "submission_time": "3",
		"su_at_submission": "100", "sf_at_submission": "", "queue_length": "", "queue_position": "", "queue_gain": "",
		"start_time": "", "waiting_time": "", "allocated_hosts": "", "end_time": "3", "final_state": "REJECTED",
		"return_code": "", "precision": "", "su_after": "100"})
	testkit.CheckRow(t, rows[1], map[string]string{"user": "carol", "res": "1", "walltime": "100", "submission_time": "0",
		"su_at_submission": "50", "sf_at_submission": "0.55", "queue_length": "1", "queue_position": "1", "queue_gain": "",
		"start_time": "0", "waiting_time": "0", "allocated_hosts": "0", "end_time": "99", "final_state": "COMPLETED_SUCCESSFULLY",
		"return_code": "0", "precision": "99", "su_after": "60"})
	testkit.CheckRow(t, rows[2], map[string]string{"user": "alice", "submission_time": "2",
		"su_at_submission": "100", "sf_at_submission": "0.65", "queue_length": "2", "queue_position": "1", "queue_gain": "100",
		"start_time": "99", "waiting_time": "97", "end_time": "139", "precision": "80", "su_after": "100"})
	testkit.CheckRow(t, rows[3], map[string]string{"user": "carol", "walltime": "30", "submission_time": "4",
		"su_at_submission": "50", "sf_at_submission": "0.43", "queue_length": "3", "queue_position": "2", "queue_gain": "50",
		"start_time": "139", "end_time": "169", "final_state": "COMPLETED_WALLTIME_REACHED", "return_code": "-1",
		"precision": "100", "su_after": "60"})
	testkit.CheckRow(t, rows[4], map[string]string{"user": "bob", "submission_time": "1",
		"su_at_submission": "0", "sf_at_submission": "0.3", "queue_length": "1", "queue_position": "1", "queue_gain": "",
		"start_time": "169", "waiting_time": "168", "end_time": "209", "precision": "80", "su_after": "0"})
}

// reg holds the base policies and BUCMA over them.
var reg = func() *sched.Registry {
	r := sched.NewRegistry()
	basic.Register(r)
	Register(r)
	return r
}()
