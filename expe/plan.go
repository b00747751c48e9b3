package expe

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"
)

// Variant is one scheduler configuration of a plan.
type Variant struct {
	Name    string            `json:"name"`    // unique in the plan, file-name safe
	Policy  string            `json:"policy"`  // registry name
	Options map[string]string `json:"options"` // policy options (CLI key=value form)
	// Base is the base policy the variant is compared with ("fcfs", ...);
	// Model is "" for a base policy alone, else the model applied to Base
	// ("bucma5302", "wtrust", ...).
	Base  string `json:"base"`
	Model string `json:"model,omitempty"`
}

// WorkloadRecipe says how the workload of a (seed, load) pair is made: a
// generator, then transformations applied in order.
type WorkloadRecipe struct {
	Generator string   `json:"generator"` // "lille"
	Jobs      int      `json:"jobs"`      // jobs of the generator (0: its default)
	Steps     []string `json:"steps"`     // "bucma-insert", "precise"
}

// Plan is a declarative experiment: every variant runs on the workload of
// every (seed, load) pair.
type Plan struct {
	Name        string         `json:"name"`
	Kind        string         `json:"kind"` // report layout: "bucma-model" or "walltime-trust"
	Title       string         `json:"title"`
	Platform    string         `json:"platform"` // bundled platform name or file path
	Workload    WorkloadRecipe `json:"workload"`
	Variants    []Variant      `json:"variants"`
	Seeds       []uint64       `json:"seeds"`
	Loads       []float64      `json:"loads"`
	Description string         `json:"description"`
}

// Run is one simulation of a campaign.
type Run struct {
	ID       string  `json:"id"`
	Variant  Variant `json:"variant"`
	Seed     uint64  `json:"seed"`
	Load     float64 `json:"load"`
	Workload string  `json:"workload"` // workload key (file workloads/<key>.json)
}

// BaseNames are the four base policies of the BUCMA paper.
var BaseNames = []string{"fcfs", "minmin", "maxmin", "easy"}

// BUCMAModels are the two named BUCMA variants of the paper.
var BUCMAModels = []string{"bucma5302", "bucma4303"}

// PinnedScores pins the Su of the three users of the inserted requests.
const PinnedScores = "imprecise:0,medium:50,precise:100"

// Default campaign sizes.
const (
	DefaultSeeds     = 10
	DefaultLoad      = 0.85
	DefaultJobs      = 7056
	QuickJobs        = 1500
	QuickSeeds       = 3
	defaultFirstSeed = 1
)

// PlanNames lists the built-in plans.
func PlanNames() []string { return []string{"bucma-model", "walltime-trust"} }

// BuiltinPlan returns a built-in plan with the default sizes.
func BuiltinPlan(name string) (Plan, error) {
	seeds := SeedRange(DefaultSeeds)
	switch name {
	case "bucma-model":
		var vs []Variant
		for _, b := range BaseNames {
			vs = append(vs, Variant{Name: b, Policy: b, Options: map[string]string{}, Base: b})
			for _, m := range BUCMAModels {
				vs = append(vs, Variant{
					Name: m + "-" + b, Policy: m, Base: b, Model: m,
					Options: map[string]string{"base": b, "pinned-scores": PinnedScores},
				})
			}
		}
		return Plan{
			Name: name, Kind: name, Title: "BUCMA model on the four base policies (Table 3, Figures 1-2)",
			Platform: "lille",
			Workload: WorkloadRecipe{Generator: "lille", Jobs: DefaultJobs, Steps: []string{"bucma-insert"}},
			Variants: vs, Seeds: seeds, Loads: []float64{DefaultLoad},
			Description: "Each base policy (FCFS, MIN-MIN, MAX-MIN, EASY) alone and under BUCMA5302 and BUCMA4303 " +
				"(scores of the inserted requests' owners pinned: " + PinnedScores + "), on the Lille platform with a " +
				"synthetic Lille workload plus 300 inserted requests of walltime 3600 s in three precision profiles.",
		}, nil
	case "walltime-trust":
		var vs []Variant
		for _, b := range BaseNames {
			vs = append(vs, Variant{Name: b, Policy: b, Options: map[string]string{}, Base: b})
		}
		vs = append(vs, Variant{Name: "wtrust", Policy: "wtrust", Options: map[string]string{}, Base: "wtrust", Model: "wtrust"})
		return Plan{
			Name: name, Kind: name, Title: "Walltime-trust algorithm vs the four base policies (Figures 3-4)",
			Platform: "lille",
			Workload: WorkloadRecipe{Generator: "lille", Jobs: DefaultJobs, Steps: []string{"precise"}},
			Variants: vs, Seeds: seeds, Loads: []float64{DefaultLoad},
			Description: "The walltime-trust algorithm against FCFS, MIN-MIN, MAX-MIN and EASY on the synthetic Lille " +
				"workload with precise walltimes (W = Te / U(0.85, 1.0)).",
		}, nil
	}
	return Plan{}, fmt.Errorf("unknown plan %q (valid: %s)", name, strings.Join(PlanNames(), ", "))
}

// SeedRange returns the seeds 1..n.
func SeedRange(n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(defaultFirstSeed + i)
	}
	return out
}

