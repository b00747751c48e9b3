package sched_test

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit"
)

// easyBench is a Stepper over n identical hosts (no speed property, so
// every host counts as equal) with first-fit hosts; each step returns the
// jobs the policy started, as name -> allocation.
type easyBench struct {
	t *testing.T
	*testkit.Stepper
}

func newEasyBench(t *testing.T, policy string, nHosts int) *easyBench {
	t.Helper()
	return &easyBench{t, testkit.NewStepper(t, baseSpec(policy), nHosts, sched.Options{"hosts": "first-fit"})}
}

// step sends one message at now and returns the started jobs.
func (b *easyBench) step(now float64, evs ...batsim.Event) map[string]string {
	b.t.Helper()
	started := map[string]string{}
	for _, d := range b.Step(now, evs...) {
		f := strings.Fields(d)
		if f[0] != "X" {
			b.t.Fatalf("t=%v: unexpected decision %q", now, d)
		}
		started[f[1]] = strings.Join(f[2:], " ")
	}
	return started
}

func (b *easyBench) expect(now float64, want map[string]string, evs ...batsim.Event) {
	b.t.Helper()
	got := b.step(now, evs...)
	if !reflect.DeepEqual(got, want) {
		b.t.Fatalf("t=%v: started %v, want %v", now, got, want)
	}
}

// Jobs submitted in one message are in FCFS order by id, so the names below
// are chosen in alphabetical order of their intended queue position.

// TestEASYBackfillBeforeShadow: a job may jump the queue if it ends by the
// shadow time, even with no extra host.
func TestEASYBackfillBeforeShadow(t *testing.T) {
	b := newEasyBench(t, "easy", 4)
	// t=0: a (2 hosts, walltime 100) and b (1 host, walltime 50) start on
	// 0-1 and 2; host 3 stays free.
	b.expect(0, map[string]string{"a": "0-1", "b": "2"}, testkit.Submit("a", 2, 100), testkit.Submit("b", 1, 50))
	// t=10: head h needs all 4 hosts. Free now: 1; b ends at 50 (2 free),
	// a at 100 (4 free): shadow 100, extra 4-4 = 0.
	//  - j (1 host, walltime 95) would end at 105 > 100 and there is no
	//    extra host: it would delay h, so it waits although host 3 is free.
	//  - k (1 host, walltime 90) ends at 10+90 = 100 <= 100: starts on 3.
	b.expect(10, map[string]string{"k": "3"}, testkit.Submit("h", 4, 10), testkit.Submit("j", 1, 95), testkit.Submit("k", 1, 90))
	// t=50: b ends; h still needs a (and k, which ends by 100). Nothing fits
	// the rule: j (1 host, ends 145) would still delay h.
	b.expect(50, map[string]string{}, testkit.Done("b"))
	// t=100: a and k end: h gets its reservation, all 4 hosts.
	b.expect(100, map[string]string{"h": "0-3"}, testkit.Done("a"), testkit.Done("k"))
	// t=110: h ends, j finally runs.
	b.expect(110, map[string]string{"j": "0"}, testkit.Done("h"))
}

// TestEASYBackfillOnExtraHosts: a job that ends after the shadow time may
// start only on hosts the head will not need; each such start uses up extra
// hosts.
func TestEASYBackfillOnExtraHosts(t *testing.T) {
	b := newEasyBench(t, "easy", 4)
	b.expect(0, map[string]string{"a": "0-1"}, testkit.Submit("a", 2, 100))
	// t=10: head h needs 3 hosts, 2 are free. a ends at 100 -> 4 free:
	// shadow 100, extra 4-3 = 1.
	//  - j (1 host, walltime 500) ends after the shadow but fits the extra
	//    host: starts on 2; extra becomes 0.
	//  - k (1 host, walltime 500): host 3 is free but extra is 0: waits.
	//  - l (1 host, walltime 50) ends at 60 <= 100: starts on 3.
	b.expect(10, map[string]string{"j": "2", "l": "3"}, testkit.Submit("h", 3, 10), testkit.Submit("j", 1, 500), testkit.Submit("k", 1, 500), testkit.Submit("l", 1, 50))
	// t=60: l ends. Shadow still 100; extra: at 100 hosts 0,1,3 are free
	// (j holds 2 until 510) = 3 = h's need, so extra 0; k would end at 560:
	// waits.
	b.expect(60, map[string]string{}, testkit.Done("l"))
	// t=100: a ends: h starts on 0,1,3 (the three free hosts).
	b.expect(100, map[string]string{"h": "0-1 3"}, testkit.Done("a"))
}

