package expe

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/goccy/go-yaml/lexer"
)

// hostileBase is a valid plan file without seeds nor loads, which hostile
// inputs complete.
const hostileBase = "name: x\nplatform: lille\nworkload: {generator: lille, jobs: 50}\nvariants: [{name: a, policy: fcfs}]\n"

// shaken is hostileBase with its loads and seeds, and the key shake;
// shakenLublin the same on a workload of delay profiles.
const (
	shaken       = hostileBase + "loads: 0.5\nseeds: 1\nshake: "
	shakenLublin = "name: x\nplatform: lille\nworkload: {generator: lublin, jobs: 50}\nvariants: [{name: a, policy: fcfs}]\nloads: 0.5\nseeds: 1\nshake: "
)

// hostilePlans are plan files written to break the reader: each is
// refused with the file, the line and what is wrong, or read as meant.
// They are seeds of FuzzParsePlanFile too.
var hostilePlans = []struct {
	name, text string
	line       int    // the error's line (0: not checked)
	key, msg   string // the error's key and a part of its message ("": the file is read)
}{
	{"largest seed", hostileBase + "loads: 0.5\nseeds: \"18446744073709551615-18446744073709551615\"\n", 0, "", ""},
	{"range to the largest seed", hostileBase + "loads: 0.5\nseeds: \"18446744073709551614-18446744073709551615\"\n", 0, "", ""},
	{"seeds past 2^53 kept apart", hostileBase + "loads: 0.5\nseeds: [9007199254740993, 9007199254740992]\n", 0, "", ""},
	{"seed given twice past 2^53", hostileBase + "loads: 0.5\nseeds: [9007199254740993, 9007199254740993]\n", 6, "seeds[1]", "seed 9007199254740993 given twice"},
	{"seed past the largest", hostileBase + "loads: 0.5\nseeds: [18446744073709551616]\n", 6, "seeds[0]", "want a seed (an integer from 1 to 18446744073709551615)"},
	{"negative seed", hostileBase + "loads: 0.5\nseeds: [-3]\n", 6, "seeds[0]", "-3: seeds start at 1"},
	{"huge seed range", hostileBase + "loads: 0.5\nseeds: \"1-18446744073709551615\"\n", 6, "seeds", "more than 100000 seeds"},
	{"too many jobs", strings.Replace(hostileBase, "jobs: 50", "jobs: 100000000", 1) + "loads: 0.5\nseeds: 1\n", 3, "workload.jobs", "1e+08: at most 1000000 jobs"},
	{"too many quick jobs", hostileBase + "loads: 0.5\nseeds: 1\nquick: {jobs: 100000000}\n", 7, "quick.jobs", "must be in 1..1000000"},
	{"too many runs", hostileBase + "loads: [0.1, 0.2, 0.3]\nseeds: 1-40000\n", 0, "", "1 variants × 40000 seeds × 3 load levels: more than 100000 runs"},
	{"nested flow lists", hostileBase + "loads: 0.5\nseeds: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n", 6, "", "nested more than 32 levels deep"},
	{"unclosed flow lists", hostileBase + "loads: 0.5\nseeds: " + strings.Repeat("[", 20000) + "\n", 6, "", "nested more than 32 levels deep"},
	{"nested flow mappings", hostileBase + "loads: 0.5\nreport: " + strings.Repeat("{a: ", 20000) + "1" + strings.Repeat("}", 20000) + "\n", 6, "", "nested more than 32 levels deep"},
	{"nested block lists", hostileBase + "loads: 0.5\nseeds:\n" + indented(200, "- "), 39, "", "nested more than 32 levels deep"},
	{"binary tag", hostileBase + "loads: 0.5\nseeds: 1\nbaseline: !!binary aGVsbG8=\n", 7, "", "YAML tag !!binary: a plan file takes no tags"},
	{"binary tag on variants", "name: x\nplatform: lille\nworkload: {generator: lille}\nloads: 0.5\nvariants: !!binary aGVsbG8=\n", 5, "", "YAML tag !!binary"},
	{"local tag", hostileBase + "loads: !mine 0.5\n", 5, "", "YAML tag !mine"},
	{"alias to a scalar", "description: &l 0.5\n" + hostileBase + "loads: *l\nseeds: 1\n", 0, "", ""},
	{"alias to a list", hostileBase + "loads: &l [0.5, 0.7]\nseeds: 1\nquick: {seeds: 1}\n", 0, "", ""},
	{"alias to a mapping, merged", "name: x\nplatform: lille\nworkload: &w {generator: lille, jobs: 50}\nvariants: [{name: a, policy: fcfs}]\nloads: 0.5\nseeds: 1\ncases:\n  - {<<: *w, name: c1, jobs: 20}\n  - {<<: *w, name: c2}\n", 0, "", ""},
	{"alias to a variant", "name: x\nplatform: lille\nworkload: {generator: lille}\nloads: 0.5\nvariants: [&v {name: a, policy: fcfs}, *v]\n", 5, "variants[1].name", "variant a given twice"},
	{"alias before its anchor", hostileBase + "loads: *l\nseeds: &l 1\n", 5, "", "alias *l: no anchor &l before it"},
	{"alias in its own anchor", hostileBase + "loads: &l [*l]\n", 5, "", "alias *l: no anchor &l before it"},
	{"alias bomb", hostileBase + "loads: 0.5\nseeds: 1\nreport:\n  metrics: &a [x, x, x, x, x, x, x, x, x]\n  cdf: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n  breakdowns: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n",
		9, "report.cdf[0]", "want a text value, got a list"},
	{"alias bomb in options", hostileBase + "loads: 0.5\nseeds: 1\nbaseline: a\nengine: embedded\nquick: {seeds: 1}\nreport: {metrics: &a [x, x, x, x, x, x, x, x, x]}\ntitle: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n",
		11, "title", "want a text value, got a list"},
	{"merge bomb under unknown keys", "x0: &m0 {a: 1}\n" + merges(40, "x%d: &m%d {<<: [%s]}\n") + hostileBase, 1, "x0", "unknown key"},
	{"merge of a merge bomb", "name: x\nplatform: lille\nworkload: {generator: lille}\nloads: 0.5\nvariants:\n  - name: a\n    policy: fcfs\n    options: &m0 {hosts: fastest}\n" + merges(40, "  - {name: a%d, policy: fcfs, options: &m%d {<<: [%s]}}\n"),
		0, "", ""},
	{"platform spelled as its file", strings.Replace(hostileBase, "platform: lille", "platform: lille.xml", 1) + "loads: 0.5\nseeds: 1\n", 0, "", ""},
	{"platform spelled as its path in the sources", strings.Replace(hostileBase, "platform: lille", "platform: platforms/lille.xml", 1) + "loads: 0.5\nseeds: 1\n", 0, "", ""},
	{"one platform spelled twice", strings.Replace(hostileBase, "platform: lille", "platforms: [lille, lille.xml]", 1) + "loads: 0.5\nseeds: 1\n", 2, "platforms[1]", "lille.xml given twice"},
	{"byte order mark", "\ufeff" + hostileBase + "loads: 0.5\nseeds: 1\n", 0, "", ""},
	{"unknown keys: the first named", hostileBase + "loads: 0.5\nzzz: 1\naaa: 2\n", 6, "zzz", "unknown key (valid: name, study"},
	{"unknown key in a variant: the first", "name: x\nplatform: lille\nworkload: {generator: lille}\nloads: 0.5\nvariants: [{name: a, zz: 1, policy: fcfs, aa: 2}]\n", 5, "variants[0].zz", "unknown key (valid: name, policy, options, base, model)"},
	{"complex key", hostileBase + "loads: 0.5\n? [a, b]\n: c\n", 0, "", "not valid YAML"},
	{"bad option value", "name: x\nplatform: lille\nworkload: {generator: lille}\nloads: 0.5\nvariants: [{name: slow, policy: conservative, options: {rjms-delay: abc}}]\n",
		5, "variants[0].options.rjms-delay", `variant slow: scheduler conservative: rjms-delay "abc"`},
	{"engine without name", hostileBase + "loads: 0.5\nengine: {batsim: batsim, batsim_flags: [--verbosity=quiet]}\n", 0, "", ""},
	{"empty engine", hostileBase + "loads: 0.5\nengine: {}\n", 6, "engine", "no engine: give name: embedded, or name: batsim"},
	{"shake", shakenLublin + "{submit: 30s, runtime: 5%, copies: 10}\n", 0, "", ""},
	{"shake in seconds and units", shakenLublin + "{submit: 1.5h, runtime: 90, copies: 2}\n", 0, "", ""},
	{"shake block mapping", shakenLublin + "\n  submit: 2min\n  runtime: 1 d\n  copies: 3\n", 0, "", ""},
	{"shake negative", shaken + "{submit: -5s, copies: 10}\n", 7, "shake.submit", "-5: must be at least 0"},
	{"shake negative number", shaken + "{submit: 10, runtime: -1, copies: 10}\n", 7, "shake.runtime", "-1: must be at least 0"},
	{"shake NaN", shaken + "{submit: .nan, copies: 10}\n", 7, "shake.submit", `or, for runtime, a percentage (5%), got ".nan"`},
	{"shake NaN text", shaken + "{submit: 10, runtime: NaN%, copies: 10}\n", 7, "shake.runtime", "NaN: must be at least 0"},
	{"shake infinite", shaken + "{submit: .inf, copies: 10}\n", 7, "shake.submit", `got ".inf"`},
	{"shake huge", shaken + "{submit: 1e300d, copies: 10}\n", 7, "shake.submit", "at most 1e+07 s"},
	{"shake out of range", shaken + "{submit: 1e400s, copies: 10}\n", 7, "shake.submit", `"1e400s": want a duration`},
	{"shake bad unit", shaken + "{submit: 30 parsecs, copies: 10}\n", 7, "shake.submit", `unknown unit "parsecs" (valid: s, min, h, d, %)`},
	{"shake no number", shaken + "{submit: fast, copies: 10}\n", 7, "shake.submit", `"fast": want a duration`},
	{"shake list", shaken + "{submit: [1, 2], copies: 10}\n", 7, "shake.submit", "want a duration (30s, 2min, 1h, 1d, or a number of seconds) or, for runtime, a percentage (5%), got a list"},
	{"shake percentage of submit", shaken + "{submit: 5%, copies: 10}\n", 7, "shake.submit", "a percentage of a submission time means nothing"},
	{"shake runtime 100%", shaken + "{runtime: 100%, copies: 10}\n", 7, "shake.runtime", "100 %: a run time changes by less than 100 %"},
	{"shake copies 0", shaken + "{submit: 30s, copies: 0}\n", 7, "shake.copies", "0: the number of copies must be in 1..100000"},
	{"shake copies 10^9", shaken + "{submit: 30s, copies: 1000000000}\n", 7, "shake.copies", "1e+09: the number of copies must be in 1..100000"},
	{"shake copies not integral", shaken + "{submit: 30s, copies: 2.5}\n", 7, "shake.copies", "want an integer, got 2.5"},
	{"shake copies text", shaken + "{submit: 30s, copies: many}\n", 7, "shake.copies", "want an integer, got"},
	{"shake too many runs", hostileBase + "loads: [0.5, 0.6]\nseeds: 1000\nshake: {submit: 30s, copies: 100}\n", 7, "shake.copies",
		"100 copies: 1 variants × 1 cases × 2 load levels × 1000 seeds × 100 copies is more than 100000 runs"},
	{"shake without copies", shaken + "{submit: 30s}\n", 7, "shake", "no copies: say how many shaken copies"},
	{"shake of nothing", shaken + "{submit: 0s, runtime: 0%, copies: 3}\n", 7, "shake", "submit and runtime are 0 or left out"},
	{"shake unknown key", shaken + "{submit: 30s, copies: 3, walltime: 5%}\n", 7, "shake.walltime", "unknown key (valid: submit, runtime, copies)"},
	{"shake not a mapping", shaken + "10\n", 7, "shake", "want a mapping of keys to values, got"},
	{"shake run times of computations", shaken + "{submit: 30s, runtime: 5%, copies: 3}\n", 7, "shake.runtime", "the lille workload of workload has computation profiles, whose run times depend on the hosts"},
	{"shake submission times of computations", shaken + "{submit: 30s, runtime: 0%, copies: 3}\n", 0, "", ""},
	{"shake with a study", "study: bucma-model\n" + shaken + "{submit: 30s, copies: 3}\n", 8, "shake", "the report of study bucma-model does not read shaken copies"},
	{"too many tokens", hostileBase + "loads: 0.5\ndescription: \"" + strings.Repeat("a ", maxPlanTokens) + "\"\n", 0, "", "YAML tokens, more than the 500000 a plan file may have"},
	{"too large", hostileBase + "loads: 0.5\ndescription: \"" + strings.Repeat("a", MaxPlanFileBytes) + "\"\n", 0, "", "a plan file is at most 4 MB"},
}

