package expe

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/policies"

	"github.com/bucma-sched/bucma/internal/corpus"
)

// sameOutputsTwice checks that two executions of the same runs, in dirs a
// and b, wrote the same non-empty _jobs.csv.
func sameOutputsTwice(t *testing.T, runs []Run, a, b string) {
	t.Helper()
	for _, r := range runs {
		x, _ := os.ReadFile(filepath.Join(RunDir(a, r.ID), JobsFile))
		y, _ := os.ReadFile(filepath.Join(RunDir(b, r.ID), JobsFile))
		if len(x) == 0 || string(x) != string(y) {
			t.Errorf("run %s: outputs differ between two executions (or are empty)", r.ID)
		}
	}
}

// campaignTwiceReport runs plan p twice on the embedded engine (2 workers,
// then 1), checks the two executions wrote the same outputs, writes the
// first's report and returns its directory and the report's text.
func campaignTwiceReport(t *testing.T, p Plan) (dir, report string) {
	t.Helper()
	dir, again := t.TempDir(), t.TempDir()
	mustRun(t, &Campaign{Plan: p, Dir: dir, Engine: NewEmbeddedEngine(policies.Builtin()), Workers: 2})
	mustRun(t, &Campaign{Plan: p, Dir: again, Engine: NewEmbeddedEngine(policies.Builtin()), Workers: 1})
	sameOutputsTwice(t, p.Expand(), dir, again)
	path, err := WriteReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return dir, string(b)
}

// A tiny campaign of each plan through the real workload generators and the
// embedded engine: every run completes, the report has numbers everywhere
// the paper has, and the same plan gives the same outputs twice.
func TestEmbeddedCampaignEndToEnd(t *testing.T) {
	for _, name := range PlanNames() {
		switch name {
		case "osep":
			continue // TestEmbeddedOSEPCampaignEndToEnd
		case SGEPlan, GangPlan, BotPlan:
			continue // TestSGECampaignReport, TestGangCampaignReport, TestBotCampaignReport
		}
		t.Run(name, func(t *testing.T) {
			p, err := BuiltinPlan(name)
			if err != nil {
				t.Fatal(err)
			}
			if p, err = p.With(Overrides{Seeds: 2, Jobs: 80}); err != nil {
				t.Fatal(err)
			}
			dirs := []string{t.TempDir(), t.TempDir()}
			second := dirs[1]
			if IsSensitivity(name) {
				// 12 or 15 conditions: one execution, compared with a
				// second execution of the reference condition only.
				ref := p
				ref.Cases = p.Cases[:1]
				mustRun(t, &Campaign{Plan: ref, Dir: second, Engine: NewEmbeddedEngine(policies.Builtin()), Workers: 2})
				dirs = dirs[:1]
			}
			for i, dir := range dirs {
				mustRun(t, &Campaign{Plan: p, Dir: dir, Engine: NewEmbeddedEngine(policies.Builtin()), Workers: 1 + i})
			}
			runs := p.Expand()
			if IsSensitivity(name) {
				runs = slices.DeleteFunc(runs, func(r Run) bool { return r.Case != p.Cases[0].Name })
			}
			sameOutputsTwice(t, runs, dirs[0], second)
			an, err := Analyze(dirs[0])
			if err != nil {
				t.Fatal(err)
			}
			if an.Hosts != 39 || len(an.Runs) != len(p.Expand()) {
				t.Errorf("analysis: %d hosts, %d runs", an.Hosts, len(an.Runs))
			}
			for id, rd := range an.Runs {
				if rd.Metrics.Ran+rd.Metrics.Rejected != rd.Metrics.Jobs || rd.Metrics.Ran == 0 || !(rd.Metrics.Utilization > 0 && rd.Metrics.Utilization <= 1) {
					t.Errorf("run %s: metrics %+v", id, rd.Metrics)
				}
				gains := 0
				for _, g := range rd.Gains {
					gains += len(g)
				}
				if bucma := rd.Run.Variant.Model != "" && rd.Run.Variant.Model != "wtrust"; bucma != (gains > 0) {
					t.Errorf("run %s: %d queue-position gains recorded", id, gains)
				}
				if name == "bucma-model" && len(rd.Classes) != 3 {
					t.Errorf("run %s: precision profiles %v", id, rd.Classes)
				}
			}
			if IsSensitivity(name) && an.HostsOf(Run{Case: "resources-cores"}) != 972 {
				t.Errorf("the cores condition runs on %d hosts", an.HostsOf(Run{Case: "resources-cores"}))
			}
			path, err := WriteReport(dirs[0])
			if err != nil {
				t.Fatal(err)
			}
			text, _ := os.ReadFile(path)
			if IsSensitivity(name) {
				for _, want := range []string{"## Agreement in sign with the paper, per condition", "![Sign of each published change", "## Which factor flips which row", "## Why:", "## Where the paper's signs hold"} {
					if !strings.Contains(string(text), want) {
						t.Errorf("report: no %q", want)
					}
				}
				if strings.Contains(string(text), "| 0 / 0 |") {
					t.Errorf("report: a condition without any compared cell:\n%s", text)
				}
			}
			if strings.Contains(string(text), "| n/a") && name == "walltime-trust" {
				t.Errorf("report has missing values:\n%s", text)
			}
			for _, ext := range FigureFormats {
				figs, _ := filepath.Glob(filepath.Join(dirs[0], FigDir, "*."+ext))
				if len(figs) == 0 {
					t.Errorf("no %s figure", ext)
				}
			}
		})
	}
}

