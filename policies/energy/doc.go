// Package energy holds the energy-aware backfilling policies: hosts are
// switched off (a sleep pstate of the platform's sleep_pstates) when the
// queue does not need them and switched on again, in time, when it does.
// They need Batsim's --energy (bucma's runners add it).
//
// energy is the textbook policy: EASY backfilling over the hosts that are
// on, where the blocked job's reservation counts the hosts that are asleep
// or switching with the time they take to be back (the switching delays of
// the switch-on and switch-off options, and min-sleep), and the sleeping
// hosts it needs are woken so that they are on at the reserved start, not
// before. Idle hosts are switched off by orthogonal rules: after idle-off
// seconds of idleness, by inertia at monitoring stages (monitor: every
// period, the liquid load horizon of the queue decides whether more hosts
// are switched on or off, by a growing number), and never below the
// fraction of hosts keep-awake keeps on.
//
// batsched-energy reproduces batsched 1.4.0's energy family decision for
// decision, through the same schedule of time slices as batsched's
// (Schedule, with switch and sleep pseudo-jobs): energy_bf,
// energy_bf_idle_sleeper, energy_bf_monitoring,
// energy_bf_monitoring_inertial, energy_bf_subpart_sleeper,
// energy_bf_dicho and energy_watcher, with batsched's variant options as
// options of the same names ('-' for '_').
package energy

import "github.com/bucma-sched/bucma/sched"

// Register adds energy and batsched-energy to r.
func Register(r *sched.Registry) {
	registerTextbook(r)
	registerTwin(r)
}
