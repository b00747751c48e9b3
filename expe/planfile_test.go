package expe

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/workloads/gen"
	json "github.com/goccy/go-json"
)

// goodPlan is a plan file of the kind a user writes: a trace, windows of it
// at two loads, three policies.
const goodPlan = `# a comment
name: mine
title: Three policies on a trace
platform: lille
workload:
  generator: swf
  file: cluster.swf
  ppn: 1
  steps: [window, scale-load]
  window_jobs: 200
loads: [0.7, 0.9]
seeds: 1-5
variants:
  - {name: easy, policy: easy}
  - name: fcfs
    policy: fcfs
  - {name: bf, policy: easy, options: {hosts: first-fit}}
baseline: easy
report:
  gantt: true
  breakdowns: [size]
engine: embedded
`

// planDir is a folder with the test trace, where plan files' relative
// paths point.
func planDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "cluster.swf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cluster.swf"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func parseTestPlan(dir, text string) (Plan, error) {
	return ParsePlanFile([]byte(text), PlanFileOptions{Name: "plan.yaml", Dir: dir, Studies: testStudies(), Policies: policies.Builtin()})
}

func TestParsePlanFile(t *testing.T) {
	dir := planDir(t)
	p, err := parseTestPlan(dir, goodPlan)
	if err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(dir, "cluster.swf")
	sum, _ := gen.FileSHA256(trace)
	want := gen.Fields{{Key: "file", Value: trace}, {Key: "file_sha256", Value: sum}, {Key: "ppn", Value: 1.0}, {Key: "window_jobs", Value: 200.0}}
	if p.Name != "mine" || p.Kind != "" || p.Platform != "lille" || p.Workload.Generator != "swf" || len(p.Workload.Steps) != 2 ||
		!sameJSON(p.Workload.Fields, want) || len(p.Cases) != 0 {
		t.Errorf("plan %+v", p)
	}
	if len(p.Seeds) != 5 || p.Seeds[4] != 5 || len(p.Loads) != 2 || len(p.Variants) != 3 || p.Variants[2].Options["hosts"] != "first-fit" ||
		p.Variants[0].Options == nil || p.Baseline != "easy" || !p.Report.Gantt || p.Engine.Name != "embedded" {
		t.Errorf("plan %+v", p)
	}
	runs := p.Expand()
	if len(runs) != 3*2*5 || runs[0].ID != "easy_s001_l0.7" || runs[29].ID != "bf_s005_l0.9" {
		t.Errorf("%d runs: %s ... %s", len(runs), runs[0].ID, runs[len(runs)-1].ID)
	}
	// Two workloads on two platforms: four cases, each a whole recipe.
	two := strings.Replace(goodPlan, "platform: lille\n", "platforms: [lille, lille-cores]\n", 1)
	two = strings.Replace(two, "workload:\n  generator: swf", "workloads:\n  - name: trace\n    generator: swf", 1)
	two = strings.NewReplacer("\n  file:", "\n    file:", "\n  ppn:", "\n    ppn:", "\n  steps:", "\n    steps:", "\n  window_jobs:", "\n    window_jobs:").Replace(two)
	two = strings.Replace(two, "\nloads:", "\n  - {name: synth, generator: lille, jobs: 300}\nloads:", 1)
	q, err := parseTestPlan(dir, two)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range q.Cases {
		names = append(names, c.Name+"@"+q.PlatformOf(c.Name))
	}
	if strings.Join(names, " ") != "trace-lille@lille trace-lille-cores@lille-cores synth-lille@lille synth-lille-cores@lille-cores" {
		t.Errorf("cases %v", names)
	}
	if r := q.Recipe("synth-lille-cores"); r.Generator != "lille" || r.Jobs != 300 || len(r.Steps) != 0 || len(r.Fields) != 0 {
		t.Errorf("recipe %+v", r)
	}
	if got := q.Expand()[len(q.Expand())-1].ID; got != "bf_synth-lille-cores_s005_l0.9" || len(q.Expand()) != 3*4*2*5 {
		t.Errorf("last run %s of %d", got, len(q.Expand()))
	}
	if _, err := q.With(Overrides{Quick: true}); err != nil {
		t.Errorf("--quick: %v", err)
	}
}

