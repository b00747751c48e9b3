package report

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/policies"
)

// smallPlan is a campaign of four runs of the embedded engine: two
// variants at two load levels.
const smallPlan = `name: small
platform: lille
workload: {generator: lille, jobs: 40}
loads: [0.7, 1]
seeds: [1]
variants:
  - {name: fcfs, policy: fcfs}
  - {name: easy, policy: easy}
`

// runSmall runs smallPlan into a new campaign directory.
func runSmall(t *testing.T) (string, expe.Plan) {
	t.Helper()
	p, err := expe.ParsePlanFile([]byte(smallPlan), expe.PlanFileOptions{Name: "small.yaml", Policies: policies.Builtin()})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	camp := &expe.Campaign{Plan: p, Dir: dir, Engine: expe.NewEmbeddedEngine(policies.Builtin()), Workers: 2}
	res, err := camp.Execute(context.Background())
	if err != nil || len(res.Failed) != 0 || res.Done != len(p.Expand()) {
		t.Fatalf("campaign: %+v, %v", res, err)
	}
	return dir, p
}

func readReport(t *testing.T, dir string) string {
	t.Helper()
	path, err := Write(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// The report of a campaign with several load levels has a section and a
// distribution figure per level; a run not done is said missing; a
// completed run whose outputs changed since it finished is refused, named
// with its file.
func TestReportOfACampaign(t *testing.T) {
	dir, p := runSmall(t)
	text := readReport(t, dir)
	for _, l := range []string{"0.7", "1"} {
		if _, err := os.Stat(filepath.Join(dir, FigDir, "cdf_waiting_l"+l+".svg")); err != nil || !strings.Contains(text, "cdf_waiting_l"+l+".png") {
			t.Errorf("distribution figure of load %s: %v", l, err)
		}
		if !strings.Contains(text, "## load level "+l+"\n") {
			t.Errorf("the report has no section for load %s", l)
		}
	}
	if again := readReport(t, dir); again != text {
		t.Errorf("the report of the same runs differs:\n%s\n----\n%s", again, text)
	}

	runs := p.Expand()
	if err := os.RemoveAll(expe.RunDir(dir, runs[0].ID)); err != nil {
		t.Fatal(err)
	}
	if text := readReport(t, dir); !strings.Contains(text, "(**1 missing**") {
		t.Errorf("the report does not mention the missing run:\n%s", text)
	}

	jobs := filepath.Join(expe.RunDir(dir, runs[1].ID), expe.JobsFile)
	data, err := os.ReadFile(jobs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(jobs, []byte(strings.Replace(string(data), "COMPLETED_SUCCESSFULLY", "COMPLETED_SUCCESSFULLX", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(dir, nil); err == nil || !strings.Contains(err.Error(), "run "+runs[1].ID+": "+jobs) {
		t.Errorf("report on a tampered run: %v", err)
	}
}

// The metrics the comparison report defines are the ones a plan may name
// (expe.ReportMetrics), in that order.
func TestReportMetricsDefined(t *testing.T) {
	var names []string
	for _, m := range reportMetricDefs {
		names = append(names, m.name)
	}
	if !slices.Equal(names, expe.ReportMetrics) {
		t.Errorf("defined %v, a plan names %v", names, expe.ReportMetrics)
	}
	for _, m := range expe.DefaultReportMetrics {
		if !slices.Contains(names, m) {
			t.Errorf("default metric %s not defined", m)
		}
	}
}

// A study registry knows its built-in plans by name.
func TestStudiesPlan(t *testing.T) {
	s := NewStudies()
	s.AddPlan("small", []byte(smallPlan))
	if _, err := s.Plan("nope"); err == nil || !strings.Contains(err.Error(), `unknown plan "nope" (valid: small)`) {
		t.Errorf("unknown plan: %v", err)
	}
	if p, err := s.Plan("small"); err != nil || p.Name != "small" || len(p.Variants) != 2 {
		t.Errorf("small: %+v, %v", p, err)
	}
}

// copyDir copies the campaign directory src into a new directory.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// edit rewrites a file of a campaign directory.
func edit(t *testing.T, path string, f func(string) string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(f(string(data))), 0o644); err != nil {
		t.Fatal(err)
	}
}

// DiffCampaigns finds two executions of the same campaign identical but
// for what differs from one execution to the next (wall times, logs, the
// program's name, Pajé colours), and names every other difference.
func TestDiffCampaigns(t *testing.T) {
	a, p := runSmall(t)
	if _, err := Write(a, nil); err != nil {
		t.Fatal(err)
	}
	run := expe.RunDir(a, p.Expand()[0].ID)
	trace := "1 0 0 Container\n5 job1 Job \"job 1\" 0.1 0.2 0.3\n"
	if err := os.WriteFile(filepath.Join(run, "out_schedule.trace"), []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	b := copyDir(t, a)
	brun := expe.RunDir(b, p.Expand()[0].ID)
	edit(t, filepath.Join(brun, "out_schedule.trace"), func(s string) string { return strings.Replace(s, "0.1 0.2 0.3", "0.9 0.8 0.7", 1) })
	edit(t, filepath.Join(brun, expe.RunInfoFile), func(s string) string {
		s = regexp.MustCompile(`"wall_seconds": *[0-9.e+-]+`).ReplaceAllString(s, `"wall_seconds": 12.5`)
		s = regexp.MustCompile(`"finished": *"[^"]*"`).ReplaceAllString(s, `"finished": "2001-01-01T00:00:00Z"`)
		return strings.Replace(s, `"bucma simulate `, `"/tmp/bucma-old simulate `, 1)
	})
	edit(t, filepath.Join(brun, expe.CmdFile), func(s string) string { return strings.Replace(s, "bucma simulate ", "./bucma-new simulate ", 1) })
	edit(t, filepath.Join(brun, expe.ScheduleFile), func(s string) string {
		lines := strings.SplitN(s, "\n", 3)
		cols := strings.Split(lines[1], ",")
		for i, h := range strings.Split(lines[0], ",") {
			if slices.Contains(expe.WallClockColumns, h) {
				cols[i] = "99.5"
			}
		}
		lines[1] = strings.Join(cols, ",")
		return strings.Join(lines, "\n")
	})
	edit(t, filepath.Join(brun, "run.log"), func(s string) string { return s + "another execution\n" })
	edit(t, filepath.Join(b, File), func(s string) string {
		return wallTime.ReplaceAllString(s, "Wall time of the runs: 1h in all (30m per run on average).")
	})
	if err := os.WriteFile(filepath.Join(b, "extra.txt"), []byte("only in b"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := DiffCampaigns(a, b)
	if err != nil || len(d.Differ) != 0 || d.Compared < 20 {
		t.Fatalf("the same campaign: %+v, %v", d, err)
	}

	// A value of a run's outputs, a file missing in b, a word of the
	// report: each differs.
	jobs := filepath.Join(p.Expand()[1].ID, expe.JobsFile)
	edit(t, filepath.Join(b, expe.RunsDir, jobs), func(s string) string { return strings.Replace(s, ",1,", ",2,", 1) })
	if err := os.Remove(filepath.Join(b, expe.WorkloadsDir, p.Expand()[0].Workload+".json")); err != nil {
		t.Fatal(err)
	}
	edit(t, filepath.Join(b, File), func(s string) string { return strings.Replace(s, "Baseline", "Base line", 1) })
	d, err = DiffCampaigns(a, b)
	want := []string{File, filepath.Join(expe.RunsDir, jobs), filepath.Join(expe.WorkloadsDir, p.Expand()[0].Workload+".json")}
	if err != nil || !slices.Equal(d.Differ, want) {
		t.Errorf("differences %+v, %v; want %v", d, err, want)
	}
	if _, err := DiffCampaigns(a, filepath.Join(b, File)); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a file as a campaign: %v", err)
	}
}

// shakenPlan is smallPlan's two variants on Lublin workloads of 60 jobs,
// two seeds, each shaken into three copies.
const shakenPlan = `name: shaken
platform: lille
workload: {generator: lublin, jobs: 60}
loads: [0.9]
seeds: 2
shake: {submit: 2min, runtime: 10%, copies: 3}
variants:
  - {name: fcfs, policy: fcfs}
  - {name: easy, policy: easy}
`

// A shaken campaign's report counts, for each paired difference, the
// copies on which its sign holds, as the copies' runs give them; results.csv
// has a copy column and signs.csv the counts. A campaign without shaking
// keeps results.csv's columns and gets no signs.csv.
func TestShakenReport(t *testing.T) {
	p, err := expe.ParsePlanFile([]byte(shakenPlan), expe.PlanFileOptions{Name: "shaken.yaml", Policies: policies.Builtin()})
	if err != nil {
		t.Fatal(err)
	}
	// Interrupted after 5 runs (one worker), then resumed.
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	camp := &expe.Campaign{Plan: p, Dir: dir, Engine: expe.NewEmbeddedEngine(policies.Builtin()), Workers: 1,
		Progress: func(done, total int) {
			if done == 5 {
				cancel()
			}
		}}
	if res, err := camp.Execute(ctx); !errors.Is(err, context.Canceled) || res.Done != 5 {
		t.Fatalf("interrupted campaign: %+v, %v", res, err)
	}
	if text := readReport(t, dir); !strings.Contains(text, "12 runs; 5 completed") {
		t.Errorf("the report of the interrupted campaign does not say 5 of 12 runs:\n%.400s", text)
	}
	camp = &expe.Campaign{Plan: p, Dir: dir, Engine: expe.NewEmbeddedEngine(policies.Builtin()), Workers: 2}
	if res, err := camp.Execute(context.Background()); err != nil || res.Done != 7 || res.Skipped != 5 {
		t.Fatalf("resumed campaign: %+v, %v", res, err)
	}
	text := readReport(t, dir)
	for _, want := range []string{"2 variants × 1 load level × 2 seeds × 3 shaken copies = 12 runs", "Shaken workloads: each seed's workload is shaken into 3 copies (submission times ± 120 s, run times ± 10 %;",
		"`{k/N copies}`: on how many of the N shaken copies"} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	a, err := Analyze(dir, ComparisonStudy())
	if err != nil {
		t.Fatal(err)
	}
	c := p.Conditions()[0]
	wait := func(x *RunData) float64 { return x.Metrics.MeanWait }
	cp := a.CompareVariants("easy", "fcfs", c, wait, 60)
	if cp.N() != 6 {
		t.Fatalf("the comparison pairs %d runs, want 6 (seeds × copies)", cp.N())
	}
	// The count, from the runs of each copy.
	holds := 0
	for copy := 1; copy <= 3; copy++ {
		rel, abs, nearZero := 0.0, 0.0, false
		for _, s := range p.Seeds {
			x, r := a.LookupSlot("easy", c, Slot{s, copy}), a.LookupSlot("fcfs", c, Slot{s, copy})
			abs += wait(x) - wait(r)
			rel += (wait(x) - wait(r)) / wait(r)
			nearZero = nearZero || wait(r) < 60
		}
		sum := rel
		if nearZero {
			sum = abs
		}
		if sum > 0 == (cp.Sign() > 0) && sum != 0 {
			holds++
		}
	}
	t.Logf("sign %d, holds on %d of 3 copies", cp.Sign(), holds)
	if k, n := a.CopySigns("easy", "fcfs", c, wait, 60, cp.Sign()); k != holds || n != 3 {
		t.Errorf("CopySigns %d of %d, want %d of 3", k, n, holds)
	}
	row := regexp.MustCompile(`(?m)^\| easy \| [^|]*\{` + strconv.Itoa(holds) + `/3 copies\}[^|]*\|`)
	if !row.MatchString(text) {
		t.Errorf("the waiting time's cell does not say %d/3 copies:\n%s", holds, text)
	}
	paths, err := WriteCSVs(dir)
	if err != nil || len(paths) != 2 {
		t.Fatalf("csv: %v, %v", paths, err)
	}
	results, _ := os.ReadFile(paths[0])
	if !strings.HasPrefix(string(results), "campaign,study,run,variant,policy,options,platform,workload,case,load,seed,copy,metric,value\n") ||
		!strings.Contains(string(results), "\nshaken,comparison,easy_s002_l0.9_c003,easy,easy,,lille,lublin,,0.9,2,3,jobs,60\n") {
		t.Errorf("results.csv:\n%.600s", results)
	}
	signs, _ := os.ReadFile(paths[1])
	// An uninterrupted campaign gives the same numbers.
	ref := t.TempDir()
	camp = &expe.Campaign{Plan: p, Dir: ref, Engine: expe.NewEmbeddedEngine(policies.Builtin()), Workers: 2}
	if _, err := camp.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	refPaths, err := WriteCSVs(ref)
	if err != nil {
		t.Fatal(err)
	}
	for i := range refPaths {
		a, _ := os.ReadFile(paths[i])
		b, _ := os.ReadFile(refPaths[i])
		if !bytes.Equal(a, b) {
			t.Errorf("%s of the resumed campaign differs from the uninterrupted one's", filepath.Base(paths[i]))
		}
	}
	wantRow := "shaken,easy,fcfs,,0.9,waiting," + csvNumber(cp.Diff.Mean) + "," + csvNumber(cp.Change.Mean) + "," + strconv.Itoa(cp.Sign()) + "," + strconv.Itoa(holds) + ",3\n"
	if !strings.HasPrefix(string(signs), "campaign,variant,baseline,case,load,metric,difference,change,sign,copies_holding,copies\n") || !strings.Contains(string(signs), wantRow) {
		t.Errorf("signs.csv lacks %q:\n%s", wantRow, signs)
	}

	// Without shaking: the columns of before, no signs.csv, no copies.
	plain, _ := runSmall(t)
	paths, err = WriteCSVs(plain)
	if err != nil || len(paths) != 1 {
		t.Fatalf("csv: %v, %v", paths, err)
	}
	results, _ = os.ReadFile(paths[0])
	if !strings.HasPrefix(string(results), "campaign,study,run,variant,policy,options,platform,workload,case,load,seed,metric,value\n") {
		t.Errorf("results.csv:\n%.300s", results)
	}
	if _, err := os.Stat(filepath.Join(plain, SignsFile)); err == nil {
		t.Error("signs.csv without shaking")
	}
	if text := readReport(t, plain); strings.Contains(text, "copies") || strings.Contains(text, "Shaken") {
		t.Error("the report of a campaign without shaking speaks of copies")
	}
}