// Overrides change a plan's size from the command line; zero values keep
// the plan's own.
type Overrides struct {
	Seeds int       // number of seeds (1..n)
	Loads []float64 // load levels
	Jobs  int       // jobs of the workload generator
	Quick bool      // QuickJobs jobs and QuickSeeds seeds unless Seeds/Jobs say otherwise
}

// With returns the plan with the overrides applied and checked.
func (p Plan) With(o Overrides) (Plan, error) {
	if o.Quick {
		p.Workload.Jobs = QuickJobs
		p.Seeds = SeedRange(QuickSeeds)
	}
	if o.Seeds < 0 {
		return p, fmt.Errorf("--seeds must be at least 1 (got %d)", o.Seeds)
	}
	if o.Seeds > 0 {
		p.Seeds = SeedRange(o.Seeds)
	}
	if o.Jobs < 0 {
		return p, fmt.Errorf("--jobs must be at least 1 (got %d)", o.Jobs)
	}
	if o.Jobs > 0 {
		p.Workload.Jobs = o.Jobs
	}
	if len(o.Loads) > 0 {
		p.Loads = append([]float64(nil), o.Loads...)
	}
	return p, p.Check()
}

// MaxRuns bounds the runs of a plan (variants × seeds × loads).
const MaxRuns = 100000

// ParsePlan reads a plan in its JSON form (a campaign's plan.json) and
// checks it.
func ParsePlan(data []byte) (Plan, error) {
	var p Plan
	if err := json.Unmarshal(data, &p); err != nil {
		return Plan{}, fmt.Errorf("not a plan: %w", err)
	}
	if err := p.Check(); err != nil {
		return Plan{}, err
	}
	return p, nil
}

// Check validates a plan.
func (p Plan) Check() error {
	if len(p.Variants) == 0 {
		return fmt.Errorf("plan %s: no variant", p.Name)
	}
	if len(p.Seeds) == 0 {
		return fmt.Errorf("plan %s: no seed", p.Name)
	}
	if len(p.Loads) == 0 {
		return fmt.Errorf("plan %s: no load level", p.Name)
	}
	if n := len(p.Variants) * len(p.Seeds) * len(p.Loads); len(p.Seeds) > MaxRuns || len(p.Loads) > MaxRuns || n > MaxRuns {
		return fmt.Errorf("plan %s: %d variants × %d seeds × %d load levels: more than %d runs", p.Name, len(p.Variants), len(p.Seeds), len(p.Loads), MaxRuns)
	}
	if p.Workload.Jobs < 0 {
		return fmt.Errorf("plan %s: %d jobs: must be at least 0 (the generator's default)", p.Name, p.Workload.Jobs)
	}
	// Runs and workloads are named after the seed and the load: each may
	// appear once.
	seeds := map[uint64]bool{}
	for _, s := range p.Seeds {
		if seeds[s] {
			return fmt.Errorf("plan %s: seed %d given twice", p.Name, s)
		}
		seeds[s] = true
	}
	loads := map[string]bool{}
	for _, l := range p.Loads {
		if !(l > 0) || l > 100 {
			return fmt.Errorf("plan %s: load %g: must be > 0 and at most 100", p.Name, l)
		}
		if loads[FormatLoad(l)] {
			return fmt.Errorf("plan %s: load %s given twice", p.Name, FormatLoad(l))
		}
		loads[FormatLoad(l)] = true
	}
	seen := map[string]bool{}
	for _, v := range p.Variants {
		if v.Name == "" || strings.ContainsAny(v.Name, `/\_ `) {
			return fmt.Errorf("plan %s: variant name %q: must be non-empty, without '/', '\\', '_' or spaces", p.Name, v.Name)
		}
		if seen[v.Name] {
			return fmt.Errorf("plan %s: variant %s given twice", p.Name, v.Name)
		}
		seen[v.Name] = true
	}
	return nil
}

// ParseLoads parses a comma-separated list of load levels ("0.7,0.85,1.0").
func ParseLoads(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || !(v > 0) {
			return nil, fmt.Errorf("--loads: %q is not a positive number", f)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--loads: no load level in %q", s)
	}
	return out, nil
}

// WorkloadKey names the workload of a (seed, load) pair.
func WorkloadKey(seed uint64, load float64) string {
	return fmt.Sprintf("s%03d_l%s", seed, FormatLoad(load))
}

// FormatLoad prints a load level compactly (0.85, 1).
func FormatLoad(l float64) string { return strconv.FormatFloat(l, 'f', -1, 64) }

// Expand lists the runs of the plan: for each load, each seed, each variant.
func (p Plan) Expand() []Run {
	var runs []Run
	for _, l := range p.Loads {
		for _, s := range p.Seeds {
			key := WorkloadKey(s, l)
			for _, v := range p.Variants {
				runs = append(runs, Run{ID: v.Name + "_" + key, Variant: v, Seed: s, Load: l, Workload: key})
			}
		}
	}
	return runs
}

// WorkloadKeys lists the distinct workloads of the plan, sorted.
func (p Plan) WorkloadKeys() []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range p.Expand() {
		if !seen[r.Workload] {
			seen[r.Workload] = true
			out = append(out, r.Workload)
		}
	}
	sort.Strings(out)
	return out
}

// OptionArgs returns a variant's options as sorted key=value strings.
func (v Variant) OptionArgs() []string {
	keys := make([]string, 0, len(v.Options))
	for k := range v.Options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k + "=" + v.Options[k]
	}
	return out
}
