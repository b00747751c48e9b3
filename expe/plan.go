package expe

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/bucma-sched/bucma/workloads"
	"github.com/bucma-sched/bucma/workloads/gen"
	json "github.com/goccy/go-json"
)

// Variant is one scheduler configuration of a plan.
type Variant struct {
	Name    string            `json:"name"`    // unique in the plan, file-name safe
	Policy  string            `json:"policy"`  // registry name
	Options map[string]string `json:"options"` // policy options (CLI key=value form)
	// Base is the base policy the variant is compared with ("fcfs", ...);
	// Model is "" for a base policy alone, else the model applied to Base
	// ("bucma5302", "wtrust", ...). Studies read them; the comparison
	// report does not.
	Base  string `json:"base"`
	Model string `json:"model,omitempty"`
}

// WorkloadCase is one setting of the workload: a plan with cases runs every
// variant on the workload of every (case, seed) pair, or (case, load, seed)
// when it also has load levels. Its fields replace the recipe's: the
// generator's parameters, or a whole recipe ("generator", "jobs", "steps"
// and its parameters); besides, "platform" (its platform, bundled name or
// file), "workload" (the name of the workload it was made from, in a plan
// file's list of workloads), "factor" and "level" (the factor the case
// varies and to what: "load", "0.5"), for the reports.
type WorkloadCase struct {
	Name   string // unique in the plan, file-name safe
	Title  string // how reports name it ("user1 late, large demand")
	Fields gen.Fields
}

// Case keys that are not part of the recipe.
const (
	casePlatform = "platform"
	CaseWorkload = "workload"
	caseFactor   = "factor"
	caseLevel    = "level"
)

// Platform is the case's platform ("": the plan's).
func (c WorkloadCase) Platform() string { return c.Fields.String(casePlatform) }

// Factor is the factor the case varies ("" when none is said).
func (c WorkloadCase) Factor() string { return c.Fields.String(caseFactor) }

// Level is the level of the case's factor.
func (c WorkloadCase) Level() string { return c.Fields.String(caseLevel) }

// Param is one of the case's generator parameters as text ("" when the
// case does not give it).
func (c WorkloadCase) Param(name string) string { return c.Fields.String(name) }

