package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/report"
	"github.com/bucma-sched/bucma/policies"
)

// campaignFile is a campaign of one's own: a trace, windows of it at two
// loads, three policies, five seeds.
const campaignFile = `name: trace3
platform: lille
workload:
  generator: swf
  file: ../testdata/cluster.swf
  steps: [window, scale-load]
  window_jobs: 150
loads: [0.7, 0.9]
seeds: 1-5
variants:
  - {name: easy, policy: easy}
  - {name: fcfs, policy: fcfs}
  - {name: minmin, policy: minmin}
baseline: easy
report: {gantt: true}
`

// writeCampaign writes a plan file next to this package (its trace path is
// relative to it) and returns its path.
func writeCampaign(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "cluster.swf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "testdata", "cluster.swf"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "plans", "campaign.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A campaign file runs, resumes, and gets the comparison report and
// results.csv.
func TestExpeRunPlanFile(t *testing.T) {
	file := writeCampaign(t, campaignFile)
	out := filepath.Join(t.TempDir(), "c")
	err, code, msg := runApp(t, "expe", "run", file, "--out", out, "--no-progress", "--report", "--format", "md,csv")
	if err != nil || code != 0 {
		t.Fatalf("expe run: %v (exit %d)\n%s", err, code, msg)
	}
	if !strings.Contains(msg, "30 done now") || !strings.Contains(msg, filepath.Join(out, "results.csv")) {
		t.Errorf("output:\n%s", msg)
	}
	text, _ := os.ReadFile(filepath.Join(out, "report.md"))
	for _, want := range []string{
		"# trace3", "3 variants × 2 load levels × 5 seeds = 30 runs; 30 completed.", "## load level 0.7", "## load level 0.9",
		"### Means over the seeds", "### Paired differences against `easy`", "| fcfs | ", "### By job size", "### By user",
		"fig/cdf_waiting_l0.7.png", "fig/cdf_bsld_l0.9.png", "## Gantt charts", "fig/gantt_minmin.png", "(Feitelson et al., 1997)",
	} {
		if !strings.Contains(string(text), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, f := range []string{"cdf_waiting_l0.7.svg", "cdf_bsld_l0.9.png", "gantt_easy.png"} {
		if st, err := os.Stat(filepath.Join(out, report.FigDir, f)); err != nil || st.Size() == 0 {
			t.Errorf("figure %s: %v", f, err)
		}
	}
	rows := readCSV(t, filepath.Join(out, "results.csv"))
	if strings.Join(rows[0], ",") != "campaign,study,run,variant,policy,options,platform,workload,case,load,seed,metric,value" || len(rows) != 1+30*15 {
		t.Fatalf("results.csv: %d rows, header %v", len(rows), rows[0])
	}
	if r := rows[1]; strings.Join(r[:12], ",") != "trace3,comparison,easy_s001_l0.7,easy,easy,,lille,swf:cluster.swf,,0.7,1,jobs" || r[12] != "150" {
		t.Errorf("first row %v", r)
	}
	readWithPandas(t, filepath.Join(out, "results.csv"))
	// The report command writes the same files again.
	if err, code, msg := runApp(t, "expe", "report", out, "--format", "csv"); err != nil || code != 0 || !strings.Contains(msg, "results.csv") {
		t.Errorf("expe report --format csv: %v (exit %d) %s", err, code, msg)
	}
	if _, code, _ := runApp(t, "expe", "report", out, "--format", "pdf"); code != 2 {
		t.Errorf("--format pdf: exit %d", code)
	}
	// Run again: every run is there already.
	if err, code, msg := runApp(t, "expe", "run", file, "--out", out, "--no-progress"); err != nil || code != 0 || !strings.Contains(msg, "0 done now, 30 already done") {
		t.Errorf("resume: %v (exit %d)\n%s", err, code, msg)
	}
}

// readWithPandas reads a results.csv as the docs tell pandas users to
// (pd.read_csv, nothing more): the study is text ("comparison" for a
// campaign of no study, not an empty column read as NaN floats), the
// values are numbers. Left out (logged) where no python3 has pandas.
func readWithPandas(t *testing.T, path string) {
	t.Helper()
	const script = `import sys, pandas as pd
r = pd.read_csv(sys.argv[1])
print(r.study.dtype, ",".join(sorted(set(map(str, r.study)))), int(r.study.isna().sum()), r.value.dtype)`
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(py, "-c", "import pandas").Run() != nil {
			continue
		}
		out, err := exec.Command(py, "-c", script, path).CombinedOutput()
		if got := strings.TrimSpace(string(out)); err != nil || got != "object comparison 0 float64" {
			t.Errorf("pandas reads results.csv's study and values as %q (%v), want text \"comparison\" and numbers", got, err)
		}
		return
	}
	t.Log("no python3 with pandas: results.csv not read with pandas")
}

// Each kind of bad campaign file: exit 2, the file, the line and the key,
// and nothing started (no campaign directory).
func TestExpeRunBadPlanFile(t *testing.T) {
	for _, c := range []struct {
		name, old, new, want string
	}{
		{"unknown key", "baseline: easy", "baseline: easy\nbaselin: fcfs", "campaign.yaml:15: baselin: unknown key"},
		{"unknown policy", "policy: minmin", "policy: sjf", `campaign.yaml:13: variants[2].policy: unknown scheduler "sjf"`},
		{"unknown option", "policy: minmin}", "policy: minmin, options: {queue: lifo}}", `campaign.yaml:13: variants[2].options.queue: scheduler minmin: unknown option "queue"`},
		{"missing file", "../testdata/cluster.swf", "../testdata/nope.swf", "campaign.yaml:5: workload.file: ../testdata/nope.swf: no such file or directory"},
		{"bad range", "seeds: 1-5", "seeds: 5-1", `campaign.yaml:9: seeds: "5-1": bad range`},
		{"malformed YAML", "loads: [0.7, 0.9]", "loads: [0.7, 0.9", "campaign.yaml:9: not valid YAML"},
		{"unknown platform", "platform: lille", "platform: lilly", `campaign.yaml:2: platform: "lilly": no such file and no such bundled platform`},
		{"unknown generator parameter", "window_jobs: 150", "window_job: 150", "campaign.yaml:7: workload.window_job: unknown key: not a parameter of generator swf"},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := strings.Replace(campaignFile, c.old, c.new, 1)
			if text == campaignFile {
				t.Fatalf("%q not in the file", c.old)
			}
			file := writeCampaign(t, text)
			out := filepath.Join(t.TempDir(), "c")
			err, code, _ := runApp(t, "expe", "run", file, "--out", out, "--no-progress")
			if code != 2 || err == nil || !strings.Contains(err.Error(), filepath.Join(filepath.Dir(file), c.want)) {
				t.Fatalf("exit %d, %v; want exit 2 and %q", code, err, c.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("the campaign directory exists: %v", err)
			}
		})
	}
	if err, code, _ := runApp(t, "expe", "run", filepath.Join(t.TempDir(), "none.yaml")); code != 2 || !strings.Contains(err.Error(), "none.yaml: cannot read it") {
		t.Errorf("missing plan file: exit %d, %v", code, err)
	}
}

// Every built-in plan prints as the plan file it is read from, which reads
// as a user's file (checked against the policies).
func TestExpePlansShow(t *testing.T) {
	for _, name := range studies.PlanNames() {
		err, code, out := runApp(t, "expe", "plans", "--show", name)
		file, _ := studies.PlanFile(name)
		if err != nil || code != 0 || out != string(file) {
			t.Fatalf("%s: %v (exit %d)", name, err, code)
		}
		path := filepath.Join(t.TempDir(), name+".yaml")
		os.WriteFile(path, []byte(out), 0o644)
		p, err := expe.LoadPlanFile(path, expe.PlanFileOptions{Studies: studies.Kinds(), Policies: policies.Builtin()})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := studies.Plan(name)
		if p.Name != b.Name || len(p.Expand()) != len(b.Expand()) || p.Description != b.Description {
			t.Errorf("%s: the printed file is another plan", name)
		}
	}
	if _, code, _ := runApp(t, "expe", "plans", "--show", "nope"); code != 2 {
		t.Errorf("--show nope: exit %d", code)
	}
}
