package policies

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/sched"
)

// BatschedVariant is one of batsched's scheduling variants (the name its
// -v/--variant flag takes) and the built-in policy, with the options, that
// takes the same decisions through Batsim.
type BatschedVariant struct {
	// Name is batsched's variant name.
	Name string
	// Policy is the built-in policy that decides as the variant.
	Policy string
	// Options are the policy's options that make it decide as the
	// variant.
	Options sched.Options
	// Proven names the test that compares the twin with batsched through
	// the real Batsim.
	Proven string
	// Flags says how the twin takes batsched's command-line flags, by long
	// name: queue_order (-o), policy (-p), rjms_delay (-d) and
	// call_make_decisions_on_single_nop. A flag not listed is accepted at
	// batsched's default value only (BatschedFlagDefaults): any other is
	// refused, the twin reproducing the variant at that value alone.
	Flags map[string]BatschedParam
	// VariantOptions says how the twin takes the keys of batsched's
	// --variant_options JSON object that the variant reads. A key not
	// listed is one the variant does not read: batsched ignores it, and so
	// does the twin (with a warning).
	VariantOptions map[string]BatschedParam
}

// BatschedParam is how a twin takes one of batsched's flags or one key of
// its --variant_options object.
type BatschedParam struct {
	// Option is the policy option that takes the value; "" when none does.
	Option string
	// Values translates batsched's values into the option's; nil passes
	// them as they are.
	Values map[string]string
	// Only, when Option is "", is the one value accepted: batsched's
	// default, which the twin reproduces; "" accepts any value (it
	// changes none of the variant's decisions).
	Only string
	// Kind is the JSON type batsched requires of a variant option: "int",
	// "number", "bool" or "" (any).
	Kind string
	// Required: batsched aborts when the variant option is absent.
	Required bool
}

// BatschedFlagDefaults are batsched 1.4.0's defaults of the flags a twin
// may take (BatschedVariant.Flags), as text.
var BatschedFlagDefaults = map[string]string{
	"queue_order":                       "fcfs",
	"policy":                            "basic",
	"rjms_delay":                        "5",
	"call_make_decisions_on_single_nop": "1",
}

// ignored is a flag or key that changes none of a variant's decisions.
var ignored = BatschedParam{}

// basicVariants are batsched's variants that the basic policies reproduce.
var basicVariants = []BatschedVariant{
	{Name: "fcfs_fast", Policy: "fcfs", Options: sched.Options{"hosts": "first-fit"}, Proven: "internal/realbatsim TestPoliciesMatchBatsched",
		// fcfs_fast keeps its own list in arrival order and takes the
		// lowest free hosts, whatever -o and -p say; it never asks to be
		// called later.
		Flags: map[string]BatschedParam{"queue_order": ignored, "policy": ignored, "rjms_delay": ignored, "call_make_decisions_on_single_nop": ignored}},
	{Name: "easy_bf", Policy: "easy", Options: sched.Options{"hosts": "first-fit", "backfill": "batsched", "no-walltime": "reject"}, Proven: "internal/realbatsim TestPoliciesMatchBatsched",
		// The RJMS delay shifts every expected end alike (see
		// basic.BatschedEASY); easy_bf never asks to be called later.
		Flags: map[string]BatschedParam{"rjms_delay": ignored, "call_make_decisions_on_single_nop": ignored}},
}

// BatschedVariants lists batsched's variants that a built-in policy
// reproduces, in batsched's order of names.
func BatschedVariants() []BatschedVariant {
	all := slices.Concat(basicVariants, conservativeVariants, energyVariants, simpleVariants)
	slices.SortFunc(all, func(a, b BatschedVariant) int { return strings.Compare(a.Name, b.Name) })
	return all
}

// OptionArgs are the twin's options as command-line arguments, sorted by
// name: " -o hosts=first-fit -o queue=batsched" ("" for none).
func (v BatschedVariant) OptionArgs() string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(v.Options)) {
		fmt.Fprintf(&b, " -o %s=%s", k, v.Options[k])
	}
	return b.String()
}

