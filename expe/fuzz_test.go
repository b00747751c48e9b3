package expe

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/internal/fuzzguard"
	"github.com/bucma-sched/bucma/policies"
	json "github.com/goccy/go-json"
	"github.com/goccy/go-yaml/lexer"
)

// FuzzParsePlan: a plan.json ParsePlan accepts expands to at most MaxRuns
// runs with distinct ids, and survives a JSON round trip.
func FuzzParsePlan(f *testing.F) {
	for _, name := range slices.Sorted(maps.Keys(builtinPlanFiles)) {
		p := builtinPlan(f, name)
		data, err := json.MarshalIndent(p, "", "  ")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"name":"x","variants":[{"name":"a","policy":"fcfs"}],"seeds":[1,1],"loads":[0.5]}`))
	f.Add([]byte(`{"name":"x","variants":[{"name":"a"}],"seeds":[1],"loads":[1e-300,0.5,0.50]}`))
	// Names that would make hidden runs, lines of runs.txt or commands of
	// a batch script; seeds past 2^53 and at 2^64-1; a platform spelled
	// as its file.
	f.Add([]byte(`{"name":"x
touch y","variants":[{"name":"a","policy":"fcfs"}],"seeds":[1],"loads":[0.5]}`))
	f.Add([]byte(`{"name":"x","variants":[{"name":".a","policy":"fcfs"},{"name":"b	c","policy":"fcfs"}],"seeds":[1],"loads":[0.5]}`))
	f.Add([]byte(`{"name":"x","platform":"lille.xml","variants":[{"name":"a","policy":"fcfs"}],"seeds":[9007199254740993,9007199254740992,18446744073709551615],"loads":[0.5]}`))
	// Shaking: copies past the bound, bounds negative or too large.
	f.Add([]byte(`{"name":"x","variants":[{"name":"a","policy":"fcfs"}],"seeds":[1,2],"loads":[0.5],"shake":{"submit":30,"runtime_percent":5,"copies":3}}`))
	f.Add([]byte(`{"name":"x","variants":[{"name":"a","policy":"fcfs"}],"seeds":[1],"loads":[0.5],"shake":{"submit":-1,"runtime_seconds":1e300,"copies":1000000000}}`))
	f.Add([]byte(`{"name":"x","variants":[{"name":"a","policy":"fcfs"}],"seeds":[1],"loads":[0.5],"shake":{"submit":1,"runtime_percent":100,"copies":0}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzguard.Run(t, func() error { return checkParsePlan(data) })
	})
}

// FuzzParsePlanFile: a plan file is refused with a PlanFileError, never a
// panic; one accepted gives a plan.json ParsePlan accepts (see
// checkParsePlan).
func FuzzParsePlanFile(f *testing.F) {
	for _, name := range slices.Sorted(maps.Keys(builtinPlanFiles)) {
		data, err := os.ReadFile(builtinPlanFiles[name])
		if err != nil {
			f.Fatal(err)
		}
		// Fewer seeds: the fuzzer's executions stay short.
		f.Add(bytes.Replace(data, []byte("seeds: 1-1000"), []byte("seeds: 1-3"), 1))
	}
	f.Add([]byte(goodPlan))
	f.Add([]byte("name: x\nplatform: lille\nworkloads:\n  - {name: a, generator: lille, jobs: 10}\n  - {name: b, generator: gang}\nloads: 0.5\nseeds: [3]\nvariants: [{name: v, policy: fcfs}]\n"))
	f.Add([]byte("{name: x, platform: lille, workload: {generator: lille}, variants: [], seeds: 0-1}"))
	for _, c := range hostilePlans {
		if len(c.text) < 64<<10 {
			f.Add([]byte(c.text))
		}
	}
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cluster.swf"), []byte("1 0 -1 10 1 -1 -1 1 20 -1 1 1 1 -1 1 -1 -1 -1\n2 5 -1 10 1 -1 -1 1 20 -1 1 1 1 -1 1 -1 -1 -1\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	studies := testStudies()
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzguard.Run(t, func() error {
			// The bound refusing files before the lexer runs holds.
			if got, bound := len(lexer.Tokenize(string(data))), yamlTokenBound(data); got > bound {
				return fmt.Errorf("%d tokens, bound %d", got, bound)
			}
			p, err := ParsePlanFile(data, PlanFileOptions{Name: "plan.yaml", Dir: dir, Studies: studies, Policies: policies.Builtin()})
			if err != nil {
				var pe *PlanFileError
				if !errors.As(err, &pe) {
					return fmt.Errorf("not a PlanFileError: %T %v", err, err)
				}
				return nil
			}
			js, err := json.Marshal(p)
			if err != nil {
				return err
			}
			return checkParsePlan(js)
		})
	})
}

func checkParsePlan(data []byte) error {
	p, err := ParsePlan(data)
	if err != nil {
		return nil
	}
	runs := p.Expand()
	want := len(p.Variants) * len(p.Seeds) * len(p.Loads)
	if len(p.Cases) > 0 {
		want = len(p.Variants) * len(p.Cases) * len(p.Seeds) * max(len(p.Loads), 1)
	}
	want *= len(p.Copies())
	if len(runs) > MaxRuns || len(runs) != want {
		return fmt.Errorf("%d runs", len(runs))
	}
	ids := map[string]bool{}
	for _, r := range runs {
		if ids[r.ID] || filepath.Base(r.ID) != r.ID || strings.HasPrefix(r.ID, ".") {
			return fmt.Errorf("run id %q repeated or not a file name", r.ID)
		}
		ids[r.ID] = true
	}
	again, err := json.Marshal(p)
	if err != nil {
		return err
	}
	if _, err := ParsePlan(again); err != nil {
		return fmt.Errorf("the plan, written back, is refused: %v\n%s", err, again)
	}
	return nil
}
