package policies_test

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit"
)

// policyVariants lists every registered policy at its defaults, plus the
// option values that change its behaviour. The policies that preempt
// (Spec.DynamicJobs) need kills and dynamic jobs, which this package's
// driver does not play: osep_test.go runs them through the engine.
func policyVariants() []testkit.Scenario {
	var out []testkit.Scenario
	for _, name := range reg.Names() {
		// Preempting policies need owners, the bag-of-tasks ones BoT
		// workloads with compute sharing and energy (bot_test.go).
		if spec, _ := reg.Get(name); spec.DynamicJobs || spec.Energy || killers[name] {
			continue
		}
		out = append(out, testkit.Scenario{Registry: reg, Policy: name})
	}
	for _, base := range []string{"easy", "minmin", "maxmin"} {
		out = append(out, testkit.Scenario{Registry: reg, Policy: "bucma", Options: sched.Options{"base": base, "weights": "0.25,0.25,0.25,0.25", "pinned-scores": "alice:100,bob:0"}})
	}
	out = append(out,
		testkit.Scenario{Registry: reg, Policy: "bucma", Options: sched.Options{"weights": "0,0,1,0", "initial-score": "0", "hosts": "first-fit"}},
		testkit.Scenario{Registry: reg, Policy: "wtrust", Options: sched.Options{"threshold": "0"}},
		testkit.Scenario{Registry: reg, Policy: "wtrust", Options: sched.Options{"threshold": "1", "hosts": "first-fit"}},
	)
	return out
}

// TestPropertyRandomWorkloads runs every policy on seeded random workloads
// with the session's audit on (Validate) and the driver's own checks of
// every decision: the run must end with every job in a final state, and the
// decision trace must hold exactly one row per job with the final state the
// driver saw and scores, positions and gains in range.
func TestPropertyRandomWorkloads(t *testing.T) {
	seeds := 12
	if testing.Short() {
		seeds = 3
	}
	for _, v := range policyVariants() {
		t.Run(fmt.Sprintf("%s%v", v.Policy, v.Options), func(t *testing.T) {
			for seed := uint64(1); seed <= uint64(seeds); seed++ {
				var buf bytes.Buffer
				tr := sched.NewTrace(&buf)
				sc := v
				sc.Speeds, sc.Jobs = testkit.Random(seed)
				sc.Observers = []sched.Observer{tr}
				d := testkit.NewDriver(t, sc)
				out := d.Run()
				if tr.Err() != nil {
					t.Fatal(tr.Err())
				}
				rows := testkit.ReadTrace(t, buf.Bytes())
				if len(rows) != len(sc.Jobs) {
					t.Fatalf("seed %d: %d trace rows for %d jobs", seed, len(rows), len(sc.Jobs))
				}
				_, scored := d.Session().Policy().(sched.TraceInfo)
				for _, row := range rows {
					o := out[row["job_id"]]
					if o == nil || row["final_state"] != o.State {
						t.Fatalf("seed %d: job %s: trace says %s, driver %+v", seed, row["job_id"], row["final_state"], o)
					}
					switch o.State {
					case batsim.StateSuccess, batsim.StateFailed, batsim.StateWalltimeReached, batsim.StateRejected:
					default:
						t.Fatalf("seed %d: job %s ended %s", seed, row["job_id"], o.State)
					}
					checkRanges(t, seed, row, scored)
				}
			}
		})
	}
}

func checkRanges(t *testing.T, seed uint64, row map[string]string, scored bool) {
	t.Helper()
	num := func(k string) (float64, bool) {
		if row[k] == "" {
			return 0, false
		}
		f, err := strconv.ParseFloat(row[k], 64)
		if err != nil {
			t.Fatalf("seed %d: job %s: %s = %q", seed, row["job_id"], k, row[k])
		}
		return f, true
	}
	fail := func(format string, args ...any) {
		t.Fatalf("seed %d: job %s: "+format, append([]any{seed, row["job_id"]}, args...)...)
	}
	su, hasSu := num("su_at_submission")
	after, hasAfter := num("su_after")
	if hasSu != scored || hasAfter != scored {
		fail("score columns %q %q for a policy with scores=%v", row["su_at_submission"], row["su_after"], scored)
	}
	if su < 0 || su > 100 || after < 0 || after > 100 {
		fail("score out of range: %v, %v", su, after)
	}
	n, hasN := num("queue_length")
	p, _ := num("queue_position")
	g, hasG := num("queue_gain")
	if hasN && (p < 1 || p > n) {
		fail("position %v of %v", p, n)
	}
	if hasG != (hasN && n > 1) || g < 0 || g > 100 {
		fail("gain %q with queue length %q", row["queue_gain"], row["queue_length"])
	}
	if hasN && hasG && g != (n-p)/(n-1)*100 {
		fail("gain %v for position %v of %v", g, p, n)
	}
	if sf, ok := num("sf_at_submission"); ok && (sf < -1e-12 || sf > 1+1e-12) {
		fail("Sf %v outside [0, 1]", sf)
	}
	if w, ok := num("waiting_time"); ok && w < 0 {
		fail("negative waiting time %v", w)
	}
}
