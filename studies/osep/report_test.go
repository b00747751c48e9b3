package osep

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/expe/figures"
	"github.com/bucma-sched/bucma/expe/report"
	"github.com/bucma-sched/bucma/metrics"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/studies/internal/studytest"
)

// osepFake stands in for the OSEP policies: each user's jobs run one after
// the other on the user's own hosts (the host free first), except that the
// first job of one user (user2 under osep-hetero, user4 under osep) is
// killed halfway and its remaining work resubmitted as piece 1, which
// keeps the whole checkpoint blocks of a checkpointing variant. In run
// unfinished, user3's last job is killed and never resubmitted.
type osepFake struct{ unfinished string }

func (osepFake) Name() string                         { return "fake-osep" }
func (osepFake) CommandLine(spec expe.RunSpec) string { return "fake-osep " + spec.Run.ID }

func (f osepFake) Run(ctx context.Context, spec expe.RunSpec) error {
	plat, err := platforms.Load(spec.Platform)
	if err != nil {
		return err
	}
	g, err := NewOSEPGrid(plat, "")
	if err != nil {
		return err
	}
	jobs, err := ReadOSEPJobs(spec.Workload)
	if err != nil {
		return err
	}
	sort.Slice(jobs, func(a, b int) bool { return jobs[a].ID < jobs[b].ID })
	victim := "user4"
	if spec.Run.Variant.Policy == "osep-hetero" {
		victim = "user2"
	}
	ckpt := float64(checkpointOf(spec.Run.Variant))
	var b strings.Builder
	b.WriteString(jobsHeader)
	row := func(id, w string, sub float64, ok bool, state string, start, finish float64, host int) {
		s := 0
		if ok {
			s = 1
		}
		fmt.Fprintf(&b, "%s,%s,%s,%f,1,-1.000000,%d,%s,%f,%f,%f,%f,%f,1.000000,%d,-1.000000,\"\"\n",
			id, w, "p-"+id, sub, s, state, start, finish-start, finish, start-sub, finish-sub, host)
	}
	free := map[int]float64{}
	first := map[string]bool{}
	last := map[string]string{}
	for _, j := range jobs {
		last[j.User] = j.ID
	}
	for _, j := range jobs {
		own := g.Owned(j.User)
		h := own[0]
		for _, o := range own {
			if free[o.ID] < free[h.ID] {
				h = o
			}
		}
		start := math.Max(free[h.ID], j.Submit)
		dur := j.Flop / h.Speed
		switch {
		case j.User == victim && !first[j.User]:
			kill := start + dur/2
			row(j.ID, "w0", j.Submit, false, metrics.KilledState, start, kill, h.ID)
			kept := 0.0
			if ckpt > 0 {
				kept = math.Floor(dur/2/ckpt) * ckpt
			}
			free[h.ID] = kill + dur - kept
			row(j.ID+".1", "w0.r", kill, true, metrics.SuccessState, kill, free[h.ID], h.ID)
		case spec.Run.ID == f.unfinished && j.ID == last["user3"]:
			free[h.ID] = start + dur/3
			row(j.ID, "w0", j.Submit, false, metrics.KilledState, start, free[h.ID], h.ID)
		default:
			free[h.ID] = start + dur
			row(j.ID, "w0", j.Submit, true, metrics.SuccessState, start, free[h.ID], h.ID)
		}
		first[j.User] = true
	}
	return os.WriteFile(spec.Prefix+"_jobs.csv", []byte(b.String()), 0o644)
}

