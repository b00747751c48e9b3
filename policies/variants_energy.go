package policies

import (
	"github.com/bucma-sched/bucma/policies/energy"
	"github.com/bucma-sched/bucma/sched"
)

// energyVariants are batsched's energy-aware variants, which
// batsched-energy reproduces with the variant option; batsched's variant
// options are its other options (the same names, '-' for '_'). The
// variants but energy_watcher need them (powers, pstates, switch times and
// energies, and the monitoring period, fraction or slowdown ratio their
// variant reads): batsched stops without them, batsched-energy refuses to
// begin.
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
		out = append(out, BatschedVariant{Name: v, Policy: "batsched-energy", Options: sched.Options{"variant": v}, Proven: p})
	}
	return out
}()
