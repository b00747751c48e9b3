package expe

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/bucma-sched/bucma/workloads"
	"github.com/bucma-sched/bucma/workloads/gen"
	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// How a plan file's YAML is read. The YAML library parses the text into a
// tree; everything else is done here, on the tree: aliases are followed,
// keys checked in the order the file gives them, values read as the key
// wants them. The limits below are checked before the library's parser
// runs, so that no input makes it use unbounded memory or time.

// Limits of a plan file (docs/campaigns.md).
const (
	// MaxPlanFileBytes bounds a plan file's size: a plan of 20 000 cases
	// written one a line takes about 0.6 MB.
	MaxPlanFileBytes = 4 << 20
	// maxPlanTokens bounds the YAML tokens of a plan file (counted from
	// above, see yamlTokenBound): the YAML library holds about 200 bytes a
	// token.
	maxPlanTokens = 500000
	// maxPlanDepth bounds the nesting of a plan file's collections (a
	// plan nests four or five levels deep).
	maxPlanDepth = 32
)

// utf8BOM is the byte order mark some editors write at the start of a
// UTF-8 file.
var utf8BOM = []byte("\xef\xbb\xbf")

// readBounded reads the file at path, what of a plan file, if it holds at
// most max bytes.
func readBounded(path, what string, max int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > max {
		return nil, fmt.Errorf("more than %d bytes: %s is at most %d MB", max, what, max>>20)
	}
	return data, nil
}

// yamlIndicators are the characters that make a YAML token of their own.
const yamlIndicators = "[]{},:-?!&*|>'\"#%@`"

// yamlTokenBound is an upper bound of the number of tokens the YAML lexer
// makes of data: one per indicator character, per run of other non-blank
// characters and per line.
func yamlTokenBound(data []byte) int {
	n, word := 1, false
	for _, c := range data {
		switch {
		case c == '\n':
			n++
			word = false
		case c == ' ' || c == '\t' || c == '\r':
			word = false
		case strings.IndexByte(yamlIndicators, c) >= 0:
			n++
			word = false
		case !word:
			n++
			word = true
		}
	}
	return n
}

// parseYAML parses a plan file's text into its one document's root node,
// after checking its size, its tokens (no tag, flow collections nested at
// most maxPlanDepth deep) and with the YAML library's panics turned into
// errors.
func (f *planFile) parseYAML(data []byte) (root ast.Node, err error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	if len(data) > MaxPlanFileBytes {
		return nil, f.fileErr(0, "%d bytes: a plan file is at most %d MB", len(data), MaxPlanFileBytes>>20)
	}
	if n := yamlTokenBound(data); n > maxPlanTokens {
		return nil, f.fileErr(0, "too large: up to %d YAML tokens, more than the %d a plan file may have", n, maxPlanTokens)
	}
	defer func() {
		if r := recover(); r != nil {
			root, err = nil, f.fileErr(0, "not valid YAML (the YAML reader failed: %v)", r)
		}
	}()
	tokens := lexer.Tokenize(string(data))
	depth := 0
	for _, tk := range tokens {
		switch tk.Type {
		case token.TagType:
			return nil, f.fileErr(tk.Position.Line, "YAML tag %s: a plan file takes no tags (write the value plainly)", tk.Value)
		case token.SequenceStartType, token.MappingStartType:
			if depth++; depth > maxPlanDepth {
				return nil, f.fileErr(tk.Position.Line, "collections nested more than %d levels deep", maxPlanDepth)
			}
		case token.SequenceEndType, token.MappingEndType:
			depth--
		}
	}
	file, err := parser.Parse(tokens, 0)
	if err != nil {
		return nil, f.yamlError(err)
	}
	if len(file.Docs) != 1 || file.Docs[0].Body == nil {
		return nil, f.fileErr(0, "want one YAML document (a mapping of the plan's keys), found %d", len(file.Docs))
	}
	return file.Docs[0].Body, nil
}