// TestEASYUnlimitedWalltimeOnlyOnExtraHosts: a job without walltime never
// ends by the shadow time, so it may only use extra hosts.
func TestEASYUnlimitedWalltimeOnlyOnExtraHosts(t *testing.T) {
	t.Run("no extra host", func(t *testing.T) {
		b := newEasyBench(t, "easy", 4)
		b.expect(0, map[string]string{"a": "0-1"}, testkit.Submit("a", 2, 100))
		// t=10: head h needs 4: shadow 100, extra 0. j has no walltime:
		// it cannot start. k and l (walltime 50, end 60 <= 100) start on
		// the two free hosts.
		b.expect(10, map[string]string{"k": "2", "l": "3"}, testkit.Submit("h", 4, 10), testkit.Submit("j", 1, 0), testkit.Submit("k", 1, 50), testkit.Submit("l", 1, 50))
	})
	t.Run("one extra host", func(t *testing.T) {
		b := newEasyBench(t, "easy", 4)
		b.expect(0, map[string]string{"a": "0-1"}, testkit.Submit("a", 2, 100))
		// t=10: head h needs 3: shadow 100, extra 1. j (no walltime) takes
		// the extra host 2; k (no walltime) finds extra 0 and waits; l
		// (walltime 50) ends by the shadow and starts on 3.
		b.expect(10, map[string]string{"j": "2", "l": "3"}, testkit.Submit("h", 3, 10), testkit.Submit("j", 1, 0), testkit.Submit("k", 1, 0), testkit.Submit("l", 1, 50))
	})
	t.Run("head can never be planned", func(t *testing.T) {
		b := newEasyBench(t, "easy", 4)
		// a runs without walltime on 3 hosts: h (4 hosts) has no shadow
		// time (+Inf), so nothing a backfilled job does can delay a
		// planned start: j (no walltime) starts on the free host.
		b.expect(0, map[string]string{"a": "0-2"}, testkit.Submit("a", 3, 0))
		b.expect(10, map[string]string{"j": "3"}, testkit.Submit("h", 4, 10), testkit.Submit("j", 1, 0))
	})
}

// TestEASYDoesNotDelayHead: a job that fits now but would push the head's
// reservation back is not started; FCFS, which has no backfilling, starts
// nothing either, while the head starts exactly at the shadow time.
func TestEASYDoesNotDelayHead(t *testing.T) {
	for _, policy := range []string{"easy", "fcfs"} {
		t.Run(policy, func(t *testing.T) {
			b := newEasyBench(t, policy, 4)
			b.expect(0, map[string]string{"a": "0-2"}, testkit.Submit("a", 3, 100))
			// t=10: h needs 4 hosts: shadow 100 (a's end), extra 0. j needs
			// 1 host (host 3 is free) but would run until 210.
			b.expect(10, map[string]string{}, testkit.Submit("h", 4, 20), testkit.Submit("j", 1, 200))
			// t=100: a ends, h starts on time.
			b.expect(100, map[string]string{"h": "0-3"}, testkit.Done("a"))
			b.expect(120, map[string]string{"j": "0"}, testkit.Done("h"))
		})
	}
}

// TestEASYJobsEndingTogether: running jobs that end at the same instant
// free their hosts together, so the extra hosts count all of them.
func TestEASYJobsEndingTogether(t *testing.T) {
	b := newEasyBench(t, "easy", 8)
	// t=0: a (2 hosts) and b (2 hosts) both end at 50, c (1 host) at 100:
	// a on 0-1, b on 2-3, c on 4; hosts 5, 6, 7 are free.
	b.expect(0, map[string]string{"a": "0-1", "b": "2-3", "c": "4"}, testkit.Submit("a", 2, 50), testkit.Submit("b", 2, 50), testkit.Submit("c", 1, 100))
	// t=10: head h needs 5 hosts; 3 are free. At 50, a and b free 4 hosts
	// together: 3+4 = 7 >= 5, shadow 50, extra 7-5 = 2. (Counting a alone
	// would already reach 5 and give extra 0.)
	//  - j (2 hosts, walltime 500) uses the 2 extra hosts: starts on 5-6.
	//  - k (1 host, walltime 500): extra is 0 now: waits.
	//  - l (1 host, walltime 40) ends at 50 <= 50: starts on 7.
	b.expect(10, map[string]string{"j": "5-6", "l": "7"}, testkit.Submit("h", 5, 10), testkit.Submit("j", 2, 500), testkit.Submit("k", 1, 500), testkit.Submit("l", 1, 40))
	// t=50: a, b and l end: 0-3 and 7 are free, h starts on them, on time.
	b.expect(50, map[string]string{"h": "0-3 7"}, testkit.Done("a"), testkit.Done("b"), testkit.Done("l"))
}

