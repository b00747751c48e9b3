package schedulers

import (
	"fmt"
	"slices"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
)

// batschedEASY are the options under which easy decides as batsched's
// easy_bf.
var batschedEASY = Options{"hosts": "first-fit", "backfill": "batsched", "no-walltime": "reject"}

// TestEASYRejectsFirst: the other policies reject the refused jobs of a
// message before their starts (as batsched's easy_bf answers).
func TestEASYRejectsFirst(t *testing.T) {
	for _, opts := range []Options{{"hosts": "first-fit"}, batschedEASY} {
		b := newReplyBench(t, "easy", 2, opts)
		b.expect(0, []string{"R b", "R e", "X a 0", "X c 1"},
			sub("a", 1, 10), sub("b", 3, 10), sub("c", 1, 10), sub("d", 2, 10), sub("e", 5, 10))
	}
}

// TestEASYNoWalltime: by default a job without walltime is queued (and may
// run on hosts no reservation needs); no-walltime=reject refuses it at
// submission, whichever the backfilling.
func TestEASYNoWalltime(t *testing.T) {
	b := newReplyBench(t, "easy", 2, Options{"hosts": "first-fit"})
	b.expect(0, []string{"X a 0"}, sub("a", 1, 0))
	for _, backfill := range []string{"count", "batsched"} {
		b := newReplyBench(t, "easy", 2, Options{"hosts": "first-fit", "backfill": backfill, "no-walltime": "reject"})
		b.expect(0, []string{"R a", "X b 0"}, sub("a", 1, 0), sub("b", 1, 10))
	}
}

// TestBatschedEASYPinnedReservation: the blocked job's reservation holds the
// very hosts it will get, so a job that runs past the reservation avoids
// them even where the textbook rule would take the lowest free host.
func TestBatschedEASYPinnedReservation(t *testing.T) {
	for _, c := range []struct {
		opts    Options
		d, f, c string
	}{
		// count: at b's end 4 hosts are free and c needs 3: 1 extra host,
		// whichever it is, so d takes the lowest free one, 3.
		{Options{"hosts": "first-fit"}, "X d 3", "X f 4", "X c 1-2 4"},
		// batsched: c is reserved on 1-3 from b's expected end; d may only
		// take a free host outside it, 4.
		{batschedEASY, "X d 4", "X f 3", "X c 1-3"},
	} {
		b := newReplyBench(t, "easy", 5, c.opts)
		b.expect(0, []string{"X a 0", "X b 1-2"}, sub("a", 1, 100), sub("b", 2, 10))
		b.expect(1, []string{c.d}, sub("c", 3, 50), sub("d", 1, 1000))
		// e also runs past the reservation: no host is left for it.
		b.expect(2, nil, sub("e", 1, 1000))
		// f ends before b: it may take the last free host, reserved or not.
		b.expect(3, []string{c.f}, sub("f", 1, 5))
		b.expect(8, nil, done("f"))
		b.expect(10, []string{c.c}, done("b"))
	}
}

// TestBatschedEASYQueueOrder: batsched queues jobs by release date (the
// date of the message that submitted them), then by id as a string, so a
// job of a later message at the same date can overtake an earlier one
// ("10" < "9") and become the job the reservation is for.
func TestBatschedEASYQueueOrder(t *testing.T) {
	for _, c := range []struct {
		opts  Options
		first string
	}{
		{Options{"hosts": "first-fit"}, "X 9 0-1"}, // arrival order
		{batschedEASY, "X 10 0-1"},
	} {
		b := newReplyBench(t, "easy", 2, c.opts)
		b.expect(0, []string{"X a 0-1"}, sub("a", 2, 10))
		b.expect(1, nil, sub("9", 2, 10))
		b.expect(1, nil, sub("10", 2, 10))
		b.expect(10, []string{c.first}, done("a"))
	}
}

// TestBatschedEASYExactDates: whether a job ends by the reservation's start
// is decided on exact sums. d would end at 0.5 + 0.3 (+ 5), just after b's
// expected end 0.1 + 0.7 (+ 5); in floating point both sums round to 5.8.
func TestBatschedEASYExactDates(t *testing.T) {
	d0, dw, b0, bw := 0.5, 0.3, 0.1, 0.7
	if d0+dw+5 != b0+bw+5 || xt(d0).add(xt(dw)).cmp(xt(b0).add(xt(bw))) <= 0 {
		t.Fatal("the example does not show a rounding to equal sums")
	}
	b := newReplyBench(t, "easy", 2, batschedEASY)
	b.expect(0.1, []string{"X b 0"}, sub("b", 1, 0.7))
	// p needs both hosts: reserved on 0-1 from b's expected end.
	b.expect(0.2, nil, sub("p", 2, 10))
	// d would overlap the reservation on host 1: it waits.
	b.expect(0.5, nil, sub("d", 1, 0.3))
	// e ends by then: it starts on host 1.
	b.expect(0.5, []string{"X e 1"}, sub("e", 1, 0.2))
}

