package sched

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
)

// Differential tests of the time orders' index: walks of a timeIndex at
// many times against a sort of the waiting queue by the keys at that time
// (TimeOrder.Sort), as jobs join and leave.

// timeOrders are the orders the tests walk: the built-in ones, WFP3
// through its cube root as a user writes it, and lines drawn from few
// values (many equal keys, crossings at shared times, constant keys of
// ±Inf, lines that are not kept).
func timeOrders() []*TimeOrder {
	pick := func(j *Job, vals []float64, salt int) float64 {
		h := 0
		for _, c := range j.id {
			h = h*31 + int(c)
		}
		return vals[(h/(salt+1))%len(vals)]
	}
	return []*TimeOrder{
		NewWFP3Order(), NewUNICEPOrder(), NewExpansionOrder(),
		NewTimeOrder("wfp3-line", func(j *Job) Line {
			return Line{Rate: -math.Cbrt(float64(j.Res())) / j.WalltimeOrInf(), Since: j.Submit()}
		}),
		NewTimeOrder("lines", func(j *Job) Line {
			return Line{
				Rate:  pick(j, []float64{0, 1, -1, 0.5, -0.25, 3, 1e-12, -2}, 1),
				Since: pick(j, []float64{0, 5, 17, j.Submit(), 1e9}, 3),
				Base:  pick(j, []float64{0, 10, -40, 0.1, math.Inf(1), math.Inf(-1), math.NaN(), 1e15}, 7),
			}
		}),
		NewTimeOrder("aging", func(j *Job) Line {
			// A static priority plus a common aging rate: crossings at
			// every submission time apart.
			return Line{Rate: -1, Since: j.Submit(), Base: float64(j.Res() * 10)}
		}),
	}
}

// timeRef is the reference order: the waiting jobs sorted by o at now.
func timeRef(s *State, o *TimeOrder) []*Job {
	q := s.WaitingCopy()
	o.Sort(s, q)
	return q
}

func TestTimeIndexMatchesSort(t *testing.T) {
	timeCandModes = [3]int{}
	defer func() {
		if timeCandModes[1] == 0 || timeCandModes[2] == 0 {
			t.Errorf("backfill walks by position %d, over the trees %d: want both", timeCandModes[1], timeCandModes[2])
		}
	}()
	seeds := 2
	if testing.Short() {
		seeds = 1
	}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		r := rand.New(rand.NewPCG(seed, 41))
		s := newState(make([]Host, 8))
		orders := timeOrders()
		var waiting []*Job
		now := 0.0
		steps := 1000
		for step := 0; step < steps; step++ {
			// Time goes on by steps of every scale, often not at all,
			// and once back.
			switch k := r.IntN(10); {
			case k < 3:
			case k < 6:
				now += float64(r.IntN(5))
			case k < 9:
				now += r.Float64() * math.Pow(10, float64(r.IntN(7)-2))
			default:
				now = math.Floor(now * 2)
			}
			if step == steps/2 {
				now /= 2
			}
			s.now = now
			arrive := 60
			if step/300%2 == 1 {
				arrive = 15
			}
			switch k := r.IntN(100); {
			case k < arrive || len(waiting) == 0:
				for n := 1 + r.IntN(1+30*(r.IntN(10)/9)); n > 0; n-- {
					j := randomJob(r, s, step, 30)
					j.submit = math.Max(0, now-float64(r.IntN(3))*float64(r.IntN(50)))
					switch r.IntN(10) {
					case 0:
						j.walltime = 0.5 * float64(1+r.IntN(4)) // sizes as perfect cubes over small walltimes
						j.res = []int{1, 8, 27, 64}[r.IntN(4)]
					case 1:
						j.res = 60 + r.IntN(2000) // tiers of several sizes
					}
					s.enqueue(j)
					waiting = append(waiting, j)
				}
			case k < 95:
				i := r.IntN(len(waiting))
				leave(s, waiting[i])
				waiting = slices.Delete(waiting, i, i+1)
			default:
				s.compactWaiting()
			}
			if step == 5 || step == steps/4 {
				for _, o := range orders {
					s.timeFor(o) // built from the queue as it is, then kept
				}
			}
			if step < 5 || (step%11 != 0 && step != steps-1) {
				continue
			}
			for _, o := range orders {
				what := fmt.Sprintf("seed %d step %d t=%v order %s", seed, step, now, o.Name())
				checkTimeWalk(t, s, o, r, what)
				if err := s.checkTimed(); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
			}
		}
	}
}

