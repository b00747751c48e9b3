package expe

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/workloads/gen"
	json "github.com/goccy/go-json"
)

func TestPlanErrors(t *testing.T) {
	for _, s := range []string{"", "a", "0.5,-1", "0"} {
		if _, err := ParseLoads(s); err == nil {
			t.Errorf("ParseLoads(%q) accepted", s)
		}
	}
	p := builtinPlan(t, "walltime-trust")
	if _, err := p.With(Overrides{Seeds: -1}); err == nil {
		t.Error("negative seeds accepted")
	}
	p.Variants = append(p.Variants, p.Variants[0])
	if err := p.Check(); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate variant: %v", err)
	}
	for _, name := range []string{"a_b", ".a", "a\nb", "a\tb", "a\x00b", ""} {
		p.Variants = []Variant{{Name: name, Policy: "fcfs"}}
		if err := p.Check(); err == nil || !strings.Contains(err.Error(), "variant name") {
			t.Errorf("variant name %q: %v", name, err)
		}
	}
	// A plan.json's name names its folder and batch jobs.
	p.Variants = []Variant{{Name: "a", Policy: "fcfs"}}
	for _, name := range []string{"", "a b", "a\ntouch x", "../x", ".x"} {
		p.Name = name
		if err := p.Check(); err == nil || !strings.Contains(err.Error(), "plan name") {
			t.Errorf("plan name %q: %v", name, err)
		}
	}
}