// Each kind of bad plan file is refused with the file, the line and the
// key at fault.
func TestPlanFileErrors(t *testing.T) {
	dir := planDir(t)
	for _, c := range []struct {
		name, old, new string
		line           int
		key, msg       string
	}{
		{"unknown key", "title:", "titel:", 3, "titel", "unknown key (valid: name, study, title,"},
		{"unknown key in a variant", "{name: easy, policy: easy}", "{name: easy, policy: easy, opts: {}}", 14, "variants[0].opts", "unknown key (valid: name, policy, options, base, model)"},
		{"unknown key in the report", "gantt: true", "gant: true", 20, "report.gant", "unknown key (valid: metrics, breakdowns, cdf, gantt)"},
		{"unknown policy", "{name: easy, policy: easy}", "{name: easy, policy: esay}", 14, "variants[0].policy", `unknown scheduler "esay"`},
		{"unknown option", "options: {hosts: first-fit}", "options: {hots: first-fit}", 17, "variants[2].options.hots", `unknown option "hots"`},
		{"bad option value", "options: {hosts: first-fit}", "options: {hosts: worst-fit}", 17, "variants[2].options.hosts", "worst-fit"},
		{"unknown platform", "platform: lille", "platform: lile", 4, "platform", `"lile": no such file and no such bundled platform (bundled: bot-2nodes, bot, cluster-256, lille-cores, lille`},
		{"missing file", "file: cluster.swf", "file: nope.swf", 7, "workload.file", "nope.swf: no such file or directory"},
		{"missing platform file", "platform: lille", "platform: plats/p.xml", 4, "platform", `"plats/p.xml": no such file and no such bundled platform`},
		{"bad seed range", "seeds: 1-5", "seeds: 5-1", 12, "seeds", `"5-1": bad range: 5 is after 1`},
		{"seed 0", "seeds: 1-5", "seeds: [0, 1]", 12, "seeds[0]", "seeds start at 1"},
		{"bad load", "loads: [0.7, 0.9]", "loads: [0.7, 0]", 11, "loads[1]", "must be > 0 and at most 100"},
		{"load given twice", "loads: [0.7, 0.9]", "loads: [0.7, 0.70]", 11, "loads[1]", "load 0.7 given twice"},
		{"bad parameter value", "ppn: 1", "ppn: 0", 8, "workload.ppn", "0: must be at least 1"},
		{"parameter of the wrong type", "ppn: 1", "ppn: one", 8, "workload.ppn", "want an integer"},
		{"unknown generator parameter", "ppn: 1", "ppm: 1", 8, "workload.ppm", "not a parameter of generator swf with steps window, scale-load (valid: generator, jobs, steps, file, file_sha256,"},
		{"unknown generator", "generator: swf", "generator: swif", 6, "workload.generator", `unknown generator "swif" (valid: file, gang, lille, lublin, osep, sge, swf)`},
		{"unknown step", "steps: [window, scale-load]", "steps: [window, scale]", 9, "workload.steps[1]", `unknown step "scale"`},
		{"required parameter", "  window_jobs: 200\n", "", 5, "workload", "window_jobs: required"},
		{"loads on a workload without load", "steps: [window, scale-load]", "steps: [window]", 11, "loads", "takes no load: add the step scale-load"},
		{"baseline not a variant", "baseline: easy", "baseline: sjf", 18, "baseline", `"sjf" is not one of the variants (easy, fcfs, bf)`},
		{"unknown study", "name: mine", "name: mine\nstudy: nope", 3, "study", `unknown study "nope"`},
		{"variant twice", "- name: fcfs", "- name: easy", 15, "variants[1].name", "variant easy given twice"},
		{"bad variant name", "{name: easy, policy: easy}", "{name: my_easy, policy: easy}", 14, "variants[0].name", "without '/', '\\', '_', blanks or control characters, and not start with '.'"},
		{"variant name with a tab", "{name: easy, policy: easy}", "{name: \"my\\teasy\", policy: easy}", 14, "variants[0].name", "without '/', '\\', '_', blanks"},
		{"hidden variant name", "{name: easy, policy: easy}", "{name: .easy, policy: easy}", 14, "variants[0].name", "not start with '.'"},
		{"bad engine", "engine: embedded", "engine: simgrid", 22, "engine", `unknown engine "simgrid"`},
		{"unknown report metric", "breakdowns: [size]", "breakdowns: [size]\n  metrics: [wait]", 19, "report", `metrics: unknown "wait"`},
		{"malformed YAML", "loads: [0.7, 0.9]", "loads: [0.7, 0.9", 12, "", "not valid YAML"},
		{"duplicate key", "seeds: 1-5", "seeds: 1-5\nseeds: 3", 13, "", `mapping key "seeds" already defined`},
		{"tab indentation", "  ppn: 1", "\tppn: 1", 8, "", "not valid YAML"},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := strings.Replace(goodPlan, c.old, c.new, 1)
			if text == goodPlan {
				t.Fatalf("%q is not in the plan", c.old)
			}
			_, err := parseTestPlan(dir, text)
			var pe *PlanFileError
			if !errors.As(err, &pe) {
				t.Fatalf("%v: not a PlanFileError", err)
			}
			if pe.File != "plan.yaml" || pe.Line != c.line || pe.Key != c.key || !strings.Contains(pe.Msg, c.msg) {
				t.Errorf("got %s (line %d, key %q), want line %d, key %q, %q", err, pe.Line, pe.Key, c.line, c.key, c.msg)
			}
			if !strings.HasPrefix(err.Error(), "plan.yaml:") {
				t.Errorf("message %q does not start with the file", err)
			}
		})
	}
}

