package expe

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
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

// WorkloadRecipe says how the workload of a (seed, load) pair, or of a
// (case, seed) pair, is made: a generator, then transformations applied in
// order.
type WorkloadRecipe struct {
	Generator string   `json:"generator"` // "lille", "osep", "sge", "gang", "bot", "file"
	Jobs      int      `json:"jobs"`      // jobs of the generator (0: its default; "osep" has a fixed size)
	Steps     []string `json:"steps"`     // "bucma-insert", "precise"
	// Parameters of the "osep" generator (a plan's workload cases set
	// Demand and Late, see WorkloadCase).
	Demand string  `json:"demand,omitempty"`  // small, medium or large
	Late   string  `json:"late,omitempty"`    // the user who submits late
	LateBy float64 `json:"late_by,omitempty"` // the late user's submission time, seconds
	// Parameters of the "sge" generator (set by the cases of plan sge):
	// the application and the number of tasks.
	App   string `json:"app,omitempty"`
	Tasks int    `json:"tasks,omitempty"`
	// Parameters of the "bot" generator (set by the cases of plan bot):
	// Bots lists the bags of tasks, comma-separated, each a published BoT
	// of the thesis (H1-1 ... H2-3, see workloads.NamedBoT) or one drawn,
	// with the seed, from a profile class (leve, mediano, pesado, up-1 ...
	// up-10, see workloads.BotProfileClass); BotArrivals their arrival
	// steps, comma-separated in the same order (empty: the BoTs' own);
	// Background the external load, percent of every core, during the
	// whole run (0: none).
	Bots        string `json:"bots,omitempty"`
	BotArrivals string `json:"bot_arrivals,omitempty"`
	Background  int    `json:"background,omitempty"`
	// Shape of the "lille" generator's trace (zero: its default; see
	// workloads.LilleOptions) and of the bucma-insert step (Bursts 0:
	// spread); Load is the offered load of a workload case (plans with
	// cases have no load levels).
	Load         float64 `json:"load,omitempty"`
	RuntimeScale float64 `json:"runtime_scale,omitempty"`
	OneNodeShare float64 `json:"one_node_share,omitempty"`
	UserMix      string  `json:"user_mix,omitempty"` // "precise/medium/imprecise" users, "6/10/24"
	Bursts       int     `json:"bursts,omitempty"`
	// File is a workload file (generator "file": a real trace, e.g.
	// converted by bucma workload from-swf), FileSHA256 its checksum,
	// checked before every execution of the campaign.
	File       string `json:"file,omitempty"`
	FileSHA256 string `json:"file_sha256,omitempty"`
}

// WorkloadCase is one setting of the workload generator. A plan with cases
// runs every variant on the workload of every (case, seed) pair instead of
// every (seed, load) pair: load levels do not apply to it. The case's
// non-empty parameters replace the recipe's (see Plan.Recipe).
type WorkloadCase struct {
	Name   string `json:"name"`  // unique in the plan, file-name safe
	Title  string `json:"title"` // how the report names it ("user1 late, large demand")
	Demand string `json:"demand,omitempty"`
	Late   string `json:"late,omitempty"`
	App    string `json:"app,omitempty"`
	Tasks  int    `json:"tasks,omitempty"`
	// Sensitivity cases: the platform (bundled name or file; empty: the
	// plan's), the offered load and the trace's shape (see WorkloadRecipe);
	// Factor and Level say which factor the case varies from the
	// reference case, and to what ("load", "0.5"), for the report.
	Platform     string  `json:"platform,omitempty"`
	Load         float64 `json:"load,omitempty"`
	RuntimeScale float64 `json:"runtime_scale,omitempty"`
	OneNodeShare float64 `json:"one_node_share,omitempty"`
	UserMix      string  `json:"user_mix,omitempty"`
	Bursts       int     `json:"bursts,omitempty"`
	Factor       string  `json:"factor,omitempty"`
	Level        string  `json:"level,omitempty"`
	// Bag-of-tasks cases (plan bot): the BoTs, their arrival steps and
	// the external load (see WorkloadRecipe).
	Bots        string `json:"bots,omitempty"`
	BotArrivals string `json:"bot_arrivals,omitempty"`
	Background  int    `json:"background,omitempty"`
}

