package workloads

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	json "github.com/goccy/go-json"
)

// Severity of a Finding.
type Severity int

const (
	// Warning: Batsim accepts the workload, but the point deserves attention.
	Warning Severity = iota
	// Error: Batsim 4.2.1 aborts on this (or the job can never run).
	Error
)

// String names the severity.
func (s Severity) String() string {
	if s == Error {
		return "error"
	}
	return "warning"
}

// Finding is one problem found in a workload. Job or Profile names the
// offending item when there is one.
type Finding struct {
	Severity Severity
	File     string
	Job      string // job id as written in the file, "" when not about a job
	Profile  string // profile name, "" when not about a profile
	Msg      string
}

// String renders the finding on one line: "error: FILE: job 'x': msg".
func (f Finding) String() string {
	var b strings.Builder
	b.WriteString(f.Severity.String())
	b.WriteString(": ")
	if f.File != "" {
		b.WriteString(f.File)
		b.WriteString(": ")
	}
	if f.Job != "" {
		fmt.Fprintf(&b, "job '%s': ", f.Job)
	}
	if f.Profile != "" {
		fmt.Fprintf(&b, "profile '%s': ", f.Profile)
	}
	b.WriteString(f.Msg)
	return b.String()
}

// LoadError is returned by Parse and Load when the file cannot be read as a
// Batsim workload (bad JSON, missing or mistyped mandatory fields, profile
// types bucma does not support). Problems lists every such problem found.
type LoadError struct {
	File     string
	Problems []Finding
}

// Error implements error.
func (e *LoadError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		s := p.String()
		lines[i] = strings.TrimPrefix(s, "error: ")
	}
	return strings.Join(lines, "\n")
}

// Supported profile types.
const (
	TypeDelay                    = "delay"
	TypeParallel                 = "parallel"
	TypeParallelHomogeneous      = "parallel_homogeneous"
	TypeParallelHomogeneousTotal = "parallel_homogeneous_total"
	TypeComposed                 = "composed"
)

// Load reads and parses a workload file. See Parse.
func Load(path string) (*Workload, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("workload: %w", err)
	}
	return Parse(data, path)
}

// LoadChecked loads a workload and also fails when Validate reports an
// error (what would make Batsim abort). Warnings are returned.
func LoadChecked(path string, opts ValidateOptions) (*Workload, []Finding, error) {
	w, err := Load(path)
	if err != nil {
		return nil, nil, err
	}
	errs, warns := w.Validate(opts)
	if len(errs) > 0 {
		return w, warns, &LoadError{File: path, Problems: errs}
	}
	return w, warns, nil
}

// Parse reads a Batsim workload from data; name (usually the path) is used
// in messages and stored as Workload.Path. It fails with a *LoadError when
// the document is not a workload Batsim can read: invalid JSON, missing or
// mistyped nb_res / jobs / profiles, a job without id, subtime, res or
// profile (or with a mistyped one), a malformed profile, or a profile type
// other than delay, parallel, parallel_homogeneous,
// parallel_homogeneous_total and composed. Value checks (duplicate ids,
// negative subtimes, unknown profiles, ...) are left to Validate.
//
// A Batsim 5 workload (profile types DelayProfile, ...) is converted to
// Batsim 4's form first (FromV5), and the result has V5 set.
func Parse(data []byte, name string) (*Workload, error) {
	if w := parseFast(data, name); w != nil {
		return w, nil
	}
	if IsV5(data) {
		return FromV5(data, name)
	}
	return parseTree(data, name)
}

