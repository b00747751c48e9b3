package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/metrics"
)

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
	p, err := expe.ParsePlanFile([]byte(`name: synth
platform: lille
workload: {generator: lille, jobs: 100}
loads: [0.8]
seeds: 1-3
variants:
  - {name: base, policy: fcfs}
  - {name: other, policy: easy}
  - {name: third, policy: minmin}
baseline: base
`), expe.PlanFileOptions{Name: "synth.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	a := &Analysis{Dir: dir, Plan: p, Hosts: 39, Runs: map[string]*RunData{}}
	if err := os.MkdirAll(filepath.Join(dir, FigDir), 0o755); err != nil {
		t.Fatal(err)
	}
	kept := analysis.Saturation{Offered: 0.8, Utilization: 0.78, EarlyWait: 10, LateWait: 12, MeanExec: 100}
	for _, r := range p.Expand() {
		f := float64(r.Seed)
		m := analysis.Metrics{Jobs: 100, Ran: 100, MeanWait: 100 + f, MeanTurnaround: 200 + f, MeanBSLD: 2, MeanSlowdown: 2, Utilization: 0.78, Makespan: 1e4, Hosts: 39}
		sat := kept
		switch r.Variant.Name {
		case "base":
			m.MeanWait = 0.4
			sat = analysis.Saturation{Offered: 0.8, Utilization: 0.3, EarlyWait: 10, LateWait: 9000, MeanExec: 100}
		case "third":
			m.MeanWait = 2.4 + 0.1*f // above the base on every seed: +2.1, +2.2, +2.3 s
		}
		a.Runs[r.ID] = &RunData{Run: r, Metrics: m, Saturation: sat,
			Extra: &compareRun{WaitHist: make([]int, len(waitEdges)+1), BSLDHist: make([]int, len(bsldEdges)+1), BySize: map[string]analysis.GroupStats{}, ByUser: map[string]analysis.GroupStats{}}}
	}
	rep := New(a)
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
	if !strings.Contains(other[2], analysis.NearZero) || !strings.Contains(other[2], "[3/3]*"+analysis.SaturatedMark) {
		t.Errorf("other's waiting difference: %q", other[2])
	}
	if third := line("| third |"); !strings.Contains(third[2], "+2 ± 0 ("+analysis.NearZero+") [3/3]*"+analysis.SaturatedMark) {
		t.Errorf("third's waiting difference: %q", third[2])
	}
	// Turnaround (third column) is the same for both on every seed, and
	// so are the counts of rejected and killed jobs, 0 everywhere (the
	// last two columns): no "+0.0 ± 0.0 (n/a (base ≈ 0)) [3/3 at 0]".
	for _, i := range []int{4, 7, 8} {
		if strings.TrimSpace(other[i]) != "0 on each of the 3 seeds"+analysis.SaturatedMark {
			t.Errorf("column %d: %q, want the same value on each seed", i, other[i])
		}
	}
	if strings.Contains(text, "± 0.0 ("+analysis.NearZero+")") || strings.Contains(text, "[3/3 at 0]") {
		t.Errorf("a difference of 0 ± 0 printed in full:\n%s", text)
	}
	if m := regexp.MustCompile(`[+-][0-9]{4,}(\.[0-9]+)? (± [0-9.]+ )?%`).FindString(text); m != "" {
		t.Errorf("a relative difference over the 0.4 s base: %q", m)
	}
}

// Without users (no "user" field, or SWF's -1 that "bucma workload
// from-swf" and "lublin" copy from a trace without users) the comparison
// report has no "By user" table of one user; asked for by the plan, a
// sentence says why there is none.
func TestComparisonReportWithoutUsers(t *testing.T) {
	// Three jobs on host 0: (submit, start, execution) (0, 0, 10), (0,
	// 10, 10), (5, 20, 5).
	job := func(id string, submit, start, exec float64) analysis.JobRow {
		return analysis.JobRow{ID: id, Res: 1, Alloc: "0", HasTimes: true, Success: true, FinalState: metrics.SuccessState,
			Submit: submit, Start: start, Exec: exec, Finish: start + exec, Wait: start - submit, Turnaround: start + exec - submit}
	}
	rows := []analysis.JobRow{job("a", 0, 0, 10), job("b", 0, 10, 10), job("c", 5, 20, 5)}
	in := &RunInput{Rows: rows, Jobs: map[string]analysis.JobInfo{"a": {User: "-1"}, "b": {User: "-1"}, "c": {}}}
	for _, breakdowns := range []string{"", "report: {breakdowns: [user]}\n"} {
		p, err := expe.ParsePlanFile([]byte("name: nousers\nplatform: lille\nworkload: {generator: lille, jobs: 3}\nloads: [0.8]\nseeds: 1-2\n"+
			"variants:\n  - {name: a, policy: fcfs}\n  - {name: b, policy: easy}\n"+breakdowns), expe.PlanFileOptions{Name: "nousers.yaml"})
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, FigDir), 0o755); err != nil {
			t.Fatal(err)
		}
		a := &Analysis{Dir: dir, Plan: p, Hosts: 39, Runs: map[string]*RunData{}}
		for _, r := range p.Expand() {
			rd := &RunData{Run: r, Metrics: analysis.Compute(rows, 39)}
			if err := compareReadRun(a, in, rd); err != nil {
				t.Fatal(err)
			}
			if u := cmp(rd).ByUser; len(u) != 1 || u[NoUser].Jobs != 3 {
				t.Fatalf("users of a workload without users: %v", u)
			}
			a.Runs[r.ID] = rd
		}
		rep := New(a)
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
