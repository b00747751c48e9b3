package conservative_test

import (
	"testing"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/policies/conservative"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit"
)

func spec(t testing.TB) *sched.Spec {
	t.Helper()
	r := sched.NewRegistry()
	conservative.Register(r)
	s, err := r.Lookup("conservative")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// twin are the options under which conservative decides as batsched's
// conservative_bf.
var twin = sched.Options{"hosts": "first-fit", "backfill": "batsched", "no-walltime": "reject"}

// undelayed are the textbook rule and the twin without batsched's RJMS
// delay: on hand-computed schedules both take the same decisions.
var undelayed = []sched.Options{{"hosts": "first-fit"}, {"hosts": "first-fit", "backfill": "batsched", "rjms-delay": "0"}}

// reservation is the planned start of a waiting job, as the policy's rule
// holds it.
func reservation(t *testing.T, b *testkit.Stepper, name string) (float64, bool) {
	t.Helper()
	j, ok := b.Session().State().Job("w0!" + name)
	if !ok || !j.Waiting() {
		t.Fatalf("%s is not waiting", name)
	}
	switch p := b.Session().Policy().(type) {
	case *sched.Composite:
		return p.Rule.(*sched.Conservative).Reservation(j)
	case *conservative.BatschedConservative:
		return p.Planned(j)
	}
	t.Fatalf("policy %T", b.Session().Policy())
	return 0, false
}

func expectReservations(t *testing.T, b *testkit.Stepper, want map[string]float64) {
	t.Helper()
	for name, at := range want {
		got, ok := reservation(t, b, name)
		if !ok || got != at {
			t.Errorf("%s: reserved at %v (%v), want %v", name, got, ok, at)
		}
	}
}

// TestReservations: on 4 hosts, every waiting job gets the earliest date
// where enough hosts are free for its walltime, after the reservations
// made before it; a later job starts now where it delays none (c, which
// ends by b's reservation), not where it would (d, e).
func TestReservations(t *testing.T) {
	for _, opts := range undelayed {
		b := testkit.NewStepper(t, spec(t), 4, opts)
		b.Expect(0, []string{"X a 0-1", "X c 2-3"},
			testkit.Submit("a", 2, 10),  // [0,10) on 2 hosts
			testkit.Submit("b", 4, 10),  // all 4: after a, [10,20)
			testkit.Submit("c", 2, 5),   // 2 free hosts until b: [0,5), starts
			testkit.Submit("d", 2, 20),  // 2 hosts free at 5 but only until 10: after b, [20,40)
			testkit.Submit("e", 1, 100)) // 2 free at 5 until 10, then none until 20: [20,120)
		expectReservations(t, b, map[string]float64{"b": 10, "d": 20, "e": 20})
		// A job arriving while none ended is placed after all the others:
		// 1 host for 10 s, free at 5 until b.
		b.Expect(1, nil, testkit.Submit("f", 1, 4))
		expectReservations(t, b, map[string]float64{"f": 5})
	}
}

// TestEveryReservationKept: a job starts now only where it delays no
// reservation, not only the first (where EASY would start it). On 4
// hosts, r holds 3 until 10; A (2 hosts, 10 s) is reserved at 10, B (all
// 4, 10 s) after it at 20. X (1 host, 25 s) fits on the free host until
// 10 and beside A until 20, but would hold a host B needs from 20: it is
// reserved after B, at 30 (EASY, which keeps only A's reservation, would
// start it). Y (1 host, 15 s) ends before B: it starts now.
func TestEveryReservationKept(t *testing.T) {
	for _, opts := range undelayed {
		b := testkit.NewStepper(t, spec(t), 4, opts)
		b.Expect(0, []string{"X r 0-2"}, testkit.Submit("r", 3, 10))
		b.Expect(1, nil, testkit.Submit("A", 2, 10), testkit.Submit("B", 4, 10), testkit.Submit("X", 1, 25))
		expectReservations(t, b, map[string]float64{"A": 10, "B": 20, "X": 30})
		b.Expect(2, []string{"X Y 3"}, testkit.Submit("Y", 1, 15))
	}
}

// TestCompressionCascade: an early end moves a whole chain of
// reservations: on 2 hosts, r (both, 100 s) runs, A, B and C (both, 10 s
// each) are reserved at 100, 110 and 120. r ends at 50: A starts, B and
// C move to 60 and 70, each into the room the one before it left. D (1
// host, 30 s) arrives at 51, reserved after C at 80. A ends at 55: B
// starts, C moves to 65 and D to 75; B ends at 56: C starts, D moves to
// 66.
func TestCompressionCascade(t *testing.T) {
	for _, opts := range undelayed {
		b := testkit.NewStepper(t, spec(t), 2, opts)
		b.Expect(0, []string{"X r 0-1"}, testkit.Submit("r", 2, 100))
		b.Expect(1, nil, testkit.Submit("A", 2, 10), testkit.Submit("B", 2, 10), testkit.Submit("C", 2, 10))
		expectReservations(t, b, map[string]float64{"A": 100, "B": 110, "C": 120})
		b.Expect(50, []string{"X A 0-1"}, testkit.Done("r"))
		expectReservations(t, b, map[string]float64{"B": 60, "C": 70})
		b.Expect(51, nil, testkit.Submit("D", 1, 30))
		expectReservations(t, b, map[string]float64{"D": 80})
		b.Expect(55, []string{"X B 0-1"}, testkit.Done("A"))
		expectReservations(t, b, map[string]float64{"C": 65, "D": 75})
		b.Expect(56, []string{"X C 0-1"}, testkit.Done("B"))
		expectReservations(t, b, map[string]float64{"D": 66})
	}
}

// TestEarlyEndCompression: a job ending early makes room; the waiting jobs
// are placed again in queue order at their earliest fit, never later: on 2
// hosts, B (1 host) was reserved in the hole before A; r1 ends early, B
// moves into the room it leaves and starts, A keeps its place. Placing
// every job from scratch in queue order would move A to 50 and push B
// after it, to 150.
func TestEarlyEndCompression(t *testing.T) {
	for _, opts := range undelayed {
		b := testkit.NewStepper(t, spec(t), 2, opts)
		b.Expect(0, []string{"X r1 0", "X r2 1"}, testkit.Submit("r1", 1, 100), testkit.Submit("r2", 1, 50))
		b.Expect(0, nil, testkit.Submit("A", 2, 100), testkit.Submit("B", 1, 50))
		expectReservations(t, b, map[string]float64{"A": 100, "B": 50})
		b.Expect(10, []string{"X B 0"}, testkit.Done("r1"))
		expectReservations(t, b, map[string]float64{"A": 100})
		// r2 ends early too: A needs both hosts, B holds one until 60.
		b.Expect(20, nil, testkit.Done("r2"))
		expectReservations(t, b, map[string]float64{"A": 60})
		b.Expect(30, []string{"X A 0-1"}, testkit.Done("B"))
	}
}

// TestCompressionOrder: the compression takes the jobs in queue order, so
// an earlier job takes the room first: on 2 hosts, when r ends early, a
// (arrived first) and b (arrived second) both fit now on one host; both
// start. Then c (2 hosts) and d (1 host, short): d backfills into the
// room before c.
func TestCompressionOrder(t *testing.T) {
	for _, opts := range []sched.Options{{"hosts": "first-fit"}, twin} {
		b := testkit.NewStepper(t, spec(t), 2, opts)
		b.Expect(0, []string{"X r 0-1"}, testkit.Submit("r", 2, 100))
		b.Expect(1, nil, testkit.Submit("a", 1, 50), testkit.Submit("b", 1, 30))
		b.Expect(2, nil, testkit.Submit("c", 2, 10), testkit.Submit("d", 1, 10))
		b.Expect(10, []string{"X a 0", "X b 1"}, testkit.Done("r"))
		// b ends at 40, a at 60 (+ delay): c waits for both; d fits on
		// b's host before c.
		b.Expect(20, []string{"X d 1"}, testkit.Done("b"))
	}
}

// TestBatschedPinnedHosts: with backfill=batsched the plan holds hosts, and
// a compression places every job again on the lowest free ids: on 3 hosts
// (no delay), c is planned on 0 and 2 from a's end; when a ends early c
// moves to the end of d, still on 0 and 2, and starts there.
func TestBatschedPinnedHosts(t *testing.T) {
	b := testkit.NewStepper(t, spec(t), 3, sched.Options{"hosts": "first-fit", "backfill": "batsched", "rjms-delay": "0"})
	b.Expect(0, []string{"X a 0", "X b 1", "X d 2"},
		testkit.Submit("a", 1, 10),
		testkit.Submit("b", 1, 100),
		testkit.Submit("c", 2, 50), // hosts 0 and 2 from 10
		testkit.Submit("d", 1, 5),  // host 2 until c: starts
		testkit.Submit("e", 1, 20)) // nowhere for 20 s before c's end at 60
	expectReservations(t, b, map[string]float64{"c": 10, "e": 60})
	b.Expect(3, nil, testkit.Done("a"))
	expectReservations(t, b, map[string]float64{"c": 5, "e": 55})
	b.Expect(5, []string{"X c 0 2"}, testkit.Done("d"))
}

// TestBatschedQueueOrder: with backfill=batsched the queue is by release
// date then id as a string, so "10" comes before "9" in a compression.
func TestBatschedQueueOrder(t *testing.T) {
	b := testkit.NewStepper(t, spec(t), 1, twin)
	b.Expect(0, []string{"X r 0"}, testkit.Submit("r", 1, 100))
	b.Expect(1, nil, testkit.Submit("9", 1, 10), testkit.Submit("10", 1, 10))
	// 9 was planned first, at r's end; 10 after it. The compression at r's
	// early end goes by id: 10 first.
	b.Expect(5, []string{"X 10 0"}, testkit.Done("r"))
}

// TestRejects: jobs larger than the platform are rejected, and with
// no-walltime=reject the jobs without walltime, before any start.
func TestRejects(t *testing.T) {
	b := testkit.NewStepper(t, spec(t), 2, twin)
	b.Expect(0, []string{"R b", "R c", "X a 0"}, testkit.Submit("a", 1, 10), testkit.Submit("b", 3, 10), testkit.Submit("c", 1, 0))
	// by default a job without walltime is planned for ever
	b = testkit.NewStepper(t, spec(t), 2, sched.Options{"hosts": "first-fit"})
	b.Expect(0, []string{"X a 0", "X c 1"}, testkit.Submit("a", 1, 10), testkit.Submit("c", 1, 0))
	b.Expect(1, nil, testkit.Submit("d", 2, 5))
	if _, ok := reservation(t, b, "d"); ok {
		t.Errorf("d has a reservation behind a job without walltime")
	}
}

// TestOptions: bad values are refused with a reason.
func TestOptions(t *testing.T) {
	s := spec(t)
	for _, opts := range []sched.Options{
		{"hosts": "contiguous"},
		{"hosts": "own-fastest", "backfill": "batsched"},
		{"rjms-delay": "-1"},
		{"rjms-delay": "x"},
		{"order": "sjf"},
	} {
		if _, err := s.Build(opts); err == nil {
			t.Errorf("%v accepted", opts)
		}
	}
	for _, opts := range []sched.Options{
		{"order": "lcfs"}, {"order": "asc_size"}, {"order": "desc_walltime"}, {"hosts": "contiguous", "backfill": "batsched", "order": "desc_size"},
		{"hosts": "fastest", "backfill": "batsched"},
	} {
		if _, err := s.Build(opts); err != nil {
			t.Errorf("%v: %v", opts, err)
		}
	}
}

// TestLateReservations: when a job runs past its planned end (by a few
// microseconds, as Batsim's kill at the walltime can), the reservations
// behind it begin before their jobs can start; the queue is then placed
// anew from scratch, so that what can start now does (batsched stops on
// an assertion there). On 1 host, without delay, in walltime-descending
// order: a (2 s) is reserved at r's planned end, L (50 s) after it; r
// ends 1 µs late. Compressing in order, L could not move (a holds the host
// until 12) and a would not fit before L any more: nothing would run and
// no event would come.
func TestLateReservations(t *testing.T) {
	for _, opts := range []sched.Options{{"hosts": "first-fit", "order": "desc_walltime"}, {"hosts": "first-fit", "order": "desc_walltime", "backfill": "batsched", "rjms-delay": "0"}} {
		b := testkit.NewStepper(t, spec(t), 1, opts)
		b.Expect(0, []string{"X r 0"}, testkit.Submit("r", 1, 10))
		b.Expect(1, nil, testkit.Submit("a", 1, 2))
		b.Expect(2, nil, testkit.Submit("L", 1, 50))
		expectReservations(t, b, map[string]float64{"a": 10, "L": 12})
		b.Expect(10.000001, []string{"X L 0"}, testkit.Done("r"))
		expectReservations(t, b, map[string]float64{"a": 60.000001})
	}
}

// TestUnderBUCMA: conservative is a base of BUCMA, which re-ranks its
// queue at every decision; with each policy its own rule (the base's is
// never shared), two BUCMA sessions over conservative on random workloads
// take valid decisions (the session audits every one) and start every job
// that can run.
func TestUnderBUCMA(t *testing.T) {
	reg := policies.Builtin()
	spec, err := reg.Lookup("bucma")
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 6; seed++ {
		speeds, jobs := testkit.Random(seed)
		var first map[string]*testkit.Outcome
		for range 2 {
			out := testkit.Run(t, testkit.Scenario{Spec: spec, Options: sched.Options{"base": "conservative"}, Speeds: speeds, Jobs: jobs})
			for _, j := range jobs {
				o := out[j.Name]
				if (j.Res <= len(speeds)) != o.Started {
					t.Fatalf("seed %d: job %s (%d hosts of %d): %v", seed, j.Name, j.Res, len(speeds), o)
				}
			}
			if first != nil {
				for id, o := range out {
					if o.String() != first[id].String() {
						t.Fatalf("seed %d: job %s: %v, then %v in a second session", seed, id, first[id], o)
					}
				}
			}
			first = out
		}
	}
}

// TestUnavailableHosts: a host Batsim makes unavailable is planned busy
// for as long as it is, and never given to a job; when it is available
// again the queue is compressed and jobs start on it.
func TestUnavailableHosts(t *testing.T) {
	unavailable := func(kind, hosts string) batsim.Event {
		return batsim.Event{Type: batsim.TypeNotify, Data: &batsim.Notify{Kind: kind, Resources: hosts}}
	}
	// a runs on host 1 from 1 to 101 (106 with batsched's RJMS delay of
	// 5 s); b waits for it, c (both hosts) fits nowhere while host 0 is
	// unavailable.
	for _, c := range []struct {
		opts sched.Options
		b    float64
	}{{sched.Options{"hosts": "first-fit"}, 101}, {twin, 106}} {
		b := testkit.NewStepper(t, spec(t), 2, c.opts)
		b.Expect(0, nil, unavailable(batsim.NotifyMachineUnavailable, "0"))
		b.Expect(1, []string{"X a 1"}, testkit.Submit("a", 1, 100))
		b.Expect(2, nil, testkit.Submit("b", 1, 10), testkit.Submit("c", 2, 10))
		expectReservations(t, b, map[string]float64{"b": c.b})
		if _, ok := reservation(t, b, "c"); ok {
			t.Errorf("c is reserved on an unavailable host")
		}
		b.Expect(3, []string{"X b 0"}, unavailable(batsim.NotifyMachineAvailable, "0"))
		// Both hosts are free again once a ends (b ends before it).
		expectReservations(t, b, map[string]float64{"c": c.b})
	}
}
