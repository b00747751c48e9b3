package bucma

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/studies/internal/studytest"
)

var update = flag.Bool("update", false, "rewrite bucma-weights.yaml from WeightGrid")

// weightsPlanFile is the text of bucma-weights.yaml: the header, then the
// four base policies, each alone and under every weighting of WeightGrid.
func weightsPlanFile() string {
	var b strings.Builder
	b.WriteString(`# The BUCMA paper's preliminary test of the weights (section 3): every weighting of Eq. 2 on the 10 % grid of
# the simplex alpha + beta + gamma + delta = 1 (286 weightings, BUCMA5302 and BUCMA4303 among them), each over the
# four base policies, with the base policies alone: 1148 variants.
# Written by studies/bucma/weights_test.go (go test ./studies/bucma -run TestWeightsPlanFile -update).
# Run it: bucma expe run bucma-weights; report: bucma expe report results/bucma-weights.
# Copy it (bucma expe plans --show bucma-weights > my.yaml), edit it and run bucma expe run my.yaml: keep fewer
# weightings for a coarser design (the report draws whatever weightings the plan has); without "study" the
# campaign gets the comparison report (docs/campaigns.md).
name: bucma-weights
study: bucma-weights
title: "BUCMA weights: every weighting of the 10 % grid over the four base policies (queue gain against waiting time and makespan)"
description: >-
  Every weighting (alpha, beta, gamma, delta) of Eq. 2 in steps of 0.1 over each base policy (FCFS, MIN-MIN,
  MAX-MIN, EASY), scores of the inserted requests' owners pinned (imprecise:0,medium:50,precise:100), and each
  base alone, on the Lille platform with the synthetic Lille workload plus the 300 inserted requests of
  bucma-model: the queue-position gains and the performance metrics the paper chose its two models by.
platform: lille
workload:
  generator: lille
  jobs: 7056
  steps: [bucma-insert]
variants:
`)
	for _, base := range BaseNames {
		fmt.Fprintf(&b, "  - {name: %s, policy: %s, base: %s}\n", base, base, base)
		for _, w := range WeightGrid() {
			fmt.Fprintf(&b, "  - {name: %s-%s, policy: bucma, options: {weights: %q, base: %s, pinned-scores: %q}, base: %s, model: %s}\n",
				w.Name(), base, w.Option(), base, PinnedScores, base, w.Name())
		}
	}
	b.WriteString("seeds: 1-5\nloads: [0.85]\n")
	return b.String()
}

func TestWeightsPlanFile(t *testing.T) {
	want := weightsPlanFile()
	if *update {
		if err := os.WriteFile(WeightsPlan+".yaml", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Skip("bucma-weights.yaml rewritten; run the test again (the embedded file is the one compiled in)")
	}
	got, err := planFiles.ReadFile(WeightsPlan + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s.yaml is not what WeightGrid gives: go test ./studies/bucma -run TestWeightsPlanFile -update", WeightsPlan)
	}
	grid := WeightGrid()
	if len(grid) != 286 {
		t.Fatalf("%d weightings on the 10 %% grid, want C(13,3) = 286", len(grid))
	}
	seen := map[Weighting]bool{}
	for _, w := range grid {
		if w[0]+w[1]+w[2]+w[3] != 10 || seen[w] {
			t.Errorf("weighting %v", w)
		}
		seen[w] = true
		back, ok := parseWeighting(w.Option())
		if !ok || back != w {
			t.Errorf("%v: option %q reads back as %v", w, w.Option(), back)
		}
	}
	for m, w := range PaperWeightings {
		if !seen[w] || w.Title() != strings.TrimPrefix(m, "bucma") {
			t.Errorf("%s: %v not on the grid", m, w)
		}
	}
	p := studytest.Plan(t, studytest.Studies(RegisterExplorations), WeightsPlan)
	if len(p.Variants) != 4*287 || len(p.Seeds) != 5 || len(p.Expand()) != 4*287*5 {
		t.Errorf("plan: %d variants, %d seeds, %d runs", len(p.Variants), len(p.Seeds), len(p.Expand()))
	}
	q := studytest.Plan(t, studytest.Studies(RegisterExplorations), ThresholdPlan)
	var ts []int
	for _, v := range q.Variants {
		if th, ok := thresholdOf(v); ok {
			ts = append(ts, th)
		}
	}
	if fmt.Sprint(ts) != fmt.Sprint(Thresholds) || len(q.Variants) != 4+len(Thresholds) || len(q.Expand()) != 15*expe.DefaultSeeds {
		t.Errorf("threshold plan: thresholds %v, %d variants, %d runs", ts, len(q.Variants), len(q.Expand()))
	}
}
