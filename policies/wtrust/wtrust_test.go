package wtrust

import (
	"testing"

	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit"
)

// Five hosts of speeds 1..5 (fastest first: 4, 3, 2, 1, 0). x (1 host, W
// 1000) starts alone at 0 on host 4. At 1, p (1 host, W 10: area 10) and q
// (2 hosts, W 20: area 40) arrive; 4 of 5 hosts are free: fraction 0.8.
//   - threshold 0.8 (default): 0.8 >= 0.8, big first: q gets the two
//     fastest free hosts 3 and 2, then p gets host 1.
//   - threshold 0.81: small first: p gets host 3, then q gets 2 and 1.
func TestWalltimeTrustSwitchesAtThreshold(t *testing.T) {
	speeds := []float64{1, 2, 3, 4, 5}
	jobs := []testkit.Job{
		{Name: "x", Submit: 0, Res: 1, Walltime: 1000, Run: 1000},
		{Name: "p", Submit: 1, Res: 1, Walltime: 10, Run: 10},
		{Name: "q", Submit: 1, Res: 2, Walltime: 20, Run: 20},
	}
	testkit.CheckStarts(t, testkit.Run(t, testkit.Scenario{Registry: reg, Policy: "wtrust", Speeds: speeds, Jobs: jobs}),
		map[string]testkit.Start{"x": {At: 0, Alloc: "4"}, "q": {At: 1, Alloc: "2-3"}, "p": {At: 1, Alloc: "1"}})
	testkit.CheckStarts(t, testkit.Run(t, testkit.Scenario{Registry: reg, Policy: "wtrust", Options: sched.Options{"threshold": "0.81"}, Speeds: speeds, Jobs: jobs}),
		map[string]testkit.Start{"x": {At: 0, Alloc: "4"}, "p": {At: 1, Alloc: "3"}, "q": {At: 1, Alloc: "1-2"}})
	// Through sched-config, and with first-fit hosts: p gets host 0 and q
	// hosts 1-2.
	testkit.CheckStarts(t, testkit.Run(t, testkit.Scenario{Registry: reg, Policy: "wtrust", SchedConfig: `{"threshold":0.81}`, Options: sched.Options{"hosts": "first-fit"}, Speeds: speeds, Jobs: jobs}),
		map[string]testkit.Start{"x": {At: 0, Alloc: "0"}, "p": {At: 1, Alloc: "1"}, "q": {At: 1, Alloc: "2-3"}})
}

// Four equal hosts. a (3 hosts, W 100) starts at 0 on 0-2. At 1, b (4
// hosts, W 10: area 40), c (1 host, W 50: area 50) and e (1 host, W 200:
// area 200) arrive; 1 of 4 hosts free (0.25 < 0.8): small first, b, c, e.
// b does not fit: it is the head, shadow 100 (a's end), no extra host. c
// ends at 51 <= 100: backfilled at 1 on host 3. e: no host left.
// At 51, c ends: b is the head again, e would end at 251 > 100: no
// backfill. At 100, a ends: all 4 hosts free (1 >= 0.8): big first, e (200)
// before b (40). e starts on host 0; b no longer fits (3 free) and becomes
// the head until e's end: b starts at 300 on 0-3.
func TestWalltimeTrustBackfillAndBigFirst(t *testing.T) {
	jobs := []testkit.Job{
		{Name: "a", Submit: 0, Res: 3, Walltime: 100, Run: 100},
		{Name: "b", Submit: 1, Res: 4, Walltime: 10, Run: 10},
		{Name: "c", Submit: 1, Res: 1, Walltime: 50, Run: 50},
		{Name: "e", Submit: 1, Res: 1, Walltime: 200, Run: 200},
	}
	testkit.CheckStarts(t, testkit.Run(t, testkit.Scenario{Registry: reg, Policy: "wtrust", Speeds: []float64{1, 1, 1, 1}, Jobs: jobs}),
		map[string]testkit.Start{"a": {At: 0, Alloc: "0-2"}, "c": {At: 1, Alloc: "3"}, "e": {At: 100, Alloc: "0"}, "b": {At: 300, Alloc: "0-3"}})
}

func TestWalltimeTrustBigFirstBoundary(t *testing.T) {
	h, err := testkit.NewState(testkit.StateSpec{Hosts: testkit.Hosts(1, 1, 1, 1, 1),
		Running: []testkit.Running{{Job: testkit.Job{Name: "busy", Res: 1}, Hosts: []int{0}}}}) // 4 free of 5
	if err != nil {
		t.Fatal(err)
	}
	for thr, want := range map[float64]bool{0: true, 0.5: true, 0.8: true, 0.8000001: false, 1: false} {
		if got := (&WalltimeTrust{Threshold: thr}).BigFirst(h.State()); got != want {
			t.Errorf("threshold %v with 4/5 free: big first %v, want %v", thr, got, want)
		}
	}
	none, err := testkit.NewState(testkit.StateSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if (&WalltimeTrust{Threshold: 0}).BigFirst(none.State()) {
		t.Error("no host: big first")
	}
}

func TestParseThreshold(t *testing.T) {
	if th, err := ParseThreshold(" 0.8 "); err != nil || th != 0.8 {
		t.Errorf("ParseThreshold: %v %v", th, err)
	}
	for _, bad := range []string{"", "-0.1", "1.01", "NaN", "abc"} {
		if _, err := ParseThreshold(bad); err == nil {
			t.Errorf("threshold %q accepted", bad)
		}
	}
}

// reg holds wtrust.
var reg = func() *sched.Registry {
	r := sched.NewRegistry()
	Register(r)
	return r
}()
