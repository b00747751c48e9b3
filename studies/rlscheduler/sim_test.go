package rlscheduler

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/internal/papertrace"
	"github.com/bucma-sched/bucma/workloads"
)

// starts simulates jobs on nodes nodes and returns each job's start time.
func starts(t *testing.T, jobs []Job, o Options) []float64 {
	t.Helper()
	m, err := simulate(jobs, &o)
	if err != nil {
		t.Fatal(err)
	}
	return m.start
}

// swf makes a trace from "id submit run procs req" lines (req -1: none).
func swf(t *testing.T, lines ...string) []Job {
	t.Helper()
	var b strings.Builder
	b.WriteString("; a hand-made trace\n")
	for _, l := range lines {
		var id, submit, run, procs, req int
		if _, err := fmt.Sscan(l, &id, &submit, &run, &procs, &req); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		fmt.Fprintf(&b, "%d %d -1 %d %d -1 -1 -1 %d -1 1 -1 -1 -1 0 -1 -1 -1\n", id, submit, run, procs, req)
	}
	jobs, err := ReadSWF(strings.NewReader(b.String()), "hand.swf")
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

func wantStarts(t *testing.T, what string, got []float64, want ...float64) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: starts %v, want %v", what, got, want)
	}
}

// At an arrival tied with a release, the arrival comes first: with greedy
// backfilling, job 3 arriving at 10 when job 1 ends at 10 is backfilled
// before job 1's nodes are released, so job 2 waits for job 3.
func TestEventTieGoesToArrival(t *testing.T) {
	jobs := swf(t,
		"1 0 10 1 100", // ends at 10, reserved until 100
		"2 1 10 2 -1",  // needs both nodes: reservation at 100
		"3 10 1 1 -1")  // arrives when job 1 ends
	o := Compat("FCFS", true)
	o.Nodes = 2
	wantStarts(t, "tie to the arrival", starts(t, jobs, o), 0, 11, 10)
}

// The backfill condition is strict: a job ending exactly at the
// reservation time is not backfilled.
func TestBackfillStrict(t *testing.T) {
	o := Compat("FCFS", true)
	o.Nodes = 2
	// Job 3 would end at 10 + 90 = 100, the reservation: not backfilled.
	wantStarts(t, "ending at the reservation", starts(t, swf(t, "1 0 10 1 100", "2 1 10 2 -1", "3 10 90 1 -1"), o), 0, 10, 20)
	// One second shorter: backfilled, and job 2 waits for it.
	wantStarts(t, "ending before the reservation", starts(t, swf(t, "1 0 10 1 100", "2 1 10 2 -1", "3 10 89 1 -1"), o), 0, 99, 10)
}

// The reservation is computed once, when the chosen job first does not
// fit: after job 1 ends early (at 10 for 100 requested), job 4 is still
// backfilled against the reservation at 100, though one recomputed at 20
// would be job 2's end, 50.
func TestReservationNotRecomputed(t *testing.T) {
	jobs := swf(t,
		"1 0 10 1 100",
		"2 0 50 1 50",
		"3 1 10 3 -1",
		"4 20 60 1 60")
	o := Compat("FCFS", true)
	o.Nodes = 3
	wantStarts(t, "fixed reservation", starts(t, jobs, o), 0, 0, 80, 20)
}

// Without backfilling, the chosen job waits and is not re-chosen when a
// better job arrives; the others wait behind it.
func TestNoBackfillChosenNotRechosen(t *testing.T) {
	jobs := swf(t, "1 0 10 1 -1", "2 1 100 1 -1", "3 2 1 1 -1")
	o := Compat("SJF", false)
	o.Nodes = 1
	wantStarts(t, "SJF without backfilling", starts(t, jobs, o), 0, 10, 110)
}

