package testkit_test

import (
	"fmt"

	"github.com/bucma-sched/bucma/policies/basic"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit"
)

// A hand-built state: a policy's decision at one instant.
func ExampleNewState() {
	reg := sched.NewRegistry()
	basic.Register(reg)
	spec, _ := reg.Lookup("easy")
	p, _ := spec.Build(sched.Options{"hosts": "first-fit"})
	h, _ := testkit.NewState(testkit.StateSpec{Now: 10, Hosts: testkit.Hosts(1, 1, 1),
		Running: []testkit.Running{{Job: testkit.Job{Name: "r", Res: 2, Walltime: 100}, Hosts: []int{0, 1}}},
		Waiting: []testkit.Job{
			{Name: "wide", Submit: 5, Res: 3, Walltime: 50},  // waits for r: reserved at 100
			{Name: "short", Submit: 6, Res: 1, Walltime: 80}, // ends by 100: backfilled
		}})
	got, _ := h.Decide(p)
	fmt.Println(got)
	// Output: [X short 2]
}
