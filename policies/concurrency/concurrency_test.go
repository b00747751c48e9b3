package concurrency_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit"
)

// The policies whose runs need what the test driver does not play: kills
// and dynamic jobs (preempting policies), energy (bag-of-tasks and power
// policies); their instances run side by side in the campaign runner's
// tests (expe and studies, also under the race detector).
func playable(reg *sched.Registry, name string) bool {
	spec, ok := reg.Get(name)
	return ok && !spec.DynamicJobs && !spec.Energy && name != "killer" && name != "killer2"
}

// replies runs one policy on a seeded random workload and returns every
// reply it sent.
func replies(t *testing.T, reg *sched.Registry, name string, seed uint64) []byte {
	sc := testkit.Scenario{Registry: reg, Policy: name}
	sc.Speeds, sc.Jobs = testkit.Random(seed)
	d := testkit.NewDriver(t, sc)
	var out []byte
	d.Replies = &out
	d.Run()
	return out
}

// Every playable built-in policy runs alone, then three times at once
// beside every other policy's runs: each run's replies are the lone run's.
func TestPoliciesRunSideBySide(t *testing.T) {
	reg := policies.Builtin()
	ran := 0
	for _, name := range reg.Names() {
		if !playable(reg, name) {
			continue
		}
		ran++
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for seed := uint64(1); seed <= 2; seed++ {
				want := replies(t, reg, name, seed)
				for i := range 3 {
					t.Run(fmt.Sprintf("seed%d/%d", seed, i), func(t *testing.T) {
						t.Parallel()
						if got := replies(t, reg, name, seed); !bytes.Equal(got, want) {
							t.Errorf("the replies differ from the lone run's:\nalone:\n%s\nside by side:\n%s", want, got)
						}
					})
				}
			}
		})
	}
	if all := len(reg.Names()); 3*ran < 2*all {
		t.Errorf("only %d policies of %d ran: the filter leaves out too many", ran, all)
	}
}
