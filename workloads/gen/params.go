package gen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Fields are the keys of a workload recipe or case other than its fixed
// ones, in the order the plan gives them: generator parameters ("load",
// "runtime_scale", "demand" ...), and for a case its platform, factor and
// level. plan.json writes them in that order, flat beside the fixed keys.
// A value is a string, a float64 (integers included), a bool or, for
// "steps", a []string.
type Fields []Field

// Field is one key and its value.
type Field struct {
	Key   string
	Value any
}

// Get returns the value of key.
func (f Fields) Get(key string) (any, bool) {
	for _, x := range f {
		if x.Key == key {
			return x.Value, true
		}
	}
	return nil, false
}

// Has reports whether key is given.
func (f Fields) Has(key string) bool {
	_, ok := f.Get(key)
	return ok
}

// String is the value of key as text ("" when absent; numbers in the
// shortest decimal form that reads back the same, without exponent).
func (f Fields) String(key string) string {
	v, _ := f.Get(key)
	return valueText(v)
}

// Float is the value of key as a number (0 when absent or not a number).
func (f Fields) Float(key string) float64 {
	v, _ := f.Get(key)
	x, _ := v.(float64)
	return x
}

// Set gives key a value: in place when key is there, else at the end.
func (f *Fields) Set(key string, v any) {
	for i := range *f {
		if (*f)[i].Key == key {
			(*f)[i].Value = v
			return
		}
	}
	*f = append(*f, Field{key, v})
}

// Delete removes key.
func (f *Fields) Delete(key string) {
	*f = slices.DeleteFunc(*f, func(x Field) bool { return x.Key == key })
}

// Clone copies the fields.
func (f Fields) Clone() Fields {
	out := make(Fields, len(f))
	for i, x := range f {
		if s, ok := x.Value.([]string); ok {
			x.Value = slices.Clone(s)
		}
		out[i] = x
	}
	return out
}

// valueText prints a field value.
func valueText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return numberText(x)
	case bool:
		return strconv.FormatBool(x)
	case []string:
		return strings.Join(x, ",")
	}
	return fmt.Sprint(v)
}

// AppendJSON writes the fields as members of a JSON object under
// construction (each preceded by a comma).
func (f Fields) AppendJSON(b *bytes.Buffer) error {
	for _, x := range f {
		k, err := json.Marshal(x.Key)
		if err != nil {
			return err
		}
		v, err := marshalValue(x.Value)
		if err != nil {
			return fmt.Errorf("%s: %w", x.Key, err)
		}
		b.WriteByte(',')
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	return nil
}

// numberText prints a number in the shortest decimal form that reads back
// the same, without exponent (a plan's load levels are printed alike).
func numberText(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

func marshalValue(v any) ([]byte, error) {
	if x, ok := v.(float64); ok {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%g is not a number JSON can hold", x)
		}
		return []byte(numberText(x)), nil
	}
	return json.Marshal(v)
}

// DecodeObject reads a JSON object in member order: fixed gets the members
// fixed names (decoded into the pointer it maps them to), the others are
// returned as fields.
func DecodeObject(data []byte, fixed map[string]any) (Fields, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("want a JSON object")
	}
	var out Fields
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		if dst, ok := fixed[key]; ok {
			if err := json.Unmarshal(raw, dst); err != nil {
				return nil, fmt.Errorf("%s: %w", key, err)
			}
			continue
		}
		v, err := jsonFieldValue(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		out = append(out, Field{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return out, nil
}

// jsonFieldValue decodes a field value: a string, number, bool or array of
// strings.
func jsonFieldValue(raw json.RawMessage) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case string, bool:
		return x, nil
	case json.Number:
		return x.Float64()
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("a list of text values holds %v", e)
			}
			out[i] = s
		}
		return out, nil
	}
	return nil, fmt.Errorf("want a text, number, true/false or list of texts value, got %s", raw)
}

// ParamType is the type of a generator parameter's value.
type ParamType int

// Parameter types.
const (
	String ParamType = iota
	Int
	Float
	Bool
	// Path is a file; in a plan file a relative path is relative to the
	// plan file's folder, and the file's SHA-256 is recorded beside it
	// (key NAME_sha256) and checked before every execution.
	Path
)

// String names the type as messages do ("integer").
func (t ParamType) String() string {
	return [...]string{"text", "integer", "number", "true/false", "file"}[t]
}

// Param declares one parameter of a workload generator or step: the plan
// files, their validation and "bucma workload" (its flag --NAME with '_'
// as '-') all read this declaration.
type Param struct {
	Name     string
	Type     ParamType
	Default  any // the value when not given: string, int, float64 or bool (nil: none)
	Required bool
	Usage    string
	Choices  []string          // the values a String parameter takes (nil: any)
	Check    func(v any) error // further check of a given value (int, float64, string or bool); nil: none
}

