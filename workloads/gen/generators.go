package gen

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/bucma-sched/bucma/workloads"
)

// Input is what a generator or step gets to make one workload: its
// parameters (checked, defaults filled) and the campaign's side of the
// recipe: seed, load, the platform's hosts.
type Input struct {
	Values Values
	// Jobs is the number of jobs of a generator sized by the recipe (0:
	// the generator's default).
	Jobs int
	Seed uint64
	// Load is the offered load: the run's load level, else the recipe's
	// "load" (0: none given).
	Load float64
	// Hosts and HostSpeeds are the platform's compute hosts (0 and nil
	// when "bucma workload" runs without a platform: the generator's
	// defaults).
	Hosts      int
	HostSpeeds []float64
	// PlatformName is what generators that record their platform write in
	// the workload's meta ("": their default).
	PlatformName string
}

// Generator is a workload generator a plan names in its recipe
// ("generator: lille"). Its parameters are declared once, in Params: plan
// files are checked against them and "bucma workload NAME" makes its flags
// from them.
type Generator struct {
	Name   string
	Usage  string
	Params []Param
	// Jobs is the default size of a generator sized by the recipe's
	// "jobs" (and by --jobs, --quick); 0 for a generator of fixed size.
	Jobs int
	// Load says the generator takes an offered load (Input.Load): the
	// plan's load levels, or the recipe's "load".
	Load bool
	// Seeded says the generator draws with the seed (Input.Seed).
	Seeded bool
	// Computations says the jobs' profiles are computations, whose run
	// times depend on the hosts (not delays): a campaign cannot shake
	// their run times.
	Computations bool
	// Check checks the parameters together (optional), before any
	// workload is made.
	Check func(v Values) error
	Make  func(in Input) (*workloads.Workload, error)
}

// Step is a transformation a recipe applies to the generated workload, in
// the order of its "steps".
type Step struct {
	Name   string
	Usage  string
	Params []Param
	// Load says the step takes an offered load, as Generator.Load.
	Load  bool
	Apply func(w *workloads.Workload, in Input) (*workloads.Workload, error)
}

// Registry holds the generators and steps plans may name.
type Registry struct {
	mu    sync.RWMutex
	gens  map[string]Generator
	steps map[string]Step
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{gens: map[string]Generator{}, steps: map[string]Step{}}
}

// Register adds a generator; it panics on a name already taken or a
// declaration without Make (a programming error).
func (r *Registry) Register(g Generator) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if g.Name == "" || g.Make == nil {
		panic("gen: a generator needs a name and Make")
	}
	if _, dup := r.gens[g.Name]; dup {
		panic("gen: generator " + g.Name + " registered twice")
	}
	r.gens[g.Name] = g
}

// RegisterStep adds a step (same rules as Register).
func (r *Registry) RegisterStep(s Step) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s.Name == "" || s.Apply == nil {
		panic("gen: a step needs a name and Apply")
	}
	if _, dup := r.steps[s.Name]; dup {
		panic("gen: step " + s.Name + " registered twice")
	}
	r.steps[s.Name] = s
}

// Generator returns a generator by name.
func (r *Registry) Generator(name string) (Generator, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	g, ok := r.gens[name]
	return g, ok
}

// Step returns a step by name.
func (r *Registry) Step(name string) (Step, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	s, ok := r.steps[name]
	return s, ok
}

// Names lists the generators, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Sorted(maps.Keys(r.gens))
}

// StepNames lists the steps, sorted.
func (r *Registry) StepNames() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Sorted(maps.Keys(r.steps))
}

var generators = Builtin()

// Default is the registry campaigns use: the built-in generators and
// steps, and those a program adds (Register, before its campaigns run).
func Default() *Registry { return generators }

// LoadParam is the "load" key of a recipe or case: the offered load of a
// generator or step that takes one, when the plan has no load levels.
var LoadParam = Param{Name: "load", Type: Float, Usage: "offered load when the plan has no load levels", Check: Within(0, 100, true)}

// ShaSuffix names the key recording a Path parameter's checksum
// ("file_sha256").
const ShaSuffix = "_sha256"

