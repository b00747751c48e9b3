package schedulers

import (
	"fmt"
	"sort"
)

// Every policy registers itself from an init function of its own file, so
// that adding a policy is adding one file: a base policy with Register and
// baseSpec, a policy that wraps the bases (BUCMA) with RegisterWrapper.

var (
	registered []Spec
	wrappers   []func(bases []*Spec) []Spec
)

// Register adds a policy to those Builtin returns. It is meant for init
// functions; a name registered twice makes Builtin panic.
func Register(s Spec) { registered = append(registered, s) }

// RegisterWrapper adds policies built over the base policies (the specs
// with Base set): Builtin calls wrap with every base, in Rank order, once
// every policy has registered, whatever the order of the init functions.
func RegisterWrapper(wrap func(bases []*Spec) []Spec) { wrappers = append(wrappers, wrap) }

// Builtin returns a registry with every policy bucma ships.
func Builtin() *Registry {
	r := NewRegistry()
	var bases []*Spec
	for _, s := range registered {
		r.Add(s)
		if s.Base != nil {
			bases = append(bases, r.specs[s.Name])
		}
	}
	sort.SliceStable(bases, func(i, k int) bool { return bases[i].Base.Rank < bases[k].Base.Rank })
	for _, wrap := range wrappers {
		for _, s := range wrap(bases) {
			r.Add(s)
		}
	}
	return r
}

// hostSelectors are the values of the hosts option.
var hostSelectors = []struct {
	name string
	sel  HostSelector
}{
	{"fastest", Fastest{}},
	{"first-fit", FirstFit{}},
	{"own-fastest", OwnFirst{Property: "owner"}},
}

// HostSelectorByName maps the "hosts" option to a selector.
func HostSelectorByName(name string) (HostSelector, bool) {
	for _, h := range hostSelectors {
		if h.name == name {
			return h.sel, true
		}
	}
	return nil, false
}

// hostsOption is the host-selection option shared by the policies.
var hostsOption = OptionSpec{
	Name:    "hosts",
	Default: "fastest",
	Help:    "host selection: fastest free hosts first (ties by id); first-fit by lowest id (batsched's basic); or own-fastest: the hosts whose owner property is the job's user first, fastest first, then the fastest",
	Values: func() []string {
		names := make([]string, len(hostSelectors))
		for i, h := range hostSelectors {
			names[i] = h.name
		}
		return names
	}(),
}

// hostsFrom returns the selector of the resolved hosts option.
func hostsFrom(opts Options) (HostSelector, error) {
	sel, ok := HostSelectorByName(opts["hosts"])
	if !ok {
		return nil, fmt.Errorf("unknown host selection %q", opts["hosts"])
	}
	return sel, nil
}

// baseSpec is the spec of a base policy: the Composite of its order and
// start rule with the selector of the hosts option.
func baseSpec(name, description string, b Base) Spec {
	return Spec{
		Name:        name,
		Description: description,
		Options:     []OptionSpec{hostsOption},
		New: func(opts Options) (Policy, error) {
			sel, err := hostsFrom(opts)
			if err != nil {
				return nil, err
			}
			return &Composite{Order: b.Order, Rule: b.Rule, Hosts: sel}, nil
		},
		Base: &b,
	}
}
