// Package campaign runs the campaign file of docs/campaigns.md: the example
// sjf policy against EASY and FCFS on bucma's test trace, at two loads with
// five seeds, through bucma's command line over a registry holding sjf.
package campaign

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/cli"
	"github.com/bucma-sched/bucma/examples/preempt"
	"github.com/bucma-sched/bucma/examples/sjf"
	"github.com/bucma-sched/bucma/policies"
)

const file = "sjf-easy-fcfs.yaml"

func TestSJFCampaign(t *testing.T) {
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(text), "\n"); n > 25 {
		t.Errorf("%s has %d lines, more than the 25 docs/campaigns.md promises", file, n)
	}
	docs, err := os.ReadFile(filepath.Join("..", "..", "docs", "campaigns.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(docs), "```yaml\n"+string(text)+"```") {
		t.Errorf("docs/campaigns.md does not show %s as it is", file)
	}
	reg := policies.Builtin()
	reg.Add(sjf.Spec())
	out := filepath.Join(t.TempDir(), "sjf")
	if code := cli.Main([]string{"mybucma", "expe", "run", file, "--out", out, "--report", "--format", "md,csv", "--no-progress"}, reg); code != 0 {
		t.Fatalf("expe run: exit %d", code)
	}
	// Each run's command line names the binary that ran it.
	if cmd, err := os.ReadFile(filepath.Join(out, "runs", "sjf_s001_l0.7", "cmd.txt")); err != nil || !strings.HasPrefix(string(cmd), "mybucma simulate ") {
		t.Errorf("cmd.txt: %q, %v", cmd, err)
	}
	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# SJF against EASY and FCFS on a trace", "3 variants × 2 load levels × 5 seeds = 30 runs; 30 completed.",
		"### Paired differences against `easy`", "| sjf | `sjf` | 5 |", "## Gantt charts"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	f, err := os.Open(filepath.Join(out, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	sjfRows := 0
	for _, r := range rows[1:] {
		if r[3] == "sjf" && r[4] == "sjf" {
			sjfRows++
		}
	}
	if len(rows) != 1+30*15 || sjfRows != 10*15 {
		t.Errorf("results.csv: %d rows, %d of sjf", len(rows), sjfRows)
	}
}

// docs/campaigns.md shows the shaken campaign's file as it is (its
// commands, run by the documentation's tests, check its numbers).
func TestShakeFileShown(t *testing.T) {
	text, err := os.ReadFile("shake-wfp3-unicep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	docs, err := os.ReadFile(filepath.Join("..", "..", "docs", "campaigns.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(docs), "```yaml\n"+string(text)+"```") {
		t.Error("docs/campaigns.md does not show shake-wfp3-unicep.yaml as it is")
	}
}

// A bad value of a user policy's own option (preempt's short) is refused
// when the file is checked, naming the variant, before any run.
func TestUserPolicyOptionCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "preempt.yaml")
	text := "name: p\nplatform: lille\nworkload: {generator: lille, jobs: 20}\nloads: 0.5\nseeds: 1\n" +
		"variants:\n  - {name: easy, policy: easy}\n  - {name: eager, policy: preempt, options: {short: soon}}\n"
	if err := os.WriteFile(plan, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := policies.Builtin()
	reg.Add(preempt.Spec())
	out := filepath.Join(dir, "out")
	var code int
	stderr := captureStderr(t, func() {
		code = cli.Main([]string{"mybucma", "expe", "run", plan, "--out", out, "--no-progress"}, reg)
	})
	if code != 2 || !strings.Contains(stderr, `preempt.yaml:8: variants[1].options.short: variant eager: scheduler preempt: short="soon": want a positive number of seconds`) {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("the campaign directory was made")
	}
}

// captureStderr runs f with the process's standard error going to a file,
// and returns what was written.
func captureStderr(t *testing.T, f func()) string {
	t.Helper()
	tmp, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = tmp
	f()
	os.Stderr = saved
	data, err := os.ReadFile(tmp.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