// The defect: WFP3 and UNI take the wait as -1 - submit. WFP3 then
// prefers the earliest submitted, longest jobs, where the real wait
// prefers the job that has waited longest for its length; UNI sorts
// one-processor jobs last (log2 of 1 is 0), where the real wait sorts them
// first.
func TestWaitDefect(t *testing.T) {
	for _, c := range []struct {
		heuristic        string
		nodes            int
		jobs             []string
		defect, realWait []float64
	}{
		{"WFP3", 1, []string{"1 0 10 1 -1", "2 1 10 1 -1", "3 2 100 1 -1", "4 3 1 1 -1"}, []float64{0, 10, 20, 120}, []float64{0, 10, 21, 20}},
		{"UNI", 2, []string{"1 0 10 2 -1", "2 1 10 2 -1", "3 2 10 1 -1", "4 3 10 2 -1"}, []float64{0, 10, 30, 20}, []float64{0, 10, 20, 30}},
	} {
		jobs := swf(t, c.jobs...)
		o := Compat(c.heuristic, false)
		o.Nodes = c.nodes
		wantStarts(t, c.heuristic+" with the defect", starts(t, jobs, o), c.defect...)
		o.Defect = DefectNone
		wantStarts(t, c.heuristic+" with the real wait", starts(t, jobs, o), c.realWait...)
	}
}

// The bounded slowdown has a 10 s threshold and a floor of 1; the paper's
// utilization ends at the last start, the corrected one at the last finish.
func TestMetrics(t *testing.T) {
	// Job 1 runs 0-2; job 2 (run 2) waits 18 s: bsld 20/10 = 2; job 1: 1.
	jobs := swf(t, "1 0 20 1 -1", "2 2 2 1 -1")
	o := Compat("FCFS", false)
	o.Nodes = 1
	r, err := Window(jobs, o)
	if err != nil {
		t.Fatal(err)
	}
	if want := (1 + 2.0) / 2; r.BSLD != want {
		t.Errorf("bsld %v, want %v", r.BSLD, want)
	}
	if want := (20 + 2.0) / 20; r.Util != want {
		t.Errorf("utilization to the last start %v, want %v", r.Util, want)
	}
	o.End = EndLastFinish
	if r, _ = Window(jobs, o); r.Util != 1 {
		t.Errorf("utilization to the last finish %v, want 1", r.Util)
	}
}

// ReadSWF: procs = max(fields 5, 8), requested time = field 9 or the run
// time, a negative run time becomes 10, run time 0 is dropped, jobs sorted
// by id.
func TestReadSWF(t *testing.T) {
	in := "; header\n" +
		"3 30 -1 5 -1 -1 -1 4 -1 -1 1 -1 -1 -1 0 -1 -1 -1\n" +
		"1 10 -1 0 2 -1 -1 -1 -1 -1 1 -1 -1 -1 0 -1 -1 -1\n" +
		"2 20 -1 -5 2 -1 -1 8 -1 -1 1 -1 -1 -1 0 -1 -1 -1\n" +
		"4 40 -1 7 3 -1 -1 1 60 -1 1 -1 -1 -1 0 -1 -1 -1\n"
	jobs, err := ReadSWF(strings.NewReader(in), "t.swf")
	if err != nil {
		t.Fatal(err)
	}
	want := []Job{{ID: 2, Submit: 20, Run: 10, Req: 10, Procs: 8}, {ID: 3, Submit: 30, Run: 5, Req: 5, Procs: 4}, {ID: 4, Submit: 40, Run: 7, Req: 60, Procs: 3}}
	if fmt.Sprint(jobs) != fmt.Sprint(want) {
		t.Errorf("jobs %v, want %v", jobs, want)
	}
}

func TestReadSWFErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"1 2 3\n", "t.swf:1: 3 fields"},
		{"; h\n1 x -1 5 1 -1 -1 -1 -1\n", `t.swf:2: field 2 "x" is not a number`},
		{"1 0 -1 5 -1 -1 -1 -1 -1\n", "t.swf:1: job 1: no processor count"},
		{"1 0 -1 5 1 -1 -1 -1 -7\n", "t.swf:1: job 1: requested time (field 9) -7"},
		{"1 -3 -1 5 1 -1 -1 -1 -1\n", "t.swf:1: job 1: submit time (field 2) -3"},
		{"1 0 -1 5 1 -1 -1 -1 -1\n1 1 -1 5 1 -1 -1 -1 -1\n", "job id 1 appears twice"},
		{"1.5 0 -1 5 1 -1 -1 -1 -1\n", "job id \"1.5\" is not an integer"},
		{"1 0 -1 NaN 1 -1 -1 -1 -1\n", "field 4 \"NaN\" is not a number"},
		{"1 0 -1 5 1e300 -1 -1 -1 -1\n", "t.swf:1: job 1: 1e+300 processors (fields 5 and 8): too many"},
		{"1e300 0 -1 5 1 -1 -1 -1 -1\n", "job id \"1e300\" is not an integer"},
	} {
		_, err := ReadSWF(strings.NewReader(c.in), "t.swf")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.in, err, c.want)
		}
	}
}

