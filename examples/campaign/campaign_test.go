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