// fileErr is an error at a line of the file (0: the whole file).
func (f *planFile) fileErr(line int, format string, args ...any) error {
	return &PlanFileError{File: f.o.Name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// yamlError turns the YAML library's errors into a PlanFileError.
func (f *planFile) yamlError(err error) error {
	var ye yaml.Error
	if !errors.As(err, &ye) {
		return f.fileErr(0, "%v", err)
	}
	line := 0
	if tk := ye.GetToken(); tk != nil {
		line = tk.Position.Line
	}
	return f.fileErr(line, "not valid YAML: %s", ye.GetMessage())
}

// index walks the tree once, in the file's order: it records the line of
// every key and list item (f.lines), resolves each alias to the node of
// the anchor before it (f.aliases; an anchor's own value cannot refer to
// it, so the tree stays without cycles) and refuses nesting deeper than
// maxPlanDepth. Aliases are not followed here: each node is visited once.
func (f *planFile) index(n ast.Node, path string, depth int) error {
	if depth > maxPlanDepth {
		return f.fileErr(nodeLine(n), "collections nested more than %d levels deep", maxPlanDepth)
	}
	switch x := n.(type) {
	case *ast.AnchorNode:
		if err := f.index(x.Value, path, depth); err != nil {
			return err
		}
		f.anchors[x.Name.GetToken().Value] = x.Value
	case *ast.AliasNode:
		name := x.Value.GetToken().Value
		target, ok := f.anchors[name]
		if !ok {
			return f.fileErr(nodeLine(x), "alias *%s: no anchor &%s before it", name, name)
		}
		f.aliases[x] = target
	case *ast.TagNode:
		return f.index(x.Value, path, depth)
	case ast.MapNode:
		it := x.MapRange()
		for it.Next() {
			if err := f.index(it.Key(), path, depth+1); err != nil {
				return err
			}
			p := joinPath(path, it.Key().GetToken().Value)
			if _, seen := f.lines[p]; !seen {
				f.lines[p] = nodeLine(it.Key())
			}
			if err := f.index(it.Value(), p, depth+1); err != nil {
				return err
			}
		}
	case *ast.SequenceNode:
		for i, v := range x.Values {
			p := fmt.Sprintf("%s[%d]", path, i)
			f.lines[p] = nodeLine(v)
			if err := f.index(v, p, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// unwrap returns the node an anchor, a tag or an alias stands for.
func (f *planFile) unwrap(n ast.Node) ast.Node {
	for {
		switch x := n.(type) {
		case *ast.AnchorNode:
			n = x.Value
		case *ast.TagNode:
			n = x.Value
		case *ast.AliasNode:
			n = f.aliases[x]
		default:
			return n
		}
	}
}

// nodeWhat says what a node holds, for messages.
func (f *planFile) nodeWhat(n ast.Node) string {
	switch x := f.unwrap(n).(type) {
	case *ast.SequenceNode:
		return "a list"
	case ast.MapNode:
		return "a mapping"
	case *ast.NullNode, nil:
		return "nothing"
	default:
		return fmt.Sprintf("%q", strings.TrimSpace(x.String()))
	}
}

// rawFields is a mapping's items in the file's order (its merged
// mappings' items where the merge key "<<" stands).
type rawFields struct {
	node  ast.Node
	items []rawField
}

type rawField struct {
	key  string
	node ast.Node
}

func (rf rawFields) has(key string) bool {
	return slices.ContainsFunc(rf.items, func(it rawField) bool { return it.key == key })
}

// fields reads the mapping at path. valid, when not nil, are the keys it
// may hold: the first other key, in the file's order, is an error listing
// them.
func (f *planFile) fields(path string, n ast.Node, valid []string) (rawFields, error) {
	items, err := f.mapItems(path, n)
	if err != nil {
		return rawFields{}, err
	}
	if valid != nil {
		for _, it := range items {
			if !slices.Contains(valid, it.key) {
				return rawFields{}, f.err(joinPath(path, it.key), "unknown key (valid: %s)", strings.Join(valid, ", "))
			}
		}
	}
	return rawFields{node: n, items: items}, nil
}

// mapItems lists the items of the mapping at path, merges ("<<: *base")
// included: a key given in the mapping itself wins over a merged one, a
// mapping merged first over one merged later. The items of a merged
// mapping are read once, however often it is merged.
func (f *planFile) mapItems(path string, n ast.Node) ([]rawField, error) {
	m, ok := f.unwrap(n).(ast.MapNode)
	if !ok {
		return nil, f.err(path, "want a mapping of keys to values, got %s", f.nodeWhat(n))
	}
	if items, done := f.merged[m]; done {
		return items, nil
	}
	own := map[string]bool{}
	it := m.MapRange()
	for it.Next() {
		if !it.Key().IsMergeKey() {
			k, err := f.keyText(path, it.Key())
			if err != nil {
				return nil, err
			}
			own[k] = true
		}
	}
	var items []rawField
	have := map[string]bool{}
	it = m.MapRange()
	for it.Next() {
		if !it.Key().IsMergeKey() {
			k, _ := f.keyText(path, it.Key())
			items = append(items, rawField{k, it.Value()})
			have[k] = true
			continue
		}
		sources := []ast.Node{it.Value()}
		if seq, isList := f.unwrap(it.Value()).(*ast.SequenceNode); isList {
			sources = seq.Values
		}
		for _, src := range sources {
			merged, err := f.mapItems(joinPath(path, "<<"), src)
			if err != nil {
				return nil, err
			}
			for _, x := range merged {
				if !own[x.key] && !have[x.key] {
					items = append(items, x)
					have[x.key] = true
				}
			}
		}
	}
	f.merged[m] = items
	return items, nil
}

// keyText is a mapping key's text; keys are plain scalars.
func (f *planFile) keyText(path string, k ast.Node) (string, error) {
	switch x := f.unwrap(k).(type) {
	case *ast.StringNode, *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		return x.GetToken().Value, nil
	}
	return "", f.fileErr(nodeLine(k), "%s: a key must be a plain name, not %s", strings.TrimSpace(k.String()), f.nodeWhat(k))
}

// rawPlan is the file's top level, read (readPlan) but not yet checked;
// recipes, cases, seeds, loads, options and the engine are kept as nodes
// or items, read later.
type rawPlan struct {
	Name, Study, Title, Description, Platform, Baseline string
	Platforms                                           []string
	Workload                                            *rawFields
	Workloads, Cases                                    []rawFields
	Variants                                            []rawVariant
	Seeds, Loads, Engine                                ast.Node // nil when not given
	Report                                              *ReportSpec
	Quick                                               *QuickSpec
	Shake                                               *ShakeSpec
}

type rawVariant struct {
	Name, Policy, Base, Model string
	Options                   ast.Node
}

// readPlan reads the top level of the file: each key as its value is
// written.
func (f *planFile) readPlan(root ast.Node) (rawPlan, error) {
	var raw rawPlan
	if _, ok := f.unwrap(root).(ast.MapNode); !ok {
		return raw, f.fileErr(nodeLine(root), "want a mapping of the plan's keys (%s)", strings.Join(planKeys, ", "))
	}
	top, err := f.fields("", root, planKeys)
	if err != nil {
		return raw, err
	}
	texts := map[string]*string{"name": &raw.Name, "study": &raw.Study, "title": &raw.Title, "description": &raw.Description,
		"platform": &raw.Platform, "baseline": &raw.Baseline}
	for _, it := range top.items {
		at := it.key
		if dst, ok := texts[at]; ok {
			if *dst, err = f.optText(at, it.node); err != nil {
				return raw, err
			}
			continue
		}
		if f.isNull(it.node) {
			continue // "key:" with no value: as if not given
		}
		switch at {
		case "platforms":
			raw.Platforms, err = f.list(at, it.node)
		case "workload":
			var rf rawFields
			rf, err = f.fields(at, it.node, nil)
			raw.Workload = &rf
		case "workloads":
			raw.Workloads, err = f.fieldsList(at, it.node)
		case "cases":
			raw.Cases, err = f.fieldsList(at, it.node)
		case "variants":
			raw.Variants, err = f.variants(at, it.node)
		case "seeds":
			raw.Seeds = it.node
		case "loads":
			raw.Loads = it.node
		case "engine":
			raw.Engine = it.node
		case "report":
			raw.Report, err = f.report(at, it.node)
		case "quick":
			raw.Quick, err = f.quick(at, it.node)
		case "shake":
			raw.Shake, err = f.shake(at, it.node)
		}
		if err != nil {
			return raw, err
		}
	}
	return raw, nil
}

func (f *planFile) isNull(n ast.Node) bool {
	_, null := f.unwrap(n).(*ast.NullNode)
	return null
}

// optText reads a text that may be left empty ("key:").
func (f *planFile) optText(at string, n ast.Node) (string, error) {
	if f.isNull(n) {
		return "", nil
	}
	return f.text(at, n)
}

// seq reads a list (a single value is not one).
func (f *planFile) seq(at string, n ast.Node) ([]ast.Node, error) {
	s, ok := f.unwrap(n).(*ast.SequenceNode)
	if !ok {
		return nil, f.err(at, "want a list, got %s", f.nodeWhat(n))
	}
	return s.Values, nil
}

// fieldsList reads a list of mappings.
func (f *planFile) fieldsList(at string, n ast.Node) ([]rawFields, error) {
	vs, err := f.seq(at, n)
	if err != nil {
		return nil, err
	}
	out := make([]rawFields, len(vs))
	for i, v := range vs {
		if out[i], err = f.fields(fmt.Sprintf("%s[%d]", at, i), v, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// variants reads the list of variants.
func (f *planFile) variants(at string, n ast.Node) ([]rawVariant, error) {
	vs, err := f.seq(at, n)
	if err != nil {
		return nil, err
	}
	out := make([]rawVariant, len(vs))
	for i, v := range vs {
		path := fmt.Sprintf("%s[%d]", at, i)
		rf, err := f.fields(path, v, variantKeys)
		if err != nil {
			return nil, err
		}
		texts := map[string]*string{"name": &out[i].Name, "policy": &out[i].Policy, "base": &out[i].Base, "model": &out[i].Model}
		for _, it := range rf.items {
			if dst, ok := texts[it.key]; ok {
				if *dst, err = f.optText(path+"."+it.key, it.node); err != nil {
					return nil, err
				}
			} else {
				out[i].Options = it.node
			}
		}
	}
	return out, nil
}

// report reads "report".
func (f *planFile) report(at string, n ast.Node) (*ReportSpec, error) {
	rf, err := f.fields(at, n, reportKeys)
	if err != nil {
		return nil, err
	}
	r := &ReportSpec{}
	lists := map[string]*[]string{"metrics": &r.Metrics, "breakdowns": &r.Breakdowns, "cdf": &r.CDF}
	for _, it := range rf.items {
		k := at + "." + it.key
		switch {
		case f.isNull(it.node):
			// Not given: the default.
		case it.key == "gantt":
			r.Gantt, err = f.boolean(k, it.node)
		default:
			*lists[it.key], err = f.list(k, it.node)
		}
		if err != nil {
			return nil, err
		}
	}
	return r, nil
}

// quick reads "quick".
func (f *planFile) quick(at string, n ast.Node) (*QuickSpec, error) {
	rf, err := f.fields(at, n, quickKeys)
	if err != nil {
		return nil, err
	}
	q := &QuickSpec{}
	for _, it := range rf.items {
		k := at + "." + it.key
		if f.isNull(it.node) {
			continue
		}
		x, err := f.number(k, it.node, gen.Int)
		if err != nil {
			return nil, err
		}
		limit := map[string]int{"seeds": MaxRuns, "jobs": gen.MaxJobs}[it.key]
		if x < 1 || x > float64(limit) {
			return nil, f.err(k, "%g: must be in 1..%d (or left out)", x, limit)
		}
		if it.key == "seeds" {
			q.Seeds = int(x)
		} else {
			q.Jobs = int(x)
		}
	}
	return q, nil
}

// shake reads "shake": submit (a duration), runtime (a duration or a
// percentage) and copies.
func (f *planFile) shake(at string, n ast.Node) (*ShakeSpec, error) {
	rf, err := f.fields(at, n, shakeKeys)
	if err != nil {
		return nil, err
	}
	sh := &ShakeSpec{}
	for _, it := range rf.items {
		k := at + "." + it.key
		switch it.key {
		case "copies":
			x, err := f.number(k, it.node, gen.Int)
			if err != nil {
				return nil, err
			}
			if x < 1 || x > MaxRuns {
				return nil, f.err(k, "%g: the number of copies must be in 1..%d", x, MaxRuns)
			}
			sh.Copies = int(x)
		case "submit":
			x, pct, err := f.shakeAmount(k, it.node)
			if err != nil {
				return nil, err
			}
			if pct {
				return nil, f.err(k, "a percentage of a submission time means nothing: give a duration (30s, 2min, 1h)")
			}
			sh.Submit = x
		case "runtime":
			x, pct, err := f.shakeAmount(k, it.node)
			if err != nil {
				return nil, err
			}
			if pct {
				if x >= 100 {
					return nil, f.err(k, "%g %%: a run time changes by less than 100 %%", x)
				}
				sh.RuntimePercent = x
			} else {
				sh.RuntimeSeconds = x
			}
		}
	}
	switch {
	case !rf.has("copies"):
		return nil, f.err(at, "no copies: say how many shaken copies of each workload to run (e.g. copies: 10)")
	case sh.Submit == 0 && sh.RuntimePercent == 0 && sh.RuntimeSeconds == 0:
		return nil, f.err(at, "submit and runtime are 0 or left out: every copy would be the workload itself (e.g. submit: 30s, runtime: 5%%)")
	}
	return sh, nil
}

// shakeUnits are the units of a duration of "shake", in seconds.
var shakeUnits = map[string]float64{"": 1, "s": 1, "min": 60, "h": 3600, "d": 86400}

// shakeAmount reads a bound of "shake": a number of seconds, a duration
// with its unit (30s, 2min, 1.5h, 1d) or a percentage (5%), in [0,
// MaxShakeSeconds] s or at least 0 %.
func (f *planFile) shakeAmount(at string, n ast.Node) (x float64, pct bool, err error) {
	want := "want a duration (30s, 2min, 1h, 1d, or a number of seconds) or, for runtime, a percentage (5%)"
	switch v := f.unwrap(n).(type) {
	case *ast.IntegerNode, *ast.FloatNode:
		if x, err = f.number(at, v, gen.Float); err != nil {
			return 0, false, err
		}
	case *ast.StringNode:
		s := strings.TrimSpace(v.Value)
		num := strings.TrimRight(s, "abcdefghijklmnopqrstuvwxyz%")
		unit := strings.TrimSpace(s[len(num):])
		num = strings.TrimSpace(num)
		x, err = strconv.ParseFloat(num, 64)
		scale, known := shakeUnits[unit]
		switch {
		case err != nil || num == "":
			return 0, false, f.err(at, "%q: %s", v.Value, want)
		case unit == "%":
			pct, scale = true, 1
		case !known:
			return 0, false, f.err(at, "%q: unknown unit %q (valid: s, min, h, d, %%)", v.Value, unit)
		}
		x *= scale
	default:
		return 0, false, f.err(at, "%s, got %s", want, f.nodeWhat(n))
	}
	switch {
	case math.IsNaN(x) || x < 0:
		return 0, false, f.err(at, "%g: must be at least 0", x)
	case !pct && x > workloads.MaxShakeSeconds:
		return 0, false, f.err(at, "%g s: at most %g s", x, float64(workloads.MaxShakeSeconds))
	}
	return x, pct, nil
}

// boolean reads true or false.
func (f *planFile) boolean(at string, n ast.Node) (bool, error) {
	b, ok := f.unwrap(n).(*ast.BoolNode)
	if !ok {
		return false, f.err(at, "want true or false, got %s", f.nodeWhat(n))
	}
	return b.Value, nil
}

func nodeLine(n ast.Node) int {
	if n == nil || n.GetToken() == nil {
		return 0
	}
	return n.GetToken().Position.Line
}