// Plan is a declarative experiment: every variant runs on the workload of
// every (seed, load) pair, or of every (case, seed) pair when the plan has
// workload cases.
type Plan struct {
	Name        string         `json:"name"`
	Kind        string         `json:"kind"` // report layout: "bucma-model", "walltime-trust", "osep", "sge" or a sensitivity plan's
	Title       string         `json:"title"`
	Platform    string         `json:"platform"` // bundled platform name or file path
	Workload    WorkloadRecipe `json:"workload"`
	Cases       []WorkloadCase `json:"cases,omitempty"`
	Variants    []Variant      `json:"variants"`
	Seeds       []uint64       `json:"seeds"`
	Loads       []float64      `json:"loads"`
	Description string         `json:"description"`
}

// Run is one simulation of a campaign.
type Run struct {
	ID       string  `json:"id"`
	Variant  Variant `json:"variant"`
	Case     string  `json:"case,omitempty"` // workload case (plans with cases; Load is then 0)
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

// Sizes of the OSEP campaign (plan "osep"): the thesis ran 1000 seeds per
// case and policy.
const (
	OSEPSeeds      = 1000
	OSEPQuickSeeds = 5
	// OSEPLateBy is when the late user submits (the thesis' 6 minutes).
	OSEPLateBy = 360.0
	// OSEPCheckpoint is the checkpoint block of the checkpointing variants,
	// in seconds of execution (the thesis' 10-minute blocks).
	OSEPCheckpoint = 600
)

// OSEPPolicies are the two policies the OSEP plan compares: the original
// (homogeneous) OSEP and the heterogeneous one.
var OSEPPolicies = []string{"osep", "osep-hetero"}

// OSEPDemands are the demand levels of the OSEP workload cases.
var OSEPDemands = []string{"small", "medium", "large"}

// OSEPLateUsers are the users who submit late in the OSEP workload cases.
var OSEPLateUsers = []string{"user1", "user4"}

// OSEPAsPrintedVariant is the OSEP plan's variant of the heterogeneous
// OSEP with the preemption guard as the thesis prints it.
const OSEPAsPrintedVariant = "osep-hetero-asprinted"

// OSEPCaseName names the workload case where late submits late under
// demand ("user1-late-large").
func OSEPCaseName(late, demand string) string { return late + "-late-" + demand }

// OSEPVariantName names the variant of policy with checkpoint blocks of
// ckpt seconds (0: none): "osep", "osep-hetero-ckpt600".
func OSEPVariantName(policy string, ckpt int) string {
	if ckpt == 0 {
		return policy
	}
	return fmt.Sprintf("%s-ckpt%d", policy, ckpt)
}

// PlanNames lists the built-in plans.
func PlanNames() []string {
	return []string{"bucma-model", "walltime-trust", "osep", SGEPlan, GangPlan, BotPlan, BucmaSensitivity, WtrustSensitivity}
}

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
	case "osep":
		var cases []WorkloadCase
		for _, late := range OSEPLateUsers {
			for _, d := range OSEPDemands {
				cases = append(cases, WorkloadCase{Name: OSEPCaseName(late, d), Title: late + " late, " + d + " demand", Demand: d, Late: late})
			}
		}
		var vs []Variant
		for _, pol := range OSEPPolicies {
			model := ""
			if pol != "osep" {
				model = pol
			}
			for _, ckpt := range []int{0, OSEPCheckpoint} {
				vs = append(vs, Variant{
					Name: OSEPVariantName(pol, ckpt), Policy: pol, Base: "osep", Model: model,
					Options: map[string]string{"checkpoint": strconv.Itoa(ckpt)},
				})
			}
		}
		// The heterogeneous OSEP's guard as the thesis prints it, beside
		// the default reading (docs/policies.md), without checkpoints.
		vs = append(vs, Variant{
			Name: OSEPAsPrintedVariant, Policy: "osep-hetero", Base: "osep", Model: "osep-hetero",
			Options: map[string]string{"checkpoint": "0", "guard": "as-printed"},
		})
		return Plan{
			Name: name, Kind: name, Title: "Heterogeneous OSEP vs original OSEP (thesis chapter 5, Figures 7-18)",
			Platform: "osep",
			Workload: WorkloadRecipe{Generator: "osep", LateBy: OSEPLateBy},
			Cases:    cases, Variants: vs, Seeds: SeedRange(OSEPSeeds),
			Description: "The original OSEP and the heterogeneous OSEP, each without checkpointing and with checkpoints every " +
				fmt.Sprintf("%d s of execution (and the heterogeneous OSEP with its preemption guard as printed), on the OSEP grid (12 hosts owned by 4 users, 45.76/27.88/16.06/10.29 %% of the power). ", OSEPCheckpoint) +
				"Each user submits 10 sequential jobs; the late user (user1 or user4) submits " + fmt.Sprintf("%g s", OSEPLateBy) +
				" after the others; small, medium and large demand. Preempted jobs are killed and their remaining work resubmitted.",
		}, nil
	}
	if name == SGEPlan {
		return sgePlan(), nil
	}
	if name == GangPlan {
		return gangPlan(), nil
	}
	if name == BotPlan {
		return botPlan(), nil
	}
	if IsSensitivity(name) {
		return sensitivityPlan(name)
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

// With returns the plan with the overrides applied and checked. Loads are
// refused for a plan with workload cases, Jobs for a generator of fixed
// size: they would not change anything.
func (p Plan) With(o Overrides) (Plan, error) {
	if o.Quick {
		seeds, jobs := p.QuickSizes()
		if jobs > 0 {
			p.Workload.Jobs = jobs
		}
		p.Seeds = SeedRange(seeds)
	}
	if o.Seeds < 0 {
		return p, fmt.Errorf("--seeds must be at least 1 (got %d)", o.Seeds)
	}
	if o.Seeds > 0 {
		p.Seeds = SeedRange(o.Seeds)
	}
	if o.Jobs != 0 {
		if err := p.Applies("jobs"); err != nil {
			return p, err
		}
	}
	if o.Jobs < 0 {
		return p, fmt.Errorf("--jobs must be at least 1 (got %d)", o.Jobs)
	}
	if o.Jobs > 0 {
		p.Workload.Jobs = o.Jobs
	}
	if len(o.Loads) > 0 {
		if err := p.Applies("loads"); err != nil {
			return p, err
		}
	}
	if len(o.Loads) > 0 {
		p.Loads = append([]float64(nil), o.Loads...)
	}
	return p, p.Check()
}

// Applies says whether a size override applies to the plan: "jobs" does
// not for a generator of fixed size, "loads" does not for a plan with
// workload cases; the error says why.
func (p Plan) Applies(override string) error {
	switch {
	case override == "jobs" && p.FixedJobs():
		return fmt.Errorf("--jobs does not apply to plan %s: its %s workload has a fixed number of jobs", p.Name, p.Workload.Generator)
	case override == "loads" && p.Workload.Generator == "file":
		return fmt.Errorf("--loads does not apply to plan %s: its workload file %s keeps its own load", p.Name, p.Workload.File)
	case override == "loads" && len(p.Cases) > 0:
		return fmt.Errorf("--loads does not apply to plan %s: its workloads are the cases %s, not load levels", p.Name, caseNames(p.Cases))
	}
	return nil
}

// QuickSizes are the number of seeds and of jobs --quick gives the plan
// (jobs 0: the generator's size is fixed).
func (p Plan) QuickSizes() (seeds, jobs int) {
	switch {
	case p.Workload.Generator == "osep":
		return OSEPQuickSeeds, 0
	case p.Workload.Generator == "sge":
		return 1, 0
	case p.Workload.Generator == "bot":
		return BotQuickSeeds, 0
	case p.FixedJobs():
		return QuickSeeds, 0
	}
	return QuickSeeds, QuickJobs
}

// FixedJobs reports whether the plan's workload generator has a fixed
// number of jobs (the OSEP demands: 4 users × 10 jobs; the SGE scenarios;
// the bags of tasks; a workload file).
func (p Plan) FixedJobs() bool {
	return p.Workload.Generator == "osep" || p.Workload.Generator == "sge" || p.Workload.Generator == "bot" || p.Workload.Generator == "file"
}

// WithFile returns the plan with its workload generator replaced by a
// workload file (a real trace): the plan's steps are applied to it for each
// seed, the load is the file's own, and platform (if not empty) replaces
// the plan's. The file's checksum is recorded, so that a campaign notices
// a changed file.
func (p Plan) WithFile(path, platform string) (Plan, error) {
	if p.Workload.Generator != "lille" {
		return p, fmt.Errorf("--workload: plan %s: its %s workload cannot be replaced by a file", p.Name, p.Workload.Generator)
	}
	if len(p.Cases) > 0 {
		return p, fmt.Errorf("--workload: plan %s: its workload cases vary the generator's parameters, which a workload file does not have", p.Name)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return p, err
	}
	sum, err := FileSHA256(abs)
	if err != nil {
		return p, fmt.Errorf("--workload: %w", err)
	}
	p.Workload = WorkloadRecipe{Generator: "file", File: abs, FileSHA256: sum, Steps: p.Workload.Steps}
	p.Loads = []float64{0}
	if platform != "" {
		p.Platform = platform
	}
	p.Description += fmt.Sprintf(" Here the workload is the file %s (its own load) instead of the synthetic trace.", abs)
	return p, p.Check()
}

func caseNames(cs []WorkloadCase) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// Case returns the workload case of that name.
func (p Plan) Case(name string) (WorkloadCase, bool) {
	for _, c := range p.Cases {
		if c.Name == name {
			return c, true
		}
	}
	return WorkloadCase{}, false
}

// Recipe is the workload recipe of a case: the plan's, with the case's
// non-empty parameters in place of the recipe's. An unknown or empty case
// name gives the plan's recipe.
func (p Plan) Recipe(caseName string) WorkloadRecipe {
	r := p.Workload
	r.Steps = append([]string(nil), r.Steps...)
	if c, ok := p.Case(caseName); ok {
		if c.Demand != "" {
			r.Demand = c.Demand
		}
		if c.Late != "" {
			r.Late = c.Late
		}
		if c.App != "" {
			r.App = c.App
		}
		if c.Tasks != 0 {
			r.Tasks = c.Tasks
		}
		if c.Load != 0 {
			r.Load = c.Load
		}
		if c.RuntimeScale != 0 {
			r.RuntimeScale = c.RuntimeScale
		}
		if c.OneNodeShare != 0 {
			r.OneNodeShare = c.OneNodeShare
		}
		if c.UserMix != "" {
			r.UserMix = c.UserMix
		}
		if c.Bursts != 0 {
			r.Bursts = c.Bursts
		}
		if c.Bots != "" {
			r.Bots = c.Bots
		}
		if c.BotArrivals != "" {
			r.BotArrivals = c.BotArrivals
		}
		if c.Background != 0 {
			r.Background = c.Background
		}
	}
	return r
}

// PlatformOf is the platform of a case's runs: the case's, else the plan's.
func (p Plan) PlatformOf(caseName string) string {
	if c, ok := p.Case(caseName); ok && c.Platform != "" {
		return c.Platform
	}
	return p.Platform
}

// PlatformFileOf is the file, in the campaign directory, of the platform of
// a case's runs: PlatformFile for the plan's platform, else
// "platform-<name>.xml".
func (p Plan) PlatformFileOf(caseName string) string {
	pl := p.PlatformOf(caseName)
	if pl == p.Platform {
		return PlatformFile
	}
	base := strings.TrimSuffix(filepath.Base(pl), ".xml")
	safe := []rune(base)
	for i, r := range safe {
		if !fileNameRune(r) {
			safe[i] = '-'
		}
	}
	return "platform-" + string(safe) + ".xml"
}

// PlatformFiles lists the distinct platforms of the plan's runs: file in the
// campaign directory → platform name or path (the plan's first).
func (p Plan) PlatformFiles() []struct{ File, Platform string } {
	out := []struct{ File, Platform string }{{PlatformFile, p.Platform}}
	seen := map[string]string{PlatformFile: p.Platform}
	for _, c := range p.Cases {
		f := p.PlatformFileOf(c.Name)
		if _, ok := seen[f]; ok {
			continue
		}
		seen[f] = p.PlatformOf(c.Name)
		out = append(out, struct{ File, Platform string }{f, p.PlatformOf(c.Name)})
	}
	return out
}

// MaxRuns bounds the runs of a plan (variants × seeds × loads, or
// variants × cases × seeds).
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
	if p.Workload.LateBy < 0 || math.IsNaN(p.Workload.LateBy) || math.IsInf(p.Workload.LateBy, 0) {
		return fmt.Errorf("plan %s: late_by %g: must be a number of seconds ≥ 0", p.Name, p.Workload.LateBy)
	}
	if len(p.Cases) > 0 {
		if err := p.checkCases(); err != nil {
			return err
		}
	} else {
		if len(p.Loads) == 0 {
			return fmt.Errorf("plan %s: no load level", p.Name)
		}
		if n := len(p.Variants) * len(p.Seeds) * len(p.Loads); len(p.Seeds) > MaxRuns || len(p.Loads) > MaxRuns || n > MaxRuns {
			return fmt.Errorf("plan %s: %d variants × %d seeds × %d load levels: more than %d runs", p.Name, len(p.Variants), len(p.Seeds), len(p.Loads), MaxRuns)
		}
	}
	if p.Workload.Jobs < 0 {
		return fmt.Errorf("plan %s: %d jobs: must be at least 0 (the generator's default)", p.Name, p.Workload.Jobs)
	}
	if g := p.Workload.Generator; g != "" && !slices.Contains(Generators, g) {
		return fmt.Errorf("plan %s: unknown workload generator %q (valid: %s)", p.Name, g, strings.Join(Generators, ", "))
	}
	if err := checkShape(p.Workload); err != nil {
		return fmt.Errorf("plan %s: %w", p.Name, err)
	}
	if p.FixedJobs() && p.Workload.Jobs != 0 {
		return fmt.Errorf("plan %s: %d jobs: the %s generator has a fixed number of jobs (give 0)", p.Name, p.Workload.Jobs, p.Workload.Generator)
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
	if p.Workload.Generator == "file" && len(p.Cases) == 0 && (len(p.Loads) != 1 || p.Loads[0] != 0) {
		return fmt.Errorf("plan %s: load levels %s: a workload file keeps its own load (give the single level 0)", p.Name, loadList(p.Loads))
	}
	loads := map[string]bool{}
	for _, l := range p.Loads {
		if l == 0 && p.Workload.Generator == "file" {
			continue
		}
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

// checkCases validates the workload cases of a plan: runs and workloads are
// named after the case, so each name is file-name safe and appears once;
// every case's recipe is one the generator accepts.
func (p Plan) checkCases() error {
	if len(p.Loads) > 0 {
		return fmt.Errorf("plan %s: load levels (%s) do not apply to a plan with workload cases", p.Name, loadList(p.Loads))
	}
	if n := len(p.Variants) * len(p.Cases) * len(p.Seeds); len(p.Seeds) > MaxRuns || len(p.Cases) > MaxRuns || n > MaxRuns {
		return fmt.Errorf("plan %s: %d variants × %d cases × %d seeds: more than %d runs", p.Name, len(p.Variants), len(p.Cases), len(p.Seeds), MaxRuns)
	}
	seen := map[string]bool{}
	platformOf := map[string]string{PlatformFile: p.Platform}
	for _, c := range p.Cases {
		if !fileNameSafe(c.Name) {
			return fmt.Errorf("plan %s: case name %q: must be non-empty, of letters, digits, '-' and '.' only", p.Name, c.Name)
		}
		if seen[c.Name] {
			return fmt.Errorf("plan %s: case %s given twice", p.Name, c.Name)
		}
		seen[c.Name] = true
		if f := p.PlatformFileOf(c.Name); platformOf[f] != "" && platformOf[f] != p.PlatformOf(c.Name) {
			return fmt.Errorf("plan %s, case %s: platforms %s and %s would share the file %s: rename one", p.Name, c.Name, platformOf[f], p.PlatformOf(c.Name), f)
		} else {
			platformOf[f] = p.PlatformOf(c.Name)
		}
		if err := checkRecipe(p.Recipe(c.Name)); err != nil {
			return fmt.Errorf("plan %s, case %s: %w", p.Name, c.Name, err)
		}
	}
	return nil
}

// fileNameRune: the letters, digits, '-' and '.' of names made into files.
func fileNameRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.'
}

// fileNameSafe: letters, digits, '-' and '.', not starting with '.'.
func fileNameSafe(s string) bool {
	if s == "" || s[0] == '.' {
		return false
	}
	for _, r := range s {
		if !fileNameRune(r) {
			return false
		}
	}
	return true
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

// CaseWorkloadKey names the workload of a (case, seed) pair.
func CaseWorkloadKey(caseName string, seed uint64) string {
	return fmt.Sprintf("%s_s%03d", caseName, seed)
}

// Expand lists the runs of the plan: for each load, each seed, each variant;
// with workload cases, for each case, each seed, each variant.
func (p Plan) Expand() []Run {
	var runs []Run
	if len(p.Cases) > 0 {
		for _, c := range p.Cases {
			for _, s := range p.Seeds {
				key := CaseWorkloadKey(c.Name, s)
				for _, v := range p.Variants {
					runs = append(runs, Run{ID: v.Name + "_" + key, Variant: v, Case: c.Name, Seed: s, Workload: key})
				}
			}
		}
		return runs
	}
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

// DefaultOwnerProperty is the host property naming each host's owner.
const DefaultOwnerProperty = "owner"

// OwnerProperty is the host property naming the hosts' owners that the
// plan's variants use (their "owner" option), DefaultOwnerProperty unless
// they say otherwise.
func (p Plan) OwnerProperty() string {
	for _, v := range p.Variants {
		if o := v.Options["owner"]; o != "" {
			return o
		}
	}
	return DefaultOwnerProperty
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
