package basic

import (
	"fmt"

	"github.com/bucma-sched/bucma/policies/batsched"
	"github.com/bucma-sched/bucma/sched"
)

// easyBase is EASY as a base policy (what BUCMA's base=easy runs).
var easyBase = sched.Base{Order: sched.FCFSOrder{}, Rule: sched.EASY{}, Rank: 20}

var easyBackfillOption = sched.OptionSpec{
	Name:    "backfill",
	Default: "count",
	Help: "count: textbook EASY (a later job may run past the blocked job's shadow time on any of the extra hosts); " +
		"batsched: batsched's easy_bf (queue by release date then id, reservation pinned to hosts and kept, exact dates). " +
		"With hosts=first-fit and no-walltime=reject, batsched takes easy_bf's decisions. " +
		"batsched-fast: batsched's easy_bf_fast (arrival order, the priority job's expected start computed once, backfilled jobs end by it; " +
		"a job without walltime counts as -1 s); with hosts=first-fit it takes easy_bf_fast's decisions",
	Values: []string{"count", "batsched", "batsched-fast"},
}

var easyNoWalltimeOption = sched.OptionSpec{
	Name:    "no-walltime",
	Default: "extra-hosts",
	Help: "jobs without walltime: extra-hosts (queued; they backfill on hosts no reservation needs), reject (at submission, as batsched's easy_bf) " +
		"or stop (the simulation, with an error naming the job, as batsched's easy_bf_plot_liquid_load_horizon stops on its assertion; with backfill=batsched)",
	Values: []string{"extra-hosts", "reject", "stop"},
}

// registerEASY adds easy.
func registerEASY(r *sched.Registry) {
	r.Add(sched.Spec{
		Name:        "easy",
		Description: "EASY backfilling: FCFS with a reservation for the first blocked job; later jobs start if they do not delay it",
		Options:     []sched.OptionSpec{sched.HostsOption, easyBackfillOption, easyNoWalltimeOption},
		New: func(opts sched.Options) (sched.Policy, error) {
			sel, err := sched.HostsFrom(opts)
			if err != nil {
				return nil, err
			}
			reject, stop := opts["no-walltime"] == "reject", opts["no-walltime"] == "stop"
			if stop && opts["backfill"] != "batsched" {
				return nil, fmt.Errorf("no-walltime=stop: with backfill=batsched only (batsched's easy_bf_plot_liquid_load_horizon), not backfill=%s", opts["backfill"])
			}
			switch opts["backfill"] {
			case "count":
				return &sched.Composite{Order: easyBase.Order, Rule: easyBase.Rule, Hosts: sel, RejectNoWalltime: reject}, nil
			case "batsched":
				return &BatschedEASY{Hosts: sel, Recent: batsched.Recent{RejectNoWalltime: reject, StopNoWalltime: stop}}, nil
			case "batsched-fast":
				return &BatschedEASYFast{Hosts: sel, Delay: batsched.DefaultRJMSDelay, Recent: batsched.Recent{RejectNoWalltime: reject}}, nil
			}
			return nil, fmt.Errorf("unknown backfill %q", opts["backfill"])
		},
		Base: &easyBase,
	})
}