// parseTree is Parse with the general reader: the document as a tree, then
// its parts, each problem named.
func parseTree(data []byte, name string) (*Workload, error) {
	root, err := parseJSON(data)
	if err != nil {
		return nil, &LoadError{File: name, Problems: []Finding{{Severity: Error, File: name, Msg: err.Error()}}}
	}
	le := &LoadError{File: name}
	bad := func(job, prof, format string, args ...any) {
		le.Problems = append(le.Problems, Finding{Severity: Error, File: name, Job: job, Profile: prof, Msg: fmt.Sprintf(format, args...)})
	}
	if root.kind != jObject {
		bad("", "", "the document is not a JSON object")
		return nil, le
	}
	w := &Workload{Path: name, Profiles: map[string]Profile{}}
	if k := root.duplicateKey(); k != "" {
		w.parseWarnings = append(w.parseWarnings, Finding{Severity: Warning, File: name, Msg: fmt.Sprintf("top-level key %q appears twice; Batsim uses the first one", k)})
	}
	seenTop := map[string]bool{}
	for _, m := range root.members {
		if seenTop[m.key] {
			continue
		}
		seenTop[m.key] = true
		switch m.key {
		case "nb_res", "jobs", "profiles":
		default:
			w.Extra = append(w.Extra, KeyValue{Key: m.key, Value: json.RawMessage(m.val.raw())})
		}
	}

	if nr := root.get("nb_res"); nr == nil {
		bad("", "", "the 'nb_res' field is missing")
	} else if v, ok := nr.isInt32(); !ok {
		bad("", "", "the 'nb_res' field is not an integer (%s)", nr.raw())
	} else {
		w.NbRes = v
	}

	// Profiles first: jobs refer to them.
	pnode := root.get("profiles")
	switch {
	case pnode == nil:
		bad("", "", "the 'profiles' object is missing")
	case pnode.kind != jObject:
		bad("", "", "the 'profiles' member is not an object")
	default:
		for _, m := range pnode.members {
			if _, dup := w.Profiles[m.key]; dup {
				bad("", m.key, "profile name defined twice")
				continue
			}
			p, problems := parseProfile(m.key, m.val)
			for _, pr := range problems {
				bad("", m.key, "%s", pr)
			}
			w.Profiles[m.key] = p
			w.ProfileOrder = append(w.ProfileOrder, m.key)
		}
	}

	jnodes := root.get("jobs")
	switch {
	case jnodes == nil:
		bad("", "", "the 'jobs' array is missing")
	case jnodes.kind != jArray:
		bad("", "", "the 'jobs' member is not an array")
	default:
		w.Jobs = make([]Job, 0, len(jnodes.elems))
		for i, jn := range jnodes.elems {
			j, label, problems := parseJob(i, jn)
			for _, pr := range problems {
				bad(label, "", "%s", pr)
			}
			if k := jn.duplicateKey(); k != "" && jn.kind == jObject {
				w.parseWarnings = append(w.parseWarnings, Finding{Severity: Warning, File: name, Job: label,
					Msg: fmt.Sprintf("key %q appears twice in the job object; Batsim reads the first one and forwards both", k)})
			}
			if len(problems) == 0 {
				w.Jobs = append(w.Jobs, j)
			}
		}
	}

	// Unsupported profile types: name the profile, its first user, the type.
	for _, pn := range w.ProfileOrder {
		p := w.Profiles[pn]
		if p.Type == "" || isSupportedType(p.Type) {
			continue
		}
		user := "no job uses it"
		for _, j := range w.Jobs {
			if j.Profile == pn {
				user = fmt.Sprintf("first used by job '%s'", j.ID)
				break
			}
		}
		bad("", pn, "profile type %q is not supported (%s); supported types: delay, parallel, parallel_homogeneous, parallel_homogeneous_total, composed", p.Type, user)
	}

	if len(le.Problems) > 0 {
		return nil, le
	}
	return w, nil
}

func isSupportedType(t string) bool {
	switch t {
	case TypeDelay, TypeParallel, TypeParallelHomogeneous, TypeParallelHomogeneousTotal, TypeComposed:
		return true
	}
	return false
}

// plainJob reports whether the job object n has no member but id,
// subtime, res, profile and walltime, each once (Job.Plain).
func plainJob(n *jnode) bool {
	var seen [5]bool
	for _, m := range n.members {
		i := slices.Index([]string{"id", "subtime", "res", "profile", "walltime"}, m.key)
		if i < 0 || seen[i] {
			return false
		}
		seen[i] = true
	}
	return true
}

