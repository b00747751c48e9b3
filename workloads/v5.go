package workloads

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	json "github.com/goccy/go-json"
)

// Batsim 5's workload format differs from Batsim 4's in its profiles and in
// where a job keeps fields of its own:
//
//	Batsim 4                                    Batsim 5
//	delay {delay}                               DelayProfile {delay}
//	parallel {cpu: [...], com: [...]}           ParallelTaskProfile {cpu, com}
//	parallel_homogeneous {cpu, com}             ParallelTaskHomogeneousProfile {cpu, com,
//	                                              generation_strategy: DefinedAmountsUsedForEachValue}
//	parallel_homogeneous_total {cpu, com}       ParallelTaskHomogeneousProfile {cpu, com,
//	                                              generation_strategy: DefinedAmountsSpreadUniformly}
//	composed {repeat, seq}                      SequentialCompositionProfile {repeat, seq}
//	a job's own fields (user, ...)              its extra_data object (Batsim 5 forwards only
//	                                              id, subtime, walltime, res, profile, extra_data)
//	walltime -1 (none)                          no walltime field
//
// Batsim 5 has no return code in a profile ("ret"), and refuses a delay that
// is not strictly positive and a walltime that is not strictly positive.

// Batsim 5 profile types.
const (
	V5Delay                  = "DelayProfile"
	V5ParallelTask           = "ParallelTaskProfile"
	V5ParallelTaskHomogenous = "ParallelTaskHomogeneousProfile"
	V5Sequential             = "SequentialCompositionProfile"
	v5UsedForEach            = "DefinedAmountsUsedForEachValue"
	v5SpreadUniformly        = "DefinedAmountsSpreadUniformly"
)

// v5Types are every profile type of Batsim 5's workloads (those bucma
// converts and the others, which only tell the format apart).
var v5Types = map[string]bool{
	V5Delay: true, V5ParallelTask: true, V5ParallelTaskHomogenous: true, V5Sequential: true,
	"ForkJoinCompositionProfile": true, "ParallelTaskMergeCompositionProfile": true,
	"ParallelTaskOnStorageHomogeneousProfile": true, "ParallelTaskDataStagingBetweenStoragesProfile": true,
	"TraceReplayProfile": true,
}

// v4JobKeys are the job fields both Batsims define.
var v4JobKeys = map[string]bool{"id": true, "subtime": true, "walltime": true, "res": true, "profile": true}

// IsV5 reports whether data is a Batsim 5 workload: a JSON object one of
// whose profiles has a Batsim 5 type (DelayProfile, ...).
func IsV5(data []byte) bool {
	root, err := parseJSON(data)
	if err != nil || root.kind != jObject {
		return false
	}
	return isV5Tree(root)
}

func isV5Tree(root *jnode) bool {
	p := root.get("profiles")
	if p == nil || p.kind != jObject {
		return false
	}
	for _, m := range p.members {
		if t := m.val.get("type"); m.val.kind == jObject && t != nil && t.kind == jString && v5Types[t.str] {
			return true
		}
	}
	return false
}

// ConversionError lists what a workload holds that the other Batsim's
// format cannot express, each naming its job or profile.
type ConversionError struct {
	File     string
	To       string // "Batsim 5" or "Batsim 4"
	Problems []Finding
}

// Error implements error.
func (e *ConversionError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: cannot convert to %s's format:", e.File, e.To)
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	return b.String()
}

