package osep

import (
	"math"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/metrics"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/studies/internal/studytest"
	"github.com/bucma-sched/bucma/workloads"
)

func close9(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// A schedule worked out by hand: hosts A (id 0) and C (id 2) do 2 flop/s,
// B (id 1) 1 flop/s.
//
//	t=0    waiting j4(2) j2(4) j3(4) j1(8): j4→A ends 1, j2→C ends 2 (ties
//	       by id: j2 before j3), j3→B ends 4; j1 waits
//	t=1    A free, j5 arrives: j5→A ends 1.5
//	t=1.5  A free: j1→A ends 5.5
//	t=10   j6 arrives, every host free: the fastest, A, ends 13
func TestIdealCompletion(t *testing.T) {
	hosts := []GridHost{{ID: 0, Name: "A", Speed: 2}, {ID: 1, Name: "B", Speed: 1}, {ID: 2, Name: "C", Speed: 2}}
	jobs := []OSEPJob{
		{ID: "j1", Submit: 0, Flop: 8}, {ID: "j2", Submit: 0, Flop: 4}, {ID: "j3", Submit: 0, Flop: 4},
		{ID: "j4", Submit: 0, Flop: 2}, {ID: "j6", Submit: 10, Flop: 6}, {ID: "j5", Submit: 1, Flop: 1},
	}
	ct, err := IdealCompletion(jobs, hosts)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"j1": 5.5, "j2": 2, "j3": 4, "j4": 1, "j5": 1.5, "j6": 13}
	if len(ct) != len(want) {
		t.Fatalf("%d completion times: %v", len(ct), ct)
	}
	for id, w := range want {
		if !close9(ct[id], w) {
			t.Errorf("%s completes at %g, want %g", id, ct[id], w)
		}
	}
	// The order of the hosts given does not matter, only their speeds and ids.
	rev := []GridHost{hosts[2], hosts[1], hosts[0]}
	if ct2, _ := IdealCompletion(jobs, rev); ct2["j2"] != ct["j2"] || ct2["j1"] != ct["j1"] {
		t.Errorf("host order changed the schedule: %v", ct2)
	}
	// A job of no work completes at its arrival, without blocking its host.
	ct, err = IdealCompletion([]OSEPJob{{ID: "z", Submit: 3, Flop: 0}, {ID: "y", Submit: 3, Flop: 1}}, hosts[1:2])
	if err != nil || ct["z"] != 3 || ct["y"] != 4 {
		t.Errorf("zero work: %v, %v", ct, err)
	}
	if ct, err := IdealCompletion(nil, nil); err != nil || len(ct) != 0 {
		t.Errorf("no job: %v, %v", ct, err)
	}
	for _, c := range []struct {
		jobs  []OSEPJob
		hosts []GridHost
		want  string
	}{
		{jobs[:1], nil, "no host"},
		{[]OSEPJob{jobs[0], jobs[0]}, hosts, "twice"},
		{jobs[:1], []GridHost{{Name: "S", Speed: 0}}, "host S"},
		{[]OSEPJob{{ID: "n", Flop: math.NaN()}}, hosts, "job n"},
	} {
		if _, err := IdealCompletion(c.jobs, c.hosts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v on %v: %v, want %q", c.jobs, c.hosts, err, c.want)
		}
	}
}

