package sched

import (
	"fmt"
)

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

// HostsOption is the host-selection option shared by the policies
// (values: fastest, first-fit, own-fastest; see HostSelectorByName).
var HostsOption = OptionSpec{
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

// HostsFrom returns the selector of a policy's resolved hosts option
// (HostsOption).
func HostsFrom(opts Options) (HostSelector, error) {
	sel, ok := HostSelectorByName(opts["hosts"])
	if !ok {
		return nil, fmt.Errorf("unknown host selection %q", opts["hosts"])
	}
	return sel, nil
}

// BaseSpec is the spec of a base policy: the Composite of its order and
// start rule with the selector of the hosts option (HostsOption). A base
// is what a wrapper such as BUCMA re-ranks (Registry.Wrap).
func BaseSpec(name, description string, b Base) Spec {
	return Spec{
		Name:        name,
		Description: description,
		Options:     []OptionSpec{HostsOption},
		New: func(opts Options) (Policy, error) {
			sel, err := HostsFrom(opts)
			if err != nil {
				return nil, err
			}
			return &Composite{Order: b.Order, Rule: b.NewRule(), Hosts: sel}, nil
		},
		Base: &b,
	}
}
