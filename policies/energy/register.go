package energy

import (
	"fmt"
	"math"
	"strconv"

	"github.com/bucma-sched/bucma/sched"
)

// textbookOptions are the energy policy's options.
var textbookOptions = []sched.OptionSpec{
	{Name: "backfill", Default: "easy", Values: []string{"easy", "conservative"}, Help: "easy: EASY backfilling (a reservation for the first job that cannot start); conservative: conservative backfilling (every waiting job planned, on the hosts that are on first, then the lowest ids)"},
	sched.HostsOption,
	{Name: "idle-off", Default: "0", Help: "seconds a host stays idle before it is switched off (never: only inertial shutdown switches hosts off)"},
	{Name: "keep-awake", Default: "0", Help: "fraction of the hosts never switched off (at least this many stay on or switching on, truncated)"},
	{Name: "monitor", Default: "off", Help: "inertial shutdown: seconds between monitoring stages, at which hosts are switched on while the queue's liquid load horizon grows and off while it does not (off: none)"},
	{Name: "inertia", Default: "x2", Help: "how the number of hosts a monitoring stage switches grows: xN (N times the previous stage's) or +N (N more); at least one"},
	{Name: "switch-on", Default: "0", Help: "seconds a host takes to switch on: a sleeping host a reservation needs is switched on this long before the reserved start"},
	{Name: "switch-off", Default: "0", Help: "seconds a host takes to switch off (counted when a host switching off is needed again)"},
	{Name: "min-sleep", Default: "0", Help: "seconds a host sleeps at least before it may be switched on again"},
	{Name: "wake", Default: "early", Values: []string{"early", "needed"}, Help: "early: sleeping hosts are woken whenever that lets the blocked job start earlier; needed: only when the hosts that are on are too few for it"},
}

func registerTextbook(r *sched.Registry) {
	r.Add(sched.Spec{
		Name:        "energy",
		Description: "energy-aware EASY backfilling: idle hosts are switched off (after a timeout, by inertia from monitoring, keeping a fraction on) and woken in time for reservations",
		Options:     textbookOptions,
		Energy:      true,
		New: func(opts sched.Options) (sched.Policy, error) {
			return newTextbook(opts)
		},
	})
}

// seconds reads a non-negative duration option; never (when allowed) is
// +Inf.
func seconds(opts sched.Options, name string, never bool) (float64, error) {
	v := opts[name]
	if never && (v == "never" || v == "off") {
		return math.Inf(1), nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		if never {
			return 0, &sched.OptionError{Msg: fmt.Sprintf("option %s=%q: want a number of seconds >= 0 or never", name, v)}
		}
		return 0, &sched.OptionError{Msg: fmt.Sprintf("option %s=%q: want a number of seconds >= 0", name, v)}
	}
	return f, nil
}

func newTextbook(opts sched.Options) (*Backfill, error) {
	sel, err := sched.HostsFrom(opts)
	if err != nil {
		return nil, err
	}
	b := &Backfill{Hosts: sel, WakeNeeded: opts["wake"] == "needed", Conservative: opts["backfill"] == "conservative"}
	if b.Conservative && b.WakeNeeded {
		return nil, &sched.OptionError{Msg: "option wake=needed works with backfill=easy only (conservative backfilling plans every job on every host)"}
	}
	if b.IdleOff, err = seconds(opts, "idle-off", true); err != nil {
		return nil, err
	}
	for _, o := range []struct {
		name string
		to   *float64
	}{{"switch-on", &b.SwitchOn}, {"switch-off", &b.SwitchOff}, {"min-sleep", &b.MinSleep}} {
		if *o.to, err = seconds(opts, o.name, false); err != nil {
			return nil, err
		}
	}
	if p, err := seconds(opts, "monitor", true); err != nil {
		return nil, err
	} else if !math.IsInf(p, 1) {
		if p == 0 {
			return nil, &sched.OptionError{Msg: "option monitor=0: the period must be positive (off: no inertial shutdown)"}
		}
		b.Period = p
	}
	if b.Inertia, err = ParseInertia(opts["inertia"]); err != nil {
		return nil, &sched.OptionError{Msg: "option " + err.Error()}
	}
	k, err := strconv.ParseFloat(opts["keep-awake"], 64)
	if err != nil || !(k >= 0 && k <= 1) {
		return nil, &sched.OptionError{Msg: fmt.Sprintf("option keep-awake=%q: want a fraction between 0 and 1", opts["keep-awake"])}
	}
	b.KeepAwake = k
	return b, nil
}