// indented is n lines, each item one space deeper than the last.
func indented(n int, item string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(strings.Repeat(" ", i) + item + "\n")
	}
	return b.String()
}

// merges is n lines, line i (from 1) defining the anchor &mi as a mapping
// that merges the one before it, *m(i-1), nine times: followed naively,
// the last holds 9^n merges. format gets i, i and the merged list.
func merges(n int, format string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		m := fmt.Sprintf("*m%d", i-1)
		fmt.Fprintf(&b, format, i, i, strings.Repeat(m+", ", 8)+m)
	}
	return b.String()
}

// Each hostile plan file is refused with its line, key and a clear message
// (or read as meant), allocating a bounded amount of memory.
func TestHostilePlanFiles(t *testing.T) {
	dir := planDir(t)
	for _, c := range hostilePlans {
		t.Run(c.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			p, err := parseTestPlan(dir, c.text)
			runtime.ReadMemStats(&after)
			// The text itself is up to 5 MB, read in one string.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
				t.Errorf("allocated %d MB", alloc>>20)
			}
			if c.msg == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				checkHostilePlan(t, c.name, p)
				return
			}
			var pe *PlanFileError
			if !errors.As(err, &pe) {
				t.Fatalf("%v: not a PlanFileError", err)
			}
			if pe.File != "plan.yaml" || (c.line != 0 && pe.Line != c.line) || pe.Key != c.key || !strings.Contains(pe.Msg, c.msg) {
				t.Errorf("got %.300s (line %d, key %q), want line %d, key %q, %q", err, pe.Line, pe.Key, c.line, c.key, c.msg)
			}
		})
	}
}