// ParsePlan (plan.json) refuses plans whose runs would share a name or
// whose size is out of bounds; the built-in plans go through unchanged.
func TestParsePlan(t *testing.T) {
	for _, name := range slices.Sorted(maps.Keys(builtinPlanFiles)) {
		p := builtinPlan(t, name)
		p.Quick = QuickSpec{} // not in plan.json
		data, _ := json.Marshal(p)
		got, err := ParsePlan(data)
		if err != nil || !reflect.DeepEqual(got, p) {
			t.Fatalf("%s: %v\n%+v\n%+v", name, err, got, p)
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
		{head + `"cases":[{"name":"c","demand":"huge"}]}`, `case c: demand: "huge" is not one of small, medium, large`},
		{head + `"cases":[{"name":"c","late":"user9"}]}`, `case c: late: "user9" is not one of user1, user4`},
		{strings.Replace(head, `"late_by":360`, `"late_by":-1`, 1) + `"cases":[{"name":"c"}]}`, "late_by: -1: must be at least 0"},
		{strings.Replace(head, `"late_by":360`, `"jobs":40`, 1) + `"cases":[{"name":"c"}]}`, "fixed number of jobs"},
		{`{"name":"x","variants":[{"name":"a"},{"name":"b"}],"seeds":[` + seedsJSON(25001) + `],"cases":[{"name":"c"},{"name":"d"}]}`, "more than 100000 runs"},
	}
	for _, c := range cases {
		if _, err := ParsePlan([]byte(c.json)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.90s: %v, want %q", c.json, err, c.want)
		}
	}
}

// A plan.json whose sizes multiply past the largest int (65 536 variants,
// cases and seeds, 32 768 load levels: 2^63 runs) is refused, not expanded.
func TestParsePlanSizeOverflow(t *testing.T) {
	list := func(n int, item func(i int) string) string {
		s := make([]string, n)
		for i := range s {
			s[i] = item(i)
		}
		return strings.Join(s, ",")
	}
	js := `{"name":"x","workload":{"generator":"lille","jobs":10},"variants":[` +
		list(1<<16, func(i int) string { return fmt.Sprintf(`{"name":"v%d","policy":"fcfs"}`, i) }) + `],"cases":[` +
		list(1<<16, func(i int) string { return fmt.Sprintf(`{"name":"c%d"}`, i) }) + `],"seeds":[` + seedsJSON(1<<16) + `],"loads":[` +
		list(1<<15, func(i int) string { return fmt.Sprintf("%g", float64(i+1)/1000) }) + `]}`
	_, err := ParsePlan([]byte(js))
	if err == nil || !strings.Contains(err.Error(), "65536 variants × 65536 cases × 32768 load levels × 65536 seeds: more than 100000 runs") {
		t.Errorf("got %.200v", err)
	}
}

// The plans without workload cases write the plan.json and run.json files
// they always wrote: none of the fields of the cases appears in them.
func TestPlansWithoutCasesKeepTheirJSON(t *testing.T) {
	for _, name := range []string{"bucma-model", "walltime-trust"} {
		p := builtinPlan(t, name)
		data, _ := json.Marshal(p)
		run, _ := json.Marshal(p.Expand()[0])
		for _, key := range []string{`"cases"`, `"demand"`, `"late"`, `"late_by"`, `"case"`} {
			if strings.Contains(string(data), key) || strings.Contains(string(run), key) {
				t.Errorf("%s: %s in %s / %s", name, key, data, run)
			}
		}
	}
}

func TestCasePlatformCollision(t *testing.T) {
	p := Plan{Name: "x", Platform: "lille", Variants: []Variant{{Name: "fcfs", Policy: "fcfs"}}, Seeds: []uint64{1},
		Workload: gen.Recipe{Generator: "lille"},
		Cases:    []WorkloadCase{{Name: "a", Fields: gen.Fields{{Key: "platform", Value: "/a/p.xml"}}}, {Name: "b", Fields: gen.Fields{{Key: "platform", Value: "/b/p.xml"}}}}}
	if err := p.Check(); err == nil || !strings.Contains(err.Error(), "would share the file platform-p.xml") {
		t.Errorf("collision: %v", err)
	}
	p.Cases[1].Fields.Set("platform", "/a/p.xml")
	if err := p.Check(); err != nil {
		t.Errorf("same platform twice: %v", err)
	}
	p.Cases[1].Fields.Set("user_mix", "1/2/3")
	if err := p.Check(); err == nil || !strings.Contains(err.Error(), "user mix") {
		t.Errorf("bad user mix: %v", err)
	}
}

// A plan of a synthetic trace takes a workload file instead: a Batsim
// workload or an SWF trace, whole or a window of it per seed, at its own
// load; a window that would hold the whole file is refused, as are plans
// whose workload is not a synthetic trace.
func TestWithFile(t *testing.T) {
	dir := t.TempDir()
	var swf strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&swf, "%d %d -1 %d 4 -1 -1 4 %d -1 1 -1 -1 -1 -1 -1 -1 -1\n", i, 100*i, 50+i, 200+i)
	}
	trace := filepath.Join(dir, "log.SWF")
	if err := os.WriteFile(trace, []byte(swf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	p := builtinPlan(t, "walltime-trust")
	got, err := p.WithFile(trace, "lille-cores", 10)
	if err != nil {
		t.Fatal(err)
	}
	if got.Workload.Generator != "swf" || !slices.Equal(got.Workload.Steps, []string{"window", "precise"}) || got.Workload.Fields.Float("window_jobs") != 10 ||
		got.Workload.Fields.String("file") != trace || got.Platform != "lille-cores" || got.HasLoads() || got.FixedJobs() != true {
		t.Errorf("window of an SWF trace: %+v", got)
	}
	if !strings.HasSuffix(got.Description, " Here the workload is a window of 10 consecutive jobs of the SWF trace, drawn with the seed, "+trace+" (its own load) instead of the synthetic trace.") {
		t.Errorf("description: %s", got.Description)
	}
	if whole, err := p.WithFile(trace, "", 0); err != nil || !slices.Equal(whole.Workload.Steps, []string{"precise"}) || whole.Platform != p.Platform {
		t.Errorf("whole SWF trace: %+v, %v", whole.Workload, err)
	}
	// A Batsim workload: the plan's steps follow the window.
	w := filepath.Join(dir, "w.json")
	if err := os.WriteFile(w, []byte(`{"nb_res": 4, "jobs": [{"id": "1", "subtime": 0, "res": 1, "profile": "p"}, {"id": "2", "subtime": 5, "res": 1, "profile": "p"}],
		"profiles": {"p": {"type": "delay", "delay": 10}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := builtinPlan(t, "bucma-model").WithFile(w, "", 1); err != nil || got.Workload.Generator != "file" || !slices.Equal(got.Workload.Steps, []string{"window", "bucma-insert"}) {
		t.Errorf("window of a Batsim workload: %+v, %v", got.Workload, err)
	}
	for _, c := range []struct {
		plan, path string
		window     int
		want       string
	}{
		{"walltime-trust", trace, 30, "--jobs 30: " + trace + " holds 30 jobs: a window of 30 would give every seed the same workload"},
		{"walltime-trust", w, 2, "holds 2 jobs"},
		{"walltime-trust", trace, -1, "--jobs must be at least 1 (got -1)"},
		{"walltime-trust", filepath.Join(dir, "none.swf"), 10, "--workload: open " + filepath.Join(dir, "none.swf")},
		{"osep", trace, 10, "its osep workload cannot be replaced by a file"},
	} {
		if _, err := builtinPlan(t, c.plan).WithFile(c.path, "", c.window); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s, %s, window %d: %v, want %q", c.plan, c.path, c.window, err, c.want)
		}
	}
	// Lines that are not jobs are left out before the window is sized.
	bad := filepath.Join(dir, "bad.swf")
	if err := os.WriteFile(bad, []byte("1 0 -1 10 4 -1 -1 4 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n2 x 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := p.WithFile(bad, "", 1); err == nil || !strings.Contains(err.Error(), "holds 1 jobs") {
		t.Errorf("an SWF trace of one job and a malformed line: %v", err)
	}
}
