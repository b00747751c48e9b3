package rlscheduler

import (
	"context"
	"math"
	"strings"
	"testing"
)

// Under Batsim's rules on bucma's Lublin generator: FCFS without
// backfilling is the same strict order in both simulators, so its bsld and
// utilization equal the corrected mode's; smallest-first cannot backfill
// (a job that fits is never behind a smaller one that does not), so EASY
// changes nothing. (The engine's times carry Batsim's floating-point
// rounding: equal to 1e-6.)
func TestBatsimRules(t *testing.T) {
	jobs := lublinTrace(t, 1500)
	st, err := DrawStarts(len(jobs), 2, 300, 3)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := EvaluateBatsim(context.Background(), jobs, st, 300, []string{"FCFS", "SMALLEST"})
	if err != nil {
		t.Fatal(err)
	}
	cor, err := Evaluate(jobs, st, 300, []string{"FCFS"}, Corrected)
	if err != nil {
		t.Fatal(err)
	}
	for i := range st {
		b, c := tab.Windows[BatsimCell{"FCFS", "none"}][i], cor.Windows[Cell{"FCFS", false}][i]
		if math.Abs(b.BSLD-c.BSLD) > 1e-6*c.BSLD || math.Abs(b.Util-c.Util) > 1e-6 {
			t.Errorf("window %d: FCFS without backfilling: Batsim's rules %+v, the corrected simulator %+v", st[i], b, c)
		}
		if n, e := tab.Windows[BatsimCell{"SMALLEST", "none"}][i], tab.Windows[BatsimCell{"SMALLEST", "easy"}][i]; n != e {
			t.Errorf("window %d: smallest-first %+v without backfilling, %+v with EASY", st[i], n, e)
		}
	}
	for c, r := range tab.Cells {
		if !(r.BSLD >= 1) || !(r.Util > 0 && r.Util <= 1) {
			t.Errorf("%v: %+v", c, r)
		}
	}
}

func TestBatsimErrors(t *testing.T) {
	jobs := []Job{{ID: 1, Submit: 0, Run: 5, Req: 5, Procs: 1}}
	if _, err := BatsimWindow(context.Background(), jobs, "LJF", "easy", 4); err == nil || !strings.Contains(err.Error(), `no Batsim policy for heuristic "LJF"`) {
		t.Errorf("error %v", err)
	}
	if _, err := BatsimWindow(context.Background(), jobs, "FCFS", "greedy", 4); err == nil || !strings.Contains(err.Error(), "greedy") {
		t.Errorf("error %v", err)
	}
	if _, err := EvaluateBatsim(context.Background(), jobs, []int{1}, 1, []string{"FCFS"}); err == nil || !strings.Contains(err.Error(), "outside the trace") {
		t.Errorf("error %v", err)
	}
}