// TestBatschedEASYBackfillAndEnds: a job that ends by the reservation's
// start backfills on a reserved host; when jobs end the queue is walked
// again, the reservation placed anew, and the blocked job starts on time.
func TestBatschedEASYBackfillAndEnds(t *testing.T) {
	b := newReplyBench(t, "easy", 3, batschedEASY)
	b.expect(0, []string{"X a 0-1"}, sub("a", 2, 10))
	// p needs 3 hosts: reserved from a's end. q (1 host) runs past it.
	b.expect(1, nil, sub("p", 3, 10), sub("q", 1, 100))
	// r (1 host) ends by a's expected end: it starts on host 2.
	b.expect(2, []string{"X r 2"}, sub("r", 1, 3))
	// r ends: the queue is walked; p still waits for a, q still runs past
	// p's reservation.
	b.expect(5, nil, done("r"))
	// a ends: p starts, then q waits for p.
	b.expect(10, []string{"X p 0-2"}, done("a"))
	b.expect(20, []string{"X q 0"}, done("p"))
}

// TestBatschedEASYMatchesCountWithoutConflicts: on the textbook scenarios
// where the extra hosts are the lowest free ones, the two backfillings
// decide alike.
func TestBatschedEASYMatchesCountWithoutConflicts(t *testing.T) {
	for _, backfill := range []string{"count", "batsched"} {
		t.Run(backfill, func(t *testing.T) {
			b := newReplyBench(t, "easy", 4, Options{"hosts": "first-fit", "backfill": backfill})
			b.expect(0, []string{"X a 0-1", "X b 2"}, sub("a", 2, 100), sub("b", 1, 50))
			b.expect(10, []string{"X k 3"}, sub("h", 4, 10), sub("j", 1, 95), sub("k", 1, 90))
			b.expect(50, nil, done("b"))
			b.expect(100, []string{"X h 0-3"}, done("a"), done("k"))
			b.expect(110, []string{"X j 0"}, done("h"))
		})
	}
}

// TestBatschedEASYPriorityDate: a job started as it becomes the priority job
// is dated with the message's last event, as easy_bf dates it; the jobs it
// backfills after that, with the message's now; a start that would go
// before a rejection already in the reply takes the rejection's date.
func TestBatschedEASYPriorityDate(t *testing.T) {
	dates := func(b *replyBench, now float64, evs ...batsim.Event) []string {
		t.Helper()
		for i := range evs {
			evs[i].Timestamp = now - 2
		}
		reply, err := b.sess.Handle(&batsim.Message{Now: now, Events: evs})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range reply.Events() {
			out = append(out, fmt.Sprintf("%s@%g", e.Type, e.Timestamp))
		}
		return out
	}
	b := newReplyBench(t, "easy", 4, batschedEASY)
	got := dates(b, 10, sub("a", 1, 10), sub("b", 1, 10))
	want := []string{"EXECUTE_JOB@8", "EXECUTE_JOB@8"}
	if !slices.Equal(got, want) {
		t.Errorf("priority jobs started in turn: %q, want %q", got, want)
	}
	// c and d arrive with a (refused) job without walltime: the rejection
	// comes first, at now, and the priority job c cannot be dated before it.
	got = dates(b, 20, sub("c", 1, 10), sub("x", 1, 0))
	want = []string{"REJECT_JOB@20", "EXECUTE_JOB@20"}
	if !slices.Equal(got, want) {
		t.Errorf("after a rejection: %q, want %q", got, want)
	}
	// With the textbook rule every start is dated now.
	b = newReplyBench(t, "easy", 4, Options{"hosts": "first-fit"})
	got = dates(b, 10, sub("a", 1, 10))
	if want := []string{"EXECUTE_JOB@10"}; !slices.Equal(got, want) {
		t.Errorf("backfill=count: %q, want %q", got, want)
	}
}