// checkTimeWalk compares walks of o's index at the state's time with the
// sorted queue: one unrestricted, one with decreasing limits, one for the
// jobs backfilling can start.
func checkTimeWalk(t *testing.T, s *State, o *TimeOrder, r *rand.Rand, what string) {
	t.Helper()
	want := timeRef(s, o)
	x := s.timeFor(o)
	checkWalk(t, func() Walk { return x.walk(s) }, want, r, what)
	// Backfill's walk: the first jobs by Next (the head and the jobs
	// started before it), then the jobs that can start, after them; few
	// or many (found by position, or over the trees).
	free, small := 1+r.IntN(40), r.IntN(10)
	shadow := s.now + float64(r.IntN(300))
	if r.IntN(2) == 0 {
		shadow = s.now + float64(r.IntN(3000))
	}
	w := x.walk(s)
	first := min(r.IntN(4), len(want))
	for i := range first {
		if got := w.Next(math.MaxInt); got != want[i] {
			t.Fatalf("%s: walk position %d: %v, want %s", what, i, got, want[i].ID())
		}
	}
	startable := func(j *Job) bool {
		return j.Res() <= free && (j.Res() <= small || s.now+j.WalltimeOrInf() <= shadow)
	}
	defer func() { timeCandModes[w.candMode]++ }()
	for i := first; ; {
		for i < len(want) && !startable(want[i]) {
			i++
		}
		got := w.nextStartable(free, small, s.now, shadow)
		if i == len(want) {
			if got != nil {
				t.Fatalf("%s: startable (%d, %d, %v): walk gives %s past the end", what, free, small, shadow, got.ID())
			}
			break
		}
		if got != want[i] {
			t.Fatalf("%s: startable (%d, %d, %v): walk gives %v, want %s", what, free, small, shadow, got, want[i].ID())
		}
		i++
		if r.IntN(3) == 0 {
			free = r.IntN(free + 1)
			small = min(small, free)
		}
	}
}

// timeCandModes counts the backfill walks of checkTimeWalk by the way
// they found the jobs that can start (1: by position, 2: over the trees).
var timeCandModes [3]int

// TestTimeWalkWhileJobsLeave: jobs that start during a walk (the ones it
// gave, and others) leave the index, and the walk goes on in order over
// the jobs still waiting; the next walk, at a later time, too.
func TestTimeWalkWhileJobsLeave(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for _, o := range timeOrders() {
		s := newState(make([]Host, 4))
		s.timeFor(o)
		for i := range 3000 {
			j := randomJob(r, s, i, 10)
			s.enqueue(j)
		}
		for round := range 20 {
			s.now = float64(round * round * 7)
			want := timeRef(s, o)
			gone := map[*Job]bool{}
			w := s.timeFor(o).walk(s)
			for i := 0; ; {
				for i < len(want) && gone[want[i]] {
					i++
				}
				got := w.Next(math.MaxInt)
				if i == len(want) {
					if got != nil {
						t.Fatalf("%s round %d: %s past the end", o.Name(), round, got.ID())
					}
					break
				}
				if got != want[i] {
					t.Fatalf("%s round %d position %d: %v, want %s", o.Name(), round, i, got, want[i].ID())
				}
				i++
				if r.IntN(5) == 0 {
					leave(s, got)
					gone[got] = true
				}
				if r.IntN(20) == 0 {
					if k := i + r.IntN(len(want)-i+1); k < len(want) && !gone[want[k]] {
						leave(s, want[k])
						gone[want[k]] = true
					}
				}
			}
			s.compactWaiting()
			if err := s.checkTimed(); err != nil {
				t.Fatalf("%s round %d: %v", o.Name(), round, err)
			}
		}
	}
}

