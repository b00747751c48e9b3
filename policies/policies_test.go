package policies_test

import (
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit"
)

// reg holds every built-in policy.
var reg = policies.Builtin()

// killers are the policies that kill the jobs they start and date their
// decisions later than the message they answer, which the test driver
// plays neither: policies/simple runs them through the engine.
var killers = map[string]bool{"killer": true, "killer2": true}

// Jobs that can never run are rejected at submission, for every policy
// (those that preempt are checked through the engine in osep_test.go), and
// the others run (but under the rejecter).
func TestImpossibleJobsRejected(t *testing.T) {
	for _, name := range reg.Names() {
		// The bag-of-tasks policies reject every job without BoT fields
		// (bot_test.go).
		if spec, _ := reg.Get(name); spec.DynamicJobs || spec.Energy || killers[name] {
			continue
		}
		got := testkit.Run(t, testkit.Scenario{Registry: reg, Policy: name, Speeds: []float64{1, 1}, Jobs: []testkit.Job{
			{Name: "toobig", Submit: 0, Res: 3, Walltime: 10, Run: 10},
			{Name: "ok", Submit: 0, Res: 2, Walltime: 10, Run: 5},
		}})
		if got["toobig"].State != batsim.StateRejected || got["ok"].State != batsim.StateSuccess && name != "rejecter" {
			t.Errorf("%s: toobig %s, ok %s", name, got["toobig"].State, got["ok"].State)
		}
	}
}

// Every policy's options are accepted at their defaults, every spec has a
// description and help texts, and bad values are refused with the option
// named.
func TestRegistryEntries(t *testing.T) {
	for _, name := range []string{"fcfs", "easy", "minmin", "maxmin", "bucma", "bucma5302", "bucma4303", "wtrust"} {
		spec, ok := reg.Get(name)
		if !ok {
			t.Errorf("%s is not registered", name)
			continue
		}
		if spec.Description == "" {
			t.Errorf("%s: no description", name)
		}
		for _, o := range spec.Options {
			if o.Help == "" {
				t.Errorf("%s: option %s has no help", name, o.Name)
			}
		}
		if _, err := spec.Build(nil); err != nil {
			t.Errorf("%s with default options: %v", name, err)
		}
	}
	bad := []struct {
		policy string
		opts   sched.Options
		inErr  string
	}{
		{"bucma", sched.Options{"weights": "0.5,0.3,0.2"}, "4 numbers"},
		{"bucma", sched.Options{"weights": "0.5,0.3,0.3,0.2"}, "sum"},
		{"bucma", sched.Options{"weights": "1.5,-0.5,0,0"}, "outside [0, 1]"},
		{"bucma", sched.Options{"weights": "a,0.3,0,0.2"}, "not a number"},
		{"bucma", sched.Options{"base": "sjf"}, "valid values"},
		{"bucma", sched.Options{"initial-score": "101"}, "initial-score"},
		{"bucma", sched.Options{"initial-score": "49.5"}, "whole number"},
		{"bucma", sched.Options{"pinned-scores": "alice"}, "user:score"},
		{"bucma", sched.Options{"pinned-scores": "alice:150"}, "0..100"},
		{"bucma", sched.Options{"pinned-scores": "alice:1,alice:2"}, "twice"},
		{"bucma5302", sched.Options{"weights": "0.5,0.3,0,0.2"}, "unknown option"},
		{"wtrust", sched.Options{"threshold": "1.2"}, "outside [0, 1]"},
		{"wtrust", sched.Options{"threshold": "x"}, "not a number"},
		{"minmin", sched.Options{"hosts": "slowest"}, "valid values"},
	}
	for _, c := range bad {
		spec, _ := reg.Get(c.policy)
		_, err := spec.Build(c.opts)
		if err == nil {
			t.Errorf("%s %v: accepted", c.policy, c.opts)
			continue
		}
		if _, ok := err.(*sched.OptionError); !ok {
			t.Errorf("%s %v: %T is not an OptionError", c.policy, c.opts, err)
		}
		if !strings.Contains(err.Error(), c.inErr) {
			t.Errorf("%s %v: error %q does not mention %q", c.policy, c.opts, err, c.inErr)
		}
	}
}
