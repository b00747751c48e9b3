package osep_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/run"
	"github.com/bucma-sched/bucma/testkit"

	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sim"
	"github.com/bucma-sched/bucma/workloads"
)

func TestPieceIDs(t *testing.T) {
	for _, c := range []struct {
		orig  string
		k     int
		piece string
	}{
		{"w0!user1-03", 1, "w0.r!user1-03.1"},
		{"w0!1", 12, "w0.r!1.12"},
		{"a.b!c.d", 2, "a.b.r!c.d.2"},
	} {
		got, err := sched.PieceID(c.orig, c.k)
		if err != nil || got != c.piece {
			t.Errorf("PieceID(%q, %d) = %q, %v; want %q", c.orig, c.k, got, err, c.piece)
		}
		if o, k := sched.OriginalOf(got); o != c.orig || k != c.k {
			t.Errorf("OriginalOf(%q) = %q, %d; want %q, %d", got, o, k, c.orig, c.k)
		}
	}
	for _, id := range []string{"w0!user1-03", "w0.r!x", "w0.r!x.0", "w0.r!x.01", "w0!x.1", "bad"} {
		if o, k := sched.OriginalOf(id); o != id || k != 0 {
			t.Errorf("OriginalOf(%q) = %q, %d; want the id itself, 0", id, o, k)
		}
	}
	if _, err := sched.PieceID("no-bang", 1); err == nil {
		t.Error("PieceID accepted an id without workload")
	}
}

// ownedHost is a compute host of a generated platform.
// ownedPlatform builds a platform whose hosts have owners.
func ownedPlatform(t testing.TB, hosts []testkit.PropHost) *platforms.Platform {
	t.Helper()
	return testkit.Platform(t, testkit.PropHosts("owner", hosts...))
}