// Takes lists what the twin takes from batsched's command line: its short
// flags (-o, -p, -d) and long ones, then its variant options, each passed
// to an option of the policy.
func (v BatschedVariant) Takes() []string {
	short := map[string]string{"queue_order": "-o", "policy": "-p", "rjms_delay": "-d"}
	var out []string
	for _, f := range slices.Sorted(maps.Keys(v.Flags)) {
		if v.Flags[f].Option != "" {
			if s, ok := short[f]; ok {
				out = append(out, s)
			} else {
				out = append(out, "--"+f)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(v.VariantOptions)) {
		if v.VariantOptions[k].Option != "" {
			out = append(out, k)
		}
	}
	return out
}

// BatschedVariantByName returns the variant name of BatschedVariants.
func BatschedVariantByName(name string) (BatschedVariant, bool) {
	for _, v := range BatschedVariants() {
		if v.Name == name {
			return v, true
		}
	}
	return BatschedVariant{}, false
}

// Resolve gives the options of the twin that decides as the variant run
// with batsched's flags (by long name, values as batsched takes them; a
// flag absent is at its default) and --variant_options object (nil: {}).
// Unread lists the keys of the object that the variant does not read
// (batsched ignores them), sorted. A value the twin cannot reproduce, a
// missing required key or a value of the wrong JSON type is an
// *sched.OptionError naming the flag or key.
func (v BatschedVariant) Resolve(flags map[string]string, variantOptions map[string]json.RawMessage) (opts sched.Options, unread []string, err error) {
	opts = sched.MergeOptions(nil, v.Options)
	for _, f := range slices.Sorted(maps.Keys(flags)) {
		val := flags[f]
		def, known := BatschedFlagDefaults[f]
		if !known {
			return nil, nil, &sched.OptionError{Msg: fmt.Sprintf("batsched flag --%s: not one a variant takes", f)}
		}
		p, listed := v.Flags[f]
		if !listed {
			p = BatschedParam{Only: def}
		}
		if err := p.apply(opts, val, func(a, b string) bool { return sameFlagValue(f, a, b) }); err != nil {
			return nil, nil, &sched.OptionError{Msg: fmt.Sprintf("variant %s: --%s %s: %v", v.Name, f, val, err)}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(v.VariantOptions)) {
		p := v.VariantOptions[k]
		raw, ok := variantOptions[k]
		if !ok {
			if p.Required {
				return nil, nil, &sched.OptionError{Msg: fmt.Sprintf("variant %s: --variant_options has no %q, which the variant requires (batsched aborts without it)", v.Name, k)}
			}
			continue
		}
		val, err := jsonValue(raw, p.Kind)
		if err != nil {
			return nil, nil, &sched.OptionError{Msg: fmt.Sprintf("variant %s: --variant_options %q: %v", v.Name, k, err)}
		}
		if err := p.apply(opts, val, func(a, b string) bool { return a == b }); err != nil {
			return nil, nil, &sched.OptionError{Msg: fmt.Sprintf("variant %s: --variant_options %q: %s: %v", v.Name, k, raw, err)}
		}
	}
	for k := range variantOptions {
		if _, read := v.VariantOptions[k]; !read {
			unread = append(unread, k)
		}
	}
	sort.Strings(unread)
	return opts, unread, nil
}

// apply passes val to p's option, or checks it is the one accepted.
func (p BatschedParam) apply(opts sched.Options, val string, same func(a, b string) bool) error {
	if p.Option == "" {
		if p.Only != "" && !same(val, p.Only) {
			return fmt.Errorf("the twin reproduces this variant at %s only", p.Only)
		}
		return nil
	}
	if p.Values != nil {
		tr, ok := p.Values[val]
		if !ok {
			return fmt.Errorf("the twin reproduces this variant at %s only", strings.Join(slices.Sorted(maps.Keys(p.Values)), ", "))
		}
		val = tr
	}
	opts[p.Option] = val
	return nil
}

// sameFlagValue compares two values of batsched flag f as batsched reads
// them: numbers by value (-d 5.0 is -d 5), booleans as its 0/1.
func sameFlagValue(f, a, b string) bool {
	switch f {
	case "rjms_delay":
		x, errA := strconv.ParseFloat(a, 64)
		y, errB := strconv.ParseFloat(b, 64)
		return errA == nil && errB == nil && x == y
	case "call_make_decisions_on_single_nop":
		return batschedBool(a) == batschedBool(b)
	}
	return a == b
}

// batschedBool reads a boolean flag value as batsched does (an integer, 0
// false); true/false are accepted too.
func batschedBool(s string) bool {
	switch s {
	case "true":
		return true
	case "false":
		return false
	}
	n, err := strconv.Atoi(s)
	return err == nil && n != 0
}

// jsonValue is a variant option's JSON value as option text, checked
// against the kind batsched requires: a number in its shortest form, a
// boolean as true or false, a string as it is.
func jsonValue(raw json.RawMessage, kind string) (string, error) {
	var v any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("not a JSON value: %v", err)
	}
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || math.IsInf(f, 0) {
			return "", fmt.Errorf("%s: not a finite number", x)
		}
		if kind == "int" && (f != math.Trunc(f) || strings.ContainsAny(string(x), ".eE")) {
			return "", fmt.Errorf("%s: batsched wants an integer", x)
		}
		if kind == "bool" {
			return "", fmt.Errorf("%s: batsched wants a boolean", x)
		}
		return strconv.FormatFloat(f, 'g', -1, 64), nil
	case bool:
		if kind != "" && kind != "bool" {
			return "", fmt.Errorf("%v: batsched wants a %s", x, kindName(kind))
		}
		return strconv.FormatBool(x), nil
	case string:
		if kind != "" {
			return "", fmt.Errorf("%q: batsched wants a %s", x, kindName(kind))
		}
		return x, nil
	}
	if kind != "" {
		return "", fmt.Errorf("%s: batsched wants a %s", raw, kindName(kind))
	}
	return string(raw), nil
}

func kindName(kind string) string {
	switch kind {
	case "int":
		return "integer"
	case "bool":
		return "boolean"
	}
	return kind
}
