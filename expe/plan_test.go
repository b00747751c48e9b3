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

func TestOSEPPlanExpansion(t *testing.T) {
	p, err := BuiltinPlan("osep")
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != "osep" || p.Platform != "osep" || p.Workload.Generator != "osep" || p.Workload.LateBy != 360 || len(p.Loads) != 0 || len(p.Seeds) != OSEPSeeds {
		t.Errorf("plan %+v", p)
	}
	// 12 thesis cases = 6 workload cases × {no checkpoint, 600-s blocks},
	// each with both policies; plus the heterogeneous OSEP with its guard
	// as printed, without checkpoints.
	if len(p.Cases) != 6 || len(p.Variants) != 5 {
		t.Fatalf("%d cases, %d variants", len(p.Cases), len(p.Variants))
	}
	wantV := map[string]string{"osep": "0", "osep-ckpt600": "600", "osep-hetero": "0", "osep-hetero-ckpt600": "600", OSEPAsPrintedVariant: "0"}
	for _, v := range p.Variants {
		nopts := 1
		if v.Name == OSEPAsPrintedVariant {
			nopts = 2
			if v.Options["guard"] != "as-printed" {
				t.Errorf("variant %+v", v)
			}
		}
		if ck, ok := wantV[v.Name]; !ok || v.Options["checkpoint"] != ck || !strings.HasPrefix(v.Name, v.Policy) || len(v.Options) != nopts {
			t.Errorf("variant %+v", v)
		}
	}
	runs := p.Expand()
	if len(runs) != 5*6*OSEPSeeds {
		t.Fatalf("%d runs", len(runs))
	}
	ids := map[string]bool{}
	cases := map[string]int{}
	for _, r := range runs {
		if ids[r.ID] {
			t.Errorf("run id %s twice", r.ID)
		}
		ids[r.ID] = true
		c, ok := p.Case(r.Case)
		if !ok || r.Load != 0 || r.Workload != CaseWorkloadKey(r.Case, r.Seed) || r.ID != r.Variant.Name+"_"+r.Workload {
			t.Errorf("run %+v", r)
		}
		if strings.ContainsAny(r.ID, `/\ `) || strings.HasPrefix(r.ID, ".") || strings.Count(r.ID, "_") != 2 {
			t.Errorf("run id %q is not a safe file name of three parts", r.ID)
		}
		cases[c.Late+"/"+c.Demand]++
	}
	for _, late := range OSEPLateUsers {
		for _, d := range OSEPDemands {
			if cases[late+"/"+d] != 5*OSEPSeeds {
				t.Errorf("%s late, %s demand: %d runs", late, d, cases[late+"/"+d])
			}
		}
	}
	if got := runs[0].ID; got != "osep_user1-late-small_s001" {
		t.Errorf("first run id %s", got)
	}
	if got := runs[len(runs)-1].ID; got != "osep-hetero-asprinted_user4-late-large_s1000" {
		t.Errorf("last run id %s", got)
	}
	if n := len(p.WorkloadKeys()); n != 6*OSEPSeeds {
		t.Errorf("%d workloads", n)
	}
	// The recipe of a case carries its parameters; the plan's is unchanged.
	r := p.Recipe("user4-late-medium")
	if r.Generator != "osep" || r.Demand != "medium" || r.Late != "user4" || r.LateBy != 360 || p.Workload.Demand != "" {
		t.Errorf("recipe %+v (plan's %+v)", r, p.Workload)
	}
	if p.OwnerProperty() != "owner" {
		t.Errorf("owner property %q", p.OwnerProperty())
	}
}

