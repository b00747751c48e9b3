package analysis

import (
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/internal/corpus"
	"github.com/bucma-sched/bucma/metrics"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/testkit"
	"github.com/bucma-sched/bucma/workloads"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestReadJobsCSVSmall(t *testing.T) {
	rows, err := ReadJobsFile("testdata/small_jobs.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 {
		t.Fatalf("rows = %d, want 5", len(rows))
	}
	if got := rows[1].Metadata; got != `a "quoted", text` {
		t.Errorf("metadata of job 2 = %q", got)
	}
	if got := rows[4].Metadata; got != `{"k": 1, "v": 2}` {
		t.Errorf("unescaped metadata of job 5 = %q", got)
	}
	if !rows[3].Rejected() || rows[3].HasTimes || rows[3].Res != 5 {
		t.Errorf("rejected row parsed as %+v", rows[3])
	}
	if h, err := rows[0].Hosts(); rows[0].Rejected() || err != nil || len(h) != 2 || h[1] != 1 {
		t.Errorf("row 1 parsed as %+v (hosts %v, %v)", rows[0], h, err)
	}
}

func TestComputeSmall(t *testing.T) {
	rows, err := ReadJobsFile("testdata/small_jobs.csv")
	if err != nil {
		t.Fatal(err)
	}
	m := Compute(rows, 3)
	// Hand-computed: waits 0, 20, 0; turnarounds 20, 25, 50; executions 20, 5, 50.
	checks := []struct {
		name      string
		got, want float64
	}{
		{"Ran", float64(m.Ran), 3},
		{"Rejected", float64(m.Rejected), 2},
		{"Success", float64(m.Success), 2},
		{"FirstSubmit", m.FirstSubmit, 10},
		{"Makespan", m.Makespan, 60},
		{"LastFinish", m.LastFinish, 70},
		{"MeanWait", m.MeanWait, 20.0 / 3},
		{"MaxWait", m.MaxWait, 20},
		{"MedianWait", m.MedianWait, 0},               // sorted waits 0, 0, 20
		{"P95Wait", m.P95Wait, 0 + (20-0)*(0.95*2-1)}, // between the 2nd and 3rd: 18
		{"MeanTurnaround", m.MeanTurnaround, 95.0 / 3},
		{"MeanSlowdown", m.MeanSlowdown, (1 + 5 + 1) / 3.0},
		{"MaxSlowdown", m.MaxSlowdown, 5},
		{"MeanBSLD", m.MeanBSLD, (1 + 2.5 + 1) / 3.0},
		{"Utilization", m.Utilization, (2*20 + 5 + 50) / (3 * 60.0)},
	}
	for _, c := range checks {
		if !near(c.got, c.want, 1e-9) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if u := Compute(rows, 0).Utilization; !math.IsNaN(u) {
		t.Errorf("utilization without hosts = %v, want NaN", u)
	}
}

func TestComputeNoRun(t *testing.T) {
	m := Compute([]JobRow{{ID: "1", FinalState: "REJECTED", Submit: 3}}, 4)
	if m.Rejected != 1 || m.Ran != 0 || !math.IsNaN(m.MeanWait) || !math.IsNaN(m.Makespan) {
		t.Errorf("all rejected: %+v", m)
	}
}

// scheduleValues reads a Batsim _schedule.csv (one header, one value line).
func scheduleValues(t *testing.T, path string) map[string]float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) != 2 {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]float64{}
	for i, k := range recs[0] {
		if v, err := strconv.ParseFloat(recs[1][i], 64); err == nil {
			out[k] = v
		}
	}
	return out
}