// The plan's own checks and the file's agree on the built-in plans, and a
// plan file's plan.json reads back the same.
func TestPlanFileJSONRoundTrip(t *testing.T) {
	dir := planDir(t)
	p, err := parseTestPlan(dir, goodPlan)
	if err != nil {
		t.Fatal(err)
	}
	p.Quick = QuickSpec{}
	data, err := jsonMarshalIndent(p)
	if err != nil {
		t.Fatal(err)
	}
	q, err := ParsePlan(data)
	if err != nil {
		t.Fatal(err)
	}
	if !sameJSON(p, q) {
		t.Errorf("round trip:\n%+v\n%+v", p, q)
	}
	for _, s := range []string{`"baseline": "easy"`, `"gantt": true`, `"window_jobs": 200`, `"engine": {`} {
		if !strings.Contains(string(data), s) {
			t.Errorf("plan.json lacks %s:\n%s", s, data)
		}
	}
}

func jsonMarshalIndent(v any) ([]byte, error) { return json.MarshalIndent(v, "", "  ") }

// An empty list of breakdowns or distributions asks for none, in the file
// and in plan.json; none given asks for all.
func TestReportSpecLists(t *testing.T) {
	dir := planDir(t)
	p, err := parseTestPlan(dir, strings.Replace(goodPlan, "breakdowns: [size]", "breakdowns: []\n  cdf: []", 1))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := jsonMarshalIndent(p)
	q, err := ParsePlan(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []Plan{p, q} {
		if s := x.ReportSettings(); len(s.Breakdowns) != 0 || len(s.CDF) != 0 || !s.Gantt || len(s.Metrics) != len(DefaultReportMetrics) {
			t.Errorf("report spec %+v", s)
		}
	}
	p, _ = parseTestPlan(dir, strings.Replace(goodPlan, "  breakdowns: [size]\n", "", 1))
	if s := p.ReportSettings(); len(s.Breakdowns) != 2 || len(s.CDF) != 2 {
		t.Errorf("default report spec %+v", s)
	}
}

// The engine block of docs/campaigns.md reads as it says: Batsim, its name
// left out.
func TestCampaignsDocEngine(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "campaigns.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(data), "```yaml\nengine:\n")
	if !ok {
		t.Fatal("docs/campaigns.md has no engine block")
	}
	block, _, _ = strings.Cut(block, "```")
	block = strings.Replace(block, "  name: batsim", "", 1) // left out, as the comment says
	p, err := parseTestPlan(planDir(t), hostileBase+"loads: 0.5\nseeds: 1\nengine:\n"+block)
	if err != nil {
		t.Fatal(err)
	}
	if e := p.Engine; e == nil || e.Name != "batsim" || e.Batsim != "batsim" || strings.Join(e.BatsimFlags, " ") != "--verbosity quiet" {
		t.Errorf("engine %+v", p.Engine)
	}
}
