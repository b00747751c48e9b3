package schedulers

import "fmt"

// easyBase is EASY as a base policy (what BUCMA's base=easy runs).
var easyBase = Base{Order: FCFSOrder{}, Rule: EASY{}, Rank: 20}

var easyBackfillOption = OptionSpec{
	Name:    "backfill",
	Default: "count",
	Help: "count: textbook EASY (a later job may run past the blocked job's shadow time on any of the extra hosts); " +
		"batsched: batsched's easy_bf (queue by release date then id, reservation pinned to hosts and kept, exact dates). " +
		"With hosts=first-fit and no-walltime=reject, batsched takes easy_bf's decisions",
	Values: []string{"count", "batsched"},
}

var easyNoWalltimeOption = OptionSpec{
	Name:    "no-walltime",
	Default: "extra-hosts",
	Help:    "jobs without walltime: extra-hosts (queued; they backfill on hosts no reservation needs) or reject (at submission, as batsched's easy_bf)",
	Values:  []string{"extra-hosts", "reject"},
}

func init() {
	Register(Spec{
		Name:        "easy",
		Description: "EASY backfilling: FCFS with a reservation for the first blocked job; later jobs start if they do not delay it",
		Options:     []OptionSpec{hostsOption, easyBackfillOption, easyNoWalltimeOption},
		New: func(opts Options) (Policy, error) {
			sel, err := hostsFrom(opts)
			if err != nil {
				return nil, err
			}
			reject := opts["no-walltime"] == "reject"
			switch opts["backfill"] {
			case "count":
				return &Composite{Order: easyBase.Order, Rule: easyBase.Rule, Hosts: sel, RejectNoWalltime: reject}, nil
			case "batsched":
				return &BatschedEASY{Hosts: sel, RejectNoWalltime: reject}, nil
			}
			return nil, fmt.Errorf("unknown backfill %q", opts["backfill"])
		},
		Base: &easyBase,
	})
}