// The metrics of real Batsim outputs agree with Batsim's own summary once
// the definitions are aligned (Batsim divides by every job, rejected ones
// included, and its makespan is max(finish_time)); the busy host-time is
// Batsim's time_computing, killed pieces and resubmitted remainders
// (kill_resubmit) included.
func TestComputeAgreesWithBatsimSchedule(t *testing.T) {
	for _, c := range []struct {
		name  string
		hosts int
	}{{"hetero4_delays", 4}, {"hetero8_compute", 8}, {"kill_resubmit", 4}} {
		t.Run(c.name, func(t *testing.T) {
			rows, err := ReadJobsFile(corpus.Path(c.name, "out_jobs.csv"))
			if err != nil {
				t.Fatal(err)
			}
			s := scheduleValues(t, corpus.Path(c.name, "out_schedule.csv"))
			m := Compute(rows, c.hosts)
			if m.Jobs != int(s["nb_jobs"]) || m.Rejected != int(s["nb_jobs_rejected"]) || m.Success != int(s["nb_jobs_success"]) {
				t.Errorf("counts %d/%d/%d, Batsim %v/%v/%v", m.Jobs, m.Rejected, m.Success, s["nb_jobs"], s["nb_jobs_rejected"], s["nb_jobs_success"])
			}
			if !near(m.LastFinish, s["makespan"], 1e-6) {
				t.Errorf("LastFinish = %v, Batsim makespan %v", m.LastFinish, s["makespan"])
			}
			if !near(m.MeanWait*float64(m.Ran)/float64(m.Jobs), s["mean_waiting_time"], 1e-5) {
				t.Errorf("mean wait %v over %d ran, Batsim %v over %d jobs", m.MeanWait, m.Ran, s["mean_waiting_time"], m.Jobs)
			}
			if !near(m.MaxWait, s["max_waiting_time"], 1e-6) {
				t.Errorf("max wait %v, Batsim %v", m.MaxWait, s["max_waiting_time"])
			}
			if !near(m.Busy, s["time_computing"], 1e-5*float64(m.Ran)) || !near(m.Utilization, m.Busy/(float64(c.hosts)*m.Makespan), 1e-12) {
				t.Errorf("busy %v host-seconds, utilization %v; Batsim time_computing %v", m.Busy, m.Utilization, s["time_computing"])
			}
		})
	}
}