// A tiny OSEP campaign with hand-made outputs (real plan, platform and
// workloads; fake schedules with preemptions): the runs with resubmitted
// pieces complete, the analysis follows the pieces, and the report has
// every section, its figures, and numbers computed from the runs.
func TestOSEPReportOnSyntheticCampaign(t *testing.T) {
	s := studytest.Studies(Register)
	p, err := studytest.Plan(t, s, Plan).With(expe.Overrides{Seeds: 2})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	unfinished := "osep-ckpt600_" + expe.CaseWorkloadKey("user1-late-medium", 2)
	studytest.MustRun(t, &expe.Campaign{Plan: p, Dir: dir, Engine: osepFake{unfinished: unfinished}, Workers: 2})
	a, err := report.Analyze(dir, osepStudy())
	if err != nil {
		t.Fatal(err)
	}
	for id, rd := range a.Runs {
		s := extra(rd)
		wantUnfinished := 0
		if id == unfinished {
			wantUnfinished = 1
		}
		if s.TotalPreemptions() != 1+wantUnfinished || s.Unfinished() != wantUnfinished || s.Orphans != 0 || s.Duplicates != 0 {
			t.Errorf("run %s: %d preemptions, %d unfinished, %d orphans, %d duplicates", id, s.TotalPreemptions(), s.Unfinished(), s.Orphans, s.Duplicates)
		}
		for _, u := range grid(a).Users {
			if su := s.Satisfaction[u].SU; !(su > 0 && su < 1000) {
				t.Errorf("run %s: SU(%s) = %g", id, u, su)
			}
		}
	}
	// Preemption without checkpointing loses the whole half done; with
	// 600-s blocks the piece is shorter by the blocks kept.
	x, y := a.GetCase("osep-hetero", "user1-late-large", 1), a.GetCase("osep-hetero-ckpt600", "user1-late-large", 1)
	if extra(x).KilledExec["user2"] != extra(y).KilledExec["user2"] || !(extra(x).Satisfaction["user2"].SU < extra(y).Satisfaction["user2"].SU) {
		t.Errorf("checkpointing: killed %v vs %v, SU %v vs %v", extra(x).KilledExec, extra(y).KilledExec, extra(x).Satisfaction["user2"], extra(y).Satisfaction["user2"])
	}

	path, err := report.Write(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	text := string(data)
	for _, want := range []string{
		"5 variants × 6 workload cases × 2 seeds = 60 runs; 60 completed.", "Engines: fake-osep.", "seeds 1, 2",
		"| user1 | 3 (osep-01, osep-02, osep-03) | 396.75 | 45.76 % |",
		"## Satisfaction per user (%)", "### user1 late", "### user4 late", "**1** over 2 runs",
		"## Share of the grid's power over time", "## Preemptions", "## Side by side with the thesis", "### Where ours differ, and why",
		"![share of the grid's power over time, user1 late, large demand, seed 1](fig/osep_share_user1-late-large_s001.png)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// Saturation: every run of a fixed demand submitted within 360 s is
	// saturated by the definition; the report counts them and says why
	// that is by construction. No value is a change relative to a base.
	sat := 0
	for _, rd := range a.Runs {
		if s, _ := rd.Saturation.Saturated(); s {
			sat++
		}
	}
	for _, want := range []string{fmt.Sprintf("**Saturation.** %d of 60 runs saturated", sat), "saturated by construction", "no value of this report is a change relative to a base"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if sat == 0 {
		t.Error("no run of a demand submitted within 360 s is saturated")
	}
	// Every finding's difference says how many of the 2 seeds back its sign.
	if n := len(regexp.MustCompile(`\[[0-2]/2\]\*? points`).FindAllString(text, -1)); n < 10 {
		t.Errorf("%d differences of the findings with their seeds", n)
	}
	if n := strings.Count(text, "Verdict: **"); n != 4 {
		t.Errorf("%d verdicts", n)
	}
	// The satisfaction table's cells are the runs' means.
	est := analysis.Estimate95(a.CaseValues("osep-hetero", "user4-late-large", func(x *report.RunData) float64 { return extra(x).Satisfaction["user2"].SU }))
	lines := strings.Split(text[strings.Index(text, "### user4 late"):], "\n")
	found := false
	for _, l := range lines {
		if strings.HasPrefix(l, "| large | none | heterogeneous OSEP |") {
			found = strings.Contains(l, "| "+analysis.FmtEst(est, 1, false)+" |")
			break
		}
	}
	if !found {
		t.Errorf("user4 late, large, heterogeneous OSEP: no cell %s for user2", analysis.FmtEst(est, 1, false))
	}
	for _, c := range p.Cases {
		for _, ext := range figures.Formats {
			if st, err := os.Stat(filepath.Join(dir, report.FigDir, "osep_su_"+c.Name+"."+ext)); err != nil || st.Size() == 0 {
				t.Errorf("figure of %s: %v", c.Name, err)
			}
		}
	}
	shares, _ := filepath.Glob(filepath.Join(dir, report.FigDir, "osep_share_*"))
	if len(shares) != 2*len(figures.Formats) {
		t.Errorf("share figures %v", shares)
	}
	// Written again, the report is the same.
	if _, err := report.Write(dir, s); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(path); string(again) != text {
		t.Error("the report differs when written twice")
	}
	// Another set of cases in the same directory is another experiment.
	other := p
	other.Cases = append([]expe.WorkloadCase(nil), p.Cases...)
	other.Cases[0].Fields = other.Cases[0].Fields.Clone()
	other.Cases[0].Fields.Set("demand", "large")
	if _, err := (&expe.Campaign{Plan: other, Dir: dir, Engine: osepFake{}}).Execute(context.Background()); err == nil || !strings.Contains(err.Error(), "another experiment") {
		t.Errorf("other cases in the same directory: %v", err)
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
	s := studytest.Studies(Register)
	p, err := studytest.Plan(t, s, Plan).With(expe.Overrides{Seeds: 2})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	studytest.MustRun(t, &expe.Campaign{Plan: p, Dir: dir, Engine: expe.NewEmbeddedEngine(reg)})
	cmd, _ := os.ReadFile(filepath.Join(expe.RunDir(dir, p.Expand()[0].ID), expe.CmdFile))
	if !strings.Contains(string(cmd), "--enable-dynamic-jobs --acknowledge-dynamic-jobs") {
		t.Errorf("command line without the dynamic-job flags: %s", cmd)
	}
	an, err := report.Analyze(dir, osepStudy())
	if err != nil {
		t.Fatal(err)
	}
	preempted := 0
	for id, rd := range an.Runs {
		s := extra(rd)
		if s.Unfinished() != 0 || s.Orphans != 0 || s.Duplicates != 0 {
			t.Errorf("run %s: %d jobs not completed, %d orphan rows, %d jobs completed twice", id, s.Unfinished(), s.Orphans, s.Duplicates)
		}
		for _, u := range grid(an).Users {
			if su := s.Satisfaction[u].SU; !(su > 0) {
				t.Errorf("run %s: SU(%s) = %g", id, u, su)
			}
		}
		preempted += s.TotalPreemptions()
	}
	if preempted == 0 {
		t.Error("no preemption in the whole campaign")
	}
	path, err := report.Write(dir, s)
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
