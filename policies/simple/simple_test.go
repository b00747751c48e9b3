package simple

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sim"
	"github.com/bucma-sched/bucma/testkit"
	"github.com/bucma-sched/bucma/workloads"
)

// reg holds the simple policies.
var reg = func() *sched.Registry {
	r := sched.NewRegistry()
	Register(r)
	return r
}()

func spec(t *testing.T, name string) *sched.Spec {
	t.Helper()
	s, err := reg.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// decide builds the policy with opts and asks its decision on the state.
func decide(t *testing.T, sp testkit.StateSpec, policy string, opts sched.Options) string {
	t.Helper()
	p, err := spec(t, policy).Build(opts)
	if err != nil {
		t.Fatal(err)
	}
	sp.Policy = p
	h, err := testkit.NewState(sp)
	if err != nil {
		t.Fatal(err)
	}
	got, err := h.Decide(p)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(got)
}

// Four hosts, r running on 0-1. Waiting, in submission order: a (3 hosts,
// walltime 100), b (1, 30), c (2, 10), d (1, 50). The filler walks its
// order and starts every job that fits in what is left.
func TestFillerOrders(t *testing.T) {
	state := func() testkit.StateSpec {
		return testkit.StateSpec{Now: 10, Hosts: testkit.Hosts(1, 1, 1, 1),
			Running: []testkit.Running{{Job: testkit.Job{Name: "r", Res: 2, Walltime: 1000}, Hosts: []int{0, 1}}},
			Waiting: []testkit.Job{
				{Name: "a", Submit: 1, Res: 3, Walltime: 100},
				{Name: "b", Submit: 2, Res: 1, Walltime: 30},
				{Name: "c", Submit: 3, Res: 2, Walltime: 10},
				{Name: "d", Submit: 4, Res: 1, Walltime: 50},
			}}
	}
	for _, c := range []struct{ order, want string }{
		{"fcfs", "[X b 2 X d 3]"},          // a does not fit; b, then c does not fit; d
		{"lcfs", "[X d 2 X b 3]"},          // d, c does not fit, b (batsched: see below)
		{"asc_size", "[X b 2 X d 3]"},      // b, d (1 host each, by submission)
		{"desc_size", "[X c 2-3]"},         // a does not fit, c takes both
		{"asc_walltime", "[X c 2-3]"},      // c (10) first
		{"desc_walltime", "[X d 2 X b 3]"}, // a (100) does not fit, d (50), b (30)
		{"desc_slowdown", "[X b 2 X d 3]"}, // the longest wait first: fcfs
	} {
		for _, queue := range []string{"indexed", "batsched"} {
			got := decide(t, state(), "filler", sched.Options{"order": c.order, "queue": queue, "hosts": "first-fit"})
			want := c.want
			if c.order == "lcfs" && queue == "batsched" {
				// The jobs come in one message: batsched releases them
				// at once, and lcfs then breaks the tie by id, as fcfs.
				want = "[X b 2 X d 3]"
			}
			if got != want {
				t.Errorf("order %s queue %s: %s, want %s", c.order, queue, got, want)
			}
		}
	}
}

// Five hosts, 0 and 2 busy: a job of two hosts gets 1 and 3 first fit,
// 3-4 contiguous (the first run of two free hosts); a job of three hosts
// does not fit contiguously and waits, while the next job starts.
func TestContiguousHosts(t *testing.T) {
	state := testkit.StateSpec{Now: 5, Hosts: testkit.Hosts(1, 1, 1, 1, 1),
		Running: []testkit.Running{
			{Job: testkit.Job{Name: "r0", Res: 1, Walltime: 100}, Hosts: []int{0}},
			{Job: testkit.Job{Name: "r2", Res: 1, Walltime: 100}, Hosts: []int{2}},
		}}
	two := state
	two.Waiting = []testkit.Job{{Name: "a", Submit: 1, Res: 2, Walltime: 10}}
	if got := decide(t, two, "filler", sched.Options{"hosts": "first-fit"}); got != "[X a 1,3]" && got != "[X a 1 3]" {
		t.Errorf("first-fit: %s", got)
	}
	if got := decide(t, two, "filler", sched.Options{"hosts": "contiguous"}); got != "[X a 3-4]" {
		t.Errorf("contiguous: %s", got)
	}
	three := state
	three.Waiting = []testkit.Job{{Name: "a", Submit: 1, Res: 3, Walltime: 10}, {Name: "b", Submit: 2, Res: 1, Walltime: 10}}
	if got := decide(t, three, "filler", sched.Options{"hosts": "contiguous"}); got != "[X b 1]" {
		t.Errorf("contiguous, three hosts: %s", got)
	}
}

// session answers messages with policy and options.
func session(t *testing.T, policy string, opts sched.Options, hosts int) *sched.Session {
	t.Helper()
	sess, err := (&run.Policy{Spec: spec(t, policy), Options: opts, Validate: true,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}).NewSession()
	if err != nil {
		t.Fatal(err)
	}
	speeds := make([]float64, hosts)
	for i := range speeds {
		speeds[i] = 1e9
	}
	if _, err := sess.Handle(testkit.BeginMessage(speeds, nil, "")); err != nil {
		t.Fatal(err)
	}
	return sess
}

func starts(r *batsim.Reply) string {
	var out []string
	for _, ev := range r.Events() {
		if e, ok := ev.Data.(*batsim.ExecuteJob); ok {
			out = append(out, e.JobID)
		}
	}
	return strings.Join(out, " ")
}

// batsched's queue releases a job at the date of the last event of the
// message that submitted it and breaks ties by id alone: w0!b, submitted
// at 9 in a message whose last event is at 10, and w0!a, submitted at 10,
// are both released at 10, and a comes first; the framework's order puts
// b (submitted first) first. In asc_size, ties go by id alone in
// batsched's queue (w0!a before w0!x whatever their submissions), by
// submission in the framework's.
func TestBatschedQueueReleaseAndTies(t *testing.T) {
	msg := func() *batsim.Message {
		b, a := testkit.Submit("b", 1, 10), testkit.Submit("a", 1, 10)
		b.Timestamp, a.Timestamp = 9, 10
		return &batsim.Message{Now: 10, Events: []batsim.Event{b, a}}
	}
	for queue, want := range map[string]string{"indexed": "w0!b", "batsched": "w0!a"} {
		sess := session(t, "filler", sched.Options{"queue": queue, "hosts": "first-fit"}, 1)
		r, err := sess.Handle(msg())
		if err != nil {
			t.Fatal(err)
		}
		if got := starts(r); got != want {
			t.Errorf("queue=%s: started %q, want %q", queue, got, want)
		}
	}
	for queue, want := range map[string]string{"indexed": "w0!x", "batsched": "w0!a"} {
		sess := session(t, "sequencer", sched.Options{"queue": queue, "order": "asc_size", "hosts": "first-fit"}, 1)
		for i, ev := range []batsim.Event{testkit.Submit("big", 1, 100), testkit.Submit("x", 1, 10), testkit.Submit("a", 1, 10)} {
			ev.Timestamp = float64(i)
			r, err := sess.Handle(&batsim.Message{Now: float64(i), Events: []batsim.Event{ev}})
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 && starts(r) != "w0!big" {
				t.Fatalf("big not started: %v", r.Events())
			}
		}
		done := testkit.Done("big")
		done.Timestamp = 50
		done.Data.(*batsim.JobCompleted).Alloc = "0"
		r, err := sess.Handle(&batsim.Message{Now: 50, Events: []batsim.Event{done}})
		if err != nil {
			t.Fatal(err)
		}
		if got := starts(r); got != want {
			t.Errorf("asc_size queue=%s: started %q, want %q", queue, got, want)
		}
	}
}

// Four hosts: the sequencer runs one job at a time in submission order,
// on the lowest hosts, whatever fits beside it.
func TestSequencerOneAtATime(t *testing.T) {
	got := testkit.Run(t, testkit.Scenario{Registry: reg, Policy: "sequencer", Options: sched.Options{"hosts": "first-fit"},
		Speeds: []float64{1, 1, 1, 1}, Jobs: []testkit.Job{
			{Name: "j1", Submit: 0, Res: 2, Walltime: 20, Run: 10},
			{Name: "j2", Submit: 1, Res: 1, Walltime: 20, Run: 5},
			{Name: "j3", Submit: 2, Res: 4, Walltime: 20, Run: 3},
			{Name: "big", Submit: 3, Res: 5, Walltime: 20, Run: 3},
		}})
	if got["big"].State != batsim.StateRejected {
		t.Fatalf("big: %v", got["big"])
	}
	delete(got, "big")
	testkit.CheckStarts(t, got, map[string]testkit.Start{
		"j1": {At: 0, Alloc: "0-1"}, "j2": {At: 10, Alloc: "0"}, "j3": {At: 15, Alloc: "0-3"},
	})
}

// The rejecter rejects every job.
func TestRejecterRejectsAll(t *testing.T) {
	got := testkit.Run(t, testkit.Scenario{Registry: reg, Policy: "rejecter", Speeds: []float64{1, 1},
		Jobs: []testkit.Job{{Name: "a", Res: 1, Run: 5}, {Name: "b", Submit: 3, Res: 2, Run: 5}, {Name: "c", Submit: 3, Res: 3, Run: 5}}})
	for name, o := range got {
		if o.State != batsim.StateRejected || o.Started {
			t.Errorf("%s: %v", name, o)
		}
	}
}

// random: the same seed gives the same run; two seeds differ somewhere;
// after each decision no waiting job fits in the free hosts (every job
// that fits is started).
func TestRandomSeeded(t *testing.T) {
	speeds, jobs := testkit.Random(7)
	run := func(seed string) string {
		got := testkit.Run(t, testkit.Scenario{Registry: reg, Policy: "random", Options: sched.Options{"seed": seed}, Speeds: speeds, Jobs: jobs})
		var b strings.Builder
		for _, j := range jobs {
			fmt.Fprintf(&b, "%s:%v ", j.Name, got[j.Name])
		}
		return b.String()
	}
	a, b := run("1"), run("1")
	if a != b {
		t.Fatalf("same seed, two runs:\n%s\n%s", a, b)
	}
	if c := run("2"); c == a {
		t.Fatalf("seeds 1 and 2 take the same decisions:\n%s", a)
	}
	p, err := spec(t, "random").Build(sched.Options{"seed": "3"})
	if err != nil {
		t.Fatal(err)
	}
	d := testkit.NewDriver(t, testkit.Scenario{Spec: &sched.Spec{Name: "random", New: func(sched.Options) (sched.Policy, error) { return p, nil }}, Speeds: speeds, Jobs: jobs})
	d.After = func(float64) {
		s := d.Session().State()
		for _, j := range s.Waiting() {
			if j.Waiting() && j.Res() <= s.NbFree() {
				t.Fatalf("t=%v: %s (%d hosts) waits with %d hosts free", s.Now(), j.ID(), j.Res(), s.NbFree())
			}
		}
	}
	d.Run()
}

// cG writes numbers as C's printf("%g") (values checked with printf(1)).
func TestCG(t *testing.T) {
	for x, want := range map[float64]string{
		0: "0", 0.0018: "0.0018", 12345.678: "12345.7", 1234567.5: "1.23457e+06", 999999.5: "1e+06",
		0.0001: "0.0001", 0.00001234: "1.234e-05", 100000: "100000", 1e6: "1e+06", 31.440856: "31.4409",
		1e10: "1e+10", 123456.5: "123456", 6: "6", 11: "11", 1.5: "1.5", -2.25: "-2.25",
	} {
		if got := cG(x); got != want {
			t.Errorf("cG(%v) = %q, want %q", x, got, want)
		}
	}
}

// Bad option values are refused by name.
func TestBadOptions(t *testing.T) {
	for _, c := range []struct {
		policy string
		opts   sched.Options
		want   string
	}{
		{"random", sched.Options{"seed": "-1"}, "seed"},
		{"killer", sched.Options{"kills": "x"}, "kills"},
		{"killer", sched.Options{"kill-delay": "-3"}, "kill-delay"},
		{"submitter", sched.Options{"jobs": "-1"}, "jobs"},
		{"sleeper", sched.Options{"pstate-sleep": "deep"}, "pstate-sleep"},
		{"filler", sched.Options{"hosts": "slowest"}, "slowest"},
		{"filler", sched.Options{"order": "random"}, "random"},
	} {
		_, err := spec(t, c.policy).Build(c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: %v, want an error naming %s", c.policy, c.opts, err, c.want)
		}
	}
}

// approx reports whether a is b within a millisecond (the engine's
// messages cross links of 10 us latency).
func approx(a, b float64) bool { return a > b-1e-3 && a < b+1e-3 }

// engine runs policy on hosts of 1 Gflop/s through the embedded engine.
func engine(t *testing.T, policy string, opts sched.Options, hosts int, jobs []testkit.Job, configure func(*sim.Config)) *testkit.Result {
	t.Helper()
	speeds := make([]float64, hosts)
	for i := range speeds {
		speeds[i] = 1e9
	}
	return testkit.Simulate(t, testkit.EngineRun{Platform: testkit.Platform(t, testkit.Hosts(speeds...)),
		Workloads: []*workloads.Workload{testkit.Workload(t, jobs)}, Spec: spec(t, policy), Options: opts, Configure: configure})
}

// Two hosts. a (1 host, 100 s) starts at 0 and is killed 10 s later; b (2
// hosts, 5 s), submitted at 1, cannot start beside a: it starts once a's
// kill has freed host 0, and ends before its own kill, 10 s later.
func TestKillerKillsAfterDelay(t *testing.T) {
	res := engine(t, "killer", sched.Options{"hosts": "first-fit"}, 2, []testkit.Job{
		{Name: "a", Res: 1, Walltime: 200, Run: 100},
		{Name: "b", Submit: 1, Res: 2, Walltime: 50, Run: 5},
	}, nil)
	a, b := res.ByID["w0!a"], res.ByID["w0!b"]
	if a["final_state"] != batsim.StateKilled || !approx(testkit.Num(a, "finish_time")-testkit.Num(a, "starting_time"), 10) {
		t.Errorf("a: %v", a)
	}
	if b["final_state"] != batsim.StateSuccess || !approx(testkit.Num(b, "starting_time"), testkit.Num(a, "finish_time")) || b["allocated_resources"] != "0-1" {
		t.Errorf("b: %v (a ended at %s)", b, a["finish_time"])
	}
}

// One host: whenever no job waits and the host is free (from the first
// message on), the submitter registers its next job: dynamic!0 (1 s),
// dynamic!1 (11 s), dynamic!2 (21 s), then registration_finished; with
// Batsim's acknowledgments each joins the queue when its JOB_SUBMITTED
// arrives, without them it starts 10 s after its registration. The static
// job runs in between.
func TestSubmitterRegistersJobs(t *testing.T) {
	for _, ack := range []bool{true, false} {
		res := engine(t, "submitter", sched.Options{"hosts": "first-fit", "jobs": "3"}, 1,
			[]testkit.Job{{Name: "s", Res: 1, Walltime: 50, Run: 5}},
			func(c *sim.Config) { c.AcknowledgeDynamicJob = ack })
		if len(res.Jobs) != 4 || res.ByID["w0!s"]["final_state"] != batsim.StateSuccess {
			t.Fatalf("ack=%v: %v", ack, res.Jobs)
		}
		for k, d := range []float64{1, 11, 21} {
			row := res.ByID[fmt.Sprintf("dynamic!%d", k)]
			start, end := testkit.Num(row, "starting_time"), testkit.Num(row, "finish_time")
			if row["final_state"] != batsim.StateSuccess || !approx(end-start, d) || row["requested_time"] != fmt.Sprintf("%f", d+5) {
				t.Fatalf("ack=%v: dynamic!%d: %v", ack, k, row)
			}
			if wait := testkit.Num(row, "waiting_time"); !ack && !approx(wait, 10) || ack && wait < 0 {
				t.Fatalf("ack=%v: dynamic!%d waits %v s: %v", ack, k, wait, res.Jobs)
			}
		}
	}
}

// energyXML is a platform of n hosts of 1 Gflop/s with a sleep pstate (2)
// reached in 2 s (switching off: pstate 3) and left in 4 s (switching on:
// pstate 4).
func energyXML(n int) string {
	var b strings.Builder
	b.WriteString("<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n")
	b.WriteString(`<host id="master" speed="1e9f"><prop id="role" value="master"/></host>` + "\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `<host id="h%d" speed="1e9f, 5e8f, 1e-9f, 0.5f, 0.25f"><prop id="wattage_per_state" value="95:190, 95:130, 9:9, 100:100, 125:125"/><prop id="wattage_off" value="10"/><prop id="sleep_pstates" value="2:3:4"/></host>`+"\n", i)
		fmt.Fprintf(&b, `<link id="l%d" bandwidth="10GBps" latency="10us"/>`+"\n", i)
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `<route src="master" dst="h%d"><link_ctn id="l%d"/></route>`+"\n", i, i)
	}
	b.WriteString("</zone>\n</platform>\n")
	return b.String()
}

