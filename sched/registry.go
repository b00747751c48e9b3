package sched

import (
	"bytes"
	"errors"
	"fmt"
	"iter"
	"sort"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"
)

// OptionSpec documents one policy option.
type OptionSpec struct {
	Name    string
	Default string
	Help    string
	// Values lists the accepted values when the option is an enumeration.
	Values []string
}

// Spec describes a registered policy.
type Spec struct {
	Name        string
	Description string // one line
	Options     []OptionSpec
	// New builds the policy from validated options: every option of the spec
	// is present in opts (defaults filled in).
	New func(opts Options) (Policy, error)
	// Base, when set, makes the policy a base that re-ranking policies
	// (BUCMA) can wrap.
	Base *Base
	// DynamicJobs is set for policies that preempt by killing jobs and
	// resubmitting their remaining work: Batsim must run with
	// --enable-dynamic-jobs (and bucma's runners add
	// --acknowledge-dynamic-jobs).
	DynamicJobs bool
	// ComputeSharing is set for policies that may run several jobs on one
	// host at once, up to the host's Slots (the "slots" property of the
	// platform's host, see HostSlots, unless the policy sets them with
	// State.SetSlots): Batsim must run with --enable-compute-sharing when
	// a host has more than one slot (bucma's runners add it).
	ComputeSharing bool
	// Energy says that the policy switches hosts' power states
	// (Decider.SetPState) or reads energies: Batsim must run with
	// --energy (bucma's runners add it).
	Energy bool
	// JobJSON keeps each job's description as Batsim sent it in Job.Raw,
	// for policies that read fields of their own from it. Without it Raw
	// is nil: a million waiting jobs' descriptions take about 150 MB.
	JobJSON bool
	// JobFields are the fields of its own the policy reads in a job (with
	// JobJSON): a workload in which no job has any of them is not one the
	// policy can schedule (it would refuse every job), and bucma's runners
	// refuse it before the simulation (CheckJobFields).
	JobFields []string
	// Profiles keeps the profiles Batsim tells about (SIMULATION_BEGINS,
	// forwarded on submission) for State.Profile and State.JobWork;
	// DynamicJobs implies it. Without it they are not kept: a million-job
	// workload can have a million profiles.
	Profiles bool
}

func (s *Spec) keepsProfiles() bool { return s.Profiles || s.DynamicJobs }

// Base is what a re-ranking policy needs to wrap a base policy: the base's
// queue order (whose ranks it mixes into its own), and the start rule that
// runs on the re-ranked queue with the wrapper's host selection.
type Base struct {
	Order Order
	// Rule is the start rule; a policy built from the base takes
	// NewRule (its own rule when the rule keeps state).
	Rule StartRule
	// Rank places the base among the others wherever they are listed
	// (BUCMA's base option), lowest first.
	Rank int
}

// Options are a policy's option values, as text (CLI form).
type Options map[string]string

// OptionError is a bad option name or value; the CLI exits with code 2.
type OptionError struct{ Msg string }

// Error implements error.
func (e *OptionError) Error() string { return e.Msg }

// Registry maps policy names to their specs. A program builds one
// (NewRegistry), adds its policies (Add) and the policies that wrap the
// bases (Wrap), and hands it to the command line (the cli package) or to
// its own runner. The zero value is not ready: use NewRegistry.
type Registry struct {
	specs    map[string]*Spec
	wrappers []func(bases []*Spec) []Spec
	// wrapped holds the wrappers' specs over the current bases, nil when
	// a spec was added since they were computed.
	wrapped map[string]*Spec
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{specs: map[string]*Spec{}} }

// Add registers a spec. A name already registered (by Add or by a
// wrapper) is a programming error: Add panics, or the first lookup does.
func (r *Registry) Add(s Spec) {
	if s.Name == "" {
		panic("sched: a policy needs a name")
	}
	if _, dup := r.specs[s.Name]; dup {
		panic("sched: policy registered twice: " + s.Name)
	}
	r.specs[s.Name] = &s
	r.wrapped = nil
}

// Wrap registers the policies that wrap the base policies (the specs
// with Base set), such as BUCMA over each base: wrap is called with every
// base, in Rank order (then by name), whenever the registry is read after
// a change, so that a base added later (a user's own) is wrapped too.
func (r *Registry) Wrap(wrap func(bases []*Spec) []Spec) {
	r.wrappers = append(r.wrappers, wrap)
	r.wrapped = nil
}

