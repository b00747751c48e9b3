package profile

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/sched/xtime"
)

func x(f float64) xtime.Time { return xtime.Of(f) }

// TestHandMade: a profile of 4 hosts with three reservations, checked
// slice by slice, then fits, a release and an advance.
func TestHandMade(t *testing.T) {
	p := New(4, x(0), xtime.Inf)
	p.Reserve(x(0), x(10), 2) // hosts busy: [0,10) 2
	p.Reserve(x(5), x(20), 1) // [5,20) 1
	p.Reserve(x(10), x(30), 3)
	want := "[0, 5) 2\n[5, 10) 1\n[10, 20) 0\n[20, 30) 1\n[30, +Inf) 4\n"
	if got := p.String(); got != want {
		t.Fatalf("slices:\n%s\nwant:\n%s", got, want)
	}
	for _, c := range []struct {
		from, dur float64
		n         int
		want      float64
		ok        bool
	}{
		{0, 5, 2, 0, true},    // fits in the first slice
		{0, 6, 2, 30, true},   // [0,6) has a slice with 1
		{0, 1, 1, 0, true},    // 1 host now
		{0, 100, 1, 20, true}, // [20,30) 1, then 4
		{0, 1, 4, 30, true},
		{0, 1, 5, 0, false}, // more than the platform
		{6, 4, 1, 6, true},  // from inside a slice
		{12, 1, 1, 20, true},
	} {
		got, ok := p.EarliestFit(x(c.from), x(c.dur), c.n)
		if ok != c.ok || (ok && got != x(c.want)) {
			t.Errorf("EarliestFit(%v, %v, %d) = %v, %v; want %v, %v", c.from, c.dur, c.n, got.Float(), ok, c.want, c.ok)
		}
	}
	if m := p.MaxFree(x(0), x(30)); m != 2 {
		t.Errorf("MaxFree(0, 30) = %d, want 2", m)
	}
	if m := p.MaxFree(x(7), x(25)); m != 1 {
		t.Errorf("MaxFree(7, 25) = %d, want 1", m)
	}
	p.Release(x(5), x(20), 1)
	if got, want := p.String(), "[0, 10) 2\n[10, 30) 1\n[30, +Inf) 4\n"; got != want {
		t.Fatalf("after release:\n%s\nwant:\n%s", got, want)
	}
	p.Advance(x(12))
	if got, want := p.String(), "[12, 30) 1\n[30, +Inf) 4\n"; got != want {
		t.Fatalf("after advance:\n%s\nwant:\n%s", got, want)
	}
	p.Release(x(10), x(30), 3) // begun before the present
	if got, want := p.String(), "[12, +Inf) 4\n"; got != want {
		t.Fatalf("after the last release:\n%s\nwant:\n%s", got, want)
	}
}

// TestReleaseUnreserved: releasing dates no reservation holds is a
// caller's bug the profile names (it once recursed without end).
func TestReleaseUnreserved(t *testing.T) {
	p := New(2, x(0), xtime.Inf)
	p.Reserve(x(0), xtime.Inf, 1)
	p.Advance(x(2))
	defer func() {
		r, _ := recover().(string)
		if want := "profile: no boundary at 3"; !strings.HasPrefix(r, want) {
			t.Errorf("panic %q, want one starting %q", r, want)
		}
	}()
	p.Release(x(3), xtime.Inf, 1)
}

// TestHostsHandMade: host sets, first fit on given hosts with the lowest
// ids and contiguous runs.
func TestHostsHandMade(t *testing.T) {
	p := NewWithHosts(6, x(0), x(1e19))
	p.ReserveHosts(x(0), x(10), HostsOf(6, 1, 4))
	p.ReserveHosts(x(0), x(20), HostsOf(6, 2))
	lowest := func(free Hosts, n int, dst []int) ([]int, bool) { return free.Lowest(n, dst), true }
	contiguous := func(free Hosts, n int, dst []int) ([]int, bool) { return free.FirstRun(n, dst) }
	at, hosts, ok := p.EarliestFitHosts(x(0), x(5), 3, lowest, nil)
	if !ok || at != x(0) || !slices.Equal(hosts, []int{0, 3, 5}) {
		t.Errorf("lowest: %v %v %v", at.Float(), hosts, ok)
	}
	// free now: 0 3 5: no run of 2 before 10; at 10: 0 1 3 4 5 -> 0,1
	at, hosts, ok = p.EarliestFitHosts(x(0), x(5), 2, contiguous, nil)
	if !ok || at != x(10) || !slices.Equal(hosts, []int{0, 1}) {
		t.Errorf("contiguous: %v %v %v", at.Float(), hosts, ok)
	}
	// 6 hosts: only from 20
	at, _, ok = p.EarliestFitHosts(x(0), xtime.Inf, 6, lowest, nil)
	if !ok || at != x(20) {
		t.Errorf("all hosts until the horizon: %v %v", at.Float(), ok)
	}
	// past the horizon
	if _, _, ok = p.EarliestFitHosts(x(0), x(1.5e19), 1, lowest, nil); ok {
		t.Errorf("a span past the horizon fits")
	}
	if got := p.FreeHosts(x(0), x(15)).IDs(nil); !slices.Equal(got, []int{0, 3, 5}) {
		t.Errorf("FreeHosts(0, 15) = %v", got)
	}
}