// Two hosts with a sleep pstate: both are switched off at the start (2 s);
// a (1 host, 10 s) submitted at 20 wakes host 0 up (4 s) and starts at 24;
// b (2 hosts), submitted at 22, wakes host 1 up once a has ended (host 0,
// idle, stays on for it) and starts when host 1 is on, 4 s after a's end;
// then both go back to sleep.
func TestSleeperWakesAndSleeps(t *testing.T) {
	p, err := platforms.Parse(strings.NewReader(energyXML(2)), "energy")
	if err != nil {
		t.Fatal(err)
	}
	res := testkit.Simulate(t, testkit.EngineRun{Platform: p, Spec: spec(t, "sleeper"), Workloads: []*workloads.Workload{testkit.Workload(t, []testkit.Job{
		{Name: "a", Submit: 20, Res: 1, Walltime: 100, Run: 10},
		{Name: "b", Submit: 22, Res: 2, Walltime: 100, Run: 5},
	})}})
	a, b := res.ByID["w0!a"], res.ByID["w0!b"]
	if !approx(testkit.Num(a, "starting_time"), 24) || a["allocated_resources"] != "0" {
		t.Errorf("a: %v", a)
	}
	if !approx(testkit.Num(b, "starting_time"), testkit.Num(a, "finish_time")+4) || b["allocated_resources"] != "0-1" {
		t.Errorf("b: %v (a ended at %s)", b, a["finish_time"])
	}
	changes, err := testkit.ReadCSV(res.Prefix + "_pstate_changes.csv")
	if err != nil {
		t.Fatal(err)
	}
	var seq []string
	for _, c := range changes {
		seq = append(seq, c["machine_id"]+":"+c["new_pstate"])
	}
	// Batsim's file: both on (0) at first, switching off (-2) and asleep
	// (2) at the start; host 0 switching on (-1) and on for a; host 1 for
	// b; both back to sleep at the end.
	want := "0-1:0 0-1:-2 0-1:2 0:-1 0:0 1:-1 1:0 0-1:-2 0-1:2"
	if got := strings.Join(seq, " "); got != want {
		t.Errorf("pstate changes %s, want %s", got, want)
	}
}

