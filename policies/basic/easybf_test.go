package basic_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sched/xtime"
	"github.com/bucma-sched/bucma/testkit"
)

// batschedEASY are the options under which easy decides as batsched's
// easy_bf.
var batschedEASY = sched.Options{"hosts": "first-fit", "backfill": "batsched", "no-walltime": "reject"}

// TestEASYRejectsFirst: the other policies reject the refused jobs of a
// message before their starts (as batsched's easy_bf answers).
func TestEASYRejectsFirst(t *testing.T) {
	for _, opts := range []sched.Options{{"hosts": "first-fit"}, batschedEASY} {
		b := testkit.NewStepper(t, spec(t, "easy"), 2, opts)
		b.Expect(0, []string{"R b", "R e", "X a 0", "X c 1"},
			testkit.Submit("a", 1, 10), testkit.Submit("b", 3, 10), testkit.Submit("c", 1, 10), testkit.Submit("d", 2, 10), testkit.Submit("e", 5, 10))
	}
}

// TestEASYNoWalltime: by default a job without walltime is queued (and may
// run on hosts no reservation needs); no-walltime=reject refuses it at
// submission, whichever the backfilling.
func TestEASYNoWalltime(t *testing.T) {
	b := testkit.NewStepper(t, spec(t, "easy"), 2, sched.Options{"hosts": "first-fit"})
	b.Expect(0, []string{"X a 0"}, testkit.Submit("a", 1, 0))
	for _, backfill := range []string{"count", "batsched"} {
		b := testkit.NewStepper(t, spec(t, "easy"), 2, sched.Options{"hosts": "first-fit", "backfill": backfill, "no-walltime": "reject"})
		b.Expect(0, []string{"R a", "X b 0"}, testkit.Submit("a", 1, 0), testkit.Submit("b", 1, 10))
	}
}

// TestEASYNoWalltimeStop: no-walltime=stop (batsched's
// easy_bf_plot_liquid_load_horizon, which asserts that every job has a
// walltime) decides as reject's easy_bf while every job has one, and stops
// the simulation, naming the job and batsched's assertion, at the message
// that submits one without; with another backfilling it is refused.
func TestEASYNoWalltimeStop(t *testing.T) {
	stop := sched.Options{"hosts": "first-fit", "backfill": "batsched", "no-walltime": "stop"}
	b := testkit.NewStepper(t, spec(t, "easy"), 2, stop)
	b.Expect(0, []string{"X a 0"}, testkit.Submit("a", 1, 10))
	_, err := b.Session().Handle(&batsim.Message{Now: 1, Events: []batsim.Event{{Timestamp: 1, Type: batsim.TypeJobSubmitted,
		Data: testkit.Submit("b", 1, 0).Data}}})
	want := "batsched stops here on its assertion: new_job->has_walltime (this scheduler only supports jobs with walltimes): job w0!b has no walltime"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want %q", err, want)
	}
	for _, backfill := range []string{"count", "batsched-fast"} {
		_, err := spec(t, "easy").Build(sched.Options{"backfill": backfill, "no-walltime": "stop"})
		if err == nil || !strings.Contains(err.Error(), "no-walltime=stop: with backfill=batsched only") {
			t.Errorf("backfill=%s: %v", backfill, err)
		}
	}
}

// TestBatschedEASYPinnedReservation: the blocked job's reservation holds the
// very hosts it will get, so a job that runs past the reservation avoids
// them even where the textbook rule would take the lowest free host.
func TestBatschedEASYPinnedReservation(t *testing.T) {
	for _, c := range []struct {
		opts    sched.Options
		d, f, c string
	}{
		// count: at b's end 4 hosts are free and c needs 3: 1 extra host,
		// whichever it is, so d takes the lowest free one, 3.
		{sched.Options{"hosts": "first-fit"}, "X d 3", "X f 4", "X c 1-2 4"},
		// batsched: c is reserved on 1-3 from b's expected end; d may only
		// take a free host outside it, 4.
		{batschedEASY, "X d 4", "X f 3", "X c 1-3"},
	} {
		b := testkit.NewStepper(t, spec(t, "easy"), 5, c.opts)
		b.Expect(0, []string{"X a 0", "X b 1-2"}, testkit.Submit("a", 1, 100), testkit.Submit("b", 2, 10))
		b.Expect(1, []string{c.d}, testkit.Submit("c", 3, 50), testkit.Submit("d", 1, 1000))
		// e also runs past the reservation: no host is left for it.
		b.Expect(2, nil, testkit.Submit("e", 1, 1000))
		// f ends before b: it may take the last free host, reserved or not.
		b.Expect(3, []string{c.f}, testkit.Submit("f", 1, 5))
		b.Expect(8, nil, testkit.Done("f"))
		b.Expect(10, []string{c.c}, testkit.Done("b"))
	}
}