func TestFirstRun(t *testing.T) {
	h := HostsOf(200, 0, 2, 3, 5, 6, 7, 62, 63, 64, 65, 130)
	for _, c := range []struct {
		n    int
		want []int
		ok   bool
	}{
		{1, []int{0}, true},
		{2, []int{2, 3}, true},
		{3, []int{5, 6, 7}, true},
		{4, []int{62, 63, 64, 65}, true},
		{5, nil, false},
	} {
		got, ok := h.FirstRun(c.n, nil)
		if ok != c.ok || !slices.Equal(got, c.want) {
			t.Errorf("FirstRun(%d) = %v, %v; want %v, %v", c.n, got, ok, c.want, c.ok)
		}
	}
	if got := h.Lowest(3, nil); !slices.Equal(got, []int{0, 2, 3}) {
		t.Errorf("Lowest(3) = %v", got)
	}
	if AllHosts(70).Len() != 70 || AllHosts(64).Len() != 64 {
		t.Errorf("AllHosts")
	}
}

// model is the naive profile the tree is checked against: the live
// reservations, each with its hosts.
type model struct {
	hosts    int
	begin    xtime.Time
	horizon  xtime.Time
	res      []modelRes
	withSets bool
}

type modelRes struct {
	b, e  xtime.Time
	n     int
	hosts []int
}

func (m *model) clampedLive() []modelRes {
	var out []modelRes
	for _, r := range m.res {
		b := xtime.Max(r.b, m.begin)
		e := r.e
		if m.horizon.Less(e) {
			e = m.horizon
		}
		if b.Less(e) {
			out = append(out, modelRes{b, e, r.n, r.hosts})
		}
	}
	return out
}

// boundaries are the dates after begin where a live reservation begins or
// ends, before the horizon.
func (m *model) boundaries() []xtime.Time {
	var ts []xtime.Time
	for _, r := range m.clampedLive() {
		for _, t := range []xtime.Time{r.b, r.e} {
			if m.begin.Less(t) && t.Less(m.horizon) {
				ts = append(ts, t)
			}
		}
	}
	slices.SortFunc(ts, func(a, b xtime.Time) int { return a.Cmp(b) })
	return slices.Compact(ts)
}

func (m *model) free(t xtime.Time) int {
	n := m.hosts
	for _, r := range m.clampedLive() {
		if !t.Less(r.b) && t.Less(r.e) {
			n -= r.n
		}
	}
	return n
}

func (m *model) freeHosts(t xtime.Time) map[int]bool {
	out := map[int]bool{}
	for h := range m.hosts {
		out[h] = true
	}
	for _, r := range m.clampedLive() {
		if !t.Less(r.b) && t.Less(r.e) {
			for _, h := range r.hosts {
				delete(out, h)
			}
		}
	}
	return out
}

// earliest tries every anchor in order: from, then the boundaries after it.
func (m *model) earliest(from, dur xtime.Time, n int, sets bool) (xtime.Time, []int, bool) {
	anchors := []xtime.Time{from}
	for _, b := range m.boundaries() {
		if from.Less(b) {
			anchors = append(anchors, b)
		}
	}
	for _, a := range anchors {
		end := m.horizon
		if dur != xtime.Inf {
			end = a.Add(dur)
			if m.horizon.Less(end) {
				return a, nil, false
			}
		} else if !a.Less(m.horizon) {
			return a, nil, false
		}
		pts := []xtime.Time{a}
		for _, b := range m.boundaries() {
			if a.Less(b) && b.Less(end) {
				pts = append(pts, b)
			}
		}
		ok := true
		var inter map[int]bool
		for _, q := range pts {
			if m.free(q) < n {
				ok = false
				break
			}
			if sets {
				fh := m.freeHosts(q)
				if inter == nil {
					inter = fh
				} else {
					for h := range inter {
						if !fh[h] {
							delete(inter, h)
						}
					}
				}
			}
		}
		if !ok {
			continue
		}
		if !sets {
			return a, nil, true
		}
		if len(inter) >= n {
			var ids []int
			for h := range inter {
				ids = append(ids, h)
			}
			slices.Sort(ids)
			return a, ids[:n], true
		}
	}
	return from, nil, false
}