// Flag is the parameter's flag name in "bucma workload" ("runtime-scale").
func (p Param) Flag() string { return strings.ReplaceAll(p.Name, "_", "-") }

// Canon checks a value given for the parameter (a plan's string, float64
// or bool; a YAML scalar's text for a String) and returns it in the form
// plans keep: string, float64 or bool.
func (p Param) Canon(v any) (any, error) {
	switch p.Type {
	case String, Path:
		s, ok := v.(string)
		if !ok {
			if f, isNum := v.(float64); isNum && p.Type == String {
				s, ok = numberText(f), true
			}
		}
		if !ok || (p.Type == Path && s == "") {
			return nil, fmt.Errorf("%s: want %s, got %v", p.Name, p.Type.WithArticle(), v)
		}
		if len(p.Choices) > 0 && !slices.Contains(p.Choices, s) {
			return nil, fmt.Errorf("%s: %q is not one of %s", p.Name, s, strings.Join(p.Choices, ", "))
		}
		return s, p.check(s)
	case Int:
		f, ok := v.(float64)
		if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return nil, fmt.Errorf("%s: want an integer, got %v", p.Name, v)
		}
		return f, p.check(int(f))
	case Float:
		f, ok := v.(float64)
		if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%s: want a number, got %v", p.Name, v)
		}
		return f, p.check(f)
	case Bool:
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("%s: want true or false, got %v", p.Name, v)
		}
		return b, p.check(b)
	}
	return nil, fmt.Errorf("%s: unknown parameter type", p.Name)
}

func (p Param) check(v any) error {
	if p.Check == nil {
		return nil
	}
	if err := p.Check(v); err != nil {
		return fmt.Errorf("%s: %w", p.Name, err)
	}
	return nil
}

// WithArticle names the type with its article, as messages do ("an
// integer").
func (t ParamType) WithArticle() string {
	if t == Int {
		return "an integer"
	}
	return "a " + t.String()
}

// CheckParam checks a value of a parameter given outside a plan (a flag of
// "bucma workload"): an int, float64, string or bool.
func CheckParam(p Param, v any) error {
	if i, ok := v.(int); ok {
		v = float64(i)
	}
	_, err := p.Canon(v)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), p.Name+": "))
	}
	return nil
}

// Values are the parameters of a generator or step once checked, defaults
// filled in: by name, an int, float64, string or bool.
type Values map[string]any

// String is a text parameter ("" when absent).
func (v Values) String(name string) string { s, _ := v[name].(string); return s }

// Int is an integer parameter (0 when absent).
func (v Values) Int(name string) int {
	switch x := v[name].(type) {
	case int:
		return x
	case float64:
		return int(x)
	}
	return 0
}

// Float is a number parameter (0 when absent).
func (v Values) Float(name string) float64 {
	switch x := v[name].(type) {
	case int:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

// Bool is a true/false parameter.
func (v Values) Bool(name string) bool { b, _ := v[name].(bool); return b }

// ValuesOf checks the fields of a recipe against params and returns the
// values with defaults.
func ValuesOf(params []Param, f Fields) (Values, error) {
	out := Values{}
	for _, p := range params {
		raw, ok := f.Get(p.Name)
		if !ok {
			if p.Required {
				return nil, fmt.Errorf("%s: required (%s)", p.Name, p.Usage)
			}
			if p.Default != nil {
				out[p.Name] = p.Default
			}
			continue
		}
		v, err := p.Canon(raw)
		if err != nil {
			return nil, err
		}
		if p.Type == Int {
			v = int(v.(float64))
		}
		out[p.Name] = v
	}
	return out, nil
}

// Checks used by the declarations.

// AtLeast refuses numbers below lo.
func AtLeast(lo float64) func(any) error {
	return func(v any) error {
		if x := toFloat(v); !(x >= lo) {
			return fmt.Errorf("%v: must be at least %g", v, lo)
		}
		return nil
	}
}

// Above refuses numbers not above lo.
func Above(lo float64) func(any) error {
	return func(v any) error {
		if x := toFloat(v); !(x > lo) {
			return fmt.Errorf("%v: must be > %g", v, lo)
		}
		return nil
	}
}

// Within refuses numbers outside (lo, hi] (lo excluded when open) or
// [lo, hi].
func Within(lo, hi float64, open bool) func(any) error {
	return func(v any) error {
		x := toFloat(v)
		if x > hi || x < lo || open && x == lo || math.IsNaN(x) {
			b := "["
			if open {
				b = "("
			}
			return fmt.Errorf("%v: must be in %s%g, %g]", v, b, lo, hi)
		}
		return nil
	}
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case float64:
		return x
	}
	return math.NaN()
}

// ParamNames lists the names of params, sorted.
func ParamNames(ps []Param) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	sort.Strings(out)
	return out
}