// Bases lists the base policies (Spec.Base set), in Rank order, then by
// name.
func (r *Registry) Bases() []*Spec {
	var bases []*Spec
	for _, s := range r.specs {
		if s.Base != nil {
			bases = append(bases, s)
		}
	}
	sort.Slice(bases, func(i, k int) bool {
		if bases[i].Base.Rank != bases[k].Base.Rank {
			return bases[i].Base.Rank < bases[k].Base.Rank
		}
		return bases[i].Name < bases[k].Name
	})
	return bases
}

// resolve computes the wrappers' specs over the current bases.
func (r *Registry) resolve() {
	if r.wrapped != nil {
		return
	}
	r.wrapped = map[string]*Spec{}
	bases := r.Bases()
	for _, wrap := range r.wrappers {
		for _, s := range wrap(bases) {
			if _, dup := r.specs[s.Name]; dup {
				panic("sched: policy registered twice: " + s.Name)
			}
			if _, dup := r.wrapped[s.Name]; dup {
				panic("sched: policy registered twice: " + s.Name)
			}
			r.wrapped[s.Name] = &s
		}
	}
}

// Names lists the registered policies, sorted.
func (r *Registry) Names() []string {
	r.resolve()
	out := make([]string, 0, len(r.specs)+len(r.wrapped))
	for n := range r.specs {
		out = append(out, n)
	}
	for n := range r.wrapped {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Get returns the spec of a policy.
func (r *Registry) Get(name string) (*Spec, bool) {
	if s, ok := r.specs[name]; ok {
		return s, true
	}
	r.resolve()
	s, ok := r.wrapped[name]
	return s, ok
}

// Lookup is Get with an error that lists the valid names.
func (r *Registry) Lookup(name string) (*Spec, error) {
	if s, ok := r.Get(name); ok {
		return s, nil
	}
	return nil, &OptionError{fmt.Sprintf("unknown scheduler %q (valid: %s)", name, strings.Join(r.Names(), ", "))}
}

// Resolve checks opts against the spec and fills in defaults. Unknown names
// and values outside an enumeration are errors listing the valid ones.
func (s *Spec) Resolve(opts Options) (Options, error) {
	out := Options{}
	for _, o := range s.Options {
		out[o.Name] = o.Default
	}
	for k, v := range opts {
		o := s.Option(k)
		if o == nil {
			return nil, s.unknownOption("", k)
		}
		if len(o.Values) > 0 && !contains(o.Values, v) {
			return nil, &OptionError{fmt.Sprintf("scheduler %s: option %s=%q: valid values are %s", s.Name, k, v, strings.Join(o.Values, ", "))}
		}
		out[k] = v
	}
	return out, nil
}

// CheckJobFields checks the descriptions of a workload's jobs against
// JobFields: an error, naming the fields, when the policy reads fields of
// its own and no job has any of them. It stops at the first job that has
// one.
func (s *Spec) CheckJobFields(jobs iter.Seq[[]byte]) error {
	if len(s.JobFields) == 0 {
		return nil
	}
	n := 0
	for desc := range jobs {
		var fields map[string]json.RawMessage
		if json.Unmarshal(desc, &fields) == nil {
			for _, f := range s.JobFields {
				if _, ok := fields[f]; ok {
					return nil
				}
			}
		}
		n++
	}
	if n == 0 {
		return nil
	}
	return fmt.Errorf("scheduler %s reads the job fields %s, and none of the %d jobs has any of them: it would reject every job (see 'bucma list %s')",
		s.Name, strings.Join(s.JobFields, ", "), n, s.Name)
}

// unknownOption is the error for key, which is not an option of the
// policy; where, when not empty, says where the key was given.
func (s *Spec) unknownOption(where, key string) *OptionError {
	if where != "" {
		where += ": "
	}
	if len(s.Options) == 0 {
		return &OptionError{fmt.Sprintf("%sscheduler %s: unknown option %q (it takes no option)", where, s.Name, key)}
	}
	valid := make([]string, len(s.Options))
	for i, o := range s.Options {
		valid[i] = o.Name
	}
	return &OptionError{fmt.Sprintf("%sscheduler %s: unknown option %q (valid: %s)", where, s.Name, key, strings.Join(valid, ", "))}
}

// BuildWithSchedConfig builds the policy from Batsim's sched-config cfg
// (ParseSchedConfig) and the command line's options, which win. A key of
// cfg that is not an option of the policy is an error naming it and the
// valid ones, as on the command line: a misspelt key would otherwise leave
// the option at its default without a word. reserved holds the reserved
// keys cfg gives (the caller reports one naming another policy).
func (s *Spec) BuildWithSchedConfig(cfg string, cmdline Options) (p Policy, reserved map[string]string, err error) {
	cfgOpts, reserved, err := ParseSchedConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	keys := make([]string, 0, len(cfgOpts))
	for k := range cfgOpts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if s.Option(k) == nil {
			return nil, nil, s.unknownOption("sched-config", k)
		}
	}
	p, err = s.Build(MergeOptions(cfgOpts, cmdline))
	var oe *OptionError
	if len(cfgOpts) > 0 && errors.As(err, &oe) {
		err = &OptionError{"sched-config: " + oe.Msg}
	}
	return p, reserved, err
}

// Option is the declaration of option name, nil when the policy has none.
func (s *Spec) Option(name string) *OptionSpec {
	for i := range s.Options {
		if s.Options[i].Name == name {
			return &s.Options[i]
		}
	}
	return nil
}

// Build resolves opts and builds the policy. A bad option value reported by
// New is wrapped as an OptionError.
func (s *Spec) Build(opts Options) (Policy, error) {
	full, err := s.Resolve(opts)
	if err != nil {
		return nil, err
	}
	p, err := s.New(full)
	if err != nil {
		if _, ok := err.(*OptionError); ok {
			return nil, err
		}
		return nil, &OptionError{fmt.Sprintf("scheduler %s: %v", s.Name, err)}
	}
	return p, nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// ParseOptionArgs parses CLI "key=value" arguments.
func ParseOptionArgs(args []string) (Options, error) {
	out := Options{}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, &OptionError{fmt.Sprintf("option %q: want key=value", a)}
		}
		out[k] = strings.TrimSpace(v)
	}
	return out, nil
}

