package expe

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
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

// rowsOf makes jobs of one host each, host 0: (submit, start, execution).
func rowsOf(jobs ...[3]float64) []JobRow {
	var out []JobRow
	for i, j := range jobs {
		out = append(out, JobRow{ID: string(rune('a' + i%26)), Res: 1, Alloc: "0", HasTimes: true, Success: true, FinalState: SuccessState,
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

// The comparison report refuses a relative difference over a near-zero
// base, says how many seeds back each sign, and marks what involves a
// saturated run: a synthetic analysis where the baseline waits 0.4 s and
// saturates.
func TestComparisonReportNearZeroAndSaturation(t *testing.T) {
	p, err := ParsePlanFile([]byte(`name: synth
platform: lille
workload: {generator: lille, jobs: 100}
loads: [0.8]
seeds: 1-3
variants:
  - {name: base, policy: fcfs}
  - {name: other, policy: easy}
  - {name: third, policy: minmin}
baseline: base
`), PlanFileOptions{Name: "synth.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	a := &Analysis{Dir: dir, Plan: p, Hosts: 39, Runs: map[string]*RunData{}}
	if err := os.MkdirAll(filepath.Join(dir, FigDir), 0o755); err != nil {
		t.Fatal(err)
	}
	kept := Saturation{Offered: 0.8, Utilization: 0.78, EarlyWait: 10, LateWait: 12, MeanExec: 100}
	for _, r := range p.Expand() {
		f := float64(r.Seed)
		m := Metrics{Jobs: 100, Ran: 100, MeanWait: 100 + f, MeanTurnaround: 200 + f, MeanBSLD: 2, MeanSlowdown: 2, Utilization: 0.78, Makespan: 1e4, Hosts: 39}
		sat := kept
		switch r.Variant.Name {
		case "base":
			m.MeanWait = 0.4
			sat = Saturation{Offered: 0.8, Utilization: 0.3, EarlyWait: 10, LateWait: 9000, MeanExec: 100}
		case "third":
			m.MeanWait = 2.4 + 0.1*f // above the base on every seed: +2.1, +2.2, +2.3 s
		}
		a.Runs[r.ID] = &RunData{Run: r, Metrics: m, Saturation: sat,
			Extra: &compareRun{WaitHist: make([]int, len(waitEdges)+1), BSLDHist: make([]int, len(bsldEdges)+1), BySize: map[string]GroupStats{}, ByUser: map[string]GroupStats{}}}
	}
	rep := NewReport(a)
	if err := ComparisonStudy().Report(rep); err != nil {
		t.Fatal(err)
	}
	text := rep.Text()
	// line is the last line starting with prefix (the differences table
	// comes after the means).
	line := func(prefix string) []string {
		var out []string
		for _, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(l, prefix) && strings.Contains(l, " ± ") {
				out = strings.Split(l, "|")
			}
		}
		if out == nil {
			t.Fatalf("no line %q in\n%s", prefix, text)
		}
		return out
	}
	// Means: the baseline saturated on every seed.
	if means := line("| base | `fcfs` | 3 |"); !strings.Contains(means[len(means)-2], "**yes**, 3 of 3 runs") {
		t.Errorf("baseline not flagged: %v", means)
	}
	// Differences: waiting (first metric) over the 0.4 s base.
	other := line("| other |")
	if !strings.Contains(other[2], NearZero) || !strings.Contains(other[2], "[3/3]*"+SaturatedMark) {
		t.Errorf("other's waiting difference: %q", other[2])
	}
	if third := line("| third |"); !strings.Contains(third[2], "+2 ± 0 ("+NearZero+") [3/3]*"+SaturatedMark) {
		t.Errorf("third's waiting difference: %q", third[2])
	}
	// Turnaround (third column) is the same for both on every seed, and
	// so are the counts of rejected and killed jobs, 0 everywhere (the
	// last two columns): no "+0.0 ± 0.0 (n/a (base ≈ 0)) [3/3 at 0]".
	for _, i := range []int{4, 7, 8} {
		if strings.TrimSpace(other[i]) != "0 on each of the 3 seeds"+SaturatedMark {
			t.Errorf("column %d: %q, want the same value on each seed", i, other[i])
		}
	}
	if strings.Contains(text, "± 0.0 ("+NearZero+")") || strings.Contains(text, "[3/3 at 0]") {
		t.Errorf("a difference of 0 ± 0 printed in full:\n%s", text)
	}
	if m := regexp.MustCompile(`[+-][0-9]{4,}(\.[0-9]+)? (± [0-9.]+ )?%`).FindString(text); m != "" {
		t.Errorf("a relative difference over the 0.4 s base: %q", m)
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

// Without users (no "user" field, or SWF's -1 that "bucma workload
// from-swf" and "lublin" copy from a trace without users) the comparison
// report has no "By user" table of one user; asked for by the plan, a
// sentence says why there is none.
func TestComparisonReportWithoutUsers(t *testing.T) {
	rows := rowsOf([3]float64{0, 0, 10}, [3]float64{0, 10, 10}, [3]float64{5, 20, 5})
	in := &RunInput{Rows: rows, Jobs: map[string]JobInfo{"a": {User: "-1"}, "b": {User: "-1"}, "c": {}}}
	for _, breakdowns := range []string{"", "report: {breakdowns: [user]}\n"} {
		p, err := ParsePlanFile([]byte("name: nousers\nplatform: lille\nworkload: {generator: lille, jobs: 3}\nloads: [0.8]\nseeds: 1-2\n"+
			"variants:\n  - {name: a, policy: fcfs}\n  - {name: b, policy: easy}\n"+breakdowns), PlanFileOptions{Name: "nousers.yaml"})
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, FigDir), 0o755); err != nil {
			t.Fatal(err)
		}
		a := &Analysis{Dir: dir, Plan: p, Hosts: 39, Runs: map[string]*RunData{}}
		for _, r := range p.Expand() {
			rd := &RunData{Run: r, Metrics: Compute(rows, 39)}
			if err := compareReadRun(a, in, rd); err != nil {
				t.Fatal(err)
			}
			if u := cmp(rd).ByUser; len(u) != 1 || u[NoUser].Jobs != 3 {
				t.Fatalf("users of a workload without users: %v", u)
			}
			a.Runs[r.ID] = rd
		}
		rep := NewReport(a)
		if err := ComparisonStudy().Report(rep); err != nil {
			t.Fatal(err)
		}
		text := rep.Text()
		if strings.Contains(text, "| -1 |") || strings.Contains(text, "| "+NoUser+" |") {
			t.Errorf("a user table without users:\n%s", text)
		}
		asked := breakdowns != ""
		if got := strings.Contains(text, "No job of the workload names a user"); got != asked || strings.Contains(text, "By user") != asked {
			t.Errorf("breakdowns %q: the sentence without users %v, want %v:\n%s", breakdowns, got, asked, text)
		}
		if size := strings.Contains(text, "By job size"); size == asked {
			t.Errorf("breakdowns %q: by job size shown %v", breakdowns, size)
		}
	}
}