// MarshalJSON writes name and title, then the fields in their order.
func (c WorkloadCase) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	n, _ := json.Marshal(c.Name)
	t, _ := json.Marshal(c.Title)
	fmt.Fprintf(&b, `{"name":%s,"title":%s`, n, t)
	if err := c.Fields.AppendJSON(&b); err != nil {
		return nil, err
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (c *WorkloadCase) UnmarshalJSON(data []byte) error {
	var out WorkloadCase
	f, err := gen.DecodeObject(data, map[string]any{"name": &out.Name, "title": &out.Title})
	if err != nil {
		return err
	}
	out.Fields = f
	*c = out
	return nil
}

// ReportSpec says what the comparison report shows (zero values: all of
// it, no Gantt chart).
type ReportSpec struct {
	// Metrics are the metrics of the tables and paired differences, among
	// ReportMetrics' names.
	Metrics []string `json:"metrics,omitempty"`
	// Breakdowns are "size" (by job size class) and "user" (nil: both;
	// empty: none).
	Breakdowns []string `json:"breakdowns"`
	// CDF are the metrics drawn as distributions: "waiting", "bsld" (nil:
	// both; empty: none).
	CDF []string `json:"cdf"`
	// Gantt draws one run per variant (the first seed of the first case
	// and load level).
	Gantt bool `json:"gantt,omitempty"`
}

// EngineSpec is a plan's engine: what "bucma expe run" uses unless its
// command line says otherwise.
type EngineSpec struct {
	Name   string `json:"name"`             // "embedded" or "batsim"
	Batsim string `json:"batsim,omitempty"` // Batsim executable (batsim: default "batsim" on PATH)
	Image  string `json:"image,omitempty"`  // a Batsim Docker image instead of an executable
	// BatsimFlags are added to Batsim's command line.
	BatsimFlags []string `json:"batsim_flags,omitempty"`
}

// QuickSpec are the sizes --quick gives a plan (zero: QuickSeeds seeds,
// QuickJobs jobs for a generator sized by the recipe).
type QuickSpec struct {
	Seeds int `json:"seeds,omitempty"`
	Jobs  int `json:"jobs,omitempty"`
}

// Plan is a declarative experiment: every variant runs on the workload of
// every (seed, load) pair, or of every (case, seed) pair when the plan has
// workload cases, (case, load, seed) when it has both.
type Plan struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"` // the study whose report the campaign gets ("": the comparison report)
	Title string `json:"title"`
	// Platform is a bundled platform's name or a platform file's path.
	Platform    string         `json:"platform"`
	Workload    gen.Recipe     `json:"workload"`
	Cases       []WorkloadCase `json:"cases,omitempty"`
	Variants    []Variant      `json:"variants"`
	Seeds       []uint64       `json:"seeds"`
	Loads       []float64      `json:"loads"`
	Description string         `json:"description"`
	// Baseline is the variant the comparison report's paired differences
	// are against ("": the first variant).
	Baseline string      `json:"baseline,omitempty"`
	Report   *ReportSpec `json:"report,omitempty"`
	Engine   *EngineSpec `json:"engine,omitempty"`
	// Quick is what --quick does (not recorded in plan.json: the sizes
	// used are).
	Quick QuickSpec `json:"-"`
	// Shake, when set, runs every variant on Copies shaken copies of each
	// workload instead of the workload itself (nil: no shaking, and
	// plan.json, runs and results as without the field).
	Shake *ShakeSpec `json:"shake,omitempty"`

	// caseAt indexes Cases by name (see Case); nil when not built.
	caseAt map[string]int
}

// Run is one simulation of a campaign.
type Run struct {
	ID      string  `json:"id"`
	Variant Variant `json:"variant"`
	Case    string  `json:"case,omitempty"` // workload case (plans with cases)
	Seed    uint64  `json:"seed"`
	Load    float64 `json:"load"` // load level (0: the plan has none)
	// Copy is the shaken copy of the workload the run is on, from 1 (0:
	// the plan does not shake its workloads).
	Copy     int    `json:"copy,omitempty"`
	Workload string `json:"workload"` // workload key (file workloads/<key>.json)
}

// Default campaign sizes.
const (
	DefaultSeeds     = 10
	DefaultLoad      = 0.85
	DefaultJobs      = 7056
	QuickJobs        = 1500
	QuickSeeds       = 3
	defaultFirstSeed = 1
)

// seedRange returns the seeds 1..n.
func seedRange(n int) []uint64 {
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
	Quick bool      // QuickSizes unless Seeds/Jobs say otherwise
}

// With returns the plan with the overrides applied and checked. Loads are
// refused for a plan without load levels, Jobs for generators of fixed
// size: they would not change anything.
func (p Plan) With(o Overrides) (Plan, error) {
	p = p.clone()
	if o.Quick {
		seeds, jobs := p.QuickSizes()
		if jobs > 0 {
			p.setJobs(jobs)
		}
		p.Seeds = seedRange(seeds)
	}
	if o.Seeds < 0 {
		return p, fmt.Errorf("--seeds must be at least 1 (got %d)", o.Seeds)
	}
	if o.Seeds > 0 {
		p.Seeds = seedRange(o.Seeds)
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
		p.setJobs(o.Jobs)
	}
	if len(o.Loads) > 0 {
		if err := p.Applies("loads"); err != nil {
			return p, err
		}
		p.Loads = append([]float64(nil), o.Loads...)
	}
	return p, p.Check()
}

