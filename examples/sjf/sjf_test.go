package sjf_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/bucma-sched/bucma/examples/sjf"
	"github.com/bucma-sched/bucma/testkit"
	"github.com/bucma-sched/bucma/testkit/batsimrun"
)

// handState: four hosts, host 0 busy; c (3 hosts, W 5), b (1, W 10), a
// (2, W 100) and d (1, no walltime) wait.
func handState(t testing.TB) *testkit.Hand {
	h, err := testkit.NewState(testkit.StateSpec{Now: 20, Hosts: testkit.Hosts(1, 1, 1, 1),
		Running: []testkit.Running{{Job: testkit.Job{Name: "r", Res: 1, Walltime: 1000}, Hosts: []int{0}}},
		Waiting: []testkit.Job{
			{Name: "a", Submit: 1, Res: 2, Walltime: 100},
			{Name: "b", Submit: 2, Res: 1, Walltime: 10},
			{Name: "c", Submit: 3, Res: 3, Walltime: 5},
			{Name: "d", Submit: 4, Res: 1},
		}})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// The shortest job, c, takes the three free hosts; nothing else fits.
func TestShortestFirst(t *testing.T) {
	spec := sjf.Spec()
	p, err := spec.Build(nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := handState(t).Decide(p)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[X c 1-3]" {
		t.Fatalf("decisions %q, want [X c 1-3]", got)
	}
}

// Through the stand-in Batsim: b (W 10) goes before a (W 100) although a
// came first; the job without walltime goes last.
func TestScenario(t *testing.T) {
	spec := sjf.Spec()
	got := testkit.Run(t, testkit.Scenario{Spec: &spec, Speeds: []float64{1}, Jobs: []testkit.Job{
		{Name: "x", Submit: 0, Res: 1, Walltime: 50, Run: 50},
		{Name: "a", Submit: 1, Res: 1, Walltime: 100, Run: 100},
		{Name: "n", Submit: 1, Res: 1, Run: 5},
		{Name: "b", Submit: 2, Res: 1, Walltime: 10, Run: 10},
	}})
	testkit.CheckStarts(t, got, map[string]testkit.Start{
		"x": {At: 0, Alloc: "0"}, "b": {At: 50, Alloc: "0"}, "a": {At: 60, Alloc: "0"}, "n": {At: 160, Alloc: "0"},
	})
}

// The bundled Lille platform and tiny workload through the embedded
// engine and through the real Batsim (where installed): the same
// _jobs.csv.
func TestSameAsBatsim(t *testing.T) {
	spec := sjf.Spec()
	rows := batsimrun.SameAsEngine(t, &spec, nil, filepath.Join("..", "..", "platforms", "lille.xml"), filepath.Join("..", "..", "workloads", "tiny.json"))
	if len(rows) != 20 {
		t.Fatalf("%d jobs, want 20", len(rows))
	}
}

// A policy's decision on a hand-built state.
func Example() {
	h, _ := testkit.NewState(testkit.StateSpec{Now: 20, Hosts: testkit.Hosts(1, 1, 1),
		Waiting: []testkit.Job{
			{Name: "long", Submit: 1, Res: 2, Walltime: 100},
			{Name: "short", Submit: 2, Res: 2, Walltime: 10},
		}})
	spec := sjf.Spec()
	p, _ := spec.Build(nil)
	got, _ := h.Decide(p)
	fmt.Println(got)
	// Output: [X short 0-1]
}