// ToV5 converts the workload to Batsim 5's format (see the table above),
// keeping nb_res, the extra top-level keys, the job order and the profile
// order. A job's own fields go, in order, into its extra_data object (a job
// that has both its own fields and an extra_data that is not an object, or
// a field of its own named like a member of its extra_data, is refused).
// Profiles that Batsim 5 cannot express are refused, each named: a return
// code ("ret"), a delay that is not strictly positive, a type other than
// the five above.
func (w *Workload) ToV5() (*Workload, error) {
	out := &Workload{Path: w.Path, NbRes: w.NbRes, Extra: w.Extra, Profiles: make(map[string]Profile, len(w.Profiles)), ProfileOrder: w.ProfileOrder}
	ce := &ConversionError{File: w.Path, To: "Batsim 5"}
	bad := func(job, prof, format string, args ...any) {
		ce.Problems = append(ce.Problems, Finding{Severity: Error, File: w.Path, Job: job, Profile: prof, Msg: fmt.Sprintf(format, args...)})
	}
	for _, name := range w.ProfileOrder {
		p := w.Profiles[name]
		raw, err := profileToV5(p)
		if err != nil {
			bad("", name, "%v", err)
			continue
		}
		q := p
		q.Raw = raw
		out.Profiles[name] = q
	}
	out.Jobs = make([]Job, 0, len(w.Jobs))
	for _, j := range w.Jobs {
		raw, err := jobToV5(j)
		if err != nil {
			bad(j.ID, "", "%v", err)
			continue
		}
		k := j
		k.Raw = raw
		out.Jobs = append(out.Jobs, k)
	}
	if len(ce.Problems) > 0 {
		return nil, ce
	}
	return out, nil
}

func profileToV5(p Profile) (json.RawMessage, error) {
	if p.Ret != 0 {
		return nil, fmt.Errorf("return code %d ('ret'): Batsim 5 profiles have no return code", p.Ret)
	}
	root, err := parseJSON(p.Raw)
	if err != nil || root.kind != jObject {
		return nil, errors.New("the profile is not a JSON object")
	}
	var o objBuilder
	switch p.Type {
	case TypeDelay:
		if !(p.Delay > 0) {
			return nil, fmt.Errorf("delay %v: Batsim 5 needs a strictly positive delay", p.Delay)
		}
		o.str("type", V5Delay).raw("delay", root.get("delay").raw())
	case TypeParallel:
		o.str("type", V5ParallelTask).raw("cpu", root.get("cpu").raw()).raw("com", root.get("com").raw())
	case TypeParallelHomogeneous, TypeParallelHomogeneousTotal:
		strategy := v5UsedForEach
		if p.Type == TypeParallelHomogeneousTotal {
			strategy = v5SpreadUniformly
		}
		o.str("type", V5ParallelTaskHomogenous).raw("cpu", root.get("cpu").raw()).raw("com", root.get("com").raw()).str("generation_strategy", strategy)
	case TypeComposed:
		o.str("type", V5Sequential)
		if r := root.get("repeat"); r != nil {
			o.raw("repeat", r.raw())
		}
		o.raw("seq", root.get("seq").raw())
	default:
		return nil, fmt.Errorf("profile type %q has no Batsim 5 equivalent that bucma converts (delay, parallel, parallel_homogeneous, parallel_homogeneous_total, composed)", p.Type)
	}
	// Other members of the profile (descriptions, ...) go to its
	// extra_data, as a job's do.
	var extra objBuilder
	for _, m := range root.members {
		switch m.key {
		case "type", "delay", "cpu", "com", "repeat", "seq", "ret":
		default:
			extra.raw(m.key, compactJSON(m.val.raw()))
		}
	}
	if extra.b.Len() > 0 {
		o.raw("extra_data", extra.bytes())
	}
	return o.bytes(), nil
}

