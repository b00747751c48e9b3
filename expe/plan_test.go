package expe

import (
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	json "github.com/goccy/go-json"
)

func TestBucmaModelPlanExpansion(t *testing.T) {
	p, err := BuiltinPlan("bucma-model")
	if err != nil {
		t.Fatal(err)
	}
	if p.Workload.Generator != "lille" || p.Workload.Jobs != DefaultJobs || strings.Join(p.Workload.Steps, ",") != "bucma-insert" || p.Platform != "lille" {
		t.Errorf("workload recipe %+v on %s", p.Workload, p.Platform)
	}
	runs := p.Expand()
	if len(runs) != len(BaseNames)*(1+len(BUCMAModels))*DefaultSeeds {
		t.Fatalf("%d runs", len(runs))
	}
	ids := map[string]bool{}
	perBase := map[string]int{}
	for _, r := range runs {
		if ids[r.ID] {
			t.Errorf("run id %s twice", r.ID)
		}
		ids[r.ID] = true
		if r.Workload != WorkloadKey(r.Seed, r.Load) || r.Load != DefaultLoad {
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
		if perBase[b] != 3*DefaultSeeds {
			t.Errorf("base %s: %d runs", b, perBase[b])
		}
	}
	if got := runs[0].ID; got != "fcfs_s001_l0.85" {
		t.Errorf("first run id %s", got)
	}
	if n := len(p.WorkloadKeys()); n != DefaultSeeds {
		t.Errorf("%d workloads", n)
	}
}

func TestWalltimeTrustPlanAndOverrides(t *testing.T) {
	p, err := BuiltinPlan("walltime-trust")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(p.Workload.Steps, ",") != "precise" || len(p.Variants) != 5 || p.Variants[4].Policy != "wtrust" {
		t.Errorf("plan %+v", p)
	}
	q, err := p.With(Overrides{Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Seeds) != QuickSeeds || q.Workload.Jobs != QuickJobs || len(q.Expand()) != 5*QuickSeeds {
		t.Errorf("quick plan: %d seeds, %d jobs", len(q.Seeds), q.Workload.Jobs)
	}
	loads, err := ParseLoads("0.7, 0.85,1.0")
	if err != nil {
		t.Fatal(err)
	}
	s, err := p.With(Overrides{Quick: true, Seeds: 2, Jobs: 300, Loads: loads})
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
	if len(p.Seeds) != DefaultSeeds || p.Workload.Jobs != DefaultJobs {
		t.Error("With modified the original plan")
	}
}

func TestPlanErrors(t *testing.T) {
	if _, err := BuiltinPlan("nope"); err == nil || !strings.Contains(err.Error(), "bucma-model") {
		t.Errorf("unknown plan: %v", err)
	}
	for _, s := range []string{"", "a", "0.5,-1", "0"} {
		if _, err := ParseLoads(s); err == nil {
			t.Errorf("ParseLoads(%q) accepted", s)
		}
	}
	p, _ := BuiltinPlan("walltime-trust")
	if _, err := p.With(Overrides{Seeds: -1}); err == nil {
		t.Error("negative seeds accepted")
	}
	p.Variants = append(p.Variants, p.Variants[0])
	if err := p.Check(); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate variant: %v", err)
	}
	p.Variants = []Variant{{Name: "a_b", Policy: "fcfs"}}
	if err := p.Check(); err == nil {
		t.Error("variant name with '_' accepted")
	}
}

// ParsePlan (plan.json) refuses plans whose runs would share a name or
// whose size is out of bounds; the built-in plans go through unchanged.
func TestParsePlan(t *testing.T) {
	for _, name := range PlanNames() {
		p, _ := BuiltinPlan(name)
		data, _ := json.Marshal(p)
		got, err := ParsePlan(data)
		if err != nil || !reflect.DeepEqual(got, p) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	variant := `"variants":[{"name":"a","policy":"fcfs"}]`
	cases := []struct{ json, want string }{
		{`[1]`, "not a plan"},
		{`{"name":"x",` + variant + `,"seeds":[1,2,1],"loads":[0.5]}`, "seed 1 given twice"},
		{`{"name":"x",` + variant + `,"seeds":[1],"loads":[0.5,0.50]}`, "load 0.5 given twice"},
		{`{"name":"x",` + variant + `,"seeds":[1],"loads":[0.5],"workload":{"jobs":-3}}`, "-3 jobs"},
		{`{"name":"x",` + variant + `,"seeds":[1],"loads":[0]}`, "load 0"},
		{`{"name":"x",` + variant + `,"seeds":[],"loads":[0.5]}`, "no seed"},
		{`{"name":"x","variants":[{"name":"a"},{"name":"b"}],"seeds":[` + seedsJSON(50001) + `],"loads":[0.5]}`, "more than 100000 runs"},
	}
	for _, c := range cases {
		if _, err := ParsePlan([]byte(c.json)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.60s: %v, want %q", c.json, err, c.want)
		}
	}
	dir := t.TempDir()
	os.WriteFile(PlanPath(dir), []byte(cases[1].json), 0o644)
	if _, err := ReadPlan(dir); err == nil || !strings.Contains(err.Error(), PlanPath(dir)+": plan x: seed 1 given twice") {
		t.Errorf("ReadPlan: %v", err)
	}
}

func seedsJSON(n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = strconv.Itoa(i + 1)
	}
	return strings.Join(s, ",")
}