func TestReadJobsCSVRealFiles(t *testing.T) {
	rows, err := ReadJobsFile(corpus.Path("users_fields", "out_jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || rows[1].ID != "carol-3" || rows[3].FinalState != "COMPLETED_FAILED" || rows[3].Success {
		t.Errorf("users_fields rows: %+v", rows)
	}
}

func TestReadJobsCSVErrors(t *testing.T) {
	header := "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,metadata\n"
	for _, c := range []struct{ name, in, want string }{
		{"empty", "", "empty jobs file"},
		{"not batsim", "a,b,c\n1,2,3\n", "missing column"},
		{"bad number", header + "1,w0,p,zero,1,10,1,COMPLETED_SUCCESSFULLY,0,1,1,0,1,1,0,-1,\"\"\n", "line 2, column submission_time"},
		{"short row", header + "1,w0,p,0,1\n", "line 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadJobsCSV(strings.NewReader(c.in))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestByGroupAndJobInfo(t *testing.T) {
	rows, err := ReadJobsFile("testdata/small_jobs.csv")
	if err != nil {
		t.Fatal(err)
	}
	info, err := ReadJobInfo("testdata/small_workload.json")
	if err != nil {
		t.Fatal(err)
	}
	if info["1"].User != "alice" || info["2"].User != "7" || info["4"].Class != "" || info["5"].Class != "" {
		t.Errorf("job info: %+v", info)
	}
	g := ByGroup(rows, ClassOf(info))
	if len(g) != 2 {
		t.Fatalf("groups: %+v", g)
	}
	if p := g["precise"]; p.Jobs != 2 || !near(p.MeanWait, 10, 1e-12) || !near(p.MeanSlowdown, 3, 1e-12) {
		t.Errorf("precise: %+v", p)
	}
	if p := g["imprecise"]; p.Jobs != 1 || p.MeanWait != 0 || p.MeanBSLD != 1 {
		t.Errorf("imprecise: %+v", p)
	}
	if _, err := ParseJobInfo([]byte(`{"jobs":[{"subtime":1}]}`)); err == nil {
		t.Error("a job without id was accepted")
	}
	if _, err := ParseJobInfo([]byte(`[1,2]`)); err == nil {
		t.Error("a non-workload was accepted")
	}
}

func TestTraceGainsByBand(t *testing.T) {
	tr, err := ReadTraceFile("testdata/small_trace.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(tr) != 7 {
		t.Fatalf("rows = %d", len(tr))
	}
	if tr[0].HasGain || tr[0].User != "alice" || tr[0].Precision != 20 || !math.IsNaN(tr[2].Precision) {
		t.Errorf("row parsing: %+v %+v", tr[0], tr[2])
	}
	g := GainsByBand(tr)
	want := map[string][]float64{"0-24": {0}, "25-49": {200.0 / 3}, "50-74": {75}, "75-100": {100}}
	for band, w := range want {
		if len(g[band]) != len(w) || !near(g[band][0], w[0], 1e-9) {
			t.Errorf("band %s: %v, want %v", band, g[band], w)
		}
	}
	w := WaitsByBand(tr)
	if len(w["0-24"]) != 2 || w["0-24"][1] != 20 || len(w["50-74"]) != 1 || len(w["75-100"]) != 1 || len(w["25-49"]) != 1 {
		t.Errorf("waits by band: %v", w)
	}
	if _, err := ReadTrace(strings.NewReader("user,gain\nx,1\n")); err == nil {
		t.Error("a trace without job id column was accepted")
	}
	if _, err := ReadTrace(strings.NewReader("job_id,queue_gain\n1,abc\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad gain: %v", err)
	}
}

func TestSuBand(t *testing.T) {
	for su, want := range map[float64]string{0: "0-24", 24: "0-24", 25: "25-49", 49: "25-49", 50: "50-74", 74: "50-74", 75: "75-100", 100: "75-100"} {
		if got := SuBand(su); got != want {
			t.Errorf("SuBand(%v) = %s, want %s", su, got, want)
		}
	}
}

func TestStats(t *testing.T) {
	e := Estimate95([]float64{1, 2, 3, 4, 5, math.NaN()})
	// sd = sqrt(2.5), t(4) = 2.776445105, half = t(4) * sqrt(2.5) / sqrt(5).
	if e.N != 5 || e.Mean != 3 || !near(e.Half, 2.776445105197794*math.Sqrt(2.5)/math.Sqrt(5), 1e-9) {
		t.Errorf("Estimate95 = %+v", e)
	}
	if e := Estimate95([]float64{7}); e.Mean != 7 || !math.IsNaN(e.Half) {
		t.Errorf("one value: %+v", e)
	}
	if e := Estimate95(nil); e.N != 0 || !math.IsNaN(e.Mean) {
		t.Errorf("no value: %+v", e)
	}
	// Reference quantiles, solved to 40 digits with mpmath's regularised
	// incomplete beta function.
	for df, want := range map[int]float64{
		1: 12.7062047361747, 2: 4.302652729749464, 4: 2.776445105197794, 9: 2.262157162798206,
		30: 2.042272456301238, 50: 2.008559112100761, 120: 1.979930405082441, 1000: 1.962339080826408,
		1 << 20: 1.959966246916765,
	} {
		if got := StudentT975(df); !near(got, want, 1e-9) {
			t.Errorf("t(%d) = %.15g, want %.15g", df, got, want)
		}
	}
	if got := StudentT975(0); !math.IsNaN(got) {
		t.Errorf("t(0) = %v, want NaN", got)
	}
	if q := metrics.Quantile([]float64{4, 1, 3, 2}, 0.5); q != 2.5 {
		t.Errorf("median = %v", q)
	}
	if c := Change(75, 100); c != -25 {
		t.Errorf("Change = %v", c)
	}
	if c := Change(1, 0); !math.IsNaN(c) {
		t.Errorf("Change vs 0 = %v", c)
	}
}

// A bad number in the trace is reported with its line and column name.
func TestReadTraceBadNumberNamesColumn(t *testing.T) {
	in := "job_id,user,su_at_submission\nw0!1,alice,50\nw0!2,bob,lots\n"
	_, err := ReadTrace(strings.NewReader(in))
	if err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "su_at_submission") {
		t.Fatalf("error %v, want line 3 and column su_at_submission", err)
	}
}

// engineCase is a run through the embedded engine whose summary the
// report's metrics must agree with.
type engineCase struct {
	name, policy string
	opts         sched.Options
	plat         *platforms.Platform
	wl           *workloads.Workload
	// what the run must show, so that the test keeps exercising it: jobs
	// sharing a host, a killed job, hosts asleep.
	shares, kills, sleeps bool
}

// The engine's summary (bucma simulate's) and the report's metrics of the
// same run are one definition: makespan, means and utilization agree (to
// _jobs.csv's 6 decimals), the busy host-time read from _jobs.csv is the
// engine's time_computing, and the utilization is at most 1, under compute
// sharing, preemption (killed pieces and resubmitted remainders) and power
// states (hosts asleep and switching).
func TestEngineSummaryIsTheReportMetrics(t *testing.T) {
	speeds, random := testkit.Random(7)
	var hosts []testkit.Host
	for _, s := range speeds {
		hosts = append(hosts, testkit.Host{Speed: s})
	}
	var shared []testkit.Job
	for i, j := range random {
		j.Res = 1 // the SGE policies run one-host jobs
		if i%5 == 0 {
			j.Submit += 3600 // idle hosts between bursts
		}
		shared = append(shared, j)
	}
	owned := testkit.Platform(t, testkit.PropHosts("owner", testkit.PropHost{Speed: 1e9, Value: "a"}, testkit.PropHost{Speed: 1e9, Value: "b"}))
	preempted := testkit.Workload(t, []testkit.Job{
		{Name: "a1", User: "a", Submit: 0, Run: 1000, Res: 1}, {Name: "a2", User: "a", Submit: 0, Run: 1000, Res: 1},
		{Name: "b1", User: "b", Submit: 100, Run: 100, Res: 1},
	})
	bot2, err := platforms.Resolve("bot-2nodes")
	if err != nil {
		t.Fatal(err)
	}
	example, _ := workloads.NamedBoT("example")
	bots, err := workloads.BotWorkload([]workloads.BotSpec{example}, workloads.BotWorkloadOptions{Hosts: len(bot2.Hosts)})
	if err != nil {
		t.Fatal(err)
	}
	var sparse []testkit.Job
	for i := range 12 {
		sparse = append(sparse, testkit.Job{Name: strconv.Itoa(i), Submit: float64(2000 * (i / 3)), Run: float64(100 + 50*i), Res: 1 + i%4, Walltime: 2000})
	}
	for _, c := range []engineCase{
		{"plain", "easy", nil, testkit.Platform(t, hosts), testkit.Workload(t, random), false, true, false},
		{"sharing", "sge-default-rr", sched.Options{"slots": strings.Repeat("3,", len(hosts)-1) + "2", "choice": "least-load"},
			testkit.Platform(t, hosts), testkit.Workload(t, shared), true, true, false},
		{"preemption", "osep", sched.Options{"checkpoint": "50"}, owned, preempted, false, true, false},
		{"power states", "sleeper", nil, bot2, testkit.Workload(t, sparse), false, false, true},
		// The BoT's 4 VMs packed on one node of 4 cores, the other node
		// switched off.
		{"sharing and power states", "threshold-vm-consolidation", sched.Options{"power": "on", "place": "pack"}, bot2, bots, true, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec, err := policies.Builtin().Lookup(c.policy)
			if err != nil {
				t.Fatal(err)
			}
			res := testkit.Simulate(t, testkit.EngineRun{Platform: c.plat, Workloads: []*workloads.Workload{c.wl}, Spec: spec, Options: c.opts})
			rows, err := ReadJobsFile(res.Prefix + "_jobs.csv")
			if err != nil {
				t.Fatal(err)
			}
			got, want := res.Sim.Metrics, Compute(rows, len(c.plat.Hosts))
			tc, err := ScheduleValue(res.Prefix+"_schedule.csv", "time_computing")
			if err != nil {
				t.Fatal(err)
			}
			tol := 2e-6 * float64(want.Ran)
			for _, v := range []struct {
				name     string
				eng, rep float64
				tol      float64
			}{
				{"makespan", got.Makespan, want.Makespan, 1e-6}, {"mean wait", got.MeanWait, want.MeanWait, 1e-6},
				{"mean slowdown", got.MeanSlowdown, want.MeanSlowdown, 1e-5}, {"mean bounded slowdown", got.MeanBSLD, want.MeanBSLD, 1e-5},
				{"busy host-time", got.Busy, want.Busy, tol}, {"time_computing", tc, want.Busy, tol},
				{"utilization", got.Utilization, want.Utilization, 1e-6},
			} {
				if !near(v.eng, v.rep, v.tol) {
					t.Errorf("%s: engine %v, report %v", v.name, v.eng, v.rep)
				}
			}
			if got.Jobs != want.Jobs || got.Ran != want.Ran || got.Killed != want.Killed || got.Success != want.Success {
				t.Errorf("counts: engine %+v, report %+v", got, want)
			}
			if !(want.Utilization > 0 && want.Utilization <= 1) {
				t.Errorf("utilization %v", want.Utilization)
			}
			area := 0.0
			for _, r := range rows {
				area += float64(r.Res) * r.Exec
			}
			sleeping, err := ScheduleValue(res.Prefix+"_schedule.csv", "time_sleeping")
			if err != nil {
				t.Fatal(err)
			}
			if c.shares != (area > want.Busy+tol) || c.kills != (want.Killed > 0) || c.sleeps != (sleeping > 0) {
				t.Errorf("res × execution %v against busy %v host-seconds, %d killed, %v s asleep: want sharing %v, kills %v, sleep %v",
					area, want.Busy, want.Killed, sleeping, c.shares, c.kills, c.sleeps)
			}
		})
	}
}