func TestOSEPGridOfTheBundledPlatform(t *testing.T) {
	p, err := platforms.Bundled("osep")
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewOSEPGrid(p, "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(g.Users, ",") != "user1,user2,user3,user4" || len(g.Hosts) != 12 {
		t.Fatalf("users %v, %d hosts", g.Users, len(g.Hosts))
	}
	// The thesis' shares (section 5.2).
	sum := 0.0
	for u, want := range map[string]float64{"user1": 45.76, "user2": 27.88, "user3": 16.06, "user4": 10.29} {
		got := 100 * g.OwnedShare(u)
		sum += got
		if math.Abs(got-want) > 0.01 {
			t.Errorf("%s owns %.3f %% of the grid, want %.2f %%", u, got, want)
		}
		if n := len(g.Owned(u)); n != 3 {
			t.Errorf("%s owns %d hosts", u, n)
		}
	}
	if !close9(sum, 100) || !close9(g.Total, 867040e6) {
		t.Errorf("shares add up to %g %%, total speed %g", sum, g.Total)
	}
	if _, err := NewOSEPGrid(p, "nobody"); err == nil || !strings.Contains(err.Error(), `"nobody"`) {
		t.Errorf("grid without owners: %v", err)
	}
	// Owner-alone completion: user4 alone on its three i3 hosts.
	jobs := []OSEPJob{{ID: "a", User: "user4", Flop: 2.975e10 * 100}, {ID: "b", User: "user4", Submit: 5, Flop: 2.975e10 * 10}, {ID: "c", User: "ghost", Flop: 1}}
	ct, err := OwnerAloneCompletion(jobs, g)
	if err != nil {
		t.Fatal(err)
	}
	if !close9(ct["a"], 100) || !close9(ct["b"], 15) {
		t.Errorf("user4 alone: %v", ct)
	}
	if _, ok := ct["c"]; ok {
		t.Error("a user who owns no host has an ideal completion time")
	}
}