// clone copies what With changes.
func (p Plan) clone() Plan {
	p.Workload = p.Workload.Clone()
	cs := make([]WorkloadCase, len(p.Cases))
	for i, c := range p.Cases {
		c.Fields = c.Fields.Clone()
		cs[i] = c
	}
	if p.Cases != nil {
		p.Cases = cs
	}
	p.Seeds = append([]uint64(nil), p.Seeds...)
	if p.Loads != nil {
		p.Loads = append([]float64(nil), p.Loads...)
	}
	p.indexCases()
	return p
}

// indexCases indexes the cases by name, so that looking one up (Case,
// Recipe, PlatformOf...) costs the same for 20 000 cases as for 2.
func (p *Plan) indexCases() {
	p.caseAt = make(map[string]int, len(p.Cases))
	for i, c := range p.Cases {
		if _, twice := p.caseAt[c.Name]; !twice {
			p.caseAt[c.Name] = i
		}
	}
}

// setJobs sizes every recipe of a generator sized by it.
func (p *Plan) setJobs(n int) {
	if sized(p.Workload.Generator) {
		p.Workload.Jobs = n
	}
	for i, c := range p.Cases {
		if g := c.Fields.String("generator"); g != "" && sized(g) {
			p.Cases[i].Fields.Set("jobs", float64(n))
		}
	}
}

// sized reports whether a generator's size is the recipe's jobs.
func sized(generator string) bool {
	g, ok := gen.Default().Generator(generator)
	return ok && g.Jobs > 0
}

// Applies says whether a size override applies to the plan: "jobs" does
// not for generators of fixed size, "loads" does not for a plan without
// load levels (its cases or its workload file give the load); the error
// says why.
func (p Plan) Applies(override string) error {
	switch {
	case override == "jobs" && p.FixedJobs():
		return fmt.Errorf("--jobs does not apply to plan %s: its %s workload has a fixed number of jobs", p.Name, p.Workload.Generator)
	case override == "loads" && !p.HasLoads() && p.Workload.Generator == "file" && len(p.Cases) == 0:
		return fmt.Errorf("--loads does not apply to plan %s: its workload file %s keeps its own load", p.Name, p.Workload.Fields.String("file"))
	case override == "loads" && !p.HasLoads() && len(p.Cases) > 0:
		return fmt.Errorf("--loads does not apply to plan %s: its workloads are the cases %s, not load levels", p.Name, caseNames(p.Cases))
	case override == "loads" && !p.HasLoads():
		return fmt.Errorf("--loads does not apply to plan %s: its workload takes no load", p.Name)
	}
	return nil
}

// HasLoads reports whether the plan has load levels (a plan of one
// workload file has the single level 0: the file's own load).
func (p Plan) HasLoads() bool {
	return len(p.Loads) > 0 && !(len(p.Loads) == 1 && p.Loads[0] == 0)
}

// QuickSizes are the number of seeds and of jobs --quick gives the plan
// (jobs 0: the generators' sizes are fixed).
func (p Plan) QuickSizes() (seeds, jobs int) {
	seeds, jobs = QuickSeeds, QuickJobs
	if p.Quick.Seeds > 0 {
		seeds = p.Quick.Seeds
	}
	if p.Quick.Jobs > 0 {
		jobs = p.Quick.Jobs
	}
	if p.FixedJobs() {
		jobs = 0
	}
	return seeds, jobs
}

// FixedJobs reports whether every workload generator of the plan has a
// fixed number of jobs (the OSEP demands, the SGE scenarios, the bags of
// tasks, a workload file...).
func (p Plan) FixedJobs() bool {
	if sized(p.Workload.Generator) {
		return false
	}
	for _, c := range p.Cases {
		if sized(c.Fields.String("generator")) {
			return false
		}
	}
	return true
}

