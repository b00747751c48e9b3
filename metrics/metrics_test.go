package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// ran is a job that ran on its hosts from start for exec seconds.
func ran(submit, start, exec float64, state string) Job {
	return Job{Submit: submit, State: state, Ran: true, Start: start, Exec: exec, Finish: start + exec,
		Wait: start - submit, Turnaround: start + exec - submit, Success: state == SuccessState}
}

// summaryOf adds the jobs and summarises them over the spans.
func summaryOf(jobs []Job, spans []Span, hosts int) Summary {
	acc := Acc{KeepWaits: true}
	for i := range jobs {
		acc.Add(&jobs[i])
	}
	return acc.Summary(BusyTime(spans, hosts), hosts)
}

// Compute sharing: on 2 hosts, A (10 s) and B (8 s) share host 0 from 0,
// C (8 s) runs alone on host 1. Host 0 is busy 0-10, host 1 0-8: busy
// host-time 18 s over 2 hosts × makespan 10 s = 0.9. Counting res ×
// execution (10 + 8 + 8 = 26 host-seconds) gave 1.3.
func TestUtilizationUnderSharing(t *testing.T) {
	jobs := []Job{ran(0, 0, 10, SuccessState), ran(0, 0, 8, SuccessState), ran(0, 0, 8, SuccessState)}
	spans := []Span{{0, 10, []int{0}}, {0, 8, []int{0}}, {0, 8, []int{1}}}
	s := summaryOf(jobs, spans, 2)
	if s.Busy != 18 || s.Makespan != 10 || s.Utilization != 0.9 {
		t.Errorf("busy %v, makespan %v, utilization %v; want 18, 10, 0.9", s.Busy, s.Makespan, s.Utilization)
	}
	old := (10 + 8 + 8) / (2 * 10.0)
	if old != 1.3 {
		t.Fatalf("res × execution over hosts × makespan: %v", old)
	}
}

// A preempted job: its killed piece ran 0-4 on host 0, its remainder,
// resubmitted at 4, ran 6-12 on host 0; another job ran 2-8 on host 1.
// The makespan counts from the first submission (0) to the last finish
// (12); host 0 is busy 0-4 and 6-12 (10 s), host 1 6 s: 16 / 24. Each
// piece is a job: the remainder waited 2 s, the killed piece 0 s, the
// other 2 s.
func TestUtilizationUnderPreemption(t *testing.T) {
	jobs := []Job{ran(0, 0, 4, KilledState), ran(4, 6, 6, SuccessState), ran(0, 2, 6, SuccessState)}
	spans := []Span{{0, 4, []int{0}}, {6, 12, []int{0}}, {2, 8, []int{1}}}
	s := summaryOf(jobs, spans, 2)
	if s.Makespan != 12 || s.Busy != 16 || s.Utilization != 16.0/24 || s.Killed != 1 || s.Ran != 3 || s.MeanWait != 4.0/3 {
		t.Errorf("%+v", s)
	}
}

// Hosts asleep count in the capacity: a job of 5 s on host 0 of 4 (the
// others off the whole run) uses 5 / (4 × 5) of it. Storage hosts (ids
// from 4 on) are not compute hosts: their time is left out.
func TestUtilizationCountsEveryComputeHost(t *testing.T) {
	jobs := []Job{ran(0, 0, 5, SuccessState)}
	s := summaryOf(jobs, []Span{{0, 5, []int{0, 4, 7}}}, 4)
	if s.Busy != 5 || s.Utilization != 0.25 {
		t.Errorf("busy %v, utilization %v; want 5, 0.25", s.Busy, s.Utilization)
	}
}

