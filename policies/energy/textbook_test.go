package energy

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sim"
	"github.com/bucma-sched/bucma/testkit"
	"github.com/bucma-sched/bucma/workloads"
)

// sleepHosts are n hosts with a computation pstate (0), a sleep pstate (1)
// and its switching pstates (2 off, 3 on).
func sleepHosts(n int) []map[string]string {
	out := make([]map[string]string, n)
	for i := range out {
		out[i] = map[string]string{"wattage_per_state": "95:190, 9.75:9.75, 100:100, 120:120", "sleep_pstates": "1:2:3"}
	}
	return out
}

func textbookSpec(t *testing.T) *sched.Spec {
	t.Helper()
	r := sched.NewRegistry()
	Register(r)
	spec, err := r.Lookup("energy")
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func stepper(t *testing.T, hosts int, opts sched.Options) *testkit.Stepper {
	t.Helper()
	opts = sched.MergeOptions(sched.Options{"hosts": "first-fit"}, opts)
	return testkit.NewStepperHosts(t, textbookSpec(t), sleepHosts(hosts), opts)
}

// TestIdleTimeout: hosts idle for idle-off seconds are switched off; a
// submitted job wakes the host it needs at once (the switch-on is the
// earliest it can start) and starts when the host is on.
func TestIdleTimeout(t *testing.T) {
	b := stepper(t, 2, sched.Options{"idle-off": "30", "switch-on": "10", "switch-off": "5"})
	// At 0 (SIMULATION_BEGINS) both hosts became idle: the stepper's
	// first reply asked for a call at 30.
	b.Expect(30, []string{"P 0-1 1"}, testkit.Called())
	b.Expect(35, nil, testkit.StateChanged("0-1", 1))
	// a needs one host: host 0 is ready at 100 + 10, switched on now.
	b.Expect(100, []string{"P 0 0"}, testkit.Submit("a", 1, 50))
	b.Expect(110, []string{"X a 0"}, testkit.StateChanged("0", 0))
	// Idle again from 140: off at 170.
	b.Expect(140, []string{"C 170"}, testkit.Done("a"))
	b.Expect(170, []string{"P 0 1"}, testkit.Called())
}

// TestPendingCallNotRepeated: a call already asked (at 30, in the reply
// to SIMULATION_BEGINS) is not asked again.
func TestPendingCallNotRepeated(t *testing.T) {
	b := stepper(t, 1, sched.Options{"idle-off": "30"})
	b.Expect(1, []string{"X a 0"}, testkit.Submit("a", 1, 10))
	b.Expect(11, nil, testkit.Done("a"))
	b.Expect(30, []string{"C 41"}, testkit.Called())
	b.Expect(41, []string{"P 0 1"}, testkit.Called())
}

// TestWakeBeforeReservedStart: the blocked job's reservation needs a
// sleeping host at the busy host's expected end (120); the sleeping host is
// switched on switch-on (10) seconds before, at 110, not at once.
func TestWakeBeforeReservedStart(t *testing.T) {
	for _, wake := range []string{"early", "needed"} {
		t.Run(wake, func(t *testing.T) {
			// idle-off=0: both hosts were switched off at 0.
			b := stepper(t, 2, sched.Options{"idle-off": "0", "switch-on": "10", "switch-off": "5", "wake": wake})
			b.Expect(5, nil, testkit.StateChanged("0-1", 1))
			b.Expect(10, []string{"P 0 0"}, testkit.Submit("a", 1, 100))
			b.Expect(20, []string{"X a 0"}, testkit.StateChanged("0", 0))
			// b needs both hosts: host 1 could be on at 40, host 0 is
			// busy until 120.
			b.Expect(30, []string{"C 110"}, testkit.Submit("b", 2, 50))
			b.Expect(110, []string{"P 1 0"}, testkit.Called())
			b.Expect(120, []string{"X b 0-1"}, testkit.StateChanged("1", 0), testkit.Done("a"))
		})
	}
}

// TestWakeEarlyOrNeeded: a job that could wait for a busy host (ready at
// 120) or use a sleeping one (ready at 30 + 10): wake=early switches the
// sleeping host on, wake=needed waits.
func TestWakeEarlyOrNeeded(t *testing.T) {
	for _, tc := range []struct {
		wake string
		want []string
	}{
		{"early", []string{"P 1 0"}},
		{"needed", nil},
	} {
		t.Run(tc.wake, func(t *testing.T) {
			b := stepper(t, 2, sched.Options{"idle-off": "0", "switch-on": "10", "wake": tc.wake})
			b.Expect(5, nil, testkit.StateChanged("0-1", 1))
			b.Expect(10, []string{"P 0 0"}, testkit.Submit("a", 1, 100))
			b.Expect(20, []string{"X a 0"}, testkit.StateChanged("0", 0))
			b.Expect(30, tc.want, testkit.Submit("c", 1, 10))
		})
	}
}

// TestWakeForBackfill: a later job that ends by the head's reserved start
// (1020) wakes a sleeping host the reservation takes (it will be back), and
// starts on it once on; idle again at 150, the host sleeps until 10 s
// before the reserved start.
func TestWakeForBackfill(t *testing.T) {
	b := stepper(t, 2, sched.Options{"idle-off": "0", "switch-on": "10", "switch-off": "5"})
	b.Expect(5, nil, testkit.StateChanged("0-1", 1))
	b.Expect(10, []string{"P 0 0"}, testkit.Submit("a", 1, 1000))
	b.Expect(20, []string{"X a 0"}, testkit.StateChanged("0", 0))
	b.Expect(30, []string{"C 1010"}, testkit.Submit("b", 2, 50))
	b.Expect(40, []string{"P 1 0"}, testkit.Submit("c", 1, 100))
	b.Expect(50, []string{"X c 1"}, testkit.StateChanged("1", 0))
	b.Expect(150, []string{"P 1 1"}, testkit.Done("c"))
	b.Expect(155, nil, testkit.StateChanged("1", 1))
	b.Expect(1010, []string{"P 1 0"}, testkit.Called())
	b.Expect(1020, []string{"X b 0-1"}, testkit.StateChanged("1", 0), testkit.Done("a"))
}

// TestWakeForBackfillExtra: a later job that would run past the reserved
// start wakes only hosts the reservation does not take (extra hosts), and
// none when none is left. b needs two of the three sleeping hosts (ready at
// 40); c (long) gets the third, e (long) nothing.
func TestWakeForBackfillExtra(t *testing.T) {
	b := stepper(t, 4, sched.Options{"idle-off": "0", "switch-on": "10", "switch-off": "5"})
	b.Expect(5, nil, testkit.StateChanged("0-3", 1))
	b.Expect(10, []string{"P 0 0"}, testkit.Submit("a", 1, 1000))
	b.Expect(20, []string{"X a 0"}, testkit.StateChanged("0", 0))
	b.Expect(30, []string{"P 3 0", "P 1-2 0"}, testkit.Submit("b", 2, 50), testkit.Submit("c", 1, 2000), testkit.Submit("e", 1, 2000))
	b.Expect(40, []string{"X b 1-2", "X c 3"}, testkit.StateChanged("1-3", 0))
}

// TestConservative: with backfill=conservative every waiting job is
// planned: c (submitted after b, which waits for a's end at 120) fits
// before b on the sleeping host 1 and wakes it; idle again at 105, host 1
// can be off and back by b's start (5 + 10 s): it is switched off, then on
// as soon as asleep (at 110), and b starts at 120.
func TestConservative(t *testing.T) {
	b := stepper(t, 2, sched.Options{"backfill": "conservative", "idle-off": "0", "switch-on": "10", "switch-off": "5"})
	b.Expect(5, nil, testkit.StateChanged("0-1", 1))
	b.Expect(10, []string{"P 0 0"}, testkit.Submit("a", 1, 100))
	b.Expect(20, []string{"X a 0"}, testkit.StateChanged("0", 0))
	b.Expect(30, []string{"C 110"}, testkit.Submit("b", 2, 50))
	b.Expect(35, []string{"P 1 0"}, testkit.Submit("c", 1, 60))
	b.Expect(45, []string{"X c 1"}, testkit.StateChanged("1", 0))
	b.Expect(105, []string{"P 1 1"}, testkit.Done("c"))
	b.Expect(110, []string{"P 1 0"}, testkit.StateChanged("1", 1), testkit.Called())
	b.Expect(120, []string{"X b 0-1"}, testkit.StateChanged("1", 0), testkit.Done("a"))
}

// TestMinSleep: a host asleep at 5 sleeps at least min-sleep (60) seconds:
// the job submitted at 20 gets it at 65 + 10, and it is switched on at 65.
func TestMinSleep(t *testing.T) {
	b := stepper(t, 1, sched.Options{"idle-off": "0", "switch-on": "10", "switch-off": "5", "min-sleep": "60"})
	b.Expect(5, nil, testkit.StateChanged("0", 1))
	b.Expect(20, []string{"C 65"}, testkit.Submit("a", 1, 10))
	b.Expect(65, []string{"P 0 0"}, testkit.Called())
	b.Expect(75, []string{"X a 0"}, testkit.StateChanged("0", 0))
}

// TestSwitchingOffHostNeeded: a host switching off that a job needs is
// switched on as soon as it is asleep.
func TestSwitchingOffHostNeeded(t *testing.T) {
	b := stepper(t, 1, sched.Options{"idle-off": "0", "switch-on": "10", "switch-off": "5"})
	b.Expect(2, nil, testkit.Submit("a", 1, 10))
	b.Expect(5, []string{"P 0 0"}, testkit.StateChanged("0", 1))
	b.Expect(15, []string{"X a 0"}, testkit.StateChanged("0", 0))
}

// TestKeepAwake: keep-awake=0.5 of 4 hosts keeps 2 on; the others are
// switched off (longest idle first, then by id).
func TestKeepAwake(t *testing.T) {
	b := stepper(t, 4, sched.Options{"idle-off": "10", "keep-awake": "0.5"})
	b.Expect(3, []string{"X a 0"}, testkit.Submit("a", 1, 100))
	b.Expect(10, []string{"P 1-2 1"}, testkit.Called())
}

// TestReservedHostSwitchedOff: a free host the reservation needs far
// ahead (at 991) is switched off when idle-off says so, since it can be
// back by then (5 + 10 s), and switched on 10 seconds before the start.
func TestReservedHostSwitchedOff(t *testing.T) {
	b := stepper(t, 2, sched.Options{"idle-off": "20", "switch-on": "10", "switch-off": "5"})
	b.Expect(1, []string{"X a 0"}, testkit.Submit("a", 1, 990))
	b.Expect(2, nil, testkit.Submit("b", 2, 10))
	b.Expect(20, []string{"P 1 1"}, testkit.Called())
	b.Expect(25, []string{"C 981"}, testkit.StateChanged("1", 1))
	b.Expect(981, []string{"P 1 0"}, testkit.Called())
	b.Expect(991, []string{"X b 0-1"}, testkit.StateChanged("1", 0), testkit.Done("a"))
}

// TestReservedHostKeptOn: the same host stays on when it could not be
// back by the reserved start (at 31).
func TestReservedHostKeptOn(t *testing.T) {
	b := stepper(t, 2, sched.Options{"idle-off": "20", "switch-on": "10", "switch-off": "5"})
	b.Expect(1, []string{"X a 0"}, testkit.Submit("a", 1, 30))
	b.Expect(2, nil, testkit.Submit("b", 2, 10))
	b.Expect(20, nil, testkit.Called())
	b.Expect(31, []string{"X b 0-1"}, testkit.Done("a"))
}

// TestInertialShutdown: with monitoring every 100 s and no idle timeout,
// the first stage only starts the record; while the liquid load horizon
// does not grow, stages switch idle hosts off, 1 then 2 (x2); when it
// grows, a stage turns to waking (switching nothing), the next wakes one
// host.
func TestInertialShutdown(t *testing.T) {
	b := stepper(t, 4, sched.Options{"idle-off": "never", "monitor": "100"})
	b.Expect(10, []string{"X a 0-1", "C 110"}, testkit.Submit("a", 2, 10000))
	b.Expect(110, []string{"C 210"}, testkit.Called()) // first stage
	b.Expect(210, []string{"C 310"}, testkit.Called()) // the horizon did not grow: off from now on
	b.Expect(310, []string{"P 2 1", "C 410"}, testkit.Called())
	b.Expect(310, nil, testkit.StateChanged("2", 1))
	b.Expect(410, []string{"P 3 1", "C 510"}, testkit.Called())
	b.Expect(410, nil, testkit.StateChanged("3", 1))
	// A job that waits for a's end: the horizon grows.
	b.Expect(450, nil, testkit.Submit("c", 4, 100))
	b.Expect(510, []string{"C 610"}, testkit.Called()) // turns to waking
	b.Expect(610, []string{"P 2 0", "C 710"}, testkit.Called())
}

// TestSwitchingDelaysInEngine runs energy through the embedded engine on a
// platform whose switches take 5 s (off) and 10 s (on), as Batsim times
// them (one flop at the switching pstate's speed), without message
// latencies: both hosts are off at 0 (asleep at 5); a (submitted at 10)
// wakes host 0 and starts when it is on (20); b (at 30) needs both hosts
// at a's expected end (start + walltime: 120; a ends at 110): host 1 is
// switched on at 110, and b starts at 120; at 160 both hosts are idle
// again and switched off.
func TestSwitchingDelaysInEngine(t *testing.T) {
	p, w := loadInputs(t, "testdata/sleep2.xml", "testdata/wake.json")
	res := testkit.Simulate(t, testkit.EngineRun{Platform: p, Workloads: []*workloads.Workload{w}, Spec: textbookSpec(t),
		Options:   sched.Options{"switch-on": "10", "switch-off": "5", "hosts": "first-fit"},
		Configure: func(c *sim.Config) { c.Latency = sim.LatencyNone }})
	for id, start := range map[string]string{"w0!a": "20.000000", "w0!b": "120.000000"} {
		if got := res.ByID[id]["starting_time"]; got != start {
			t.Errorf("%s started at %s, want %s", id, got, start)
		}
	}
	got, err := os.ReadFile(res.Prefix + "_pstate_changes.csv")
	if err != nil {
		t.Fatal(err)
	}
	// -2 and -1 are Batsim's marks of switching off and on.
	want := "time,machine_id,new_pstate\n0,0-1,0\n0,0-1,-2\n5,0-1,1\n10,0,-1\n20,0,0\n110,1,-1\n120,1,0\n160,0-1,-2\n165,0-1,1\n"
	if string(got) != want {
		t.Errorf("pstate changes:\n%s\nwant:\n%s", got, want)
	}
}

// sleepPlatformXML is n hosts of sleep2.xml's kind (switches of 5 and 10
// s), without network latency.
func sleepPlatformXML(n int) string {
	var b strings.Builder
	b.WriteString(`<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1"><zone id="z" routing="Full">
<host id="master" speed="1e9f"><prop id="role" value="master"/></host>
`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `<host id="h%d" speed="1Gf, 1e-9Mf, 0.2f, 0.1f"><prop id="wattage_per_state" value="95:190, 9.75:9.75, 100:100, 120:120"/><prop id="wattage_off" value="10"/><prop id="sleep_pstates" value="1:2:3"/></host>`+"\n", i)
	}
	b.WriteString(`<link id="lo" bandwidth="10GBps" latency="0us" sharing_policy="FATPIPE"/>` + "\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `<link id="l%d" bandwidth="10GBps" latency="0us"/>`+"\n", i)
	}
	b.WriteString(`<route src="master" dst="master"><link_ctn id="lo"/></route>` + "\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `<route src="master" dst="h%d"><link_ctn id="l%d"/></route>`+"\n", i, i)
	}
	b.WriteString("</zone></platform>\n")
	return b.String()
}