// WithFile returns the plan with its synthetic workload replaced by a
// workload file (a real trace): a Batsim workload, or a trace in the
// Standard Workload Format when its name ends in .swf (converted as "bucma
// workload from-swf" does, one host per processor). With window > 0 each
// seed keeps window consecutive jobs of the file, from a first job drawn
// with the seed (the window step), else the whole file; the plan's steps
// are then applied to it for each seed, the load is the file's own, and
// platform (if not empty) replaces the plan's. The file's checksum is
// recorded, so that a campaign notices a changed file.
func (p Plan) WithFile(path, platform string, window int) (Plan, error) {
	if g := p.Workload.Generator; g != "lille" && g != "lublin" {
		return p, fmt.Errorf("--workload: plan %s: its %s workload cannot be replaced by a file", p.Name, g)
	}
	if len(p.Cases) > 0 {
		return p, fmt.Errorf("--workload: plan %s: its workload cases vary the generator's parameters, which a workload file does not have", p.Name)
	}
	if window < 0 {
		return p, fmt.Errorf("--jobs must be at least 1 (got %d)", window)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return p, err
	}
	sum, err := gen.FileSHA256(abs)
	if err != nil {
		return p, fmt.Errorf("--workload: %w", err)
	}
	generator, what := "file", "the file"
	if strings.EqualFold(filepath.Ext(abs), ".swf") {
		generator, what = "swf", "the SWF trace"
	}
	r := gen.Recipe{Generator: generator, Steps: p.Workload.Steps, Fields: gen.Fields{{Key: "file", Value: abs}, {Key: "file" + gen.ShaSuffix, Value: sum}}}
	if window > 0 {
		n, err := fileJobs(abs, generator)
		if err != nil {
			return p, fmt.Errorf("--workload: %w", err)
		}
		if window >= n {
			return p, fmt.Errorf("--jobs %d: %s holds %d jobs: a window of %d would give every seed the same workload (give fewer jobs, or leave --jobs out for the whole file)", window, abs, n, window)
		}
		r.Steps = append([]string{"window"}, r.Steps...)
		r.Fields.Set("window_jobs", float64(window))
		what = fmt.Sprintf("a window of %d consecutive jobs of %s, drawn with the seed,", window, what)
	}
	p.Workload = r
	p.Loads = []float64{0}
	if platform != "" {
		p.Platform = platform
	}
	p.Description += fmt.Sprintf(" Here the workload is %s %s (its own load) instead of the synthetic trace.", what, abs)
	return p, p.Check()
}

// fileJobs is the number of jobs of a workload file read by generator
// ("file" or "swf") with its default parameters.
func fileJobs(path, generator string) (int, error) {
	if generator == "swf" {
		v, err := gen.ValuesOf(gen.SWFParams, gen.Fields{{Key: "file", Value: path}})
		if err != nil {
			return 0, err
		}
		w, _, err := gen.ImportSWF(path, v)
		if err != nil {
			return 0, err
		}
		return len(w.Jobs), nil
	}
	w, err := workloads.Load(path)
	if err != nil {
		return 0, err
	}
	return len(w.Jobs), nil
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
	if i, ok := p.caseAt[name]; ok && i < len(p.Cases) && p.Cases[i].Name == name {
		return p.Cases[i], true
	}
	for _, c := range p.Cases {
		if c.Name == name {
			return c, true
		}
	}
	return WorkloadCase{}, false
}

// caseOnly are the keys of a case that are not part of its recipe.
var caseOnly = map[string]bool{casePlatform: true, CaseWorkload: true, caseFactor: true, caseLevel: true}

// Recipe is the workload recipe of a case: the plan's, with the case's
// fields in place of the recipe's (a case naming a generator starts from
// an empty recipe of that generator). An unknown or empty case name gives
// the plan's recipe.
func (p Plan) Recipe(caseName string) gen.Recipe {
	c, ok := p.Case(caseName)
	if !ok {
		return p.Workload.Clone()
	}
	return p.recipeOf(c)
}

