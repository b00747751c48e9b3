package policies

import (
	"github.com/bucma-sched/bucma/policies/energy"
	"github.com/bucma-sched/bucma/sched"
)

// energyVariants are batsched's energy-aware variants, which
// batsched-energy reproduces with the variant option; batsched's variant
// options are its other options (the same names, '-' for '_'), as
// energy.VariantKeys lists them. The variants but energy_watcher need them
// (powers, pstates, switch times and energies, and the monitoring period,
// fraction or slowdown ratio their variant reads): batsched stops without
// them, and so does bucma run before Batsim is contacted.
//
// Their flags, as batsched 1.4.0's sources read them: the six energy_bf
// variants add -d to the walltimes of their switch pseudo-jobs
// (rjms-delay), sort their queue by -o, fit jobs with -p's selector in
// their plans, and ask to be called later (so that
// --call_make_decisions_on_single_nop matters): the twin takes -o, -p and
// that flag at batsched's defaults. energy_watcher keeps its queue in
// arrival order, starts one job at a time on the lowest hosts, reads no
// walltime and never asks to be called later: it ignores all four.
var energyVariants = func() []BatschedVariant {
	proven := map[string]string{
		"energy_bf_monitoring": "internal/realbatsim TestEnergyBFMonitoringMatchesBatsched",
	}
	var out []BatschedVariant
	for _, v := range energy.Variants {
		p, ok := proven[v]
		if !ok {
			p = "internal/realbatsim TestEnergyTwinsMatchBatsched"
		}
		flags := map[string]BatschedParam{"rjms_delay": {Option: "rjms-delay"}}
		if v == "energy_watcher" {
			flags = map[string]BatschedParam{"queue_order": ignored, "policy": ignored, "rjms_delay": ignored, "call_make_decisions_on_single_nop": ignored}
		}
		var keys map[string]BatschedParam
		for _, k := range energy.VariantKeys(v) {
			if keys == nil {
				keys = map[string]BatschedParam{}
			}
			kind := k.Kind
			if kind == "string" {
				kind = "" // jsonValue takes any value as text
			}
			keys[k.Key] = BatschedParam{Option: k.Option, Kind: kind, Required: k.Required}
		}
		out = append(out, BatschedVariant{Name: v, Policy: "batsched-energy", Options: sched.Options{"variant": v}, Proven: p, Flags: flags, VariantOptions: keys})
	}
	return out
}()
