package expe

import (
	"math"
	"strings"
	"testing"
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

// rowsOf makes jobs of one host each: (submit, start, execution).
func rowsOf(jobs ...[3]float64) []JobRow {
	var out []JobRow
	for i, j := range jobs {
		out = append(out, JobRow{ID: string(rune('a' + i%26)), Res: 1, HasTimes: true, Success: true, FinalState: SuccessState,
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
	if sat, why := s.Saturated(); !sat || !strings.Contains(why, "the queue grows: mean wait 95 s in the first third") {
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
	// Every job at once: no submission span, nothing to say.
	rows = rowsOf([3]float64{0, 0, 5}, [3]float64{0, 5, 5})
	if sat, _ := SaturationOf(rows, Compute(rows, 1)).Saturated(); sat {
		t.Error("a run without submission span flagged")
	}
}

func TestSizeClassAndHistogram(t *testing.T) {
	for res, want := range map[int]string{0: "1", 1: "1", 2: "2-4", 4: "2-4", 5: "5-16", 64: "17-64", 256: "65-256", 1000: "257+"} {
		if got := SizeClass(res); got != want {
			t.Errorf("SizeClass(%d) = %s, want %s", res, got, want)
		}
	}
	h := histogram([]float64{0, 0, 0.5, 1, 1e3, 1e9}, waitEdges)
	if h[0] != 2 || h[1] != 2 || h[len(h)-1] != 1 || h[sortSearch(waitEdges, 1e3)] != 1 {
		t.Errorf("histogram %v", h)
	}
	total := 0
	for _, n := range h {
		total += n
	}
	if total != 6 {
		t.Errorf("%d values counted", total)
	}
}

func sortSearch(edges []float64, v float64) int {
	for i, e := range edges {
		if e >= v {
			return i
		}
	}
	return len(edges)
}