// TestRandomAgainstModel: random reservations, releases, advances and
// fits, on both kinds of profile, agree with the naive model: the slices
// (dates, free counts, free hosts), EarliestFit and MaxFree.
func TestRandomAgainstModel(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		sets := seed%2 == 0
		hosts := 1 + r.IntN(9)
		horizon := xtime.Inf
		if seed%3 == 0 {
			horizon = x(200)
		}
		var p *Profile
		if sets {
			p = NewWithHosts(hosts, x(0), horizon)
		} else {
			p = New(hosts, x(0), horizon)
		}
		m := &model{hosts: hosts, begin: x(0), horizon: horizon, withSets: sets}
		date := func() xtime.Time { return m.begin.Add(x(float64(r.IntN(40)) / 2)) }
		for step := 0; step < 200; step++ {
			switch op := r.IntN(10); {
			case op < 4: // reserve where it fits
				n := 1 + r.IntN(hosts)
				dur := x(float64(1+r.IntN(30)) / 2)
				if r.IntN(10) == 0 {
					dur = xtime.Inf
				}
				from := date()
				wt, wh, wok := m.earliest(from, dur, n, sets)
				var gt xtime.Time
				var gh []int
				var gok bool
				if sets {
					gt, gh, gok = p.EarliestFitHosts(from, dur, n, func(free Hosts, n int, dst []int) ([]int, bool) { return free.Lowest(n, dst), true }, nil)
				} else {
					gt, gok = p.EarliestFit(from, dur, n)
				}
				if gok != wok || (wok && (gt != wt || !slices.Equal(gh, wh))) {
					t.Fatalf("seed %d step %d: fit(%v, %v, %d) = %v %v %v, want %v %v %v\n%s", seed, step, from.Float(), dur.Float(), n, gt.Float(), gh, gok, wt.Float(), wh, wok, p)
				}
				if !gok {
					continue
				}
				end := xtime.Inf
				if dur != xtime.Inf {
					end = gt.Add(dur)
				}
				if sets {
					p.ReserveHosts(gt, end, HostsOf(hosts, gh...))
				} else {
					p.Reserve(gt, end, n)
				}
				m.res = append(m.res, modelRes{gt, end, n, gh})
			case op < 7 && len(m.res) > 0: // release one
				k := r.IntN(len(m.res))
				res := m.res[k]
				if sets {
					p.ReleaseHosts(res.b, res.e, HostsOf(hosts, res.hosts...))
				} else {
					p.Release(res.b, res.e, res.n)
				}
				m.res = slices.Delete(m.res, k, k+1)
			case op < 8: // advance
				m.advance(p, m.begin.Add(x(float64(r.IntN(6))/2)))
			default: // MaxFree
				a, b := date(), date()
				if b.Less(a) {
					a, b = b, a
				}
				want := 0
				if a.Less(b) {
					want = m.free(a)
					for _, q := range m.boundaries() {
						if a.Less(q) && q.Less(b) {
							want = max(want, m.free(q))
						}
					}
				}
				if got := p.MaxFree(a, b); got != want {
					t.Fatalf("seed %d step %d: MaxFree(%v, %v) = %d, want %d\n%s", seed, step, a.Float(), b.Float(), got, want, p)
				}
			}
			checkSlices(t, seed, step, p, m)
		}
	}
}

