package analysis

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/metrics"
)

func TestRelative(t *testing.T) {
	for _, c := range []struct {
		diff, base, floor float64
		want              string
	}{
		{10, 100, 1, "+10.0 %"},
		{-5, 50, 1, "-10.0 %"},
		{3, 0.4, 1, NearZero},
		{3, -0.4, 1, NearZero},
		{0, 0, 0.5, NearZero},
		{math.NaN(), 10, 1, "n/a"},
	} {
		if got := Relative(c.diff, c.base, c.floor, 1); got != c.want {
			t.Errorf("Relative(%v, %v, %v) = %q, want %q", c.diff, c.base, c.floor, got, c.want)
		}
	}
	e := Estimate{N: 5, Mean: 12, Half: 3}
	if got := RelativeEst(e, 120, 1, 1); got != "+10.0 ± 2.5 %" {
		t.Errorf("RelativeEst = %q", got)
	}
	if got := RelativeEst(e, 0.2, 1, 1); got != NearZero {
		t.Errorf("RelativeEst over a near-zero base = %q", got)
	}
	if got := RelativeEst(Estimate{}, 10, 1, 1); got != "n/a" {
		t.Errorf("RelativeEst without values = %q", got)
	}
}

// rowsOf makes jobs of one host each, host 0: (submit, start, execution).
func rowsOf(jobs ...[3]float64) []JobRow {
	var out []JobRow
	for i, j := range jobs {
		out = append(out, JobRow{ID: string(rune('a' + i%26)), Res: 1, Alloc: "0", HasTimes: true, Success: true, FinalState: metrics.SuccessState,
			Submit: j[0], Start: j[1], Exec: j[2], Finish: j[1] + j[2], Wait: j[1] - j[0], Turnaround: j[1] + j[2] - j[0]})
	}
	return out
}

func TestSaturation(t *testing.T) {
	// One host, a job of 10 s every 20 s: offered load 0.5, served at once.
	var easy, late, over, slow [][3]float64
	for i := 0; i < 60; i++ {
		s := float64(20 * i)
		easy = append(easy, [3]float64{s, s, 10})
		// A job of 30 s every 20 s: the queue grows by 10 s a job.
		late = append(late, [3]float64{s, 30 * float64(i), 30})
		// 50 s every 20 s: offered 2.5, the run lasts 2.5 times its span.
		over = append(over, [3]float64{s, 50 * float64(i), 50})
	}
	m := Compute(rowsOf(easy...), 1)
	s := SaturationOf(rowsOf(easy...), m)
	if sat, why := s.Saturated(); sat || math.Abs(s.Offered-10*60/1180.0) > 1e-9 || s.EarlyWait != 0 {
		t.Errorf("a run that keeps up: %+v, %v %s", s, sat, why)
	}
	rows := rowsOf(late...)
	s = SaturationOf(rows, Compute(rows, 1))
	if sat, why := s.Saturated(); !sat || !strings.Contains(why, "the queue grows: mean wait 55 s in the first fifth of the submissions, 535 s in the last, the longest") {
		t.Errorf("offered load 1.5 on one host: %+v, %v %s", s, sat, why)
	}
	rows = rowsOf(over...)
	s = SaturationOf(rows, Compute(rows, 1))
	if sat, why := s.Saturated(); !sat || !strings.Contains(why, "utilization 1.00 against an offered load of 2.54") {
		t.Errorf("offered load 2.5 on one host: %+v, %v %s", s, sat, why)
	}
	// Keeps its utilization but its waits grow: two hosts, the jobs of
	// the last third wait long.
	for i := 0; i < 60; i++ {
		s := float64(100 * i)
		w := 0.0
		if i >= 40 {
			w = 200 * float64(i-39)
		}
		slow = append(slow, [3]float64{s, s + w, 10})
	}
	rows = rowsOf(slow...)
	s = SaturationOf(rows, Compute(rows, 2))
	if sat, why := s.Saturated(); !sat || !strings.Contains(why, "the queue grows") {
		t.Errorf("growing waits: %+v, %v %s", s, sat, why)
	}
	// A busy stretch the run recovers from: the waits peak in the fourth
	// fifth and fall back; the last fifth still waits more than twice the
	// first, but the queue does not grow through the whole run.
	var busy [][3]float64
	for i := 0; i < 100; i++ {
		s := float64(100 * i)
		w := 10.0
		switch {
		case i >= 60 && i < 80:
			w = 5000
		case i >= 80:
			w = 1000
		}
		busy = append(busy, [3]float64{s, s + w, 10})
	}
	rows = rowsOf(busy...)
	s = SaturationOf(rows, Compute(rows, 4))
	if sat, why := s.Saturated(); sat || s.MidWait != 5000 || s.LateWait != 1000 {
		t.Errorf("a busy stretch recovered from: %+v, %v %s", s, sat, why)
	}
	// Every job at once: no submission span, nothing to say.
	rows = rowsOf([3]float64{0, 0, 5}, [3]float64{0, 5, 5})
	if sat, _ := SaturationOf(rows, Compute(rows, 1)).Saturated(); sat {
		t.Error("a run without submission span flagged")
	}
}