// The definitions, on jobs computed by hand: a rejected job counts in the
// first submission only, a killed job in the means, a job of zero
// execution out of the mean slowdown.
func TestSummaryDefinitions(t *testing.T) {
	jobs := []Job{
		{Submit: 1, State: RejectedState},
		ran(2, 2, 20, SuccessState),  // wait 0, turnaround 20, slowdown 1, bsld 1
		ran(2, 12, 5, WalltimeState), // wait 10, turnaround 15, slowdown 3, bsld 1.5
		ran(4, 30, 0, SuccessState),  // wait 26, turnaround 26, bsld 2.6
		ran(30, 30, 4, KilledState),  // wait 0, turnaround 4, slowdown 1, bsld 1
	}
	acc := Acc{}
	for i := range jobs {
		acc.Add(&jobs[i])
	}
	s := acc.Summary(29, 2)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"Jobs", float64(s.Jobs), 5}, {"Ran", float64(s.Ran), 4}, {"Rejected", float64(s.Rejected), 1},
		{"Success", float64(s.Success), 2}, {"Killed", float64(s.Killed), 2},
		{"FirstSubmit", s.FirstSubmit, 1}, {"LastFinish", s.LastFinish, 34}, {"Makespan", s.Makespan, 33},
		{"MeanWait", s.MeanWait, 36.0 / 4}, {"MaxWait", s.MaxWait, 26},
		{"MeanTurnaround", s.MeanTurnaround, 65.0 / 4},
		{"MeanSlowdown", s.MeanSlowdown, 5.0 / 3}, {"MaxSlowdown", s.MaxSlowdown, 3},
		{"MeanBSLD", s.MeanBSLD, (1 + 1.5 + 2.6 + 1) / 4}, {"Utilization", s.Utilization, 29.0 / 66},
	} {
		if !near(c.got, c.want, 1e-12) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if !math.IsNaN(s.MedianWait) || !math.IsNaN(s.P95Wait) {
		t.Errorf("median %v, p95 %v without KeepWaits: want NaN", s.MedianWait, s.P95Wait)
	}
	if u := acc.Summary(29, 0).Utilization; !math.IsNaN(u) {
		t.Errorf("utilization without hosts = %v, want NaN", u)
	}
	var none Acc
	e := none.Summary(0, 4)
	if e.Jobs != 0 || !math.IsNaN(e.Makespan) || !math.IsNaN(e.MeanWait) || !math.IsNaN(e.Utilization) || !math.IsNaN(e.FirstSubmit) {
		t.Errorf("no job: %+v", e)
	}
}

// bruteBusy counts busy host-time on a grid of unit steps (spans on
// integer times).
func bruteBusy(spans []Span, hosts int) float64 {
	busy := map[[2]int]bool{}
	for _, sp := range spans {
		for _, h := range sp.Hosts {
			if h < 0 || h >= hosts {
				continue
			}
			for t := int(sp.Start); t < int(sp.End); t++ {
				busy[[2]int{h, t}] = true
			}
		}
	}
	return float64(len(busy))
}

// checkBusy compares BusyTime with the grid count and with its bound.
func checkBusy(t *testing.T, spans []Span, hosts int) {
	t.Helper()
	want := bruteBusy(spans, hosts)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, sp := range spans {
		lo, hi = math.Min(lo, sp.Start), math.Max(hi, sp.End)
	}
	cp := append([]Span(nil), spans...)
	got := BusyTime(cp, hosts)
	if got != want {
		t.Fatalf("BusyTime = %v, want %v, of %v on %d hosts", got, want, spans, hosts)
	}
	if len(spans) > 0 && got > float64(hosts)*math.Max(0, hi-lo) {
		t.Fatalf("busy %v above %d hosts × %v", got, hosts, hi-lo)
	}
}

// BusyTime is the union of the spans on each host, whatever their order,
// nesting, overlaps and host ids (negative or past the compute hosts:
// left out).
func TestBusyTimeRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(44, 1))
	for range 2000 {
		hosts := 1 + r.IntN(4)
		spans := make([]Span, r.IntN(8))
		for i := range spans {
			s := float64(r.IntN(20))
			spans[i] = Span{Start: s, End: s + float64(r.IntN(10)) - 1}
			for range 1 + r.IntN(3) {
				spans[i].Hosts = append(spans[i].Hosts, r.IntN(hosts+2)-1)
			}
		}
		checkBusy(t, spans, hosts)
	}
}

func FuzzBusyTime(f *testing.F) {
	f.Add([]byte{0, 10, 0, 0, 8, 0, 0, 8, 1}, uint8(2)) // the sharing case above
	f.Add([]byte{5, 3, 0, 2, 2, 1, 0, 40, 9}, uint8(1)) // inverted, empty and out-of-range spans
	f.Fuzz(func(t *testing.T, b []byte, hosts uint8) {
		n := 1 + int(hosts%8)
		var spans []Span
		for i := 0; i+2 < len(b) && len(spans) < 64; i += 3 {
			spans = append(spans, Span{Start: float64(b[i] % 64), End: float64(b[i+1] % 64), Hosts: []int{int(b[i+2]%16) - 2}})
		}
		checkBusy(t, spans, n)
	})
}

func TestQuantile(t *testing.T) {
	xs := []float64{3, 1, 2, 10}
	if q := Quantile(xs, 0.5); q != 2.5 {
		t.Errorf("median %v", q)
	}
	if xs[0] != 3 {
		t.Error("Quantile sorted its argument")
	}
	if !math.IsNaN(Quantile(nil, 0.5)) {
		t.Error("quantile of nothing")
	}
}