// checkHostilePlan checks what the hostile plans that are read hold.
func checkHostilePlan(t *testing.T, name string, p Plan) {
	t.Helper()
	switch name {
	case "largest seed":
		if len(p.Seeds) != 1 || p.Seeds[0] != 18446744073709551615 {
			t.Errorf("seeds %v", p.Seeds)
		}
	case "range to the largest seed":
		if len(p.Seeds) != 2 || p.Seeds[1] != 18446744073709551615 {
			t.Errorf("seeds %v", p.Seeds)
		}
	case "seeds past 2^53 kept apart":
		if len(p.Seeds) != 2 || p.Seeds[0] != 1<<53+1 || p.Seeds[1] != 1<<53 {
			t.Errorf("seeds %v", p.Seeds)
		}
	case "alias to a scalar":
		if len(p.Loads) != 1 || p.Loads[0] != 0.5 || p.Description != "0.5" {
			t.Errorf("loads %v, description %q", p.Loads, p.Description)
		}
	case "alias to a list":
		if len(p.Loads) != 2 || p.Loads[1] != 0.7 {
			t.Errorf("loads %v", p.Loads)
		}
	case "alias to a mapping, merged":
		if r := p.Recipe("c1"); r.Generator != "lille" || r.Jobs != 20 {
			t.Errorf("c1: %+v", r)
		}
		if r := p.Recipe("c2"); r.Generator != "lille" || r.Jobs != 50 {
			t.Errorf("c2: %+v", r)
		}
	case "merge of a merge bomb":
		if len(p.Variants) != 41 || p.Variants[40].Options["hosts"] != "fastest" {
			t.Errorf("variants %d: %v", len(p.Variants), p.Variants[len(p.Variants)-1])
		}
	case "platform spelled as its file", "platform spelled as its path in the sources":
		if p.Platform != "lille" {
			t.Errorf("platform %q, want lille", p.Platform)
		}
	case "shake":
		if p.Shake == nil || *p.Shake != (ShakeSpec{Submit: 30, RuntimePercent: 5, Copies: 10}) || len(p.Expand()) != 10 || p.Expand()[9].ID != "a_s001_l0.5_c010" {
			t.Errorf("shake %+v, runs %v", p.Shake, p.Expand())
		}
	case "shake in seconds and units":
		if p.Shake == nil || *p.Shake != (ShakeSpec{Submit: 5400, RuntimeSeconds: 90, Copies: 2}) {
			t.Errorf("shake %+v", p.Shake)
		}
	case "shake block mapping":
		if p.Shake == nil || *p.Shake != (ShakeSpec{Submit: 120, RuntimeSeconds: 86400, Copies: 3}) {
			t.Errorf("shake %+v", p.Shake)
		}
	case "engine without name":
		if p.Engine == nil || p.Engine.Name != "batsim" || p.Engine.Batsim != "batsim" {
			t.Errorf("engine %+v", p.Engine)
		}
	}
}