// TestBatschedEASYQueueOrder: batsched queues jobs by release date (the
// date of the message that submitted them), then by id as a string, so a
// job of a later message at the same date can overtake an earlier one
// ("10" < "9") and become the job the reservation is for.
func TestBatschedEASYQueueOrder(t *testing.T) {
	for _, c := range []struct {
		opts  sched.Options
		first string
	}{
		{sched.Options{"hosts": "first-fit"}, "X 9 0-1"}, // arrival order
		{batschedEASY, "X 10 0-1"},
	} {
		b := testkit.NewStepper(t, spec(t, "easy"), 2, c.opts)
		b.Expect(0, []string{"X a 0-1"}, testkit.Submit("a", 2, 10))
		b.Expect(1, nil, testkit.Submit("9", 2, 10))
		b.Expect(1, nil, testkit.Submit("10", 2, 10))
		b.Expect(10, []string{c.first}, testkit.Done("a"))
	}
}

// TestBatschedEASYExactDates: whether a job ends by the reservation's start
// is decided on exact sums. d would end at 0.5 + 0.3 (+ 5), just after b's
// expected end 0.1 + 0.7 (+ 5); in floating point both sums round to 5.8.
func TestBatschedEASYExactDates(t *testing.T) {
	d0, dw, b0, bw := 0.5, 0.3, 0.1, 0.7
	if d0+dw+5 != b0+bw+5 || xtime.Of(d0).Add(xtime.Of(dw)).Cmp(xtime.Of(b0).Add(xtime.Of(bw))) <= 0 {
		t.Fatal("the example does not show a rounding to equal sums")
	}
	b := testkit.NewStepper(t, spec(t, "easy"), 2, batschedEASY)
	b.Expect(0.1, []string{"X b 0"}, testkit.Submit("b", 1, 0.7))
	// p needs both hosts: reserved on 0-1 from b's expected end.
	b.Expect(0.2, nil, testkit.Submit("p", 2, 10))
	// d would overlap the reservation on host 1: it waits.
	b.Expect(0.5, nil, testkit.Submit("d", 1, 0.3))
	// e ends by then: it starts on host 1.
	b.Expect(0.5, []string{"X e 1"}, testkit.Submit("e", 1, 0.2))
}

// TestBatschedEASYBackfillAndEnds: a job that ends by the reservation's
// start backfills on a reserved host; when jobs end the queue is walked
// again, the reservation placed anew, and the blocked job starts on time.
func TestBatschedEASYBackfillAndEnds(t *testing.T) {
	b := testkit.NewStepper(t, spec(t, "easy"), 3, batschedEASY)
	b.Expect(0, []string{"X a 0-1"}, testkit.Submit("a", 2, 10))
	// p needs 3 hosts: reserved from a's end. q (1 host) runs past it.
	b.Expect(1, nil, testkit.Submit("p", 3, 10), testkit.Submit("q", 1, 100))
	// r (1 host) ends by a's expected end: it starts on host 2.
	b.Expect(2, []string{"X r 2"}, testkit.Submit("r", 1, 3))
	// r ends: the queue is walked; p still waits for a, q still runs past
	// p's reservation.
	b.Expect(5, nil, testkit.Done("r"))
	// a ends: p starts, then q waits for p.
	b.Expect(10, []string{"X p 0-2"}, testkit.Done("a"))
	b.Expect(20, []string{"X q 0"}, testkit.Done("p"))
}