// Params are the parameters a recipe may give: its generator's, its
// steps', "load" when one of them takes a load, and NAME_sha256 for each
// Path parameter.
func (r *Registry) Params(rec Recipe) ([]Param, error) {
	g, ok := r.Generator(rec.Generator)
	if !ok {
		return nil, fmt.Errorf("unknown workload generator %q (valid: %s)", rec.Generator, strings.Join(r.Names(), ", "))
	}
	var ps []Param
	seen := map[string]ParamType{}
	add := func(owner string, list []Param) error {
		for _, p := range list {
			if t, dup := seen[p.Name]; dup {
				if t != p.Type {
					return fmt.Errorf("%s: parameter %s is declared %s elsewhere in the recipe", owner, p.Name, t)
				}
				continue
			}
			seen[p.Name] = p.Type
			ps = append(ps, p)
			if p.Type == Path {
				ps = append(ps, Param{Name: p.Name + ShaSuffix, Type: String, Usage: "SHA-256 of " + p.Name + " (recorded when the campaign starts)"})
				seen[p.Name+ShaSuffix] = String
			}
		}
		return nil
	}
	if err := add("generator "+g.Name, g.Params); err != nil {
		return nil, err
	}
	load := g.Load
	for _, name := range rec.Steps {
		s, ok := r.Step(name)
		if !ok {
			return nil, fmt.Errorf("unknown workload step %q (valid: %s)", name, strings.Join(r.StepNames(), ", "))
		}
		if err := add("step "+s.Name, s.Params); err != nil {
			return nil, err
		}
		load = load || s.Load
	}
	if load {
		if _, dup := seen[LoadParam.Name]; !dup {
			ps = append(ps, LoadParam)
		}
	}
	return ps, nil
}

// TakesLoad reports whether a recipe's generator or one of its steps takes
// an offered load.
func (r *Registry) TakesLoad(rec Recipe) bool {
	if g, ok := r.Generator(rec.Generator); ok && g.Load {
		return true
	}
	for _, name := range rec.Steps {
		if s, ok := r.Step(name); ok && s.Load {
			return true
		}
	}
	return false
}

// CheckRecipe checks a recipe against the declarations: known generator
// and steps, every field a parameter of one of them with a valid value, a
// size only for a generator sized by it, and the generator's own check.
func (r *Registry) CheckRecipe(rec Recipe) error {
	ps, err := r.Params(rec)
	if err != nil {
		return err
	}
	for _, f := range rec.Fields {
		i := slices.IndexFunc(ps, func(p Param) bool { return p.Name == f.Key })
		if i < 0 {
			return fmt.Errorf("unknown parameter %q of %s (valid: %s)", f.Key, rec.What(), strings.Join(ParamNames(ps), ", "))
		}
		if _, err := ps[i].Canon(f.Value); err != nil {
			return err
		}
	}
	g, _ := r.Generator(rec.Generator)
	if err := CheckJobs(rec.Jobs); err != nil {
		return err
	}
	if g.Jobs == 0 && rec.Jobs != 0 {
		return fmt.Errorf("%d jobs: the %s generator has a fixed number of jobs (give 0)", rec.Jobs, g.Name)
	}
	v, err := ValuesOf(g.Params, rec.Fields)
	if err != nil {
		return err
	}
	for _, name := range rec.Steps {
		s, _ := r.Step(name)
		if _, err := ValuesOf(s.Params, rec.Fields); err != nil {
			return fmt.Errorf("step %s: %w", name, err)
		}
	}
	if g.Check != nil {
		return g.Check(v)
	}
	return nil
}

// What names the recipe in messages ("generator lille with steps precise").
func (rec Recipe) What() string {
	s := "generator " + rec.Generator
	if len(rec.Steps) > 0 {
		s += " with steps " + strings.Join(rec.Steps, ", ")
	}
	return s
}

// MaxJobs bounds the jobs of a generator sized by the recipe ("jobs",
// --jobs): a workload is made whole in memory (lille, gang: about 0.5 KB
// a job held, 1.3 to 1.6 KB allocated while it is made).
const MaxJobs = 1000000

// CheckJobs checks a recipe's jobs: 0 (the generator's default) to MaxJobs.
func CheckJobs(n int) error {
	switch {
	case n < 0:
		return fmt.Errorf("%d jobs: must be at least 0 (the generator's default)", n)
	case n > MaxJobs:
		return fmt.Errorf("%d jobs: at most %d", n, MaxJobs)
	}
	return nil
}

