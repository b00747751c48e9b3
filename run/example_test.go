package run_test

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/run"
)

// A policy of bucma's registry on a bundled platform and a workload file,
// through the embedded engine, its outputs written under a prefix.
func ExampleSimulate() {
	res, err := run.Simulate(context.Background(), run.Simulation{
		Inputs: run.Inputs{Platform: "lille", Workloads: []string{filepath.Join("..", "workloads", "tiny.json")}},
		Policy: &run.Policy{Name: "easy", Registry: policies.Builtin()},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Jobs, "jobs", res.ByState)
	// Output: 20 jobs map[COMPLETED_SUCCESSFULLY:20]
}

// The features of Batsim a policy needs, and the flags that give them to
// Batsim 4: a flag given by the user means what it says.
func ExampleNeeds() {
	spec, _ := policies.Builtin().Lookup("osep")
	fmt.Println(run.Needs(spec, run.Given{}).BatsimArgs())
	off := false
	fmt.Println(run.Needs(spec, run.Given{AcknowledgeDynamicJobs: &off}).BatsimArgs())
	// Output:
	// [--enable-dynamic-jobs --acknowledge-dynamic-jobs]
	// [--enable-dynamic-jobs]
}