// Two hosts. a (2 hosts, 100 s) starts at 0. b (1 host) arrives at 10: a
// is killed at 10 and b starts at 15 on host 0, freed by the kill (the
// reply's now moves to 15, so Batsim calls again then). c (2 hosts),
// arrived at 11, is in that next message: b is killed at 15 and c starts
// at 20 on both hosts, and ends.
func TestKiller2HandsHostsOver(t *testing.T) {
	res := engine(t, "killer2", nil, 2, []testkit.Job{
		{Name: "a", Res: 2, Walltime: 200, Run: 100},
		{Name: "b", Submit: 10, Res: 1, Walltime: 50, Run: 3},
		{Name: "c", Submit: 11, Res: 2, Walltime: 50, Run: 3},
	}, nil)
	a, b, c := res.ByID["w0!a"], res.ByID["w0!b"], res.ByID["w0!c"]
	if a["final_state"] != batsim.StateKilled || !approx(testkit.Num(a, "finish_time"), 10) {
		t.Errorf("a: %v", a)
	}
	if b["final_state"] != batsim.StateKilled || !approx(testkit.Num(b, "starting_time"), 15) || b["allocated_resources"] != "0" {
		t.Errorf("b: %v", b)
	}
	if c["final_state"] != batsim.StateSuccess || !approx(testkit.Num(c, "starting_time"), 20) || c["allocated_resources"] != "0-1" {
		t.Errorf("c: %v", c)
	}
}