// TestTimeTiers: a tier per size up to 64 hosts, then tiers of
// consecutive sizes, 16 for each doubling.
func TestTimeTiers(t *testing.T) {
	prev := -1
	for res := int32(0); res <= 1<<14; res++ {
		k := timeTierOf(res)
		switch {
		case res <= 64 && k != int(res):
			t.Fatalf("%d hosts: tier %d", res, k)
		case k != prev && k != prev+1:
			t.Fatalf("%d hosts: tier %d after %d", res, k, prev)
		}
		prev = k
	}
	for k := 0; k <= timeTierOf(math.MaxInt32); k++ {
		if lo := timeTierLow(k); timeTierOf(lo) != k || (lo > 0 && timeTierOf(lo-1) != k-1) {
			t.Fatalf("tier %d: smallest size %d, in tier %d", k, lo, timeTierOf(lo))
		}
	}
	if got := timeTierOf(1 << 14); got != 65+8*16 {
		t.Errorf("2^14 hosts: tier %d, want %d", got, 65+8*16)
	}
	if got := timeTierOf(math.MaxInt32); got != 65+25*16-1 {
		t.Errorf("2^31-1 hosts: tier %d, want %d", got, 65+25*16-1)
	}
}

// TestTimeOrderFormulas pins the built-in orders' keys and guards.
func TestTimeOrderFormulas(t *testing.T) {
	job := func(submit float64, res int, wall float64) *Job {
		return &Job{id: "w0!" + strconv.Itoa(res), submit: submit, res: res, walltime: wall, state: batsim.StateSubmitted}
	}
	for _, c := range []struct {
		o    *TimeOrder
		j    *Job
		now  float64
		want float64 // the formula, largest first: the key is its opposite
	}{
		{NewWFP3Order(), job(10, 4, 20), 50, 8 * 4},  // (40/20)³·4
		{NewWFP3Order(), job(10, 4, 0), 50, 0},       // no walltime: 0
		{NewWFP3Order(), job(50, 4, 20), 50, 0},      // no wait yet
		{NewUNICEPOrder(), job(10, 8, 20), 70, 1},    // 60/(3·20)
		{NewUNICEPOrder(), job(10, 1, 20), 70, 3},    // one host counts as two: 60/(1·20)
		{NewUNICEPOrder(), job(10, 2, 20), 70, 3},    // 60/(1·20)
		{NewUNICEPOrder(), job(70, 1, 20), 70, 0},    // no wait: 0, not NaN
		{NewUNICEPOrder(), job(10, 4, 0), 70, 0},     // no walltime: 0
		{NewExpansionOrder(), job(10, 4, 20), 70, 4}, // (60+20)/20
		{NewExpansionOrder(), job(10, 4, 0), 70, 1},  // no walltime: 1
		{NewExpansionOrder(), job(70, 4, 20), 70, 1}, // no wait: 1
	} {
		if got := c.o.Key(c.j, c.now); got != -c.want {
			t.Errorf("%s of %d hosts, W %v, submitted at %v, at %v: key %v, want %v", c.o.Name(), c.j.res, c.j.walltime, c.j.submit, c.now, got, -c.want)
		}
	}
	// A user's line: NaN and infinite rates count as +Inf.
	for _, l := range []Line{{Rate: math.NaN()}, {Rate: math.Inf(1), Since: 1}, {Since: math.Inf(-1)}, {Base: math.NaN()}} {
		o := NewTimeOrder("bad", func(*Job) Line { return l })
		if got := o.Key(job(0, 1, 1), 5); !math.IsInf(got, 1) {
			t.Errorf("line %+v: key %v, want +Inf", l, got)
		}
	}
	if got := (Line{Rate: 2, Since: 3, Base: 1}).At(10); got != 15 {
		t.Errorf("line at 10: %v, want 15", got)
	}
}