// TestFitBoundsAgainstModel: runs of fits, each reserved at once (the
// fits a profile remembers as bounds, see fitBound), broken by releases
// and advances, agree with the naive model; EarliestFitBefore with a
// random limit too.
func TestFitBoundsAgainstModel(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		hosts := 2 + r.IntN(15)
		p := New(hosts, x(0), xtime.Inf)
		m := &model{hosts: hosts, begin: x(0), horizon: xtime.Inf}
		for step := 0; step < 150; step++ {
			switch op := r.IntN(30); {
			case op == 0 && len(m.res) > 0: // release one
				k := r.IntN(len(m.res))
				p.Release(m.res[k].b, m.res[k].e, m.res[k].n)
				m.res = slices.Delete(m.res, k, k+1)
			case op == 1: // advance
				m.advance(p, m.begin.Add(x(float64(r.IntN(4)))))
			default: // fit from the present or a little later, and reserve
				n := 1 + r.IntN(hosts)
				dur := x(float64(1 + r.IntN(40)))
				from := m.begin.Add(x(float64(r.IntN(3))))
				before := xtime.Inf
				if r.IntN(4) == 0 {
					before = m.begin.Add(x(float64(r.IntN(200))))
				}
				wt, wok := m.earliestCount(from, before, dur, n)
				gt, gok := p.EarliestFitBefore(from, before, dur, n)
				if gok != wok || (wok && gt != wt) {
					t.Fatalf("seed %d step %d: EarliestFitBefore(%v, %v, %v, %d) = %v %v, want %v %v\n%s", seed, step, from.Float(), before.Float(), dur.Float(), n, gt.Float(), gok, wt.Float(), wok, p)
				}
				if gok {
					p.Reserve(gt, gt.Add(dur), n)
					m.res = append(m.res, modelRes{gt, gt.Add(dur), n, nil})
				}
			}
			if step%10 == 9 {
				checkSlices(t, seed, step, p, m)
			}
		}
	}
}

// advance moves the present of p and of the model to to: the
// reservations over by then are gone from the model.
func (m *model) advance(p *Profile, to xtime.Time) {
	p.Advance(to)
	m.begin = to
	live := m.res[:0]
	for _, res := range m.res {
		if m.begin.Less(res.e) {
			live = append(live, res)
		}
	}
	m.res = live
}

// earliestCount is the model's EarliestFitBefore without host sets and
// horizon, the step function of free hosts built once.
func (m *model) earliestCount(from, before, dur xtime.Time, n int) (xtime.Time, bool) {
	dates := append([]xtime.Time{m.begin}, m.boundaries()...)
	free := make([]int, len(dates)+1)
	at := func(t xtime.Time) int {
		i, _ := slices.BinarySearchFunc(dates, t, func(a, b xtime.Time) int { return a.Cmp(b) })
		return i
	}
	for _, r := range m.clampedLive() {
		free[at(r.b)] -= r.n
		free[at(r.e)] += r.n // len(dates) for an end at Inf
	}
	free[0] += m.hosts
	for i := 1; i < len(dates); i++ {
		free[i] += free[i-1]
	}
	for i := range dates {
		a := dates[i]
		if i+1 < len(dates) && !from.Less(dates[i+1]) {
			continue // the slice ends by from
		}
		a = xtime.Max(a, from)
		if !a.Less(before) {
			return a, false
		}
		fits := true
		for k := i; k < len(dates) && dates[k].Less(a.Add(dur)); k++ {
			if free[k] < n {
				fits = false
				break
			}
		}
		if fits {
			return a, true
		}
	}
	return from, false
}

func checkSlices(t *testing.T, seed uint64, step int, p *Profile, m *model) {
	t.Helper()
	want := append([]xtime.Time{m.begin}, m.boundaries()...)
	var got []xtime.Time
	for s := range p.Slices() {
		got = append(got, s.Begin)
		if s.Free != m.free(s.Begin) {
			t.Fatalf("seed %d step %d: slice at %v has %d free, want %d\n%s", seed, step, s.Begin.Float(), s.Free, m.free(s.Begin), p)
		}
		if s.Hosts != nil {
			fh := m.freeHosts(s.Begin)
			if s.Hosts.Len() != len(fh) {
				t.Fatalf("seed %d step %d: slice at %v has hosts %v, want %v\n%s", seed, step, s.Begin.Float(), s.Hosts.IDs(nil), fh, p)
			}
			for h := range fh {
				if !s.Hosts.Has(h) {
					t.Fatalf("seed %d step %d: slice at %v lacks host %d\n%s", seed, step, s.Begin.Float(), h, p)
				}
			}
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("seed %d step %d: slice dates %v, want %v\n%s", seed, step, floats(got), floats(want), p)
	}
	if p.NbSlices() != len(got) {
		t.Fatalf("seed %d step %d: NbSlices %d, %d listed", seed, step, p.NbSlices(), len(got))
	}
}

func floats(ts []xtime.Time) []float64 {
	out := make([]float64, len(ts))
	for i, t := range ts {
		out[i] = t.Float()
	}
	return out
}