// yamlTokenBound bounds the tokens of the YAML lexer from above, so that
// refusing a file on it bounds the lexer's memory.
func TestYAMLTokenBound(t *testing.T) {
	texts := []string{"", "a", goodPlan, "- - - [a, {b: c}]\n", "? x\n: y\n", "a: |\n  text [\n  more\n", "a: 'b''c' # d\n", "---\n...\n---\n"}
	for _, c := range hostilePlans {
		if len(c.text) < 1<<20 {
			texts = append(texts, c.text)
		}
	}
	for _, s := range texts {
		if got, bound := len(lexer.Tokenize(s)), yamlTokenBound([]byte(s)); got > bound {
			t.Errorf("%.60q: %d tokens, bound %d", s, got, bound)
		}
	}
}

// A plan file is read up to MaxPlanFileBytes: an endless file is refused.
func TestLoadPlanFileBounded(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := LoadPlanFile("/dev/zero", PlanFileOptions{Name: "zero.yaml"})
	if err == nil || !strings.Contains(err.Error(), "zero.yaml: cannot read it: more than 4194304 bytes") {
		t.Errorf("got %v", err)
	}
	path := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(path, []byte("\ufeff"+hostileBase+"loads: 0.5\nseeds: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadPlanFile(path, PlanFileOptions{}); err != nil {
		t.Errorf("with a byte order mark: %v", err)
	}
}

// BenchmarkParsePlanFile20000Cases reads and checks a plan file of 20 000
// workload cases, one a line (docs/campaigns.md, "Limits").
func BenchmarkParsePlanFile20000Cases(b *testing.B) {
	var text strings.Builder
	text.WriteString(hostileBase + "loads: 0.5\nseeds: 1\ncases:\n")
	for i := range 20000 {
		fmt.Fprintf(&text, "  - {name: c%d, jobs: %d}\n", i, 10+i%50)
	}
	data := []byte(text.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParsePlanFile(data, PlanFileOptions{Name: "plan.yaml"}); err != nil {
			b.Fatal(err)
		}
	}
}