// The OSEP plan end to end, once the policies are registered: every run of
// two seeds completes, each original job is completed by exactly one row,
// every user has a satisfaction, and the report is written.
func TestEmbeddedOSEPCampaignEndToEnd(t *testing.T) {
	reg := policies.Builtin()
	for _, pol := range OSEPPolicies {
		if _, ok := reg.Get(pol); !ok {
			t.Skipf("policy %s is not registered: the OSEP plan cannot run yet", pol)
		}
	}
	p, err := BuiltinPlan("osep")
	if err == nil {
		p, err = p.With(Overrides{Seeds: 2})
	}
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mustRun(t, &Campaign{Plan: p, Dir: dir, Engine: NewEmbeddedEngine(reg)})
	cmd, _ := os.ReadFile(filepath.Join(RunDir(dir, p.Expand()[0].ID), CmdFile))
	if !strings.Contains(string(cmd), "--enable-dynamic-jobs --acknowledge-dynamic-jobs") {
		t.Errorf("command line without the dynamic-job flags: %s", cmd)
	}
	an, err := Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	preempted := 0
	for id, rd := range an.Runs {
		s := rd.OSEP
		if s.Unfinished() != 0 || s.Orphans != 0 || s.Duplicates != 0 {
			t.Errorf("run %s: %d jobs not completed, %d orphan rows, %d jobs completed twice", id, s.Unfinished(), s.Orphans, s.Duplicates)
		}
		for _, u := range an.Grid.Users {
			if su := s.Satisfaction[u].SU; !(su > 0) {
				t.Errorf("run %s: SU(%s) = %g", id, u, su)
			}
		}
		preempted += s.TotalPreemptions()
	}
	if preempted == 0 {
		t.Error("no preemption in the whole campaign")
	}
	path, err := WriteReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(path)
	for _, want := range []string{"## Satisfaction per user", "## Share of the grid's power over time", "## Preemptions", "## Side by side with the thesis"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("report without %q", want)
		}
	}
}

func TestGanttChart(t *testing.T) {
	rows, err := ReadJobsFile(corpus.Path("hetero4_delays", "out_jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"g.png", "g.svg"} {
		p := filepath.Join(dir, name)
		if err := GanttChart(rows, "hetero4", p); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := GanttChart(rows, "x", filepath.Join(dir, "g.txt")); err == nil {
		t.Error("unsupported format accepted")
	}
	if err := GanttChart(rows[:1], "x", filepath.Join(dir, "r.png")); err == nil {
		t.Error("a chart without any job drawn was accepted")
	}
	bad := []JobRow{{ID: "9", HasTimes: true, Finish: 1, Alloc: "x-y"}}
	if err := GanttChart(bad, "x", filepath.Join(dir, "b.png")); err == nil || !strings.Contains(err.Error(), "job 9") {
		t.Errorf("bad allocation: %v", err)
	}
	huge := []JobRow{{ID: "10", HasTimes: true, Finish: 1, Alloc: "0-9223372036854775807"}}
	if err := GanttChart(huge, "x", filepath.Join(dir, "h.png")); err == nil || !strings.Contains(err.Error(), "job 10") {
		t.Errorf("allocation beyond the largest resource id: %v", err)
	}
}