// runOSEP runs a policy through the engine with dynamic jobs and the
// state audit on, and returns the _jobs.csv rows by "workload!id".
func runOSEP(t testing.TB, plat *platforms.Platform, wl *workloads.Workload, policy string, opts sched.Options, ack bool) map[string]testkit.JobRow {
	t.Helper()
	spec, err := policies.Builtin().Lookup(policy)
	if err != nil {
		t.Fatal(err)
	}
	res := testkit.Simulate(t, testkit.EngineRun{Platform: plat, Workloads: []*workloads.Workload{wl}, Spec: spec, Options: opts,
		Configure: func(c *sim.Config) { c.AcknowledgeDynamicJob = ack }})
	out := map[string]testkit.JobRow{}
	for id, r := range res.ByID {
		out[id] = testkit.Row(r)
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-3 }

// TestOSEPHandWorked: user a owns h0, user b owns h1. a's two jobs take
// both hosts at 0; b's job arrives at 100. The round at 120 finds
// f_a = min(1, 2) − 2 = −1 and f_b = 1: a's job that ran the least (a2,
// the last started, on h1) is killed and h1 goes to b1 (120–220). a2's
// remaining work is resubmitted as w0.r!a2.1 and starts on h1 when b1
// ends: the whole 1000 s again without checkpoints, 1000 − 100 s with
// 50-s blocks (two whole blocks of its 120 s were kept).
func TestOSEPHandWorked(t *testing.T) {
	plat := ownedPlatform(t, []testkit.PropHost{{Speed: 1e9, Value: "a"}, {Speed: 1e9, Value: "b"}})
	wl := testkit.Workload(t, []testkit.Job{
		{Name: "a1", User: "a", Submit: 0, Run: 1000, Res: 1},
		{Name: "a2", User: "a", Submit: 0, Run: 1000, Res: 1},
		{Name: "b1", User: "b", Submit: 100, Run: 100, Res: 1},
	})
	for _, c := range []struct {
		policy, checkpoint string
		ack                bool
		pieceEnd           float64
	}{
		{"osep", "0", true, 1220},
		{"osep", "50", true, 1120},
		{"osep", "50", false, 1120},
		{"osep-hetero", "0", true, 1220},
		{"osep-hetero", "50", false, 1120},
	} {
		t.Run(fmt.Sprintf("%s/ckpt%s/ack=%v", c.policy, c.checkpoint, c.ack), func(t *testing.T) {
			rows := runOSEP(t, plat, wl, c.policy, sched.Options{"checkpoint": c.checkpoint}, c.ack)
			if len(rows) != 4 {
				t.Fatalf("%d rows, want 4: %v", len(rows), rows)
			}
			a1, a2, b1, p := rows["w0!a1"], rows["w0!a2"], rows["w0!b1"], rows["w0.r!a2.1"]
			switch {
			case a1.State != "COMPLETED_SUCCESSFULLY" || a1.Alloc != "0" || !near(a1.Finish, 1000):
				t.Errorf("a1: %+v", a1)
			case a2.State != "COMPLETED_KILLED" || a2.Alloc != "1" || !near(a2.Finish, 120):
				t.Errorf("a2 must be killed at the round of 120: %+v", a2)
			case b1.State != "COMPLETED_SUCCESSFULLY" || b1.Alloc != "1" || !near(b1.Start, 120) || !near(b1.Finish, 220):
				t.Errorf("b1 must run on a2's host right after the kill: %+v", b1)
			case p.State != "COMPLETED_SUCCESSFULLY" || p.Alloc != "1" || !near(p.Start, 220) || !near(p.Finish, c.pieceEnd):
				t.Errorf("a2's remaining work: %+v, want 220 to %g on host 1", p, c.pieceEnd)
			}
		})
	}
}

// TestOSEPHeteroGuard: b (hosts of 1 Gflop/s, share 2e9) runs three jobs,
// one on a's 4-Gflop/s host; a's job arrives at 100. At the round of 120
// DifPoder_a = −1 and DifPoder_b = 2. On b's least powerful host y = 1e9,
// PR_Aloc(a,y) = −0.75 and PR_Preemp(b,y) = 1.5; on a's host both are 0.
// The no-overshoot guard (PR_Preemp >= PR_Aloc) preempts b's newest job on
// a slow host; the guard as printed (PR_Aloc > PR_Preemp) never holds here,
// so a waits until a host frees.
func TestOSEPHeteroGuard(t *testing.T) {
	plat := ownedPlatform(t, []testkit.PropHost{{Speed: 4e9, Value: "a"}, {Speed: 1e9, Value: "b"}, {Speed: 1e9, Value: "b"}})
	wl := testkit.Workload(t, []testkit.Job{
		{Name: "b1", User: "b", Submit: 0, Run: 1000, Res: 1},
		{Name: "b2", User: "b", Submit: 0, Run: 1000, Res: 1},
		{Name: "b3", User: "b", Submit: 0, Run: 500, Res: 1},
		{Name: "a1", User: "a", Submit: 100, Run: 100, Res: 1},
	})
	rows := runOSEP(t, plat, wl, "osep-hetero", sched.Options{}, true)
	if b2, a1 := rows["w0!b2"], rows["w0!a1"]; b2.State != "COMPLETED_KILLED" || b2.Alloc != "2" || !near(b2.Finish, 120) || !near(a1.Start, 120) || a1.Alloc != "2" {
		t.Errorf("no-overshoot: b2 %+v, a1 %+v; want b2 killed at 120 on host 2, a1 started there", b2, a1)
	}
	rows = runOSEP(t, plat, wl, "osep-hetero", sched.Options{"guard": "as-printed"}, true)
	for k, r := range rows {
		if r.State == "COMPLETED_KILLED" {
			t.Errorf("as-printed: %s was killed", k)
		}
	}
	if a1 := rows["w0!a1"]; !near(a1.Start, 500) || a1.Alloc != "0" {
		t.Errorf("as-printed: a1 %+v, want it started at 500 on host 0 (b3 ends)", a1)
	}
}

// TestOSEPRefusals: a job with res > 1 is rejected; without dynamic jobs,
// or on a platform without owners, the policy refuses to start.
func TestOSEPRefusals(t *testing.T) {
	plat := ownedPlatform(t, []testkit.PropHost{{Speed: 1e9, Value: "a"}, {Speed: 1e9, Value: "b"}})
	wl := testkit.Workload(t, []testkit.Job{{Name: "wide", User: "a", Submit: 0, Run: 10, Res: 2}, {Name: "ok", User: "b", Submit: 0, Run: 10, Res: 1}})
	rows := runOSEP(t, plat, wl, "osep", sched.Options{}, true)
	if rows["w0!wide"].State != "REJECTED" || rows["w0!ok"].State != "COMPLETED_SUCCESSFULLY" {
		t.Errorf("wide %+v, ok %+v", rows["w0!wide"], rows["w0!ok"])
	}
	spec, _ := policies.Builtin().Lookup("osep")
	for _, c := range []struct {
		plat *platforms.Platform
		dyn  bool
		want string
	}{
		{plat, false, "--enable-dynamic-jobs"},
		{genericPlatform(t), true, `no compute host has the property "owner"`},
	} {
		sess, err := (&run.Policy{Spec: spec}).NewSession()
		if err != nil {
			t.Fatal(err)
		}
		cfg := sim.Config{Platform: c.plat, Workloads: []*workloads.Workload{wl}, ExportPrefix: filepath.Join(t.TempDir(), "out"), DynamicJobs: c.dyn}
		if _, err := sim.Run(context.Background(), cfg, sim.InProcess(sess)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one saying %q", err, c.want)
		}
	}
	for _, bad := range []sched.Options{{"interval": "0"}, {"maxt": "-1"}, {"checkpoint": "x"}, {"owner": ""}, {"hosts": "slowest"}} {
		if _, err := spec.Build(bad); err == nil {
			t.Errorf("options %v accepted", bad)
		}
	}
}

func genericPlatform(t testing.TB) *platforms.Platform {
	p, err := platforms.Parse(strings.NewReader(`<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1"><zone id="z" routing="Full">
<host id="master" speed="1e9f"><prop id="role" value="master"/></host>
<host id="h0" speed="1e9f"/><host id="h1" speed="1e9f"/>
<link id="l" bandwidth="10GBps" latency="10us"/>
<route src="master" dst="h0"><link_ctn id="l"/></route><route src="master" dst="h1"><link_ctn id="l"/></route>
</zone></platform>`), "generic")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOSEPPropertyRandom runs both policies on seeded random grids with
// owners and random demands (users without hosts, anonymous jobs, wide
// jobs, bursts), random intervals, preemption limits and checkpoints, with
// and without acknowledged registrations, the state audit on: the
// simulation must end; every original job is rejected (res > 1) or
// completes successfully exactly once, itself or as its last piece; every
// killed job has exactly one next piece.
func TestOSEPPropertyRandom(t *testing.T) {
	seeds := 16
	if testing.Short() {
		seeds = 4
	}
	preempted := 0
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x6f736570))
		users := []string{"u1", "u2", "u3", "u4"}
		hosts := make([]testkit.PropHost, 2+r.IntN(8))
		for i := range hosts {
			hosts[i] = testkit.PropHost{Speed: float64(1+r.IntN(4)) * 1e9, Value: users[r.IntN(3)]} // u4 owns nothing
		}
		var jobs []testkit.Job
		sub := 0.0
		for i := 0; i < 10+r.IntN(40); i++ {
			if r.IntN(3) == 0 {
				sub += float64(r.IntN(200))
			}
			u := append(users, "")[r.IntN(5)]
			j := testkit.Job{Name: strconv.Itoa(i), User: u, Submit: sub, Run: float64(1 + r.IntN(2000)), Res: 1}
			if r.IntN(15) == 0 {
				j.Res = 2
			}
			jobs = append(jobs, j)
		}
		plat, wl := ownedPlatform(t, hosts), testkit.Workload(t, jobs)
		for _, policy := range []string{"osep", "osep-hetero"} {
			opts := sched.Options{
				"interval":   strconv.Itoa(10 + r.IntN(120)),
				"checkpoint": []string{"0", "30", "600"}[r.IntN(3)],
				"maxt":       []string{"auto", "0", "1", "3"}[r.IntN(4)],
				"hosts":      []string{"own-fastest", "fastest"}[r.IntN(2)],
			}
			if policy == "osep-hetero" && r.IntN(2) == 0 {
				opts["guard"] = "as-printed"
			}
			ack := r.IntN(2) == 0
			t.Run(fmt.Sprintf("%d/%s/%v/ack=%v", seed, policy, opts, ack), func(t *testing.T) {
				rows := runOSEP(t, plat, wl, policy, opts, ack)
				done := map[string]int{}
				killed, pieces := map[string]int{}, map[string]int{}
				for key, row := range rows {
					orig, k := sched.OriginalOf(key)
					switch row.State {
					case "COMPLETED_SUCCESSFULLY", "REJECTED":
						done[orig]++
					case "COMPLETED_KILLED":
						killed[orig]++
					default:
						t.Errorf("%s ended %s", key, row.State)
					}
					if k > 0 {
						pieces[orig]++
					}
				}
				for _, j := range jobs {
					id := "w0!" + j.Name
					want := "COMPLETED_SUCCESSFULLY"
					if j.Res > 1 {
						want = "REJECTED"
					}
					if done[id] != 1 || killed[id] != pieces[id] {
						t.Errorf("%s: %d ends, %d kills, %d pieces", id, done[id], killed[id], pieces[id])
					}
					if last := lastPiece(rows, id, pieces[id]); last.State != want {
						t.Errorf("%s: its last piece ended %s, want %s", id, last.State, want)
					}
					preempted += killed[id]
				}
			})
		}
	}
	if preempted == 0 {
		t.Error("no random case preempted anything")
	}
}

func lastPiece(rows map[string]testkit.JobRow, orig string, n int) testkit.JobRow {
	if n == 0 {
		return rows[orig]
	}
	id, _ := sched.PieceID(orig, n)
	return rows[id]
}