// TestEnergyRandomWorkloads runs energy with drawn options on random
// workloads (jobs with and without walltimes, some reaching it) through
// the engine, the session's audit on: every job ends, every decision is
// valid (no start on a host that is not on, no switch of a busy or
// switching host), and the hosts switch.
func TestEnergyRandomWorkloads(t *testing.T) {
	switched := 0
	for seed := uint64(1); seed <= 12; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		n := 2 + r.IntN(6)
		p, err := platforms.Parse(strings.NewReader(sleepPlatformXML(n)), "random")
		if err != nil {
			t.Fatal(err)
		}
		_, jobs := testkit.Random(seed)
		for i := range jobs {
			jobs[i].Res = 1 + jobs[i].Res%n
			jobs[i].Submit *= 5 // idle gaps
		}
		opts := sched.Options{"switch-on": "10", "switch-off": "5",
			"backfill":   []string{"easy", "conservative"}[r.IntN(2)],
			"idle-off":   []string{"0", "30", "never"}[r.IntN(3)],
			"keep-awake": []string{"0", "0.3"}[r.IntN(2)],
			"min-sleep":  []string{"0", "40"}[r.IntN(2)],
		}
		if r.IntN(2) == 0 {
			opts["monitor"] = "100"
		}
		if opts["backfill"] == "easy" && r.IntN(2) == 0 {
			opts["wake"] = "needed"
		}
		res := testkit.Simulate(t, testkit.EngineRun{Platform: p, Workloads: []*workloads.Workload{testkit.Workload(t, jobs)},
			Spec: textbookSpec(t), Options: opts, Configure: func(c *sim.Config) { c.Latency = sim.LatencyNone }})
		for _, row := range res.Jobs {
			if row["final_state"] == "" || row["final_state"] == "REJECTED" && row["requested_number_of_resources"] != "" && testkit.Num(row, "requested_number_of_resources") <= float64(n) {
				t.Errorf("seed %d %v: job %s ended %q", seed, opts, row["job_id"], row["final_state"])
			}
		}
		if len(res.Jobs) != len(jobs) {
			t.Errorf("seed %d: %d jobs ended of %d", seed, len(res.Jobs), len(jobs))
		}
		ps, err := os.ReadFile(res.Prefix + "_pstate_changes.csv")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(string(ps), "\n") > 2 {
			switched++
		}
	}
	if switched < 8 {
		t.Errorf("hosts switched in %d runs of 12", switched)
	}
}
