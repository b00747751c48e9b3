package bucma

import (
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/expe"
	"github.com/bucma-sched/bucma/studies/internal/studytest"
)

func TestBucmaModelPlanExpansion(t *testing.T) {
	p := studytest.Plan(t, studytest.Studies(RegisterPaper), ModelPlan)
	if p.Workload.Generator != "lille" || p.Workload.Jobs != expe.DefaultJobs || strings.Join(p.Workload.Steps, ",") != "bucma-insert" || p.Platform != "lille" {
		t.Errorf("workload recipe %+v on %s", p.Workload, p.Platform)
	}
	runs := p.Expand()
	if len(runs) != len(BaseNames)*(1+len(BUCMAModels))*expe.DefaultSeeds {
		t.Fatalf("%d runs", len(runs))
	}
	ids := map[string]bool{}
	perBase := map[string]int{}
	for _, r := range runs {
		if ids[r.ID] {
			t.Errorf("run id %s twice", r.ID)
		}
		ids[r.ID] = true
		if r.Workload != expe.WorkloadKey(r.Seed, r.Load) || r.Load != expe.DefaultLoad {
			t.Errorf("run %s: workload %s, load %v", r.ID, r.Workload, r.Load)
		}
		v := r.Variant
		perBase[v.Base]++
		if v.Model == "" {
			if v.Policy != v.Base || len(v.Options) != 0 {
				t.Errorf("base variant %+v", v)
			}
			continue
		}
		if v.Policy != v.Model || v.Options["base"] != v.Base || v.Options["pinned-scores"] != PinnedScores {
			t.Errorf("BUCMA variant %+v", v)
		}
		if got := strings.Join(v.OptionArgs(), " "); got != "base="+v.Base+" pinned-scores="+PinnedScores {
			t.Errorf("option args %q", got)
		}
	}
	for _, b := range BaseNames {
		if perBase[b] != 3*expe.DefaultSeeds {
			t.Errorf("base %s: %d runs", b, perBase[b])
		}
	}
	if got := runs[0].ID; got != "fcfs_s001_l0.85" {
		t.Errorf("first run id %s", got)
	}
	if n := len(p.WorkloadKeys()); n != expe.DefaultSeeds {
		t.Errorf("%d workloads", n)
	}
}

func TestWalltimeTrustPlanAndOverrides(t *testing.T) {
	p := studytest.Plan(t, studytest.Studies(RegisterPaper), WtrustPlan)
	if strings.Join(p.Workload.Steps, ",") != "precise" || len(p.Variants) != 5 || p.Variants[4].Policy != "wtrust" {
		t.Errorf("plan %+v", p)
	}
	q, err := p.With(expe.Overrides{Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Seeds) != expe.QuickSeeds || q.Workload.Jobs != expe.QuickJobs || len(q.Expand()) != 5*expe.QuickSeeds {
		t.Errorf("quick plan: %d seeds, %d jobs", len(q.Seeds), q.Workload.Jobs)
	}
	loads, err := expe.ParseLoads("0.7, 0.85,1.0")
	if err != nil {
		t.Fatal(err)
	}
	s, err := p.With(expe.Overrides{Quick: true, Seeds: 2, Jobs: 300, Loads: loads})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Seeds) != 2 || s.Seeds[1] != 2 || s.Workload.Jobs != 300 || len(s.Expand()) != 5*2*3 {
		t.Errorf("overridden plan: %+v", s)
	}
	keys := s.WorkloadKeys()
	if len(keys) != 6 || keys[0] != "s001_l0.7" || keys[5] != "s002_l1" {
		t.Errorf("workload keys %v", keys)
	}
	// The built-in plan itself is unchanged.
	if len(p.Seeds) != expe.DefaultSeeds || p.Workload.Jobs != expe.DefaultJobs {
		t.Error("With modified the original plan")
	}
}
