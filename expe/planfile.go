package expe

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/workloads/gen"
	"github.com/goccy/go-yaml/ast"
)

// A plan file is a campaign written in YAML: what the built-in plans are
// (bucma expe plans --show NAME prints them) and what a user writes to run
// a campaign of their own (docs/campaigns.md). It is read strictly: an
// unknown key, policy, option, platform or generator parameter, a missing
// file or a bad range is an error naming the file, the line and the key.

// PlanFileOptions say how a plan file is read.
type PlanFileOptions struct {
	// Name is the file's name in messages; its base name without extension
	// is the plan's name when the file gives none.
	Name string
	// Dir is the folder relative paths of the file are relative to ("":
	// the current folder); the plan holds absolute paths.
	Dir string
	// Studies are the kinds of the studies "study" may name, as
	// report.Studies.Kinds lists them (nil: only the comparison report,
	// "").
	Studies []string
	// Policies are the policies variants may name, whose options are
	// checked (nil: not checked).
	Policies *sched.Registry
}

// PlanFileError is a problem in a plan file, at a line.
type PlanFileError struct {
	File string
	Line int    // 0 when unknown
	Key  string // the key at fault ("variants[1].policy"), "" for the file
	Msg  string
}

// Error implements error: "FILE:LINE: KEY: MSG".
func (e *PlanFileError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// LoadPlanFile reads a plan file (see ParsePlanFile); o.Name defaults to
// path and o.Dir to its folder.
func LoadPlanFile(path string, o PlanFileOptions) (Plan, error) {
	if o.Name == "" {
		o.Name = path
	}
	if o.Dir == "" {
		o.Dir = filepath.Dir(path)
	}
	data, err := readBounded(path, "a plan file", MaxPlanFileBytes)
	if err != nil {
		return Plan{}, &PlanFileError{File: o.Name, Msg: fmt.Sprintf("cannot read it: %v", withoutPath(err))}
	}
	return ParsePlanFile(data, o)
}

// Keys of a plan file.
var (
	planKeys     = []string{"name", "study", "title", "description", "platform", "platforms", "workload", "workloads", "cases", "variants", "seeds", "loads", "shake", "baseline", "report", "engine", "quick"}
	variantKeys  = []string{"name", "policy", "options", "base", "model"}
	reportKeys   = []string{"metrics", "breakdowns", "cdf", "gantt"}
	engineKeys   = []string{"name", "batsim", "image", "batsim_flags"}
	quickKeys    = []string{"seeds", "jobs"}
	shakeKeys    = []string{"submit", "runtime", "copies"}
	recipeKeys   = []string{"generator", "jobs", "steps"}
	caseKeys     = []string{"name", "title", casePlatform, CaseWorkload, caseFactor, caseLevel}
	workloadKeys = []string{"name", "title"}
)

// planFile reads one file.
type planFile struct {
	o       PlanFileOptions
	lines   map[string]int              // key path ("variants[1].policy") → line
	anchors map[string]ast.Node         // anchor name → its node, while indexing
	aliases map[*ast.AliasNode]ast.Node // alias → the node it stands for
	merged  map[ast.MapNode][]rawField  // mapping → its items, merges included
	sums    map[string]string           // file → its SHA-256
}

// err is an error at a key path: its line, else its parent's.
func (f *planFile) err(path, format string, args ...any) error {
	line := 0
	for p := path; ; {
		if l, ok := f.lines[p]; ok {
			line = l
			break
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return &PlanFileError{File: f.o.Name, Line: line, Key: path, Msg: fmt.Sprintf(format, args...)}
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// ParsePlanFile reads a plan in its file form (YAML) and checks it: the
// keys, the study, platforms, files, generators and their parameters,
// seeds, load levels, variants (their policies and options when
// o.Policies is set), the baseline, the report and the engine. Errors are
// *PlanFileError.
func ParsePlanFile(data []byte, o PlanFileOptions) (Plan, error) {
	if o.Name == "" {
		o.Name = "plan file"
	}
	f := &planFile{o: o, lines: map[string]int{}, anchors: map[string]ast.Node{}, aliases: map[*ast.AliasNode]ast.Node{},
		merged: map[ast.MapNode][]rawField{}, sums: map[string]string{}}
	root, err := f.parseYAML(data)
	if err != nil {
		return Plan{}, err
	}
	if err := f.index(root, "", 0); err != nil {
		return Plan{}, err
	}
	raw, err := f.readPlan(root)
	if err != nil {
		return Plan{}, err
	}
	return f.plan(raw)
}

// plan converts the decoded file into a plan, checking it.
func (f *planFile) plan(raw rawPlan) (Plan, error) {
	p := Plan{Name: raw.Name, Kind: raw.Study, Title: raw.Title, Description: raw.Description, Baseline: raw.Baseline}
	if p.Name == "" {
		p.Name = strings.TrimSuffix(filepath.Base(f.o.Name), filepath.Ext(f.o.Name))
	}
	if !fileNameSafe(p.Name) {
		return p, f.err("name", "%q: a plan's name names its folder: letters, digits, '-' and '.' only", p.Name)
	}
	if p.Title == "" {
		p.Title = p.Name
	}
	if p.Kind != "" && !slices.Contains(f.o.Studies, p.Kind) {
		known := slices.DeleteFunc(slices.Clone(f.o.Studies), func(s string) bool { return s == "" })
		if len(known) == 0 {
			return p, f.err("study", "unknown study %q (none is known here)", p.Kind)
		}
		return p, f.err("study", "unknown study %q (valid: %s)", p.Kind, strings.Join(known, ", "))
	}

	// Platforms.
	var plats []string
	switch {
	case raw.Platform != "" && len(raw.Platforms) > 0:
		return p, f.err("platforms", "give platform or platforms, not both")
	case raw.Platform != "":
		pl, err := f.platform("platform", raw.Platform)
		if err != nil {
			return p, err
		}
		plats = []string{pl}
	case len(raw.Platforms) > 0:
		for i, name := range raw.Platforms {
			pl, err := f.platform(fmt.Sprintf("platforms[%d]", i), name)
			if err != nil {
				return p, err
			}
			if slices.Contains(plats, pl) {
				return p, f.err(fmt.Sprintf("platforms[%d]", i), "%s given twice", name)
			}
			plats = append(plats, pl)
		}
	default:
		return p, f.err("", "no platform: give platform (a bundled name: %s, or a SimGrid platform file)", platforms.BundledList())
	}
	p.Platform = plats[0]

	// Workloads and cases.
	type named struct {
		name, title string
		recipe      gen.Recipe
		path        string
	}
	var ws []named
	switch {
	case raw.Workload != nil && len(raw.Workloads) > 0:
		return p, f.err("workloads", "give workload or workloads, not both")
	case raw.Workload != nil:
		r, _, _, err := f.recipe("workload", *raw.Workload, nil, nil, len(raw.Cases) == 0)
		if err != nil {
			return p, err
		}
		ws = append(ws, named{recipe: r, path: "workload"})
	case len(raw.Workloads) > 0:
		if len(raw.Cases) > 0 {
			return p, f.err("cases", "cases vary the one workload of workload; with workloads, each workload is a case already")
		}
		seen := map[string]bool{}
		for i, rf := range raw.Workloads {
			path := fmt.Sprintf("workloads[%d]", i)
			r, name, title, err := f.recipe(path, rf, workloadKeys, nil, true)
			if err != nil {
				return p, err
			}
			if !fileNameSafe(name) {
				return p, f.err(path+".name", "%q: a workload's name names its files: letters, digits, '-' and '.' only", name)
			}
			if seen[name] {
				return p, f.err(path+".name", "workload %s given twice", name)
			}
			seen[name] = true
			ws = append(ws, named{name, title, r, path})
		}
	default:
		return p, f.err("", "no workload: give workload (a generator and its parameters, e.g. generator: swf with file: TRACE.swf)")
	}
	p.Workload = ws[0].recipe
	switch {
	case len(raw.Cases) > 0:
		if len(plats) > 1 {
			return p, f.err("platforms", "cases name their own platform: give one platform with cases")
		}
		seen := map[string]bool{}
		for i, rc := range raw.Cases {
			path := fmt.Sprintf("cases[%d]", i)
			c, err := f.caseOf(path, rc, p.Workload)
			if err != nil {
				return p, err
			}
			if seen[c.Name] {
				return p, f.err(path+".name", "case %s given twice", c.Name)
			}
			seen[c.Name] = true
			p.Cases = append(p.Cases, c)
		}
	case len(ws) > 1 || len(plats) > 1:
		// Every workload on every platform, each pair a case.
		seen := map[string]bool{}
		for _, w := range ws {
			for _, pl := range plats {
				name := w.name
				switch {
				case len(ws) == 1:
					name = PlatformName(pl)
				case len(plats) > 1:
					name += "-" + PlatformName(pl)
				}
				title := w.title
				if title == "" {
					title = w.name
				}
				if len(plats) > 1 {
					title = strings.TrimPrefix(title+" on "+PlatformName(pl), " on ")
				}
				c := WorkloadCase{Name: name, Title: title, Fields: gen.Fields{{Key: "generator", Value: w.recipe.Generator}}}
				if w.recipe.Jobs != 0 {
					c.Fields = append(c.Fields, gen.Field{Key: "jobs", Value: float64(w.recipe.Jobs)})
				}
				if len(w.recipe.Steps) > 0 {
					c.Fields = append(c.Fields, gen.Field{Key: "steps", Value: slices.Clone(w.recipe.Steps)})
				}
				c.Fields = append(c.Fields, w.recipe.Fields.Clone()...)
				if pl != p.Platform {
					c.Fields = append(c.Fields, gen.Field{Key: casePlatform, Value: pl})
				}
				if w.name != "" {
					c.Fields = append(c.Fields, gen.Field{Key: CaseWorkload, Value: w.name})
				}
				if seen[name] {
					return p, f.err(w.path, "workload %q on platform %s makes the case name %s twice: rename a workload", w.name, pl, name)
				}
				seen[name] = true
				p.Cases = append(p.Cases, c)
			}
		}
	}

	// Seeds and loads.
	var err error
	if p.Seeds, err = f.seeds(raw.Seeds); err != nil {
		return p, err
	}
	if p.Loads, err = f.loads(raw.Loads); err != nil {
		return p, err
	}
	reg := gen.Default()
	// The recipes, each with where the file gives it, in the file's order.
	type located struct {
		at string
		r  gen.Recipe
	}
	recipes := []located{{"workload", p.Workload}}
	if len(p.Cases) > 0 {
		recipes = recipes[:0]
		for i, c := range p.Cases {
			at := fmt.Sprintf("cases[%d]", i)
			if len(raw.Cases) == 0 {
				if i%len(plats) != 0 {
					continue // the same workload on another platform
				}
				at = ws[min(i/len(plats), len(ws)-1)].path
			}
			recipes = append(recipes, located{at, p.recipeOf(c)})
		}
	}
	anyLoad := false
	for _, x := range recipes {
		at, r := x.at, x.r
		takes := reg.TakesLoad(r)
		anyLoad = anyLoad || takes
		if len(p.Loads) > 0 && !takes {
			return p, f.err("loads", "the %s workload of %s takes no load: add the step scale-load to its steps to scale it to each level", r.Generator, at)
		}
		g, _ := reg.Generator(r.Generator)
		if len(p.Loads) == 0 && takes && !g.Load && !r.Fields.Has(gen.LoadParam.Name) {
			return p, f.err(at, "its steps need an offered load: give the plan loads (the levels, e.g. loads: [0.7, 0.9]) or the workload a load")
		}
	}
	if len(p.Loads) == 0 && len(p.Cases) == 0 {
		if anyLoad {
			return p, f.err("workload", "the %s generator takes an offered load: give the plan loads (e.g. loads: [%s])", p.Workload.Generator, FormatLoad(DefaultLoad))
		}
		p.Loads = []float64{0}
	}

	// Variants.
	if len(raw.Variants) == 0 {
		return p, f.err("variants", "no variant: give at least one (name, policy and options)")
	}
	variantSeen := map[string]bool{}
	for i, rv := range raw.Variants {
		v, err := f.variant(fmt.Sprintf("variants[%d]", i), rv)
		if err != nil {
			return p, err
		}
		if variantSeen[v.Name] {
			return p, f.err(fmt.Sprintf("variants[%d].name", i), "variant %s given twice", v.Name)
		}
		variantSeen[v.Name] = true
		p.Variants = append(p.Variants, v)
	}
	if p.Baseline != "" && !slices.ContainsFunc(p.Variants, func(v Variant) bool { return v.Name == p.Baseline }) {
		return p, f.err("baseline", "%q is not one of the variants (%s)", p.Baseline, variantNames(p.Variants))
	}
	if raw.Report != nil {
		if err := raw.Report.check(); err != nil {
			return p, f.err("report", "%v", err)
		}
		p.Report = raw.Report
	}
	if raw.Engine != nil {
		if p.Engine, err = f.engine(raw.Engine); err != nil {
			return p, err
		}
	}
	if raw.Quick != nil {
		p.Quick = *raw.Quick
	}
	if raw.Shake != nil {
		if p.Kind != "" {
			return p, f.err("shake", "the report of study %s does not read shaken copies (the comparison report does: leave study out)", p.Kind)
		}
		sizes := []int{len(p.Variants), max(len(p.Cases), 1), max(len(p.Loads), 1), len(p.Seeds), raw.Shake.Copies}
		if _, ok := runCount(sizes...); !ok {
			return p, f.err("shake.copies", "%d copies: %d variants × %d cases × %d load levels × %d seeds × %d copies is more than %d runs",
				raw.Shake.Copies, sizes[0], sizes[1], sizes[2], sizes[3], sizes[4], MaxRuns)
		}
		for _, x := range recipes {
			if g, _ := reg.Generator(x.r.Generator); g.Computations && (raw.Shake.RuntimePercent > 0 || raw.Shake.RuntimeSeconds > 0) {
				return p, f.err("shake.runtime", "the %s workload of %s has computation profiles, whose run times depend on the hosts: shake its submission times alone (leave runtime out)",
					x.r.Generator, x.at)
			}
		}
		p.Shake = raw.Shake
	}
	p.indexCases()
	if err := p.Check(); err != nil {
		return p, &PlanFileError{File: f.o.Name, Msg: err.Error()}
	}
	return p, nil
}

func variantNames(vs []Variant) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.Name
	}
	return strings.Join(names, ", ")
}

// PlatformName is a platform's short name, as runs and results name it: a
// bundled name, or a file's base name without .xml.
func PlatformName(pl string) string {
	base := strings.TrimSuffix(filepath.Base(pl), ".xml")
	safe := []rune(base)
	for i, r := range safe {
		if !fileNameRune(r) {
			safe[i] = '-'
		}
	}
	return string(safe)
}

// platform checks a platform, found as every command finds one
// (platforms.Locate, relative to the file's folder): a bundled platform
// becomes its name ("lille" for lille.xml too), a file an absolute path,
// and must be a platform bucma reads.
func (f *planFile) platform(path, name string) (string, error) {
	pl, err := ResolvePlatform(f.o.Dir, name)
	if err != nil {
		return "", f.err(path, "%s", strings.TrimPrefix(err.Error(), "platform "))
	}
	return pl, nil
}

func (f *planFile) abs(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	abs, err := filepath.Abs(filepath.Join(f.o.Dir, name))
	if err != nil {
		return filepath.Join(f.o.Dir, name)
	}
	return abs
}

// recipe reads a recipe's mapping: generator, jobs, steps, the parameters
// of the generator and its steps. extra are further keys the mapping may
// hold (name and title are returned); base is the recipe a case
// completes (nil for a recipe of its own); complete asks for the recipe's
// own check (its required parameters given).
func (f *planFile) recipe(path string, rf rawFields, extra []string, base *gen.Recipe, complete bool) (r gen.Recipe, name, title string, err error) {
	reg := gen.Default()
	for _, it := range rf.items {
		at := path + "." + it.key
		switch {
		case it.key == "name" && slices.Contains(extra, "name"):
			name, err = f.text(at, it.node)
		case it.key == "title" && slices.Contains(extra, "title"):
			title, err = f.text(at, it.node)
		case it.key == "generator":
			if r.Generator, err = f.text(at, it.node); err == nil {
				if _, ok := reg.Generator(r.Generator); !ok {
					err = f.err(at, "unknown generator %q (valid: %s)", r.Generator, strings.Join(reg.Names(), ", "))
				}
			}
		case it.key == "jobs":
			var x float64
			if x, err = f.number(at, it.node, gen.Int); err == nil && x < 1 {
				err = f.err(at, "%g: must be at least 1 (or left out: the generator's default)", x)
			} else if err == nil && x > gen.MaxJobs {
				err = f.err(at, "%g: at most %d jobs", x, gen.MaxJobs)
			}
			r.Jobs = int(x)
		case it.key == "steps":
			if r.Steps, err = f.list(at, it.node); err == nil {
				for i, s := range r.Steps {
					if _, ok := reg.Step(s); !ok {
						err = f.err(fmt.Sprintf("%s[%d]", at, i), "unknown step %q (valid: %s)", s, strings.Join(reg.StepNames(), ", "))
						break
					}
				}
			}
		}
		if err != nil {
			return
		}
	}
	if r.Generator == "" && base == nil {
		err = f.err(path, "no generator (valid: %s)", strings.Join(reg.Names(), ", "))
		return
	}
	full := r
	if base != nil {
		full = base.Clone()
		if r.Generator != "" {
			full = gen.Recipe{Generator: r.Generator}
		}
		if r.Jobs != 0 {
			full.Jobs = r.Jobs
		}
		if r.Steps != nil {
			full.Steps = r.Steps
		}
	}
	ps, perr := reg.Params(full)
	if perr != nil {
		err = f.err(path, "%v", perr)
		return
	}
	for _, it := range rf.items {
		if slices.Contains(recipeKeys, it.key) || slices.Contains(extra, it.key) {
			continue
		}
		at := path + "." + it.key
		i := slices.IndexFunc(ps, func(p gen.Param) bool { return p.Name == it.key })
		if i < 0 {
			valid := append(append(slices.Clone(recipeKeys), extra...), gen.ParamNames(ps)...)
			err = f.err(at, "unknown key: not a parameter of %s (valid: %s)", full.What(), strings.Join(valid, ", "))
			return
		}
		var v any
		if v, err = f.param(at, ps[i], it.node); err != nil {
			return
		}
		r.Fields = append(r.Fields, gen.Field{Key: it.key, Value: v})
		if ps[i].Type == gen.Path && !rf.has(it.key+gen.ShaSuffix) {
			sum, serr := f.sha256(v.(string))
			if serr != nil {
				err = f.err(at, "%v", serr)
				return
			}
			r.Fields = append(r.Fields, gen.Field{Key: it.key + gen.ShaSuffix, Value: sum})
		}
	}
	if complete {
		if cerr := reg.CheckRecipe(r); cerr != nil {
			err = f.err(path, "%v", cerr)
		}
	}
	return
}

// sha256 is FileSHA256 of path, read once however many recipes name it.
func (f *planFile) sha256(path string) (string, error) {
	if sum, ok := f.sums[path]; ok {
		return sum, nil
	}
	sum, err := gen.FileSHA256(path)
	if err == nil {
		f.sums[path] = sum
	}
	return sum, err
}

// caseOf reads a case: its own keys, then the recipe keys it changes.
func (f *planFile) caseOf(path string, rf rawFields, base gen.Recipe) (WorkloadCase, error) {
	var c WorkloadCase
	for _, it := range rf.items {
		at := path + "." + it.key
		var err error
		switch it.key {
		case "name":
			c.Name, err = f.text(at, it.node)
		case "title":
			c.Title, err = f.text(at, it.node)
		}
		if err != nil {
			return c, err
		}
	}
	if !fileNameSafe(c.Name) {
		return c, f.err(path+".name", "%q: a case's name names its files: letters, digits, '-' and '.' only", c.Name)
	}
	r, _, _, err := f.recipe(path, rf, caseKeys, &base, false)
	if err != nil {
		return c, err
	}
	// The case's fields in the file's order: its own keys and the recipe's.
	for _, it := range rf.items {
		at := path + "." + it.key
		switch it.key {
		case "name", "title":
		case casePlatform:
			s, err := f.text(at, it.node)
			if err != nil {
				return c, err
			}
			if s, err = f.platform(at, s); err != nil {
				return c, err
			}
			c.Fields = append(c.Fields, gen.Field{Key: it.key, Value: s})
		case CaseWorkload, caseFactor, caseLevel:
			s, err := f.text(at, it.node)
			if err != nil {
				return c, err
			}
			c.Fields = append(c.Fields, gen.Field{Key: it.key, Value: s})
		case "generator":
			c.Fields = append(c.Fields, gen.Field{Key: it.key, Value: r.Generator})
		case "jobs":
			c.Fields = append(c.Fields, gen.Field{Key: it.key, Value: float64(r.Jobs)})
		case "steps":
			c.Fields = append(c.Fields, gen.Field{Key: it.key, Value: slices.Clone(r.Steps)})
		default:
			for _, x := range r.Fields {
				if x.Key == it.key || x.Key == it.key+gen.ShaSuffix && !rf.has(x.Key) {
					c.Fields = append(c.Fields, x)
				}
			}
		}
	}
	p := Plan{Workload: base, Cases: []WorkloadCase{c}}
	if err := gen.Default().CheckRecipe(p.Recipe(c.Name)); err != nil {
		return c, f.err(path, "%v", err)
	}
	return c, nil
}

// param reads a parameter's value as its declaration says.
func (f *planFile) param(at string, p gen.Param, n ast.Node) (any, error) {
	var v any
	var err error
	switch p.Type {
	case gen.String:
		v, err = f.text(at, n)
	case gen.Path:
		var s string
		if s, err = f.text(at, n); err == nil {
			abs := f.abs(s)
			if _, serr := os.Stat(abs); serr != nil {
				return nil, f.err(at, "%s: %v", s, withoutPath(serr))
			}
			v = abs
		}
	case gen.Int, gen.Float:
		v, err = f.number(at, n, p.Type)
	case gen.Bool:
		v, err = f.boolean(at, n)
	}
	if err != nil {
		return nil, err
	}
	c, err := p.Canon(v)
	if err != nil {
		return nil, f.err(at, "%v", strings.TrimPrefix(err.Error(), p.Name+": "))
	}
	return c, nil
}

// text reads a scalar as written ("0.5" stays "0.5").
func (f *planFile) text(at string, n ast.Node) (string, error) {
	switch x := f.unwrap(n).(type) {
	case *ast.StringNode:
		return x.Value, nil
	case *ast.LiteralNode:
		return x.Value.Value, nil
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		return x.GetToken().Value, nil
	}
	return "", f.err(at, "want a text value, got %s", f.nodeWhat(n))
}

// number reads a number; an Int must be integral.
func (f *planFile) number(at string, n ast.Node, t gen.ParamType) (float64, error) {
	var x float64
	switch v := f.unwrap(n).(type) {
	case *ast.IntegerNode:
		switch i := v.Value.(type) {
		case int64:
			x = float64(i)
		case uint64:
			x = float64(i)
		}
	case *ast.FloatNode:
		x = v.Value
	default:
		return 0, f.err(at, "want %s, got %s", t.WithArticle(), f.nodeWhat(n))
	}
	if t == gen.Int && x != math.Trunc(x) {
		return 0, f.err(at, "want an integer, got %g", x)
	}
	return x, nil
}

// list reads a list of texts (or a single text).
func (f *planFile) list(at string, n ast.Node) ([]string, error) {
	seq, ok := f.unwrap(n).(*ast.SequenceNode)
	if !ok {
		s, err := f.text(at, n)
		if err != nil {
			return nil, f.err(at, "want a list, got %s", f.nodeWhat(n))
		}
		return []string{s}, nil
	}
	out := []string{}
	for i, v := range seq.Values {
		s, err := f.text(fmt.Sprintf("%s[%d]", at, i), v)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// seeds reads "seeds": a count N (seeds 1..N), a range "A-B" or a list.
func (f *planFile) seeds(n ast.Node) ([]uint64, error) {
	if n == nil {
		return seedRange(DefaultSeeds), nil
	}
	bad := func(format string, args ...any) error { return f.err("seeds", format, args...) }
	switch x := f.unwrap(n).(type) {
	case *ast.IntegerNode:
		c, err := f.number("seeds", x, gen.Int)
		if err != nil {
			return nil, err
		}
		if c < 1 || c > MaxRuns {
			return nil, bad("%g: the number of seeds must be in 1..%d", c, MaxRuns)
		}
		return seedRange(int(c)), nil
	case *ast.StringNode:
		a, b, ok := strings.Cut(x.Value, "-")
		lo, e1 := strconv.ParseUint(strings.TrimSpace(a), 10, 64)
		hi, e2 := strconv.ParseUint(strings.TrimSpace(b), 10, 64)
		switch {
		case !ok || e1 != nil || e2 != nil:
			return nil, bad("%q: want a number of seeds (5), a range (1-5) or a list ([1, 2, 7]) of seeds from 1 to %d", x.Value, uint64(math.MaxUint64))
		case lo < 1:
			return nil, bad("%q: seeds start at 1", x.Value)
		case hi < lo:
			return nil, bad("%q: bad range: %d is after %d", x.Value, lo, hi)
		case hi-lo >= MaxRuns:
			return nil, bad("%q: more than %d seeds", x.Value, MaxRuns)
		}
		// Counted, not compared with hi: hi may be the largest uint64.
		out := make([]uint64, hi-lo+1)
		for i := range out {
			out[i] = lo + uint64(i)
		}
		return out, nil
	case *ast.SequenceNode:
		if len(x.Values) == 0 {
			return nil, bad("no seed")
		}
		if len(x.Values) > MaxRuns {
			return nil, bad("%d seeds: more than %d", len(x.Values), MaxRuns)
		}
		out := make([]uint64, 0, len(x.Values))
		seen := make(map[uint64]bool, len(x.Values))
		for i, v := range x.Values {
			at := fmt.Sprintf("seeds[%d]", i)
			s, err := f.seed(at, v)
			if err != nil {
				return nil, err
			}
			if seen[s] {
				return nil, f.err(at, "seed %d given twice", s)
			}
			seen[s] = true
			out = append(out, s)
		}
		return out, nil
	}
	return nil, bad("want a number of seeds (5), a range (1-5) or a list ([1, 2, 7]), got %s", f.nodeWhat(n))
}

// seed reads one seed of a list: an integer from 1 to the largest uint64,
// read exactly (not through a float64, which holds integers exactly only
// up to 2^53).
func (f *planFile) seed(at string, n ast.Node) (uint64, error) {
	if v, ok := f.unwrap(n).(*ast.IntegerNode); ok {
		switch i := v.Value.(type) {
		case int64:
			if i < 1 {
				return 0, f.err(at, "%d: seeds start at 1", i)
			}
			return uint64(i), nil
		case uint64:
			if i < 1 {
				return 0, f.err(at, "%d: seeds start at 1", i)
			}
			return i, nil
		}
	}
	return 0, f.err(at, "want a seed (an integer from 1 to %d), got %s", uint64(math.MaxUint64), f.nodeWhat(n))
}

// loads reads "loads": a number or a list of numbers in (0, 100].
func (f *planFile) loads(n ast.Node) ([]float64, error) {
	if n == nil {
		return nil, nil
	}
	nodes := []ast.Node{n}
	paths := []string{"loads"}
	if seq, ok := f.unwrap(n).(*ast.SequenceNode); ok {
		nodes, paths = seq.Values, nil
		for i := range nodes {
			paths = append(paths, fmt.Sprintf("loads[%d]", i))
		}
		if len(nodes) == 0 {
			return nil, f.err("loads", "no load level")
		}
		if len(nodes) > MaxRuns {
			return nil, f.err("loads", "%d load levels: more than %d", len(nodes), MaxRuns)
		}
	}
	var out []float64
	seen := map[float64]bool{}
	for i, n := range nodes {
		l, err := f.number(paths[i], n, gen.Float)
		if err != nil {
			return nil, err
		}
		if !(l > 0) || l > 100 {
			return nil, f.err(paths[i], "%g: a load level must be > 0 and at most 100", l)
		}
		if seen[l] {
			return nil, f.err(paths[i], "load %s given twice", FormatLoad(l))
		}
		seen[l] = true
		out = append(out, l)
	}
	return out, nil
}

// variant reads a variant and checks its policy and options against
// o.Policies: each option's name and value, then the policy built with
// them all, as each run builds it.
func (f *planFile) variant(path string, rv rawVariant) (Variant, error) {
	v := Variant{Name: rv.Name, Policy: rv.Policy, Base: rv.Base, Model: rv.Model, Options: map[string]string{}}
	if !variantNameOK(v.Name) {
		return v, f.err(path+".name", "%q: a variant's name %s", v.Name, variantNameRule)
	}
	if v.Policy == "" {
		return v, f.err(path, "no policy")
	}
	var keys []string
	if rv.Options != nil && !f.isNull(rv.Options) {
		if _, ok := f.unwrap(rv.Options).(ast.MapNode); !ok {
			return v, f.err(path+".options", "want a mapping of option names to values, got %s", f.nodeWhat(rv.Options))
		}
		opts, err := f.fields(path+".options", rv.Options, nil)
		if err != nil {
			return v, err
		}
		for _, it := range opts.items {
			at := path + ".options." + it.key
			var val string
			if seq, isList := f.unwrap(it.node).(*ast.SequenceNode); isList {
				parts, err := f.list(at, seq)
				if err != nil {
					return v, err
				}
				val = strings.Join(parts, ",")
			} else if val, err = f.text(at, it.node); err != nil {
				return v, err
			}
			v.Options[it.key] = val
			keys = append(keys, it.key)
		}
	}
	if f.o.Policies == nil {
		return v, nil
	}
	spec, err := f.o.Policies.Lookup(v.Policy)
	if err != nil {
		return v, f.err(path+".policy", "%v", err)
	}
	for _, k := range keys {
		if _, err := spec.Resolve(sched.Options{k: v.Options[k]}); err != nil {
			return v, f.err(path+".options."+k, "%v", err)
		}
	}
	if _, err := spec.Build(sched.Options(v.Options)); err != nil {
		// The option at fault, when it fails alone.
		for _, k := range keys {
			if _, kerr := spec.Build(sched.Options{k: v.Options[k]}); kerr != nil {
				return v, f.err(path+".options."+k, "variant %s: %v", v.Name, kerr)
			}
		}
		return v, f.err(path+".options", "variant %s: %v", v.Name, err)
	}
	return v, nil
}

// engine reads "engine": a name, or a mapping (name, batsim, image,
// batsim_flags; name defaults to batsim when one of the others is given).
func (f *planFile) engine(n ast.Node) (*EngineSpec, error) {
	e := &EngineSpec{}
	if _, ok := f.unwrap(n).(ast.MapNode); ok {
		rf, err := f.fields("engine", n, engineKeys)
		if err != nil {
			return nil, err
		}
		texts := map[string]*string{"name": &e.Name, "batsim": &e.Batsim, "image": &e.Image}
		for _, it := range rf.items {
			at := "engine." + it.key
			if dst, ok := texts[it.key]; ok {
				*dst, err = f.optText(at, it.node)
			} else if !f.isNull(it.node) {
				e.BatsimFlags, err = f.list(at, it.node)
			}
			if err != nil {
				return nil, err
			}
		}
		if e.Name == "" && (e.Batsim != "" || e.Image != "" || len(e.BatsimFlags) > 0) {
			e.Name = "batsim"
		}
		if e.Name == "" {
			return nil, f.err("engine", "no engine: give name: embedded, or name: batsim with batsim: EXECUTABLE or image: DOCKER-IMAGE")
		}
	} else {
		s, err := f.text("engine", n)
		if err != nil {
			return nil, err
		}
		e.Name = s
	}
	switch e.Name {
	case "embedded":
		if e.Batsim != "" || e.Image != "" || len(e.BatsimFlags) > 0 {
			return nil, f.err("engine", "batsim, image and batsim_flags are for the batsim engine")
		}
	case "batsim":
		if e.Batsim != "" && e.Image != "" {
			return nil, f.err("engine.image", "give batsim (an executable) or image (a Docker image), not both")
		}
		if strings.ContainsRune(e.Batsim, filepath.Separator) {
			e.Batsim = f.abs(e.Batsim)
			if _, err := os.Stat(e.Batsim); err != nil {
				return nil, f.err("engine.batsim", "%s: %v", e.Batsim, withoutPath(err))
			}
		}
	default:
		return nil, f.err("engine", "unknown engine %q (valid: embedded, batsim)", e.Name)
	}
	return e, nil
}