func TestCompareAndSignedRank(t *testing.T) {
	c := Compare([]float64{110, 120, 90, 130}, []float64{100, 100, 100, 100}, FloorSeconds)
	if c.Up != 3 || c.Down != 1 || c.NearZero != 0 || c.ChangeText(1) != FmtEst(c.Change, 1, true)+" %" || c.SeedsText() != "[3/4]" {
		t.Errorf("Compare: %+v %q", c, c.SeedsText())
	}
	if c := Compare([]float64{5, 6}, []float64{0.5, 100}, FloorSeconds); c.NearZero != 1 || c.ChangeText(1) != NearZero || c.Sign() != -1 {
		t.Errorf("a seed over a near-zero base: %+v", c)
	}
	// A mean wait of a few seconds where jobs run for minutes (the
	// sensitivity plan's cores condition at quick scale): +8150 % over 4 s
	// is not a relative change to print.
	if c := Compare([]float64{330, 120}, []float64{4, 100}, FloorWait); c.NearZero != 1 || c.ChangeText(1) != NearZero {
		t.Errorf("a seed over a base of a few seconds: %+v", c)
	}
	// R: wilcox.test(x, y, paired = TRUE) on the depression data of its
	// documentation (Hollander & Wolfe): V = 40, p-value = 0.03906.
	x := []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}
	y := []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}
	d := make([]float64, len(x))
	for i := range x {
		d[i] = x[i] - y[i]
	}
	if w := WilcoxonSignedRank(d); w.WPlus != 40 || math.Abs(w.P-0.0390625) > 1e-12 || !w.Exact || w.N != 9 {
		t.Errorf("signed rank: %+v", w)
	}
	// Every seed the same way: p = 2/2ⁿ; ties and zeros.
	if w := WilcoxonSignedRank([]float64{1, 2, 3}); math.Abs(w.P-0.25) > 1e-12 {
		t.Errorf("3 positive differences: p = %v", w.P)
	}
	if w := WilcoxonSignedRank([]float64{0, 1, -1, 2, -2}); w.Zeros != 1 || w.N != 4 || w.WPlus != 5 || w.P != 1 {
		t.Errorf("symmetric differences with a zero: %+v", w)
	}
	if w := WilcoxonSignedRank(nil); w.P != 1 || w.N != 0 {
		t.Errorf("no difference: %+v", w)
	}
	// Above SignedRankExactMax, the normal approximation with the tie and
	// continuity corrections (R's exact = FALSE): 68 non-zero differences,
	// W+ = 1782, p = 0.000171474 (computed apart).
	big := make([]float64, 80)
	for i := range big {
		big[i] = float64(i%7) - 2
	}
	if w := WilcoxonSignedRank(big); w.Exact || w.N != 68 || w.WPlus != 1782 || math.Abs(w.P-0.00017147381458) > 1e-12 {
		t.Errorf("80 mostly positive differences: %+v", w)
	}
	if got := HolmRejects([]float64{0.01, 0.04, 0.03, 0.5}, 0.05); !got[0] || got[1] || got[2] || got[3] {
		t.Errorf("Holm: %v", got)
	}
	if got := HolmRejects([]float64{0.001, 0.012, 0.02}, 0.05); !got[0] || !got[1] || !got[2] {
		t.Errorf("Holm: %v", got)
	}
	b := Box([]float64{1, 2, 3, 4, 5, 6, 7, 8, 100})
	if b.Median != 5 || b.Q1 != 3 || b.Q3 != 7 || b.HiWhisker != 8 || b.OutHigh != 1 || b.OutHighMax != 100 || b.LowWhisker != 1 {
		t.Errorf("box: %+v", b)
	}
	pts := [][]float64{{1, 5}, {2, 6}, {3, 3}, {0, 1}, {3, 3}, {math.NaN(), 0}}
	// (3, 3) dominates (1, 5) and (2, 6); the two (3, 3) do not dominate
	// each other; (0, 1) has the lowest second objective.
	if got := ParetoFront(pts, []bool{true, false}); fmt.Sprint(got) != "[2 3 4]" {
		t.Errorf("front %v", got)
	}
}