// TestBatschedEASYMatchesCountWithoutConflicts: on the textbook scenarios
// where the extra hosts are the lowest free ones, the two backfillings
// decide alike.
func TestBatschedEASYMatchesCountWithoutConflicts(t *testing.T) {
	for _, backfill := range []string{"count", "batsched"} {
		t.Run(backfill, func(t *testing.T) {
			b := testkit.NewStepper(t, spec(t, "easy"), 4, sched.Options{"hosts": "first-fit", "backfill": backfill})
			b.Expect(0, []string{"X a 0-1", "X b 2"}, testkit.Submit("a", 2, 100), testkit.Submit("b", 1, 50))
			b.Expect(10, []string{"X k 3"}, testkit.Submit("h", 4, 10), testkit.Submit("j", 1, 95), testkit.Submit("k", 1, 90))
			b.Expect(50, nil, testkit.Done("b"))
			b.Expect(100, []string{"X h 0-3"}, testkit.Done("a"), testkit.Done("k"))
			b.Expect(110, []string{"X j 0"}, testkit.Done("h"))
		})
	}
}

// TestBatschedEASYPriorityDate: a job started as it becomes the priority job
// is dated with the message's last event, as easy_bf dates it; the jobs it
// backfills after that, with the message's now; a start that would go
// before a rejection already in the reply takes the rejection's date.
func TestBatschedEASYPriorityDate(t *testing.T) {
	dates := func(b *testkit.Stepper, now float64, evs ...batsim.Event) []string {
		t.Helper()
		for i := range evs {
			evs[i].Timestamp = now - 2
		}
		reply, err := b.Session().Handle(&batsim.Message{Now: now, Events: evs})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range reply.Events() {
			out = append(out, fmt.Sprintf("%s@%g", e.Type, e.Timestamp))
		}
		return out
	}
	b := testkit.NewStepper(t, spec(t, "easy"), 4, batschedEASY)
	got := dates(b, 10, testkit.Submit("a", 1, 10), testkit.Submit("b", 1, 10))
	want := []string{"EXECUTE_JOB@8", "EXECUTE_JOB@8"}
	if !slices.Equal(got, want) {
		t.Errorf("priority jobs started in turn: %q, want %q", got, want)
	}
	// c and d arrive with a (refused) job without walltime: the rejection
	// comes first, at now, and the priority job c cannot be dated before it.
	got = dates(b, 20, testkit.Submit("c", 1, 10), testkit.Submit("x", 1, 0))
	want = []string{"REJECT_JOB@20", "EXECUTE_JOB@20"}
	if !slices.Equal(got, want) {
		t.Errorf("after a rejection: %q, want %q", got, want)
	}
	// With the textbook rule every start is dated now.
	b = testkit.NewStepper(t, spec(t, "easy"), 4, sched.Options{"hosts": "first-fit"})
	got = dates(b, 10, testkit.Submit("a", 1, 10))
	if want := []string{"EXECUTE_JOB@10"}; !slices.Equal(got, want) {
		t.Errorf("backfill=count: %q, want %q", got, want)
	}
}

// spec is the registered policy name.
func spec(t testing.TB, name string) *sched.Spec {
	t.Helper()
	s, err := reg.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestFCFSRejectsInQueueOrder: fcfs places the rejection of a job that can
// never run where its walk of the queue meets it, between the starts (as
// batsched's fcfs_fast answers); the refused jobs behind the first job that
// does not fit are rejected after the starts.
func TestFCFSRejectsInQueueOrder(t *testing.T) {
	b := testkit.NewStepper(t, spec(t, "fcfs"), 2, sched.Options{"hosts": "first-fit"})
	b.Expect(0, []string{"X a 0", "R b", "X c 1", "R e"},
		testkit.Submit("a", 1, 10), testkit.Submit("b", 3, 10), testkit.Submit("c", 1, 10), testkit.Submit("d", 2, 10), testkit.Submit("e", 5, 10))
	// Nothing free: the refused job is rejected all the same.
	b.Expect(1, []string{"R f"}, testkit.Submit("f", 3, 10))
	b.Expect(10, []string{"X d 0-1"}, testkit.Done("a"), testkit.Done("c"))
}