func jobToV5(j Job) (json.RawMessage, error) {
	root, err := parseJSON(j.Raw)
	if err != nil || root.kind != jObject {
		return nil, errors.New("the job is not a JSON object")
	}
	var o, own objBuilder
	var extraData *jnode
	ownKeys := map[string]bool{}
	for _, m := range root.members {
		switch {
		case m.key == "walltime":
			if j.Walltime > 0 {
				o.raw("walltime", m.val.raw())
			}
		case v4JobKeys[m.key]:
			o.raw(m.key, m.val.raw())
		case m.key == "extra_data":
			extraData = m.val
		default:
			own.raw(m.key, compactJSON(m.val.raw()))
			ownKeys[m.key] = true
		}
	}
	switch {
	case extraData == nil:
		if own.b.Len() > 0 {
			o.raw("extra_data", own.bytes())
		}
	case own.b.Len() == 0:
		o.raw("extra_data", extraData.raw())
	case extraData.kind != jObject:
		return nil, fmt.Errorf("the job has fields of its own and an extra_data that is not an object (%s): Batsim 5 keeps only extra_data", extraData.raw())
	default:
		for _, m := range extraData.members {
			if ownKeys[m.key] {
				return nil, fmt.Errorf("field %q is both a field of the job and a member of its extra_data", m.key)
			}
			own.raw(m.key, compactJSON(m.val.raw()))
		}
		o.raw("extra_data", own.bytes())
	}
	return o.bytes(), nil
}

// FromV5 converts a Batsim 5 workload document to Batsim 4's format (the
// inverse of ToV5: the members of a job's extra_data object become fields
// of the job; an extra_data string stays as is) and parses it. Profiles
// with no Batsim 4 equivalent among the five types bucma reads are
// refused, each named.
func FromV5(data []byte, name string) (*Workload, error) {
	root, err := parseJSON(data)
	if err != nil {
		return nil, &LoadError{File: name, Problems: []Finding{{Severity: Error, File: name, Msg: err.Error()}}}
	}
	ce := &ConversionError{File: name, To: "Batsim 4"}
	bad := func(job, prof, format string, args ...any) {
		ce.Problems = append(ce.Problems, Finding{Severity: Error, File: name, Job: job, Profile: prof, Msg: fmt.Sprintf(format, args...)})
	}
	if root.kind != jObject {
		bad("", "", "the document is not a JSON object")
		return nil, ce
	}
	var v5Findings []Finding
	var formatProfile, formatType string
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	member := func(k string, raw []byte) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(raw)
	}
	for _, m := range root.members {
		switch m.key {
		case "profiles":
			if m.val.kind != jObject {
				member(m.key, m.val.raw())
				continue
			}
			var ps objBuilder
			for _, pm := range m.val.members {
				if t := pm.val.get("type"); formatProfile == "" && pm.val.kind == jObject && t != nil && t.kind == jString && v5Types[t.str] {
					formatProfile, formatType = pm.key, t.str
				}
				raw, err := profileFromV5(pm.val)
				if err != nil {
					bad("", pm.key, "%v", err)
					continue
				}
				ps.raw(pm.key, raw)
			}
			member(m.key, ps.bytes())
		case "jobs":
			if m.val.kind != jArray {
				member(m.key, m.val.raw())
				continue
			}
			var js bytes.Buffer
			js.WriteByte('[')
			for i, jn := range m.val.elems {
				if i > 0 {
					js.WriteByte(',')
				}
				js.Write(jobFromV5(jn))
				v5Findings = append(v5Findings, v5JobFindings(name, jn)...)
			}
			js.WriteByte(']')
			member(m.key, js.Bytes())
		default:
			member(m.key, m.val.raw())
		}
	}
	b.WriteByte('}')
	if len(ce.Problems) > 0 {
		return nil, ce
	}
	w, err := Parse(b.Bytes(), name)
	if err != nil {
		return nil, err
	}
	w.V5 = true
	w.v5Findings, w.formatProfile, w.formatType = v5Findings, formatProfile, formatType
	return w, nil
}

// v5JobKeys are the job fields Batsim 5 reads; it forwards them all to its
// decision component (extra_data as a string).
var v5JobKeys = map[string]bool{"id": true, "subtime": true, "walltime": true, "res": true, "profile": true, "extra_data": true}

