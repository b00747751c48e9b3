package bucma

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/expe/analysis"
	"github.com/bucma-sched/bucma/expe/report"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/studies/internal/studytest"
	"github.com/bucma-sched/bucma/workloads"
)

func TestSensitivityPlans(t *testing.T) {
	for _, name := range []string{BucmaSensitivity, WtrustSensitivity} {
		p := studytest.Plan(t, studytest.Studies(RegisterSensitivity), name)
		bucma := name == BucmaSensitivity
		wantCases := 12
		if bucma {
			wantCases = 15
		}
		if len(p.Cases) != wantCases || len(p.Seeds) != 5 || p.Kind != name || len(p.Loads) != 0 {
			t.Fatalf("%s: %d cases, %d seeds, kind %s, loads %v", name, len(p.Cases), len(p.Seeds), p.Kind, p.Loads)
		}
		if n := len(p.Expand()); n != len(p.Variants)*wantCases*5 {
			t.Errorf("%s: %d runs", name, n)
		}
		// Each case changes one factor from the reference.
		for _, c := range p.Cases {
			r := p.Recipe(c.Name)
			changed := 0
			load := r.Fields.Float("load")
			if load != expe.DefaultLoad {
				changed++
			}
			for _, v := range []bool{r.Fields.Has("runtime_scale"), r.Fields.Has("one_node_share"), r.Fields.Has("user_mix"), r.Fields.Has("bursts"), p.PlatformOf(c.Name) != p.Platform} {
				if v {
					changed++
				}
			}
			if want := map[bool]int{true: 0, false: 1}[c.Factor() == "reference"]; changed != want || load == 0 {
				t.Errorf("%s case %s: %d factors changed (load %v)", name, c.Name, changed, load)
			}
			if !bucma && (r.Fields.Has("user_mix") || r.Fields.Has("bursts")) {
				t.Errorf("%s case %s: a factor of the inserted requests", name, c.Name)
			}
		}
		if p.PlatformFileOf("resources-cores") != "platform-lille-cores.xml" || p.PlatformFileOf("reference") != expe.PlatformFile || len(p.PlatformFiles()) != 2 {
			t.Errorf("%s: platform files %v", name, p.PlatformFiles())
		}
		q, err := p.With(expe.Overrides{Quick: true})
		if err != nil || len(q.Seeds) != expe.QuickSeeds || q.Workload.Jobs != expe.QuickJobs {
			t.Errorf("%s --quick: %v %d seeds %d jobs", name, err, len(q.Seeds), q.Workload.Jobs)
		}
		if _, err := p.With(expe.Overrides{Loads: []float64{0.5}}); err == nil {
			t.Errorf("%s: --loads accepted", name)
		}
	}
}

func TestSpearmanAndCellState(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		x, y []float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, 1},
		{[]float64{1, 2, 3, 4}, []float64{4, 3, 2, 1}, -1},
		{[]float64{1, 2, 3, 4, nan}, []float64{1, 3, 2, 4, 7}, 0.8},
		{[]float64{1, 1, 2}, []float64{1, 2, 3}, math.Sqrt(0.75)},
		{[]float64{1, 2}, []float64{1, 2}, nan},
		{[]float64{1, 1, 1}, []float64{1, 2, 3}, nan},
	}
	for _, c := range cases {
		got := Spearman(c.x, c.y)
		if math.IsNaN(c.want) != math.IsNaN(got) || (!math.IsNaN(got) && math.Abs(got-c.want) > 1e-9) {
			t.Errorf("Spearman(%v, %v) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
	states := []struct {
		x, ref []float64
		paper  float64
		want   int
	}{
		{[]float64{90, 95, 92}, []float64{100, 100, 100}, -50, cellAgree},
		{[]float64{80, 110, 95}, []float64{100, 100, 100}, -50, cellAgreeNS},
		{[]float64{120, 90, 105}, []float64{100, 100, 100}, -50, cellOppositeNS},
		{[]float64{110, 112, 111}, []float64{100, 100, 100}, -50, cellOpposite},
		{[]float64{110}, []float64{100}, 5, cellAgreeNS},
		{nil, nil, 5, cellNone},
		// Over a near-zero base the sign is the difference's: +5.7 ± 2.5 s.
		{[]float64{5, 6, 7}, []float64{0.1, 0.2, 0.1}, 20, cellAgree},
		{[]float64{5, 6, 7}, []float64{0.1, 0.2, 0.1}, -20, cellOpposite},
	}
	for _, s := range states {
		c := analysis.Compare(s.x, s.ref, analysis.FloorSeconds)
		if got := cellState(c, s.paper); got != s.want {
			t.Errorf("cellState(%v vs %v, %v) = %d, want %d", s.x, s.ref, s.paper, got, s.want)
		}
	}
}

// A campaign on a workload file: the plan's steps are applied to the file
// for each seed, the platform can be replaced, and a changed file is
// refused on resume.
func TestCampaignOnWorkloadFile(t *testing.T) {
	w, err := workloads.GenerateLille(workloads.LilleOptions{Jobs: 60, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := w.Bytes()
	file := filepath.Join(t.TempDir(), "trace.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s := studytest.Studies(RegisterPaper, RegisterSensitivity)
	p := studytest.Plan(t, s, ModelPlan)
	p.Variants = p.Variants[:3] // fcfs and its two BUCMA models
	if p, err = p.WithFile(file, "", 0); err != nil {
		t.Fatal(err)
	}
	if p, err = p.With(expe.Overrides{Seeds: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.With(expe.Overrides{Loads: []float64{0.7}}); err == nil || !strings.Contains(err.Error(), "keeps its own load") {
		t.Errorf("--loads with a file: %v", err)
	}
	if _, err := p.With(expe.Overrides{Jobs: 10}); err == nil {
		t.Error("--jobs with a file accepted")
	}
	dir := t.TempDir()
	studytest.MustRun(t, &expe.Campaign{Plan: p, Dir: dir, Engine: studytest.Embedded(), Workers: 2})
	for _, key := range p.WorkloadKeys() {
		got, err := workloads.Load(expe.WorkloadPath(dir, key))
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Jobs) != 60+300 {
			t.Errorf("workload %s: %d jobs, want the file's 60 and 300 inserted", key, len(got.Jobs))
		}
	}
	path, err := report.Write(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(path)
	if !strings.Contains(string(text), "the trace's own") || !strings.Contains(string(text), file) {
		t.Errorf("the report does not say the workload is the file with its own load:\n%.600s", text)
	}
	if err := os.WriteFile(file, append(data, ' '), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.RemoveAll(expe.RunDir(dir, p.Expand()[0].ID))
	_ = os.Remove(expe.WorkloadPath(dir, p.Expand()[0].Workload))
	camp := &expe.Campaign{Plan: p, Dir: dir, Engine: expe.NewEmbeddedEngine(policies.Builtin()), Workers: 1}
	if _, err := camp.Execute(t.Context()); err == nil || !strings.Contains(err.Error(), "changed since the campaign began") {
		t.Errorf("changed file: %v", err)
	}
	q := studytest.Plan(t, s, BucmaSensitivity)
	if _, err := q.WithFile(file, "", 0); err == nil {
		t.Error("a sensitivity plan took a workload file")
	}
}
