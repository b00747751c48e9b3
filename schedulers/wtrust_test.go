package schedulers

import (
	"math"
	"testing"
)

// Five hosts of speeds 1..5 (fastest first: 4, 3, 2, 1, 0). x (1 host, W
// 1000) starts alone at 0 on host 4. At 1, p (1 host, W 10: area 10) and q
// (2 hosts, W 20: area 40) arrive; 4 of 5 hosts are free: fraction 0.8.
//   - threshold 0.8 (default): 0.8 >= 0.8, big first: q gets the two
//     fastest free hosts 3 and 2, then p gets host 1.
//   - threshold 0.81: small first: p gets host 3, then q gets 2 and 1.
func TestWalltimeTrustSwitchesAtThreshold(t *testing.T) {
	speeds := []float64{1, 2, 3, 4, 5}
	jobs := []tjob{
		{name: "x", submit: 0, res: 1, walltime: 1000, run: 1000},
		{name: "p", submit: 1, res: 1, walltime: 10, run: 10},
		{name: "q", submit: 1, res: 2, walltime: 20, run: 20},
	}
	checkStarts(t, runScenario(t, scenario{policy: "wtrust", speeds: speeds, jobs: jobs}),
		map[string]want{"x": {0, "4"}, "q": {1, "2-3"}, "p": {1, "1"}})
	checkStarts(t, runScenario(t, scenario{policy: "wtrust", options: Options{"threshold": "0.81"}, speeds: speeds, jobs: jobs}),
		map[string]want{"x": {0, "4"}, "p": {1, "3"}, "q": {1, "1-2"}})
	// Through sched-config, and with first-fit hosts: p gets host 0 and q
	// hosts 1-2.
	checkStarts(t, runScenario(t, scenario{policy: "wtrust", schedConfig: `{"threshold":0.81}`, options: Options{"hosts": "first-fit"}, speeds: speeds, jobs: jobs}),
		map[string]want{"x": {0, "0"}, "p": {1, "1"}, "q": {1, "2-3"}})
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
	jobs := []tjob{
		{name: "a", submit: 0, res: 3, walltime: 100, run: 100},
		{name: "b", submit: 1, res: 4, walltime: 10, run: 10},
		{name: "c", submit: 1, res: 1, walltime: 50, run: 50},
		{name: "e", submit: 1, res: 1, walltime: 200, run: 200},
	}
	checkStarts(t, runScenario(t, scenario{policy: "wtrust", speeds: []float64{1, 1, 1, 1}, jobs: jobs}),
		map[string]want{"a": {0, "0-2"}, "c": {1, "3"}, "e": {100, "0"}, "b": {300, "0-3"}})
}

func TestWalltimeTrustBigFirstBoundary(t *testing.T) {
	hosts := make([]Host, 5)
	for i := range hosts {
		hosts[i] = Host{ID: i, Speed: 1}
	}
	s := NewState(hosts)
	s.Hosts[0].Jobs = []*Job{{ID: "w0!busy"}}
	s.reindexHosts() // 4 free of 5
	for thr, want := range map[float64]bool{0: true, 0.5: true, 0.8: true, 0.8000001: false, 1: false} {
		if got := (&WalltimeTrust{Threshold: thr}).BigFirst(s); got != want {
			t.Errorf("threshold %v with 4/5 free: big first %v, want %v", thr, got, want)
		}
	}
	if (&WalltimeTrust{Threshold: 0}).BigFirst(NewState(nil)) {
		t.Error("no host: big first")
	}
}

func TestAreaOrder(t *testing.T) {
	mk := func() []*Job {
		return []*Job{
			{ID: "w0!a", Submit: 0, Res: 2, Walltime: 10, Seq: 0}, // 20
			{ID: "w0!b", Submit: 1, Res: 1, Walltime: 0, Seq: 1},  // +Inf
			{ID: "w0!c", Submit: 2, Res: 4, Walltime: 5, Seq: 2},  // 20
			{ID: "w0!d", Submit: 3, Res: 1, Walltime: 7, Seq: 3},  // 7
			{ID: "w0!e", Submit: 0, Res: 3, Walltime: 0, Seq: 4},  // +Inf
		}
	}
	q := mk()
	AreaOrder{}.Sort(nil, q)
	if got := ids(q); got[0] != "w0!d" || got[1] != "w0!a" || got[2] != "w0!c" || got[3] != "w0!e" || got[4] != "w0!b" {
		t.Errorf("ascending: %v", got)
	}
	q = mk()
	AreaOrder{Descending: true}.Sort(nil, q)
	// Equal areas keep submission order in both directions.
	if got := ids(q); got[0] != "w0!e" || got[1] != "w0!b" || got[2] != "w0!a" || got[3] != "w0!c" || got[4] != "w0!d" {
		t.Errorf("descending: %v", got)
	}
	if th, err := ParseThreshold(" 0.8 "); err != nil || th != 0.8 {
		t.Errorf("ParseThreshold: %v %v", th, err)
	}
	for _, bad := range []string{"", "-0.1", "1.01", "NaN", "abc"} {
		if _, err := ParseThreshold(bad); err == nil {
			t.Errorf("threshold %q accepted", bad)
		}
	}
	_ = math.Inf
}