// v5JobFindings is what Batsim 5 reads differently from Batsim 4 in a job
// of a file in its format: a walltime that is not strictly positive
// aborts, an extra_data that is neither a string, an object nor an array
// aborts, and the job's other fields are read by no one (bucma's commands,
// which read them, then decide otherwise than a policy run by batsim5).
func v5JobFindings(file string, n *jnode) []Finding {
	if n.kind != jObject {
		return nil // Parse names the problem
	}
	label := ""
	if id := n.get("id"); id != nil {
		label = id.str
		if id.kind != jString {
			label = string(id.raw())
		}
	}
	var out []Finding
	add := func(sev Severity, format string, args ...any) {
		out = append(out, Finding{Severity: sev, File: file, Job: label, Msg: fmt.Sprintf(format, args...)})
	}
	for _, m := range n.members {
		switch {
		case m.key == "walltime":
			// Validate refuses the other values that are not positive.
			if v, ok := m.val.float(); ok && v == -1 {
				add(Error, "walltime %s: Batsim 5 aborts on a walltime that is not strictly positive (leave the field out for no walltime)", m.val.raw())
			}
		case m.key == "extra_data":
			if k := m.val.kind; k != jString && k != jObject && k != jArray {
				add(Error, "extra_data %s: Batsim 5 aborts on an extra_data that is neither a string nor an object", m.val.raw())
			}
		case !v5JobKeys[m.key]:
			add(Warning, "field %q is outside extra_data: Batsim 5 forwards only id, subtime, walltime, res, profile and extra_data to its decision component, so a policy run by batsim5 never sees it (bucma's own commands read it); move it into extra_data", m.key)
		}
	}
	return out
}

func profileFromV5(n *jnode) ([]byte, error) {
	if n.kind != jObject {
		return n.raw(), nil // Parse names the problem
	}
	t := n.get("type")
	if t == nil || t.kind != jString {
		return n.raw(), nil
	}
	typ := t.str
	switch typ {
	case V5Delay:
		typ = TypeDelay
	case V5ParallelTask:
		typ = TypeParallel
	case V5ParallelTaskHomogenous:
		typ = TypeParallelHomogeneous
		if g := n.get("generation_strategy"); g != nil {
			switch {
			case g.kind == jString && g.str == v5UsedForEach:
			case g.kind == jString && g.str == v5SpreadUniformly:
				typ = TypeParallelHomogeneousTotal
			default:
				return nil, fmt.Errorf("generation_strategy %s is neither %s nor %s", g.raw(), v5UsedForEach, v5SpreadUniformly)
			}
		}
	case V5Sequential:
		typ = TypeComposed
	default:
		if v5Types[typ] {
			return nil, fmt.Errorf("profile type %q has no Batsim 4 equivalent that bucma reads (%s, %s, %s, %s)", typ, V5Delay, V5ParallelTask, V5ParallelTaskHomogenous, V5Sequential)
		}
		return n.raw(), nil // a Batsim 4 type, or one Parse names
	}
	var o objBuilder
	o.str("type", typ)
	for _, m := range n.members {
		switch m.key {
		case "type", "generation_strategy":
		case "extra_data":
			if m.val.kind == jObject {
				for _, e := range m.val.members {
					o.raw(e.key, compactJSON(e.val.raw()))
				}
			} else {
				o.raw(m.key, m.val.raw())
			}
		default:
			o.raw(m.key, compactJSON(m.val.raw()))
		}
	}
	return o.bytes(), nil
}

func jobFromV5(n *jnode) []byte {
	if n.kind != jObject {
		return n.raw() // Parse names the problem
	}
	var o objBuilder
	for _, m := range n.members {
		if m.key == "extra_data" && m.val.kind == jObject {
			for _, e := range m.val.members {
				if n.get(e.key) == nil {
					o.raw(e.key, compactJSON(e.val.raw()))
				}
			}
			continue
		}
		o.raw(m.key, compactJSON(m.val.raw()))
	}
	return o.bytes()
}