// TestReservation checks the shadow time and extra hosts directly on a
// hand-built state.
func TestReservation(t *testing.T) {
	h, err := testkit.NewState(testkit.StateSpec{Now: 10, Hosts: testkit.Hosts(0, 0, 0, 0, 0, 0), Running: []testkit.Running{
		{Job: testkit.Job{Name: "a", Res: 2, Walltime: 50}, Hosts: []int{0, 1}},
		{Job: testkit.Job{Name: "b", Res: 2, Walltime: 50}, Hosts: []int{2, 3}},
		{Job: testkit.Job{Name: "c", Res: 1}, Hosts: []int{4}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	s := h.State()
	cases := []struct {
		need   int
		shadow float64
		extra  int
	}{
		{1, 10, 0},          // host 5 is free now
		{3, 50, 2},          // 1 + 4 at 50 = 5
		{5, 50, 0},          // exactly enough at 50
		{6, math.Inf(1), 0}, // needs c, which has no walltime
		{7, math.Inf(1), 0}, // more than the platform
		{0, 10, 1},          // nothing needed
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.need), func(t *testing.T) {
			shadow, extra := sched.Reservation(s, c.need)
			if shadow != c.shadow || extra != c.extra {
				t.Fatalf("Reservation(%d) = %v, %d; want %v, %d", c.need, shadow, extra, c.shadow, c.extra)
			}
		})
	}
}

// TestOwnFirst: the job's user's free hosts first, fastest first (ties by
// id), then the fastest others; an anonymous job gets the fastest.
func TestOwnFirst(t *testing.T) {
	owners := []string{"b", "a", "b", "", "b"}
	speeds := []float64{1, 3, 2, 5, 2}
	sp := testkit.StateSpec{}
	for i := range owners {
		sp.Hosts = append(sp.Hosts, testkit.Host{Speed: speeds[i], Properties: map[string]string{"owner": owners[i]}})
	}
	for _, u := range []string{"a", "b", "", "z"} {
		sp.Waiting = append(sp.Waiting, testkit.Job{Name: "j" + u, Res: 1, User: u})
	}
	h, err := testkit.NewState(sp)
	if err != nil {
		t.Fatal(err)
	}
	s := h.State()
	sel := sched.OwnFirst{Property: "owner"}
	for _, c := range []struct {
		user string
		n    int
		want string
	}{
		{"b", 2, "[2 4]"}, {"b", 4, "[2 4 0 3]"}, {"a", 2, "[1 3]"}, {"", 3, "[3 1 2]"}, {"z", 1, "[3]"},
	} {
		j, _ := s.Job("w0!j" + c.user)
		if got := fmt.Sprint(sel.Select(s, j, c.n)); got != c.want {
			t.Errorf("user %q, %d hosts: %s, want %s", c.user, c.n, got, c.want)
		}
	}
}

// TestEASYReservationSkipsUnavailableHosts: a running job's host that
// became unavailable does not come back when the job ends, so EASY's
// reservation does not count it.
func TestEASYReservationSkipsUnavailableHosts(t *testing.T) {
	b := newEasyBench(t, "easy", 4)
	// t=0: a (2 hosts, walltime 100) on 0-1, b (1 host, walltime 50) on 2.
	b.expect(0, map[string]string{"a": "0-1", "b": "2"}, testkit.Submit("a", 2, 100), testkit.Submit("b", 1, 50))
	// t=5: host 1, under a, becomes unavailable.
	b.expect(5, map[string]string{}, batsim.Event{Timestamp: 5, Type: batsim.TypeNotify,
		Data: &batsim.Notify{Kind: batsim.NotifyMachineUnavailable, Resources: "1"}})
	// t=10: head h needs 3 hosts: host 3 now, b's at 50, only host 0 of
	// a's at 100: shadow 100, extra 0. j (1 host, walltime 200) would
	// delay h: it waits, although host 3 is free (counting host 1 would
	// give an extra host for it).
	b.expect(10, map[string]string{}, testkit.Submit("h", 3, 10), testkit.Submit("j", 1, 200))
}
