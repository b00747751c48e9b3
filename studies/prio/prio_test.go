package prio

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/expe/report"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/studies/internal/studytest"
	"github.com/bucma-sched/bucma/workloads"
)

// The plan compares the eleven priority functions, each with no, EASY and
// conservative backfilling, against FCFS with EASY, on the Lublin model on
// 256 hosts; its file reads as a user's.
func TestPlan(t *testing.T) {
	s := studytest.Studies(Register)
	p := studytest.Plan(t, s, Plan)
	file, _ := s.PlanFile(Plan)
	if _, err := expe.ParsePlanFile(file, expe.PlanFileOptions{Name: "prio.yaml", Studies: s.Kinds(), Policies: policies.Builtin()}); err != nil {
		t.Fatal(err)
	}
	if p.Kind != Plan || p.Platform != "cluster-256" || p.Workload.Generator != "lublin" || p.BaselineVariant() != "fcfs-easy" || len(p.Loads) != 3 || len(p.Seeds) != 10 {
		t.Errorf("plan %+v", p)
	}
	policies := map[string][]string{}
	for _, v := range p.Variants {
		policies[v.Policy] = append(policies[v.Policy], Backfill(v))
		if want := strings.TrimPrefix(v.Policy, "prio-") + "-" + strings.TrimSuffix(Backfill(v), "ervative"); v.Name != want {
			t.Errorf("variant %s runs %s with backfill %s (want the name %s)", v.Name, v.Policy, Backfill(v), want)
		}
	}
	if len(policies) != 11 {
		t.Errorf("%d priority functions: %v", len(policies), policies)
	}
	for pol, bs := range policies {
		if !slices.Equal(bs, []string{"none", "easy", "conservative"}) {
			t.Errorf("%s: backfillings %v", pol, bs)
		}
	}
	if seeds, jobs := p.QuickSizes(); seeds != 2 || jobs != 300 {
		t.Errorf("--quick: %d seeds, %d jobs", seeds, jobs)
	}
}

// The quick form runs every variant at every load level, and its report
// ranks them under each condition and across the conditions.
func TestQuickCampaign(t *testing.T) {
	s := studytest.Studies(Register)
	p, err := studytest.Plan(t, s, Plan).With(expe.Overrides{Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	studytest.MustRun(t, &expe.Campaign{Plan: p, Dir: dir, Engine: studytest.Embedded(), Workers: 2})
	text := studytest.Report(t, s, dir)
	for _, want := range []string{"### Paired differences against `fcfs-easy`", "# Ranking", "## load level 0.7\n\n| rank | variant |",
		"## load level 0.95\n\n| rank | variant |", "## Ranks across the conditions", "- Backfilling easy against none, per function",
		"- Backfilling conservative against easy, per function", "| load level 0.7 | load level 0.85 | load level 0.95 | mean rank |"} {
		if !strings.Contains(text, want) {
			t.Errorf("report: no %q", want)
		}
	}
	across := text[strings.Index(text, "## Ranks across the conditions"):]
	for _, v := range p.Variants {
		if !strings.Contains(across, "\n| "+v.Name+" |") {
			t.Errorf("variant %s not ranked across the conditions", v.Name)
		}
	}
}

// writeSWF writes a trace of n jobs of 1 to 32 processors in the Standard
// Workload Format, drawn with a fixed seed.
func writeSWF(t *testing.T, n int) string {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 11))
	var b strings.Builder
	b.WriteString("; MaxProcs: 64\n")
	submit := 0
	for i := 1; i <= n; i++ {
		submit += r.IntN(600)
		run := 10 + r.IntN(3000)
		procs := 1 << r.IntN(6)
		fmt.Fprintf(&b, "%d %d -1 %d %d -1 -1 %d %d -1 1 -1 -1 -1 -1 -1 -1 -1\n", i, submit, run, procs, procs, run*(1+r.IntN(3)))
	}
	path := filepath.Join(t.TempDir(), "trace.swf")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// On an SWF trace given by path, each seed runs a window of the trace at
// its own load, and the report ranks the variants under that one
// condition.
func TestSWFTraceByPath(t *testing.T) {
	s := studytest.Studies(Register)
	path := writeSWF(t, 120)
	p, err := studytest.Plan(t, s, Plan).WithFile(path, "", 40)
	if err != nil {
		t.Fatal(err)
	}
	if p, err = p.With(expe.Overrides{Seeds: 2}); err != nil {
		t.Fatal(err)
	}
	if p.Workload.Generator != "swf" || !slices.Equal(p.Workload.Steps, []string{"window"}) || p.HasLoads() {
		t.Fatalf("workload %+v, loads %v", p.Workload, p.Loads)
	}
	dir := t.TempDir()
	studytest.MustRun(t, &expe.Campaign{Plan: p, Dir: dir, Engine: studytest.Embedded(), Workers: 2})
	var first []string
	for _, key := range p.WorkloadKeys() {
		w, err := workloads.Load(expe.WorkloadPath(dir, key))
		if err != nil {
			t.Fatal(err)
		}
		if len(w.Jobs) != 40 {
			t.Errorf("workload %s: %d jobs, want a window of 40", key, len(w.Jobs))
		}
		first = append(first, w.Jobs[0].ID)
	}
	if len(first) != 2 || first[0] == first[1] {
		t.Errorf("the two seeds' windows start at the jobs %v: want two windows", first)
	}
	text := studytest.Report(t, s, dir)
	for _, want := range []string{path, "a window of 40 consecutive jobs of the SWF trace", "## the workload's own load\n\n| rank | variant |", "- Best mean bounded slowdown: `"} {
		if !strings.Contains(text, want) {
			t.Errorf("report: no %q", want)
		}
	}
	if strings.Contains(text, "## Ranks across the conditions") {
		t.Error("ranks across one condition")
	}
}

// The ranking orders the variants by mean bounded slowdown, then waiting
// time, counts the variants the baseline is significantly beaten by and,
// per function, what each backfilling changes.
func TestRanking(t *testing.T) {
	s := studytest.Studies(Register)
	p := studytest.Plan(t, s, Plan)
	p.Loads = []float64{0.85}
	p.Seeds = []uint64{1, 2, 3}
	keep := []string{"fcfs-none", "fcfs-easy", "fcfs-cons", "sjf-none", "sjf-easy", "sjf-cons"}
	p.Variants = slices.DeleteFunc(p.Variants, func(v expe.Variant) bool { return !slices.Contains(keep, v.Name) })
	a := studytest.Synthetic(t, p, 256)
	// Bounded slowdowns by variant; each seed adds its number.
	bs := map[string]float64{"fcfs-none": 300, "fcfs-easy": 50, "fcfs-cons": 50, "sjf-none": 40, "sjf-easy": 20, "sjf-cons": 20}
	studytest.FillRuns(a, func(r expe.Run) (analysis.Metrics, analysis.Saturation, any) {
		b := bs[r.Variant.Name] + float64(r.Seed)
		if r.Variant.Name == "sjf-cons" {
			b = 20 + float64(4-r.Seed) // the same mean as sjf-easy, no sign
		}
		wait := 1000.0
		if r.Variant.Name == "fcfs-cons" {
			wait = 900 // ties with fcfs-easy's bounded slowdown: ranked first
		}
		return analysis.Metrics{Jobs: 10, Ran: 10, MeanBSLD: b, MeanWait: wait, Utilization: 0.8}, studytest.Kept, nil
	})
	r := report.New(a)
	writeRanking(r)
	text := r.Text()
	var order []string
	for _, l := range strings.Split(text, "\n") {
		if c := strings.Split(l, " | "); len(c) > 2 && strings.HasPrefix(l, "| ") && c[0] != "| rank" && !strings.HasPrefix(c[1], "---") {
			order = append(order, c[1])
		}
	}
	if want := []string{"sjf-cons", "sjf-easy", "sjf-none", "fcfs-cons", "fcfs-easy", "fcfs-none"}; !slices.Equal(order, want) {
		t.Errorf("ranked %v, want %v\n%s", order, want, text)
	}
	for _, want := range []string{
		"- Best mean bounded slowdown: `sjf-cons` (22.00 ± 2.48)",
		"significantly lower mean bounded slowdown: 3 (`sjf-cons`, `sjf-easy`, `sjf-none`); significantly higher: 1 (`fcfs-none`)",
		"- Backfilling easy against none, per function (paired on the seeds): lower mean bounded slowdown for 2, higher for 0 (significant at 95 %), not told apart for 0.",
		"- Backfilling conservative against easy, per function (paired on the seeds): lower mean bounded slowdown for 0, higher for 0 (significant at 95 %), not told apart for 2.",
		"| 5 | fcfs-easy | 52.00 ± 2.48 | 1000 ± 0 | 0.800 ± 0.000 | (baseline) | (baseline) | 0 of 3 |",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("ranking: no %q\n%s", want, text)
		}
	}
}

