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
//
// That schedule (tslices.go) is a copy of batsched's Schedule slice for
// slice, apart from policies/batsched's, which conservative_bf's and
// easy_bf's twins use. The energy variants need what policies/batsched's
// does not keep: each slice's jobs in batsched's order (by job id), a
// machine's sleep pseudo-jobs occurring several times, and every slice
// boundary insertions leave (policies/batsched's merges those where no
// allocation begins or ends), on which their decisions and the dates of
// their calls depend. policies/batsched's Schedule jumps over the slices
// with too few machines where this one walks them one by one: it
// compresses a plan 31 to 33 times faster (BenchmarkScheduleCompress), the
// speed conservative needs at 100 000 waiting jobs. Their bit sets of
// machines are one type (mset is a profile.Hosts).
package energy

import "github.com/bucma-sched/bucma/sched"

// Register adds energy and batsched-energy to r.
func Register(r *sched.Registry) {
	registerTextbook(r)
	registerTwin(r)
}
