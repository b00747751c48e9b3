package fairshare_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/bucma-sched/bucma/examples/fairshare"
	"github.com/bucma-sched/bucma/testkit"
	"github.com/bucma-sched/bucma/testkit/batsimrun"
)

func policy(t testing.TB) *fairshare.FairShare {
	spec := fairshare.Spec()
	p, err := spec.Build(nil)
	if err != nil {
		t.Fatal(err)
	}
	return p.(*fairshare.FairShare)
}

// alice owns h0 and h1, bob h2 and h3; alice runs a job on h0. bob (no
// host in use) goes first, onto his own hosts; then alice, onto h1.
func TestFewestHostsInUseFirst(t *testing.T) {
	hosts := testkit.PropHosts("owner", []testkit.PropHost{{Speed: 1, Value: "alice"}, {Speed: 1, Value: "alice"}, {Speed: 1, Value: "bob"}, {Speed: 1, Value: "bob"}}...)
	h, err := testkit.NewState(testkit.StateSpec{Now: 10, Hosts: hosts,
		Running: []testkit.Running{{Job: testkit.Job{Name: "r", Res: 1, Walltime: 100, User: "alice"}, Hosts: []int{0}}},
		Waiting: []testkit.Job{
			{Name: "a1", Submit: 1, Res: 1, Walltime: 100, User: "alice"},
			{Name: "a2", Submit: 2, Res: 1, Walltime: 100, User: "alice"},
			{Name: "b1", Submit: 3, Res: 2, Walltime: 100, User: "bob"},
		}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := h.Decide(policy(t))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[X b1 2-3 X a1 1]" {
		t.Fatalf("decisions %q", got)
	}
}

// A heavy user's burst does not hold back a light user's job: on two
// hosts, heavy submits six jobs at 0 and light one at 1; light's job
// starts at the first free host (10), before heavy's third job.
func TestLightUserNotStarved(t *testing.T) {
	spec := fairshare.Spec()
	jobs := []testkit.Job{{Name: "l", Submit: 1, Res: 1, Walltime: 10, Run: 10, User: "light"}}
	for i := range 6 {
		jobs = append(jobs, testkit.Job{Name: "h" + strconv.Itoa(i), Submit: 0, Res: 1, Walltime: 10, Run: 10, User: "heavy"})
	}
	got := testkit.Run(t, testkit.Scenario{Spec: &spec, Options: map[string]string{"hosts": "first-fit"}, Speeds: []float64{1, 1}, Jobs: jobs})
	if got["l"].Start != 10 || got["h2"].Start != 10 || got["h3"].Start != 20 {
		t.Fatalf("l %v, h2 %v, h3 %v", got["l"], got["h2"], got["h3"])
	}
}

// Owned hosts and several users through the engine and the real Batsim.
func TestSameAsBatsim(t *testing.T) {
	users := []string{"u0", "u1", "u2"}
	var hosts []testkit.PropHost
	for i := range 6 {
		hosts = append(hosts, testkit.PropHost{Speed: float64(1+i%2) * 1e9, Value: users[i%3]})
	}
	var jobs []testkit.Job
	for i := range 40 {
		jobs = append(jobs, testkit.Job{Name: strconv.Itoa(i), Submit: float64(7 * i), Res: 1 + i%3, Walltime: float64(60 + 13*i%90), Run: float64(20 + 11*i%60), User: users[(i*7)%3]})
	}
	plat, wl := batsimrun.WriteFiles(t, t.TempDir(), testkit.PropHosts("owner", hosts...), jobs)
	spec := fairshare.Spec()
	if rows := batsimrun.SameAsEngine(t, &spec, nil, plat, wl); len(rows) != 40 {
		t.Fatalf("%d rows", len(rows))
	}
}