// A variant none of whose jobs ran (its means are not numbers) is ranked
// last and is never the best; the conditions of a plan with workload
// cases are named by their case.
func TestRankingWithoutValues(t *testing.T) {
	s := studytest.Studies(Register)
	p := studytest.Plan(t, s, Plan)
	p.Loads = []float64{0.85}
	p.Seeds = []uint64{1, 2}
	p.Variants = slices.DeleteFunc(p.Variants, func(v expe.Variant) bool { return !strings.HasPrefix(v.Name, "fcfs-") })
	a := studytest.Synthetic(t, p, 256)
	studytest.FillRuns(a, func(r expe.Run) (analysis.Metrics, analysis.Saturation, any) {
		m := analysis.Metrics{Jobs: 10, Ran: 10, MeanBSLD: 5 + float64(r.Seed), MeanWait: 100, Utilization: 0.5}
		if r.Variant.Name == "fcfs-none" {
			m = analysis.Metrics{Jobs: 10, Rejected: 10, MeanBSLD: math.NaN(), MeanWait: math.NaN(), Utilization: math.NaN()}
		}
		if r.Variant.Name == "fcfs-cons" {
			m.MeanBSLD, m.MeanWait = 9, 200
		}
		return m, studytest.Kept, nil
	})
	r := report.New(a)
	writeRanking(r)
	for _, want := range []string{"| 3 | fcfs-none | n/a | n/a | n/a | n/a | n/a | 0 of 2 |", "- Best mean bounded slowdown: `fcfs-easy` (6.50 ± 6.35); best mean waiting time: `fcfs-easy` (100 ± 0); highest utilization: `fcfs-easy`"} {
		if !strings.Contains(r.Text(), want) {
			t.Errorf("ranking: no %q\n%s", want, r.Text())
		}
	}
	c := expe.Condition{Case: "big", Load: 0.85}
	if got := conditionTitle(p, c); got != "case big, load level 0.85" {
		t.Errorf("condition title %q", got)
	}
}