func TestParseOSEPJobs(t *testing.T) {
	w, err := workloads.GenerateOSEP(workloads.OSEPOptions{Demand: "large", Late: "user4", LateBy: 360, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	data, err := w.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := ParseOSEPJobs(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 40 {
		t.Fatalf("%d jobs", len(jobs))
	}
	for _, j := range jobs {
		if (j.User == "user4") != (j.Submit == 360) || !strings.HasPrefix(j.ID, j.User+"-") || !(j.Flop >= 39675000e6 && j.Flop <= 3332700000e6) {
			t.Errorf("job %+v", j)
		}
	}
	for _, c := range []struct{ json, want string }{
		{`{"nb_res":2,"jobs":[{"id":"a","subtime":0,"res":2,"profile":"p","user":"u"}],"profiles":{"p":{"type":"parallel_homogeneous","cpu":1,"com":0}}}`, "sequential"},
		{`{"nb_res":2,"jobs":[{"id":"a","subtime":0,"res":1,"profile":"p"}],"profiles":{"p":{"type":"parallel_homogeneous","cpu":1,"com":0}}}`, "no user"},
		{`{"nb_res":2,"jobs":[{"id":"a","subtime":0,"res":1,"profile":"p","user":"u"}],"profiles":{"p":{"type":"delay","delay":5}}}`, "flops"},
	} {
		if _, err := ParseOSEPJobs([]byte(c.json)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.json, err, c.want)
		}
	}
}

// miniGrid: hosts 0 (2 flop/s) and 1 (1 flop/s) belong to alice, host 2
// (1 flop/s) to bob.
func miniGrid() *OSEPGrid {
	return &OSEPGrid{
		Hosts: []GridHost{{ID: 0, Name: "h0", Speed: 2, Owner: "alice"}, {ID: 1, Name: "h1", Speed: 1, Owner: "alice"}, {ID: 2, Name: "h2", Speed: 1, Owner: "bob"}},
		Total: 4, Users: []string{"alice", "bob"},
	}
}

var miniJobs = []OSEPJob{
	{ID: "a1", User: "alice", Submit: 0, Flop: 4},
	{ID: "a2", User: "alice", Submit: 0, Flop: 2},
	{ID: "b1", User: "bob", Submit: 0, Flop: 3},
	{ID: "b2", User: "bob", Submit: 5, Flop: 1},
}

const jobsHeader = "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,metadata\n"

// miniRows: a1 starts on h0, is killed at 1 and its piece a1.1 runs on h1
// from 2 to 6; a2 runs on h1 from 0 to 2, b1 on h2 from 0 to 3; b2 starts on
// h2 at 5 and is killed at 6.5 without a piece (it never completes); a row
// of a job the workload does not have was rejected.
const miniRows = jobsHeader +
	`a1,w0,p-a1,0.000000,1,-1.000000,0,COMPLETED_KILLED,0.000000,1.000000,1.000000,0.000000,1.000000,1.000000,0,-1.000000,""
a2,w0,p-a2,0.000000,1,-1.000000,1,COMPLETED_SUCCESSFULLY,0.000000,2.000000,2.000000,0.000000,2.000000,1.000000,1,-1.000000,""
b1,w0,p-b1,0.000000,1,-1.000000,1,COMPLETED_SUCCESSFULLY,0.000000,3.000000,3.000000,0.000000,3.000000,1.000000,2,-1.000000,""
a1.1,w0.r,a1.1,1.000000,1,-1.000000,1,COMPLETED_SUCCESSFULLY,2.000000,4.000000,6.000000,1.000000,5.000000,1.250000,1,-1.000000,""
b2,w0,p-b2,5.000000,1,-1.000000,0,COMPLETED_KILLED,5.000000,1.500000,6.500000,0.000000,1.500000,1.000000,2,-1.000000,""
zz,w0,p-zz,0.000000,1,-1.000000,0,REJECTED,,,,,,,,,""
`

func miniRun(t *testing.T) []analysis.JobRow {
	t.Helper()
	rows, err := analysis.ReadJobsCSV(strings.NewReader(miniRows))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// Satisfaction worked out by hand. Alone on their hosts, alice's a2 (the
// smaller) goes to h0 and ends at 1, a1 to h1 and ends at 4; bob's b1 ends
// at 3, b2 at 6. In the run a1 ends at 6 (its piece), a2 at 2, b1 at 3 and
// b2 never: SU(alice) = (4/6 + 1/2)/2 = 58.33 %, SU(bob) = 100 % over its
// one completed job, the other counted apart.
func TestSatisfaction(t *testing.T) {
	g := miniGrid()
	ideal, err := OwnerAloneCompletion(miniJobs, g)
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]float64{"a1": 4, "a2": 1, "b1": 3, "b2": 6} {
		if !close9(ideal[id], want) {
			t.Errorf("ideal %s = %g, want %g", id, ideal[id], want)
		}
	}
	su := Satisfaction(miniRun(t), miniJobs, ideal)
	if s := su["alice"]; !close9(s.SU, 175.0/3) || s.Jobs != 2 || s.Completed != 2 {
		t.Errorf("alice: %+v, want SU 58.33, 2 of 2 jobs", s)
	}
	if s := su["bob"]; !close9(s.SU, 100) || s.Jobs != 2 || s.Completed != 1 {
		t.Errorf("bob: %+v, want SU 100, 1 of 2 jobs", s)
	}
	// Without a reference (a user who owns no host) SU is undefined; with
	// no completed job too.
	delete(ideal, "b1")
	if s := Satisfaction(miniRun(t), miniJobs, ideal)["bob"]; !math.IsNaN(s.SU) || s.Completed != 1 {
		t.Errorf("bob without reference: %+v", s)
	}
	if s := Satisfaction(nil, miniJobs, ideal)["alice"]; !math.IsNaN(s.SU) || s.Completed != 0 || s.Jobs != 2 {
		t.Errorf("no row: %+v", s)
	}
}

func TestPowerShares(t *testing.T) {
	g := miniGrid()
	s, err := PowerShares(miniRun(t), miniJobs, g)
	if err != nil {
		t.Fatal(err)
	}
	wantT := []float64{0, 1, 2, 3, 5, 6, 6.5}
	want := map[string][]float64{
		"alice": {3, 1, 1, 1, 1, 0, 0},
		"bob":   {1, 1, 1, 0, 1, 1, 0},
	}
	if len(s.Times) != len(wantT) {
		t.Fatalf("times %v, want %v", s.Times, wantT)
	}
	for k := range wantT {
		if s.Times[k] != wantT[k] {
			t.Errorf("time %d: %g, want %g", k, s.Times[k], wantT[k])
		}
		for u, w := range want {
			if s.Share[u][k] != w[k]/4 {
				t.Errorf("%s at %g: share %g, want %g", u, s.Times[k], s.Share[u][k], w[k]/4)
			}
		}
	}
	// alice ran 2×1 + 1×2 + 1×4 = 8 flop/s·s out of 4 × 6.5.
	if m := s.Mean("alice", 0, 6.5); !close9(m, 8.0/26) {
		t.Errorf("alice's mean share %g", m)
	}
	if m := s.Mean("bob", 2, 4); !close9(m, 0.125) {
		t.Errorf("bob's mean share over [2, 4] %g", m)
	}
	if m := s.Mean("bob", 10, 20); m != 0 {
		t.Errorf("bob's share after the end %g", m)
	}
	if !math.IsNaN(s.Mean("bob", 3, 3)) {
		t.Error("mean over an empty interval")
	}
	bad := miniRun(t)
	bad[0].Alloc = "3"
	if _, err := PowerShares(bad, miniJobs, g); err == nil || !strings.Contains(err.Error(), "w0!a1") {
		t.Errorf("host beyond the platform: %v", err)
	}
}

func TestComputeOSEP(t *testing.T) {
	g := miniGrid()
	ideal, _ := OwnerAloneCompletion(miniJobs, g)
	s, err := ComputeOSEP(miniRun(t), miniJobs, ideal, g)
	if err != nil {
		t.Fatal(err)
	}
	if s.Preemptions["alice"] != 1 || s.Preemptions["bob"] != 1 || s.TotalPreemptions() != 2 {
		t.Errorf("preemptions %v", s.Preemptions)
	}
	if !close9(s.KilledExec["alice"], 1) || !close9(s.KilledExec["bob"], 1.5) || !close9(s.TotalKilledExec(), 2.5) {
		t.Errorf("killed execution time %v", s.KilledExec)
	}
	if s.Unfinished() != 1 || s.Orphans != 1 || s.Duplicates != 0 {
		t.Errorf("unfinished %d, orphans %d, duplicates %d", s.Unfinished(), s.Orphans, s.Duplicates)
	}
	if s.Busy != [2]float64{0, 6.5} || !close9(s.BusyShare["alice"], 8.0/26) || !close9(s.BusyShare["bob"], 4.5/26) {
		t.Errorf("busy %v, shares %v", s.Busy, s.BusyShare)
	}
	// alice ran 1 s on h0, 2 s + 4 s on h1 (all hers); bob 3 s + 1.5 s on h2.
	if !close9(s.OwnHostTime["alice"], 1) || !close9(s.HostSpeed["alice"], 8.0/7) || !close9(s.OwnHostTime["bob"], 1) || !close9(s.HostSpeed["bob"], 1) {
		t.Errorf("own-host time %v, host speed %v", s.OwnHostTime, s.HostSpeed)
	}
	// b2 on alice's h0 instead: 1.5 s of bob's 4.5 s away from his host.
	moved := miniRun(t)
	moved[4].Alloc = "0"
	if m, err := ComputeOSEP(moved, miniJobs, ideal, g); err != nil || !close9(m.OwnHostTime["bob"], 3/4.5) || !close9(m.HostSpeed["bob"], 6/4.5) {
		t.Errorf("b2 on h0: %v, own-host time %v, host speed %v", err, m.OwnHostTime, m.HostSpeed)
	}
	// Everybody has submitted at 0; alice is the first (the only one) done,
	// at 6: bob never completes b2.
	if s.Contention != [2]float64{0, 6} || !close9(s.ContentionShare["alice"], 8.0/24) || !close9(s.ContentionShare["bob"], 4.0/24) {
		t.Errorf("contention %v, shares %v", s.Contention, s.ContentionShare)
	}
	// Two rows completing the same job: counted, the last finish counts.
	dup := append(miniRun(t), analysis.JobRow{ID: "a2.1", Workload: "w0.r", FinalState: metrics.SuccessState, HasTimes: true, Start: 2, Finish: 10, Alloc: "0"})
	s, err = ComputeOSEP(dup, miniJobs, ideal, g)
	if err != nil || s.Duplicates != 1 || !close9(s.Satisfaction["alice"].SU, (4.0/6+1.0/10)/2*100) {
		t.Errorf("duplicate: %v, %+v", err, s)
	}
}
func TestOSEPPlanExpansion(t *testing.T) {
	p := studytest.Plan(t, studytest.Studies(Register), Plan)
	if p.Kind != "osep" || p.Platform != "osep" || p.Workload.Generator != "osep" || p.Workload.Fields.Float("late_by") != 360 || len(p.Loads) != 0 || len(p.Seeds) != 1000 {
		t.Errorf("plan %+v", p)
	}
	// 12 thesis cases = 6 workload cases × {no checkpoint, 600-s blocks},
	// each with both policies; plus the heterogeneous OSEP with its guard
	// as printed, without checkpoints.
	if len(p.Cases) != 6 || len(p.Variants) != 5 {
		t.Fatalf("%d cases, %d variants", len(p.Cases), len(p.Variants))
	}
	wantV := map[string]string{"osep": "0", "osep-ckpt600": "600", "osep-hetero": "0", "osep-hetero-ckpt600": "600", OSEPAsPrintedVariant: "0"}
	for _, v := range p.Variants {
		nopts := 1
		if v.Name == OSEPAsPrintedVariant {
			nopts = 2
			if v.Options["guard"] != "as-printed" {
				t.Errorf("variant %+v", v)
			}
		}
		if ck, ok := wantV[v.Name]; !ok || v.Options["checkpoint"] != ck || !strings.HasPrefix(v.Name, v.Policy) || len(v.Options) != nopts {
			t.Errorf("variant %+v", v)
		}
	}
	runs := p.Expand()
	if len(runs) != 5*6*1000 {
		t.Fatalf("%d runs", len(runs))
	}
	ids := map[string]bool{}
	cases := map[string]int{}
	for _, r := range runs {
		if ids[r.ID] {
			t.Errorf("run id %s twice", r.ID)
		}
		ids[r.ID] = true
		c, ok := p.Case(r.Case)
		if !ok || r.Load != 0 || r.Workload != expe.CaseWorkloadKey(r.Case, r.Seed) || r.ID != r.Variant.Name+"_"+r.Workload {
			t.Errorf("run %+v", r)
		}
		if strings.ContainsAny(r.ID, `/\ `) || strings.HasPrefix(r.ID, ".") || strings.Count(r.ID, "_") != 2 {
			t.Errorf("run id %q is not a safe file name of three parts", r.ID)
		}
		cases[c.Param("late")+"/"+c.Param("demand")]++
	}
	for _, late := range OSEPLateUsers {
		for _, d := range OSEPDemands {
			if cases[late+"/"+d] != 5*1000 {
				t.Errorf("%s late, %s demand: %d runs", late, d, cases[late+"/"+d])
			}
		}
	}
	if got := runs[0].ID; got != "osep_user1-late-small_s001" {
		t.Errorf("first run id %s", got)
	}
	if got := runs[len(runs)-1].ID; got != "osep-hetero-asprinted_user4-late-large_s1000" {
		t.Errorf("last run id %s", got)
	}
	if n := len(p.WorkloadKeys()); n != 6*1000 {
		t.Errorf("%d workloads", n)
	}
	// The recipe of a case carries its parameters; the plan's is unchanged.
	r := p.Recipe("user4-late-medium")
	if r.Generator != "osep" || r.Fields.String("demand") != "medium" || r.Fields.String("late") != "user4" || r.Fields.Float("late_by") != 360 || p.Workload.Fields.Has("demand") {
		t.Errorf("recipe %+v (plan's %+v)", r, p.Workload)
	}
	if OwnerProperty(p) != "owner" {
		t.Errorf("owner property %q", OwnerProperty(p))
	}
}

func TestOSEPPlanOverrides(t *testing.T) {
	p := studytest.Plan(t, studytest.Studies(Register), Plan)
	q, err := p.With(expe.Overrides{Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Seeds) != 5 || q.Workload.Jobs != 0 || len(q.Expand()) != 30*5 {
		t.Errorf("quick: %d seeds, %d jobs", len(q.Seeds), q.Workload.Jobs)
	}
	if s, _ := p.QuickSizes(); s != 5 {
		t.Errorf("quick seeds %d", s)
	}
	if q, err := p.With(expe.Overrides{Quick: true, Seeds: 7}); err != nil || len(q.Seeds) != 7 {
		t.Errorf("--quick --seeds 7: %v", err)
	}
	if _, err := p.With(expe.Overrides{Jobs: 40}); err == nil || !strings.Contains(err.Error(), "--jobs does not apply to plan osep") {
		t.Errorf("--jobs: %v", err)
	}
	if _, err := p.With(expe.Overrides{Loads: []float64{0.5}}); err == nil || !strings.Contains(err.Error(), "--loads does not apply to plan osep") || !strings.Contains(err.Error(), "user1-late-small") {
		t.Errorf("--loads: %v", err)
	}
}