// recipeOf is the workload recipe of case c (see Recipe).
func (p Plan) recipeOf(c WorkloadCase) gen.Recipe {
	r := p.Workload.Clone()
	if g := c.Fields.String("generator"); g != "" {
		r = gen.Recipe{Generator: g}
	}
	for _, f := range c.Fields {
		switch {
		case caseOnly[f.Key] || f.Key == "generator":
		case f.Key == "jobs":
			x, _ := f.Value.(float64)
			r.Jobs = int(x)
		case f.Key == "steps":
			s, _ := f.Value.([]string)
			r.Steps = append([]string(nil), s...)
		default:
			r.Fields.Set(f.Key, f.Value)
		}
	}
	return r
}

// PlatformOf is the platform of a case's runs: the case's, else the plan's.
func (p Plan) PlatformOf(caseName string) string {
	c, _ := p.Case(caseName)
	return p.platformOfCase(c)
}

// platformOfCase is the platform of case c's runs (see PlatformOf).
func (p Plan) platformOfCase(c WorkloadCase) string {
	if pl := c.Platform(); pl != "" {
		return pl
	}
	return p.Platform
}

// PlatformFileOf is the file, in the campaign directory, of the platform of
// a case's runs: PlatformFile for the plan's platform, else
// "platform-<name>.xml".
func (p Plan) PlatformFileOf(caseName string) string {
	return p.platformFile(p.PlatformOf(caseName))
}

// platformFile is the file, in the campaign directory, of platform pl (see
// PlatformFileOf).
func (p Plan) platformFile(pl string) string {
	if pl == p.Platform {
		return PlatformFile
	}
	return "platform-" + PlatformName(pl) + ".xml"
}

// PlatformFiles lists the distinct platforms of the plan's runs: file in the
// campaign directory → platform name or path (the plan's first).
func (p Plan) PlatformFiles() []struct{ File, Platform string } {
	out := []struct{ File, Platform string }{{PlatformFile, p.Platform}}
	seen := map[string]string{PlatformFile: p.Platform}
	for _, c := range p.Cases {
		pl := p.platformOfCase(c)
		f := p.platformFile(pl)
		if _, ok := seen[f]; ok {
			continue
		}
		seen[f] = pl
		out = append(out, struct{ File, Platform string }{f, pl})
	}
	return out
}

// MaxRuns bounds the runs of a plan (variants × seeds × loads, or
// variants × cases × seeds, × loads when it has both).
const MaxRuns = 100000

// runCount is the product of a plan's sizes (variants, cases, seeds,
// loads), computed without overflow: ok is false when it exceeds MaxRuns.
func runCount(sizes ...int) (n int64, ok bool) {
	n = 1
	for _, s := range sizes {
		if s < 0 || s > MaxRuns {
			return 0, false
		}
		// n ≤ MaxRuns and s ≤ MaxRuns: the product fits in 64 bits.
		if n *= int64(s); n > MaxRuns {
			return n, false
		}
	}
	return n, true
}

// ParsePlan reads a plan in its JSON form (a campaign's plan.json) and
// checks it.
func ParsePlan(data []byte) (Plan, error) {
	var p Plan
	if err := json.Unmarshal(data, &p); err != nil {
		return Plan{}, fmt.Errorf("not a plan: %w", err)
	}
	p.indexCases()
	if err := p.Check(); err != nil {
		return Plan{}, err
	}
	return p, nil
}