// Make makes the workload of a recipe for one seed and load on a platform
// of the given hosts: the generator, then each step, all with the seed.
// Files the recipe names are checked against their recorded checksums
// first.
func (r *Registry) Make(rec Recipe, seed uint64, load float64, speeds []float64) (*workloads.Workload, error) {
	g, ok := r.Generator(rec.Generator)
	if !ok {
		return nil, fmt.Errorf("unknown workload generator %q (valid: %s)", rec.Generator, strings.Join(r.Names(), ", "))
	}
	if err := r.CheckFiles(rec); err != nil {
		return nil, err
	}
	if load == 0 {
		load = rec.Fields.Float(LoadParam.Name)
	}
	in := Input{Jobs: rec.Jobs, Seed: seed, Load: load, Hosts: len(speeds), HostSpeeds: speeds}
	var err error
	if in.Values, err = ValuesOf(g.Params, rec.Fields); err != nil {
		return nil, err
	}
	w, err := g.Make(in)
	if err != nil {
		return nil, err
	}
	for _, name := range rec.Steps {
		s, ok := r.Step(name)
		if !ok {
			return nil, fmt.Errorf("unknown workload step %q (valid: %s)", name, strings.Join(r.StepNames(), ", "))
		}
		if in.Values, err = ValuesOf(s.Params, rec.Fields); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if w, err = s.Apply(w, in); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return w, nil
}

// CheckFiles refuses a recipe whose files changed since their checksums
// were recorded (a campaign begun on another version of a trace).
func (r *Registry) CheckFiles(rec Recipe) error {
	ps, err := r.Params(rec)
	if err != nil {
		return err
	}
	for _, p := range ps {
		if p.Type != Path {
			continue
		}
		path := rec.Fields.String(p.Name)
		if path == "" {
			if p.Required {
				return fmt.Errorf("the %s generator needs a %s", rec.Generator, p.Name)
			}
			continue
		}
		sum, err := FileSHA256(path)
		if err != nil {
			return fmt.Errorf("%s: %w", p.Name, err)
		}
		if want := rec.Fields.String(p.Name + ShaSuffix); want != "" && sum != want {
			return fmt.Errorf("workload %s %s changed since the campaign began (sha256 %s, recorded %s): use another --out directory", p.Name, path, sum, want)
		}
	}
	return nil
}

// Builtin returns a registry with bucma's generators (lille,
// osep, sge, gang, lublin, file, swf) and steps (bucma-insert, precise,
// scale-load, window).
func Builtin() *Registry {
	r := NewRegistry()
	r.Register(Generator{
		Name:  "lille",
		Usage: "a synthetic stand-in for the Lille 2020 Grid'5000 trace (workloads/README.md)",
		Jobs:  workloads.DefaultLilleJobs, Load: true, Seeded: true, Computations: true,
		Params: []Param{
			{Name: "ref_speed", Type: Float, Default: 0.0, Check: AtLeast(0), Usage: "reference host speed (flop/s): cpu = run time × ref-speed (0: the platform's slowest host, 5.632e11 on lille)"},
			{Name: "at_once", Type: Bool, Default: false, Usage: "submit every job at time 0 (the same jobs otherwise)"},
			{Name: "runtime_scale", Type: Float, Default: 1.0, Check: Above(0), Usage: "multiply every run time (and so the walltimes drawn from them)"},
			{Name: "one_node_share", Type: Float, Default: 0.55, Check: Within(0, 1, true), Usage: "probability of a one-node request (the wider sizes share the rest in their proportions)"},
			{Name: "user_mix", Type: String, Default: "6/10/24", Usage: "precise/medium/imprecise users (40 in all)",
				Check: func(v any) error { _, err := workloads.ParseUserMix(v.(string)); return err }},
		},
		Make: func(in Input) (*workloads.Workload, error) {
			mix, err := workloads.ParseUserMix(in.Values.String("user_mix"))
			if err != nil {
				return nil, err
			}
			o := workloads.LilleOptions{
				Jobs: in.Jobs, Seed: in.Seed, Load: in.Load, HostSpeeds: in.HostSpeeds, RefSpeed: in.Values.Float("ref_speed"),
				Platform: in.PlatformName, AtOnce: in.Values.Bool("at_once"), RuntimeScale: in.Values.Float("runtime_scale"),
				OneNodeShare: in.Values.Float("one_node_share"), UserMix: mix,
			}
			if o.RefSpeed == 0 && len(in.HostSpeeds) > 0 {
				o.RefSpeed = workloads.SlowestSpeed(in.HostSpeeds)
			}
			return workloads.GenerateLille(o)
		},
	})
	r.Register(Generator{
		Name:   "osep",
		Usage:  "an OSEP demand: 4 users × 10 sequential tasks, one user late",
		Seeded: true, Computations: true,
		Params: []Param{
			{Name: "demand", Type: String, Default: "medium", Choices: []string{"small", "medium", "large"}, Usage: "small, medium or large"},
			{Name: "late", Type: String, Default: "user1", Choices: []string{"user1", "user4"}, Usage: "the user who submits late: user1 or user4"},
			{Name: "late_by", Type: Float, Default: 360.0, Check: AtLeast(0), Usage: "submission time of the late user (seconds)"},
		},
		Make: func(in Input) (*workloads.Workload, error) {
			return workloads.GenerateOSEP(workloads.OSEPOptions{Demand: in.Values.String("demand"), Late: in.Values.String("late"),
				LateBy: in.Values.Float("late_by"), Seed: in.Seed, NbRes: in.Hosts})
		},
	})
	r.Register(Generator{
		Name:         "sge",
		Usage:        "an SGE load-balancing scenario: n identical sequential tasks at t=0 (pi50 on sge-pi50.xml, pi80 and sw on sge.xml)",
		Computations: true,
		Params: []Param{
			{Name: "app", Type: String, Default: "pi80", Choices: sgeAppNames(), Usage: "pi50, pi80 or sw"},
			{Name: "tasks", Type: Int, Default: 13, Check: AtLeast(1), Usage: "number of tasks (the paper: 5, 9, 13; sw also 17)"},
		},
		Make: func(in Input) (*workloads.Workload, error) {
			return workloads.GenerateSGE(workloads.SGEOptions{App: in.Values.String("app"), Tasks: in.Values.Int("tasks")})
		},
	})
	r.Register(Generator{
		Name:  "gang",
		Usage: "a gang-scheduling workload: the MCMCA paper's job sizes (1 to 128 tasks), log-normal run times, Poisson arrivals at an offered load",
		Jobs:  workloads.DefaultGangJobs, Load: true, Seeded: true, Computations: true,
		Make: func(in Input) (*workloads.Workload, error) {
			return workloads.GenerateGang(workloads.GangOptions{Jobs: in.Jobs, Hosts: in.Hosts, Load: in.Load, Seed: in.Seed})
		},
	})
	r.Register(lublinGenerator())
	r.Register(Generator{
		Name:  "file",
		Usage: "a Batsim workload file (a real trace, e.g. converted by bucma workload from-swf), checked against the platform",
		Params: []Param{
			{Name: "file", Type: Path, Required: true, Usage: "the workload file"},
		},
		Make: func(in Input) (*workloads.Workload, error) {
			path := in.Values.String("file")
			w, _, err := workloads.LoadChecked(path, workloads.ValidateOptions{PlatformHosts: in.Hosts})
			if err != nil {
				return nil, fmt.Errorf("workload file %s: %w", path, err)
			}
			return w, nil
		},
	})
	r.Register(Generator{
		Name:   "swf",
		Usage:  "a Standard Workload Format trace (Parallel Workloads Archive), converted as bucma workload from-swf does",
		Params: SWFParams,
		Make: func(in Input) (*workloads.Workload, error) {
			path := in.Values.String("file")
			w, st, err := ImportSWF(path, in.Values)
			if err != nil {
				return nil, err
			}
			if st.Kept == 0 {
				return nil, fmt.Errorf("SWF trace %s: no job left to convert (%s)", path, st)
			}
			if errs, _ := w.Validate(workloads.ValidateOptions{PlatformHosts: in.Hosts}); len(errs) > 0 {
				return nil, fmt.Errorf("SWF trace %s: %s (%d problems)", path, errs[0], len(errs))
			}
			return w, nil
		},
	})

	r.RegisterStep(Step{
		Name:  "bucma-insert",
		Usage: "add the BUCMA paper's 300 one-node requests of walltime 3600 s in three precision profiles",
		Params: []Param{
			{Name: "bursts", Type: Int, Default: 0, Check: AtLeast(0), Usage: "submit the requests in this many bursts at random times instead of spreading them (0: spread)"},
		},
		Apply: func(w *workloads.Workload, in Input) (*workloads.Workload, error) {
			return workloads.BucmaInsert(w, workloads.InsertOptions{Seed: in.Seed, Bursts: in.Values.Int("bursts")})
		},
	})
	r.RegisterStep(Step{
		Name:  "precise",
		Usage: "rewrite walltimes to be precise: W = Te / U(p_min, 1.0), Te = run time on the reference speed",
		Params: []Param{
			{Name: "p_min", Type: Float, Default: 0.85, Check: Within(0, 1, true), Usage: "lower bound of the precision P = Te/W"},
		},
		Apply: func(w *workloads.Workload, in Input) (*workloads.Workload, error) {
			return workloads.MakePrecise(w, workloads.PreciseOptions{Seed: in.Seed, PMin: in.Values.Float("p_min")})
		},
	})
	r.RegisterStep(Step{
		Name: "scale-load",
		Usage: "stretch or compress the submission times so that the offered load Σ res × run time / (hosts × submission span) " +
			"on the platform is the run's load level",
		Load: true,
		Params: []Param{
			{Name: "ref_speed", Type: Float, Default: 0.0, Check: AtLeast(0), Usage: "speed (flop/s) computation profiles run at (0: the platform's slowest host)"},
		},
		Apply: func(w *workloads.Workload, in Input) (*workloads.Workload, error) {
			if in.Load == 0 {
				return nil, fmt.Errorf("no offered load to reach: give the plan load levels, or the recipe a load")
			}
			ref := in.Values.Float("ref_speed")
			if ref == 0 && len(in.HostSpeeds) > 0 {
				ref = workloads.SlowestSpeed(in.HostSpeeds)
			}
			return workloads.ScaleToLoad(w, workloads.ScaleLoadOptions{Load: in.Load, Hosts: in.Hosts, RefSpeed: ref})
		},
	})
	r.RegisterStep(Step{
		Name:  "window",
		Usage: "keep window_jobs consecutive jobs (in submission order) from a first job drawn with the seed, shifted to start at 0",
		Params: []Param{
			{Name: "window_jobs", Type: Int, Required: true, Check: AtLeast(1), Usage: "jobs of the window"},
		},
		Apply: func(w *workloads.Workload, in Input) (*workloads.Workload, error) {
			return workloads.Window(w, workloads.WindowOptions{Jobs: in.Values.Int("window_jobs"), Seed: in.Seed})
		},
	})
	return r
}

// LublinParams are the parameters of the lublin generator (besides jobs,
// seed and load): the flags of "bucma workload lublin".
var LublinParams = []Param{
	{Name: "max_size", Type: Int, Default: 0, Check: AtLeast(0),
		Usage: "largest job in nodes: the size law's ulow, umed and uhi move by log2(max_size/128) (0: the platform's hosts; 128, the model's machine, without a platform)"},
	{Name: "model", Type: String, Default: workloads.LublinTyped, Choices: []string{workloads.LublinTyped, workloads.LublinUntyped},
		Usage: "typed: batch and interactive jobs, each class with its parameters; typeless: one class, the whole sample's parameters"},
	{Name: "users", Type: Int, Default: 0, Check: AtLeast(0),
		Usage: "draw users 1..N with weights 1/k^1.1 (not part of the model; 0: no user, SWF field 12 is -1)"},
	{Name: "walltime", Type: String, Default: workloads.LublinWallUniform, Choices: workloads.LublinWalltimes,
		Usage: "walltime rule (the model has none): uniform in [r, F r] (Mu'alem and Feitelson's f model, f = F - 1), factor F r, exact r, or none"},
	{Name: "walltime_factor", Type: Float, Default: 4.0, Check: Within(1, workloads.LublinMaxWalltimeFactor, false), Usage: "the walltime rule's F (1 to 1e6)"},
	{Name: "set", Type: String, Default: "",
		Usage: "override model parameters after the size scaling: NAME=VALUE,... (NAME for every class, batch.NAME or interactive.NAME for one; names: serial_prob, pow2_prob, ulow, umed, uhi, uprob, a1, b1, a2, b2, pa, pb, aarr, barr, arar, anum, bnum)"},
}

// LublinOptionsFrom returns the options of the lublin generator for a number of
// jobs, a seed, an offered load (0: the model's arrival rate) and a
// machine of hosts hosts (0: max_size, else 128).
func LublinOptionsFrom(v Values, jobs int, seed uint64, load float64, hosts int) workloads.LublinOptions {
	return workloads.LublinOptions{Jobs: jobs, Seed: seed, Load: load, Hosts: hosts, MaxSize: v.Int("max_size"),
		Model: v.String("model"), Users: v.Int("users"), Walltime: v.String("walltime"),
		WalltimeFactor: v.Float("walltime_factor"), Set: v.String("set")}
}

// lublinGenerator is the Lublin–Feitelson model (workloads.GenerateLublin).
func lublinGenerator() Generator {
	return Generator{
		Name:  "lublin",
		Usage: "the Lublin-Feitelson model of rigid parallel jobs (JPDC 2003): sizes, hyper-gamma run times, daily cycle of arrivals, batch and interactive jobs",
		Jobs:  workloads.DefaultLublinJobs, Load: true, Seeded: true,
		Params: LublinParams,
		Check: func(v Values) error {
			o := LublinOptionsFrom(v, 1, 1, 0, 0)
			o.Hosts = max(o.MaxSize, workloads.LublinModelHosts)
			return workloads.CheckLublin(o)
		},
		Make: func(in Input) (*workloads.Workload, error) {
			t, err := workloads.GenerateLublin(LublinOptionsFrom(in.Values, in.Jobs, in.Seed, in.Load, in.Hosts))
			if err != nil {
				return nil, err
			}
			return t.Workload()
		},
	}
}

// SWFParams are the parameters of the swf generator: the options of
// "bucma workload from-swf".
var SWFParams = []Param{
	{Name: "file", Type: Path, Required: true, Usage: "the SWF trace"},
	{Name: "ppn", Type: Int, Default: 1, Check: AtLeast(1), Usage: "processors per node: res = ceil(processors / ppn)"},
	{Name: "from", Type: Float, Default: 0.0, Check: AtLeast(0), Usage: "keep jobs submitted at or after this SWF time (s)"},
	{Name: "to", Type: Float, Default: 0.0, Check: AtLeast(0), Usage: "keep jobs submitted before this SWF time (s); 0 = no bound"},
	{Name: "keep_cancelled", Type: Bool, Default: false, Usage: "keep cancelled jobs (status 5) that have a run time"},
}

// ImportSWF converts an SWF trace with the swf generator's parameters
// (SWFParams; file is the trace).
func ImportSWF(path string, v Values) (*workloads.Workload, workloads.SWFStats, error) {
	if to := v.Float("to"); to > 0 && to <= v.Float("from") {
		return nil, workloads.SWFStats{}, fmt.Errorf("to (%g) must be after from (%g)", to, v.Float("from"))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, workloads.SWFStats{}, err
	}
	defer f.Close()
	w, st, err := workloads.FromSWF(f, SWFOptionsFrom(path, v))
	if err != nil {
		return nil, st, fmt.Errorf("%s: %w", path, err)
	}
	return w, st, nil
}

// SWFOptionsFrom is the conversion of the SWF trace at path that the swf
// generator's parameters v ask for.
func SWFOptionsFrom(path string, v Values) workloads.SWFOptions {
	return workloads.SWFOptions{PPN: v.Int("ppn"), From: v.Float("from"), To: v.Float("to"),
		KeepCancelled: v.Bool("keep_cancelled"), Source: path}
}

func sgeAppNames() []string {
	var out []string
	for _, a := range workloads.SGEApps {
		out = append(out, a.Name)
	}
	return out
}