func parseJob(index int, n *jnode) (Job, string, []string) {
	var j Job
	label := fmt.Sprintf("#%d", index+1)
	var problems []string
	if n.kind != jObject {
		return j, label, []string{fmt.Sprintf("job number %d is not an object", index+1)}
	}
	j.Raw = json.RawMessage(n.raw())
	j.Plain = plainJob(n)
	idn := n.get("id")
	switch {
	case idn == nil:
		return j, label, []string{fmt.Sprintf("job number %d has no 'id' field", index+1)}
	case idn.kind == jString:
		j.ID = idn.str
	default:
		v, ok := idn.isInt32()
		if !ok {
			return j, label, []string{fmt.Sprintf("job number %d: the 'id' field must be a string or an integer in the int32 range, got %s", index+1, idn.raw())}
		}
		j.ID, j.IDIsInt = fmt.Sprint(v), true
	}
	label = j.ID
	if st := n.get("subtime"); st == nil {
		problems = append(problems, "no 'subtime' field")
	} else if v, ok := st.float(); !ok {
		problems = append(problems, fmt.Sprintf("the 'subtime' field is not a number (%s)", st.raw()))
	} else {
		j.Subtime = v
	}
	j.Walltime = -1
	if wt := n.get("walltime"); wt != nil {
		if v, ok := wt.float(); !ok {
			problems = append(problems, fmt.Sprintf("the 'walltime' field is not a number (%s)", wt.raw()))
		} else {
			j.Walltime = v
		}
	}
	if r := n.get("res"); r == nil {
		problems = append(problems, "no 'res' field")
	} else if v, ok := r.isInt32(); !ok {
		problems = append(problems, fmt.Sprintf("the 'res' field is not an integer (%s)", r.raw()))
	} else {
		j.Res = v
	}
	if p := n.get("profile"); p == nil {
		problems = append(problems, "no 'profile' field")
	} else if p.kind != jString {
		problems = append(problems, fmt.Sprintf("the 'profile' field is not a string (%s)", p.raw()))
	} else {
		j.Profile = p.str
	}
	return j, label, problems
}

func numberField(n *jnode, key string, problems *[]string) float64 {
	v := n.get(key)
	if v == nil {
		*problems = append(*problems, fmt.Sprintf("no '%s' field", key))
		return 0
	}
	f, ok := v.float()
	if !ok {
		*problems = append(*problems, fmt.Sprintf("the '%s' field is not a number (%s)", key, v.raw()))
	}
	return f
}

func parseProfile(name string, n *jnode) (Profile, []string) {
	p := Profile{Name: name, Raw: json.RawMessage(n.raw()), Repeat: 1}
	if n.kind != jObject {
		return p, []string{"the profile is not an object"}
	}
	var problems []string
	t := n.get("type")
	if t == nil {
		return p, []string{"no 'type' field"}
	}
	if t.kind != jString {
		return p, []string{fmt.Sprintf("the 'type' field is not a string (%s)", t.raw())}
	}
	p.Type = t.str
	if r := n.get("ret"); r != nil {
		v, ok := r.isInt32()
		if !ok {
			problems = append(problems, fmt.Sprintf("the 'ret' field is not an integer (%s)", r.raw()))
		}
		p.Ret = v
	}
	switch p.Type {
	case TypeDelay:
		p.Delay = numberField(n, "delay", &problems)
	case TypeParallelHomogeneous, TypeParallelHomogeneousTotal:
		p.CPU = numberField(n, "cpu", &problems)
		p.Com = numberField(n, "com", &problems)
	case TypeParallel:
		for _, key := range []string{"cpu", "com"} {
			a := n.get(key)
			if a == nil {
				problems = append(problems, fmt.Sprintf("no '%s' field", key))
				continue
			}
			if a.kind != jArray {
				problems = append(problems, fmt.Sprintf("the '%s' field is not an array", key))
				continue
			}
			vals := make([]float64, 0, len(a.elems))
			for i, e := range a.elems {
				f, ok := e.float()
				if !ok {
					problems = append(problems, fmt.Sprintf("element %d of '%s' is not a number (%s)", i, key, e.raw()))
				}
				vals = append(vals, f)
			}
			if key == "cpu" {
				p.CPUs = vals
			} else {
				p.ComMat = vals
			}
		}
	case TypeComposed:
		if r := n.get("repeat"); r != nil {
			v, ok := r.isInt32()
			if !ok {
				problems = append(problems, fmt.Sprintf("the 'repeat' field is not an integer (%s)", r.raw()))
			}
			p.Repeat = v
		}
		s := n.get("seq")
		switch {
		case s == nil:
			problems = append(problems, "no 'seq' field")
		case s.kind != jArray:
			problems = append(problems, "the 'seq' field is not an array")
		default:
			for i, e := range s.elems {
				if e.kind != jString {
					problems = append(problems, fmt.Sprintf("element %d of 'seq' is not a profile name (%s)", i, e.raw()))
					continue
				}
				p.Seq = append(p.Seq, e.str)
			}
		}
	}
	return p, problems
}

// errNoRuntime is returned by RefRuntime for profiles without a defined
// duration on a reference host.
var errNoRuntime = errors.New("profile has no computable run time")