// Check validates a plan: its recipes against the generators' declarations
// (Generators), its load levels, seeds and variants, its size.
func (p Plan) Check() error {
	if !fileNameSafe(p.Name) {
		return fmt.Errorf("plan name %q: it names the campaign's folder and batch jobs: letters, digits, '-' and '.' only", p.Name)
	}
	if len(p.Variants) == 0 {
		return fmt.Errorf("plan %s: no variant", p.Name)
	}
	if len(p.Seeds) == 0 {
		return fmt.Errorf("plan %s: no seed", p.Name)
	}
	if p.Shake != nil {
		if err := p.Shake.check(); err != nil {
			return fmt.Errorf("plan %s: %w", p.Name, err)
		}
		if p.Kind != "" {
			return fmt.Errorf("plan %s: shake: the report of study %s does not read shaken copies (the comparison report does: leave study out)", p.Name, p.Kind)
		}
	}
	reg := gen.Default()
	if len(p.Cases) > 0 {
		if err := p.checkCases(); err != nil {
			return err
		}
	} else {
		if len(p.Loads) == 0 {
			return fmt.Errorf("plan %s: no load level", p.Name)
		}
		if _, ok := runCount(len(p.Variants), len(p.Seeds), len(p.Loads), len(p.Copies())); !ok {
			return fmt.Errorf("plan %s: %d variants × %d seeds × %d load levels%s: more than %d runs", p.Name, len(p.Variants), len(p.Seeds), len(p.Loads), p.copiesText(), MaxRuns)
		}
		if err := checkRecipe(reg, p.Workload); err != nil {
			return fmt.Errorf("plan %s: %w", p.Name, err)
		}
		if p.Workload.Generator != "" && !reg.TakesLoad(p.Workload) {
			if len(p.Loads) != 1 || p.Loads[0] != 0 {
				what := "its " + p.Workload.Generator + " workload takes no load"
				if p.Workload.Generator == "file" {
					what = "a workload file keeps its own load"
				}
				return fmt.Errorf("plan %s: load levels %s: %s (give the single level 0)", p.Name, LoadList(p.Loads), what)
			}
		} else if err := checkLoads(p.Name, p.Loads); err != nil {
			return err
		}
	}
	if len(p.Cases) > 0 {
		if err := checkLoads(p.Name, p.Loads); err != nil {
			return err
		}
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
	seen := map[string]bool{}
	for _, v := range p.Variants {
		if !variantNameOK(v.Name) {
			return fmt.Errorf("plan %s: variant name %q: %s", p.Name, v.Name, variantNameRule)
		}
		if seen[v.Name] {
			return fmt.Errorf("plan %s: variant %s given twice", p.Name, v.Name)
		}
		seen[v.Name] = true
	}
	if p.Baseline != "" && !seen[p.Baseline] {
		return fmt.Errorf("plan %s: baseline %q is not one of its variants", p.Name, p.Baseline)
	}
	if p.Report != nil {
		if err := p.Report.check(); err != nil {
			return fmt.Errorf("plan %s: %w", p.Name, err)
		}
	}
	return nil
}

// checkLoads checks load levels: each > 0, at most 100, given once.
func checkLoads(plan string, loads []float64) error {
	seen := map[string]bool{}
	for _, l := range loads {
		if !(l > 0) || l > 100 {
			return fmt.Errorf("plan %s: load %g: must be > 0 and at most 100", plan, l)
		}
		if seen[FormatLoad(l)] {
			return fmt.Errorf("plan %s: load %s given twice", plan, FormatLoad(l))
		}
		seen[FormatLoad(l)] = true
	}
	return nil
}

// checkRecipe checks a recipe; one without a generator (a campaign with
// its own WorkloadMaker) only for its size.
func checkRecipe(reg *gen.Registry, r gen.Recipe) error {
	if r.Generator == "" {
		return gen.CheckJobs(r.Jobs)
	}
	return reg.CheckRecipe(r)
}

// checkCases validates the workload cases of a plan: runs and workloads are
// named after the case, so each name is file-name safe and appears once;
// every case's recipe is one its generator accepts, and takes a load when
// the plan has load levels.
func (p Plan) checkCases() error {
	if _, ok := runCount(len(p.Variants), len(p.Cases), len(p.Seeds), max(len(p.Loads), 1), len(p.Copies())); !ok {
		if len(p.Loads) > 0 {
			return fmt.Errorf("plan %s: %d variants × %d cases × %d load levels × %d seeds%s: more than %d runs", p.Name, len(p.Variants), len(p.Cases), len(p.Loads), len(p.Seeds), p.copiesText(), MaxRuns)
		}
		return fmt.Errorf("plan %s: %d variants × %d cases × %d seeds%s: more than %d runs", p.Name, len(p.Variants), len(p.Cases), len(p.Seeds), p.copiesText(), MaxRuns)
	}
	reg := gen.Default()
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
		pl := p.platformOfCase(c)
		if f := p.platformFile(pl); platformOf[f] != "" && platformOf[f] != pl {
			return fmt.Errorf("plan %s, case %s: platforms %s and %s would share the file %s: rename one", p.Name, c.Name, platformOf[f], pl, f)
		} else {
			platformOf[f] = pl
		}
		r := p.recipeOf(c)
		if err := checkRecipe(reg, r); err != nil {
			return fmt.Errorf("plan %s, case %s: %w", p.Name, c.Name, err)
		}
		if len(p.Loads) > 0 && r.Generator != "" && !reg.TakesLoad(r) {
			return fmt.Errorf("plan %s: load levels (%s) do not apply to case %s: its %s workload takes no load", p.Name, LoadList(p.Loads), c.Name, r.Generator)
		}
	}
	return nil
}

