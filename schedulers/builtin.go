package schedulers

import "fmt"

// hostsOption is the host-selection option shared by the base policies.
var hostsOption = OptionSpec{
	Name:    "hosts",
	Default: "fastest",
	Help:    "host selection: fastest free hosts first (ties by id), or first-fit by lowest id (batsched's basic)",
	Values:  []string{"fastest", "first-fit"},
}

func composite(o Order, r StartRule) func(Options) (Policy, error) {
	return func(opts Options) (Policy, error) {
		sel, ok := HostSelectorByName(opts["hosts"])
		if !ok {
			return nil, fmt.Errorf("unknown host selection %q", opts["hosts"])
		}
		return &Composite{Order: o, Rule: r, Hosts: sel}, nil
	}
}

// Builtin returns a registry with every policy bucma ships.
func Builtin() *Registry {
	r := NewRegistry()
	r.Add(Spec{
		Name:        "fcfs",
		Description: "first come, first served: start jobs in submission order, stop at the first that does not fit",
		Options:     []OptionSpec{hostsOption},
		New:         composite(FCFSOrder{}, Blocking{}),
	})
	r.Add(Spec{
		Name:        "easy",
		Description: "EASY backfilling: FCFS with a reservation for the first blocked job; later jobs start if they do not delay it",
		Options:     []OptionSpec{hostsOption},
		New:         composite(FCFSOrder{}, EASY{}),
	})
	for _, add := range extraPolicies {
		add(r)
	}
	return r
}

// extraPolicies lists the registration functions of the policies defined in
// other files of this package.
var extraPolicies = []func(*Registry){registerMinMax, registerBUCMA, registerWalltimeTrust}
