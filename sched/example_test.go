package sched_test

import (
	"fmt"

	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit"
)

// A policy made of the building blocks: jobs by area (walltime × hosts),
// ascending, EASY backfilling, first-fit hosts. The KeyOrder is indexed by
// the framework, so a decision walks it without sorting the queue.
func ExampleComposite() {
	area := sched.NewKeyOrder("area", func(j *sched.Job) float64 { return j.WalltimeOrInf() * float64(j.Res()) })
	p := &sched.Composite{Order: area, Rule: sched.EASY{}, Hosts: sched.FirstFit{}}

	h, _ := testkit.NewState(testkit.StateSpec{Now: 5, Hosts: testkit.Hosts(1, 1, 1, 1), Waiting: []testkit.Job{
		{Name: "big", Submit: 1, Res: 3, Walltime: 100},  // area 300
		{Name: "small", Submit: 2, Res: 2, Walltime: 50}, // area 100: first
	}})
	got, _ := h.Decide(p)
	fmt.Println(got)
	// Output: [X small 0-1]
}

// A registry holds the policies a program offers; Lookup checks a name and
// Build the options, before any simulation.
func ExampleRegistry() {
	reg := sched.NewRegistry()
	reg.Add(sched.BaseSpec("fcfs", "first come, first served",
		sched.Base{Order: sched.FCFSOrder{}, Rule: sched.Blocking{}}))
	spec, _ := reg.Lookup("fcfs")
	_, err := spec.Build(sched.Options{"hosts": "first-fit"})
	fmt.Println(reg.Names(), err)
	_, err = spec.Build(sched.Options{"hosts": "slowest"})
	fmt.Println(err)
	// Output:
	// [fcfs] <nil>
	// scheduler fcfs: option hosts="slowest": valid values are fastest, first-fit, own-fastest
}

// A policy that decides by itself: start the waiting jobs of the user with
// the most jobs waiting, oldest first, while they fit.
type busiestUser struct{}

func (busiestUser) Decide(s *sched.State, d *sched.Decider) {
	count := map[string]int{}
	for _, j := range s.Waiting() {
		if j.Waiting() {
			count[j.User()]++
		}
	}
	best := ""
	for u, n := range count {
		if n > count[best] || (n == count[best] && u < best) {
			best = u
		}
	}
	for _, j := range s.WaitingCopy() {
		if j.User() == best && j.Res() <= s.NbFree() {
			d.Start(j, sched.FirstFit{}.Select(s, j, j.Res()))
		}
	}
}

func ExamplePolicy() {
	h, _ := testkit.NewState(testkit.StateSpec{Hosts: testkit.Hosts(1, 1), Waiting: []testkit.Job{
		{Name: "a1", Res: 1, User: "ann"}, {Name: "b1", Res: 1, User: "bob"}, {Name: "b2", Res: 1, User: "bob"},
	}})
	got, err := h.Decide(busiestUser{})
	fmt.Println(got, err)
	// Output: [X b1 0 X b2 1] <nil>
}