func TestOSEPPlanOverrides(t *testing.T) {
	p, _ := BuiltinPlan("osep")
	q, err := p.With(Overrides{Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Seeds) != OSEPQuickSeeds || q.Workload.Jobs != 0 || len(q.Expand()) != 30*OSEPQuickSeeds {
		t.Errorf("quick: %d seeds, %d jobs", len(q.Seeds), q.Workload.Jobs)
	}
	if s, _ := p.QuickSizes(); s != OSEPQuickSeeds {
		t.Errorf("quick seeds %d", s)
	}
	if q, err := p.With(Overrides{Quick: true, Seeds: 7}); err != nil || len(q.Seeds) != 7 {
		t.Errorf("--quick --seeds 7: %v", err)
	}
	if _, err := p.With(Overrides{Jobs: 40}); err == nil || !strings.Contains(err.Error(), "--jobs does not apply to plan osep") {
		t.Errorf("--jobs: %v", err)
	}
	if _, err := p.With(Overrides{Loads: []float64{0.5}}); err == nil || !strings.Contains(err.Error(), "--loads does not apply to plan osep") || !strings.Contains(err.Error(), "user1-late-small") {
		t.Errorf("--loads: %v", err)
	}
	for _, name := range []string{"bucma-model", "walltime-trust"} {
		b, _ := BuiltinPlan(name)
		if b.Applies("jobs") != nil || b.Applies("loads") != nil {
			t.Errorf("%s: overrides refused", name)
		}
	}
}

// ParsePlan checks the workload cases of a plan.json.
func TestParsePlanCases(t *testing.T) {
	head := `{"name":"x","kind":"osep","variants":[{"name":"a","policy":"osep"}],"seeds":[1],"workload":{"generator":"osep","late_by":360},`
	ok := head + `"cases":[{"name":"c1","demand":"small","late":"user1"},{"name":"c.2","demand":"large","late":"user4"}]}`
	p, err := ParsePlan([]byte(ok))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Expand()) != 2 || p.Expand()[1].ID != "a_c.2_s001" {
		t.Errorf("runs %+v", p.Expand())
	}
	cases := []struct{ json, want string }{
		{head + `"cases":[{"name":"c"},{"name":"c"}]}`, "case c given twice"},
		{head + `"cases":[{"name":"a_b"}]}`, `case name "a_b"`},
		{head + `"cases":[{"name":""}]}`, `case name ""`},
		{head + `"cases":[{"name":".c"}]}`, `case name ".c"`},
		{head + `"cases":[{"name":"c/d"}]}`, `case name "c/d"`},
		{head + `"cases":[{"name":"c"}],"loads":[0.5]}`, "load levels (0.5) do not apply"},
		{head + `"cases":[{"name":"c","demand":"huge"}]}`, `case c: osep: unknown demand "huge"`},
		{head + `"cases":[{"name":"c","late":"user9"}]}`, `case c: osep: unknown late user "user9"`},
		{strings.Replace(head, `"late_by":360`, `"late_by":-1`, 1) + `"cases":[{"name":"c"}]}`, "late_by -1"},
		{strings.Replace(head, `"late_by":360`, `"jobs":40`, 1) + `"cases":[{"name":"c"}]}`, "fixed number of jobs"},
		{`{"name":"x","variants":[{"name":"a"},{"name":"b"}],"seeds":[` + seedsJSON(25001) + `],"cases":[{"name":"c"},{"name":"d"}]}`, "more than 100000 runs"},
	}
	for _, c := range cases {
		if _, err := ParsePlan([]byte(c.json)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.90s: %v, want %q", c.json, err, c.want)
		}
	}
}

// The plans without workload cases write the plan.json and run.json files
// they always wrote: none of the fields of the cases appears in them.
func TestPlansWithoutCasesKeepTheirJSON(t *testing.T) {
	for _, name := range []string{"bucma-model", "walltime-trust"} {
		p, _ := BuiltinPlan(name)
		data, _ := json.Marshal(p)
		run, _ := json.Marshal(p.Expand()[0])
		for _, key := range []string{`"cases"`, `"demand"`, `"late"`, `"late_by"`, `"case"`} {
			if strings.Contains(string(data), key) || strings.Contains(string(run), key) {
				t.Errorf("%s: %s in %s / %s", name, key, data, run)
			}
		}
	}
}