func TestWindowErrors(t *testing.T) {
	jobs := []Job{{ID: 1, Submit: 0, Run: 1, Req: 1, Procs: 300}}
	if _, err := Window(jobs, Compat("FCFS", false)); err == nil || !strings.Contains(err.Error(), "job 1 asks for 300 processors: want 1 to 256") {
		t.Errorf("error %v", err)
	}
	if _, err := Window(nil, Compat("FCFS", false)); err == nil {
		t.Error("empty window: no error")
	}
	if _, err := Window(jobs, Compat("LJF", false)); err == nil || !strings.Contains(err.Error(), `unknown heuristic "LJF"`) {
		t.Errorf("error %v", err)
	}
	if _, err := Evaluate(jobs, []int{1}, 1, Heuristics, Compat); err == nil || !strings.Contains(err.Error(), "window [1, 2) is outside the trace's 1 jobs") {
		t.Errorf("error %v", err)
	}
}

// lublinTrace is bucma's own Lublin generator's trace on 256 nodes, read
// back as the paper's simulator reads SWF.
func lublinTrace(t *testing.T, n int) []Job {
	t.Helper()
	tr, err := workloads.GenerateLublin(workloads.LublinOptions{Jobs: n, Seed: 1, Hosts: 256, Load: 0.8})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := tr.WriteSWF(&b); err != nil {
		t.Fatal(err)
	}
	jobs, err := ReadSWF(&b, "lublin.swf")
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

// On bucma's Lublin generator: every schedule respects the machine and the
// submit times, FCFS without backfilling starts jobs in submit order, the
// defect only changes WFP3 and UNI, and the utilization to the last finish
// is at most the one to the last start.
func TestGeneratedLublin(t *testing.T) {
	jobs := lublinTrace(t, 3000)
	st, err := DrawStarts(len(jobs), 3, 512, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range Heuristics {
		for _, bf := range []bool{false, true} {
			for _, s := range st {
				w := jobs[s : s+512]
				o := Compat(h, bf)
				m, err := simulate(w, &o)
				if err != nil {
					t.Fatal(err)
				}
				checkSchedule(t, fmt.Sprintf("%s backfill=%v window %d", h, bf, s), w, m.start, 256)
				if h == "FCFS" && !bf {
					for i := 1; i < len(w); i++ {
						if m.start[i] < m.start[i-1] {
							t.Fatalf("FCFS without backfilling: job %d starts before job %d", w[i].ID, w[i-1].ID)
						}
					}
				}
				compat, corrected := m.result(o), m.result(Corrected(h, bf))
				if corrected.Util > compat.Util {
					t.Errorf("%s: utilization to the last finish %v > to the last start %v", h, corrected.Util, compat.Util)
				}
				c, _ := Window(w, Corrected(h, bf))
				if h != "WFP3" && h != "UNI" && c.BSLD != compat.BSLD {
					t.Errorf("%s: bsld %v corrected, %v with the defect: the defect is only WFP3's and UNI's", h, c.BSLD, compat.BSLD)
				}
			}
		}
	}
	// Deterministic: the same starts and the same table.
	a, _ := Evaluate(jobs, st, 512, []string{"WFP3"}, Corrected)
	b, _ := Evaluate(jobs, st, 512, []string{"WFP3"}, Corrected)
	if fmt.Sprint(a.Cells) != fmt.Sprint(b.Cells) {
		t.Error("two evaluations differ")
	}
}

// checkSchedule checks that no job starts before its submission and that
// the jobs running at any start never exceed the machine.
func checkSchedule(t *testing.T, what string, w []Job, start []float64, nodes int) {
	t.Helper()
	for i, j := range w {
		if start[i] < j.Submit {
			t.Fatalf("%s: job %d starts at %v before its submission %v", what, j.ID, start[i], j.Submit)
		}
		used := 0
		for k, o := range w {
			if start[k] <= start[i] && start[i] < start[k]+o.Run {
				used += o.Procs
			}
		}
		if used > nodes {
			t.Fatalf("%s: %d processors in use at %v", what, used, start[i])
		}
	}
}

// paperTrace is RLScheduler's Lublin-1 trace, not shipped (package
// papertrace finds it).
func paperTrace(t *testing.T) []Job {
	t.Helper()
	path := papertrace.Lublin1OrSkip(t)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	jobs, err := ReadSWF(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

// The compatibility mode prints the paper's 20 Lublin-1 cells to the
// printed digits, and the corrected mode the real WFP3 and UNI.
func TestPaperLublin1(t *testing.T) {
	jobs := paperTrace(t)
	if len(jobs) != PaperJobs {
		t.Fatalf("%d jobs, want %d", len(jobs), PaperJobs)
	}
	tab, err := Evaluate(jobs, PaperStarts, PaperWindowJobs, Heuristics, Compat)
	if err != nil {
		t.Fatal(err)
	}
	for c, p := range Published["lublin-1"] {
		r := tab.Cells[c]
		if got, want := fmt.Sprintf("%.2f %.3f", r.BSLD, r.Util), fmt.Sprintf("%.2f %.3f", p.BSLD, p.Util); got != want {
			t.Errorf("%s backfill=%v: %s, published %s", c.Heuristic, c.Backfill, got, want)
		}
	}
	// The other scores, as this mode prints them.
	other := map[Cell]string{
		{"F2", false}: "268.47 0.797", {"F3", false}: "341.77 0.755", {"F4", false}: "289.57 0.692", {"SMALLEST", false}: "304.64 0.812",
		{"F2", true}: "58.24 0.835", {"F3", true}: "58.49 0.822", {"F4", true}: "53.64 0.793", {"SMALLEST", true}: "86.36 0.833",
	}
	for c, want := range other {
		if r := tab.Cells[c]; fmt.Sprintf("%.2f %.3f", r.BSLD, r.Util) != want {
			t.Errorf("%s backfill=%v: %.2f %.3f, want %s", c.Heuristic, c.Backfill, r.BSLD, r.Util, want)
		}
	}
	cor, err := Evaluate(jobs, PaperStarts, PaperWindowJobs, []string{"FCFS", "WFP3", "UNI"}, Corrected)
	if err != nil {
		t.Fatal(err)
	}
	for c, want := range map[Cell]string{
		{"WFP3", false}: "337.34", {"UNI", false}: "381.71", {"FCFS", false}: "7273.77",
	} {
		if got := fmt.Sprintf("%.2f", cor.Cells[c].BSLD); got != want {
			t.Errorf("corrected %s: bsld %s, want %s", c.Heuristic, got, want)
		}
	}
	for bf, want := range map[bool]string{false: "0.647", true: "0.851"} {
		if got := fmt.Sprintf("%.3f", cor.Cells[Cell{"FCFS", bf}].Util); got != want {
			t.Errorf("FCFS backfill=%v utilization to the last finish %s, want %s", bf, got, want)
		}
	}
}

// Any trace ReadSWF accepts simulates without a panic or a hang, its
// windows under every heuristic giving a bsld of at least 1 or an error.
func FuzzReadSWFWindow(f *testing.F) {
	f.Add("1 0 -1 10 1 -1 -1 -1 -1\n2 5 -1 3 2 -1 -1 -1 0\n3 5 -1 -4 -1 -1 -1 4 7\n", uint8(2))
	f.Add("; h\n2 9 -1 1 300 -1 -1 -1 -1\n1 9 -1 1e9 1 -1 -1 -1 -1\n", uint8(1))
	f.Add("5 1e18 -1 1 1 -1 -1 -1 0\n6 0 -1 0 1 -1 -1 -1 -1\n7 3 -1 2 2 -1 -1 -1 1e-9\n", uint8(0))
	f.Fuzz(func(t *testing.T, in string, nodes uint8) {
		jobs, err := ReadSWF(strings.NewReader(in), "f.swf")
		if err != nil || len(jobs) == 0 || len(jobs) > 64 {
			return
		}
		for _, h := range Heuristics {
			for _, bf := range []bool{false, true} {
				for _, mode := range []func(string, bool) Options{Compat, Corrected} {
					o := mode(h, bf)
					o.Nodes = int(nodes%8) + 1
					if r, err := Window(jobs, o); err == nil && !(r.BSLD >= 1) {
						t.Fatalf("%s backfill=%v: bsld %v", h, bf, r.BSLD)
					}
				}
			}
		}
	})
}