// ReservedConfigKeys are sched-config keys that name the scheduler rather
// than one of its options; they are not passed to the policy.
var ReservedConfigKeys = []string{"scheduler", "policy", "variant"}

// ParseSchedConfig reads Batsim's --sched-cfg string: a JSON object whose
// members are policy options. Values may be strings, numbers, booleans,
// arrays (joined with ",": "weights": [0.5,0.3,0,0.2] is weights=0.5,0.3,0,0.2)
// or objects of scalars (joined as key:value pairs: "pinned-scores":
// {"alice":100} is pinned-scores=alice:100). An empty string is no option.
// The reserved keys ("scheduler", "policy", "variant") are returned apart.
func ParseSchedConfig(cfg string) (opts Options, reserved map[string]string, err error) {
	opts, reserved = Options{}, map[string]string{}
	if strings.TrimSpace(cfg) == "" {
		return opts, reserved, nil
	}
	var m map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader([]byte(cfg)))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, nil, &OptionError{fmt.Sprintf("sched-config is not a JSON object: %v", err)}
	}
	for k, raw := range m {
		v, err := configValue(raw)
		if err != nil {
			return nil, nil, &OptionError{fmt.Sprintf("sched-config key %q: %v", k, err)}
		}
		if contains(ReservedConfigKeys, k) {
			reserved[k] = v
			continue
		}
		opts[k] = v
	}
	return opts, reserved, nil
}

func configValue(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", fmt.Errorf("empty value")
	}
	switch raw[0] {
	case '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case '[':
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return "", err
		}
		parts := make([]string, len(items))
		for i, it := range items {
			v, err := scalarValue(it)
			if err != nil {
				return "", err
			}
			parts[i] = v
		}
		return strings.Join(parts, ","), nil
	case '{':
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return "", err
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			v, err := scalarValue(obj[k])
			if err != nil {
				return "", err
			}
			parts[i] = k + ":" + v
		}
		return strings.Join(parts, ","), nil
	}
	return scalarValue(raw)
}

func scalarValue(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	switch string(raw) {
	case "true", "false":
		return string(raw), nil
	case "null":
		return "", nil
	}
	if _, err := strconv.ParseFloat(string(raw), 64); err != nil {
		return "", fmt.Errorf("%s is not a scalar", raw)
	}
	return string(raw), nil
}

// MergeOptions returns base overridden by over (CLI flags win over
// sched-config).
func MergeOptions(base, over Options) Options {
	out := Options{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}