// variantNameRule is what variantNameOK checks.
const variantNameRule = "must be non-empty, without '/', '\\', '_', blanks or control characters, and not start with '.'"

// variantNameOK checks a variant's name: it begins the names of its runs
// (files, lines of a submission's runs.txt).
func variantNameOK(name string) bool {
	return name != "" && name[0] != '.' && !strings.ContainsAny(name, `/\_`) &&
		strings.IndexFunc(name, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) < 0
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
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
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

// KeyOf names the workload of a run: WorkloadKey without cases,
// CaseWorkloadKey with cases, followed by "_l<load>" with cases and load
// levels.
func (p Plan) KeyOf(caseName string, seed uint64, load float64) string {
	if len(p.Cases) == 0 {
		return WorkloadKey(seed, load)
	}
	k := CaseWorkloadKey(caseName, seed)
	if len(p.Loads) > 0 {
		k += "_l" + FormatLoad(load)
	}
	return k
}

// Condition is one workload setting of a plan: a case (or none) and a load
// level (0: none).
type Condition struct {
	Case string
	Load float64
}

// Conditions lists the plan's (case, load) pairs in the order of its runs.
func (p Plan) Conditions() []Condition {
	var out []Condition
	if len(p.Cases) == 0 {
		for _, l := range p.Loads {
			out = append(out, Condition{Load: l})
		}
		return out
	}
	for _, c := range p.Cases {
		if len(p.Loads) == 0 {
			out = append(out, Condition{Case: c.Name})
		}
		for _, l := range p.Loads {
			out = append(out, Condition{Case: c.Name, Load: l})
		}
	}
	return out
}

// Expand lists the runs of the plan, in a fixed order: for each load, each
// seed, each variant; with workload cases, for each case (then each load,
// with load levels), each seed, each variant. A plan that shakes its
// workloads runs every variant on each copy of a seed's workload (for each
// seed, each copy, each variant). Runs are independent: each
// writes only its own directory, so any subset of them may run apart.
func (p Plan) Expand() []Run {
	var runs []Run
	for _, c := range p.Conditions() {
		for _, s := range p.Seeds {
			base := p.KeyOf(c.Case, s, c.Load)
			for _, cp := range p.Copies() {
				key := base
				if cp > 0 {
					key = ShakenKey(base, cp)
				}
				for _, v := range p.Variants {
					runs = append(runs, Run{ID: v.Name + "_" + key, Variant: v, Case: c.Case, Seed: s, Load: c.Load, Copy: cp, Workload: key})
				}
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

// LoadList prints load levels ("the trace's own" for 0).
func LoadList(l []float64) string {
	parts := make([]string, len(l))
	for i, v := range l {
		parts[i] = FormatLoad(v)
		if v == 0 {
			parts[i] = "the trace's own"
		}
	}
	return strings.Join(parts, ", ")
}
