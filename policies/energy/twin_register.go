package energy

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/bucma-sched/bucma/sched"
)

// Variants are batsched's energy-aware variants that batsched-energy
// reproduces (its variant option).
var Variants = []string{"energy_bf", "energy_bf_dicho", "energy_bf_idle_sleeper", "energy_bf_monitoring",
	"energy_bf_monitoring_inertial", "energy_bf_subpart_sleeper", "energy_watcher"}

// twinOptions are batsched-energy's options: the variant, then batsched's
// variant options under their names with '-' for '_', then its -d.
var twinOptions = []sched.OptionSpec{
	{Name: "variant", Default: "energy_bf", Values: Variants, Help: "batsched's variant (its -v)"},
	{Name: "power-compute", Help: "watts of a computing machine (required but by energy_watcher)"},
	{Name: "power-idle", Help: "watts of an idle machine (required but by energy_watcher)"},
	{Name: "power-sleep", Help: "watts of a sleeping machine (required but by energy_watcher)"},
	{Name: "pstate-compute", Help: "the computation pstate machines are switched on to (required but by energy_watcher)"},
	{Name: "pstate-sleep", Help: "the sleep pstate machines are switched off to (required but by energy_watcher)"},
	{Name: "time-switch-on", Help: "seconds a switch-on takes (required but by energy_watcher)"},
	{Name: "time-switch-off", Help: "seconds a switch-off takes (required but by energy_watcher)"},
	{Name: "energy-switch-on", Help: "joules a switch-on takes (required but by energy_watcher)"},
	{Name: "energy-switch-off", Help: "joules a switch-off takes (required but by energy_watcher)"},
	{Name: "ensured-sleep-time-lower-bound", Default: "0", Help: "seconds a machine sleeps at least once off"},
	{Name: "ensured-sleep-time-upper-bound", Default: "1e8", Help: "at most this is kept of the sleep that makes a switch-off pay"},
	{Name: "rjms-delay", Default: "5", Help: "seconds batsched adds to every walltime (its -d)"},
	{Name: "monitoring-period", Help: "seconds between monitoring stages (required by the monitoring, inertial, idle and subpart variants)"},
	{Name: "idle-time-to-sedate", Default: "1e18", Help: "seconds of idleness after which a machine is switched off (inertial, idle and subpart variants)"},
	{Name: "sedate-idle-on-classical-events", Default: "false", Values: []string{"false", "true"}, Help: "also switch idle machines off at decisions that are not monitoring stages"},
	{Name: "allow-future-switches", Default: "true", Values: []string{"false", "true"}, Help: "inertial switches may be planned after the machines' jobs"},
	{Name: "upper-llh-threshold", Default: "1e100", Help: "mean liquid load horizon over a period above which inertial shutdown turns to waking machines"},
	{Name: "inertial-alteration", Default: "x2", Help: "how the number of machines switched at a stage follows the last one's: xN or pN"},
	{Name: "fraction-of-machines-to-let-awake", Help: "energy_bf_subpart_sleeper: fraction of the machines kept on (required by it)"},
	{Name: "tolerated-slowdown-loss-ratio", Help: "energy_bf_dicho: the mean slowdown may be this times that of the schedule with every machine on (required by it)"},
	{Name: "comparison-type", Default: "remove_sleep_jobs", Values: []string{"remove_sleep_jobs", "switch_on"}, Help: "energy_bf_dicho: how the schedule with every machine on is made"},
}

func registerTwin(r *sched.Registry) {
	r.Add(sched.Spec{
		Name:        "batsched-energy",
		Description: "batsched's energy-aware variants exactly (energy_bf, its monitoring, inertial, idle, subpart and dichotomy variants, energy_watcher), with batsched's variant options",
		Options:     twinOptions,
		Energy:      true,
		New: func(opts sched.Options) (sched.Policy, error) {
			o, err := ParseTwinOptions(opts)
			if err != nil {
				return nil, err
			}
			return NewTwin(o)
		},
	})
}

// ParseTwinOptions reads batsched-energy's options (those not given at
// their defaults), checking them as batsched checks its variant options
// (where it would stop, the options are refused; the options the variant
// needs are checked when the simulation begins, see Twin.SimulationBegins).
func ParseTwinOptions(given sched.Options) (TwinOptions, error) {
	opts := sched.Options{}
	for _, spec := range twinOptions {
		opts[spec.Name] = spec.Default
	}
	for k, v := range given {
		opts[k] = v
	}
	o := TwinOptions{Variant: opts["variant"]}
	if !slices.Contains(Variants, o.Variant) {
		return o, &sched.OptionError{Msg: fmt.Sprintf("option variant=%q: batsched's energy variants are %s", o.Variant, strings.Join(Variants, ", "))}
	}
	var errs []string
	num := func(name string, required bool, ok func(float64) bool, want string) float64 {
		v, set := opts[name]
		if !set || v == "" {
			if required {
				o.missing = append(o.missing, name)
			}
			return 0
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || !ok(f) {
			errs = append(errs, fmt.Sprintf("option %s=%q: want %s", name, v, want))
		}
		return f
	}
	pos := func(f float64) bool { return f > 0 }
	nonneg := func(f float64) bool { return f >= 0 }
	integer := func(f float64) bool { return f >= 0 && f == math.Trunc(f) && f < 1<<31 }
	energy := o.Variant != "energy_watcher"
	o.PowerCompute = num("power-compute", energy, pos, "watts > 0")
	o.PowerIdle = num("power-idle", energy, pos, "watts > 0")
	o.PowerSleep = num("power-sleep", energy, pos, "watts > 0")
	o.PStateCompute = int(num("pstate-compute", energy, integer, "a pstate number >= 0"))
	o.PStateSleep = int(num("pstate-sleep", energy, integer, "a pstate number >= 0"))
	o.TimeSwitchOn = num("time-switch-on", energy, pos, "seconds > 0")
	o.TimeSwitchOff = num("time-switch-off", energy, pos, "seconds > 0")
	o.EnergySwitchOn = num("energy-switch-on", energy, pos, "joules > 0")
	o.EnergySwitchOff = num("energy-switch-off", energy, pos, "joules > 0")
	o.EnsuredSleepMin = num("ensured-sleep-time-lower-bound", false, nonneg, "seconds >= 0")
	o.EnsuredSleepMax = num("ensured-sleep-time-upper-bound", false, nonneg, "seconds >= 0")
	o.RJMSDelay = num("rjms-delay", false, nonneg, "seconds >= 0")
	monitored := o.Variant != "energy_bf" && o.Variant != "energy_bf_dicho" && o.Variant != "energy_watcher"
	o.MonitoringPeriod = num("monitoring-period", monitored, pos, "seconds > 0")
	o.IdleTimeToSedate = num("idle-time-to-sedate", false, nonneg, "seconds >= 0")
	o.SedateIdleOnClassicalEvents = opts["sedate-idle-on-classical-events"] == "true"
	o.AllowFutureSwitches = opts["allow-future-switches"] != "false"
	o.UpperLLHThreshold = num("upper-llh-threshold", false, nonneg, "a number >= 0")
	o.InertialAlteration = opts["inertial-alteration"]
	if _, err := parseAlteration(o.InertialAlteration); err != nil {
		errs = append(errs, "option "+err.Error())
	}
	o.FractionToLetAwake = num("fraction-of-machines-to-let-awake", o.Variant == "energy_bf_subpart_sleeper", func(f float64) bool { return f >= 0 && f <= 1 }, "a fraction between 0 and 1")
	o.ToleratedSlowdownLossRatio = num("tolerated-slowdown-loss-ratio", o.Variant == "energy_bf_dicho", nonneg, "a ratio >= 0")
	o.ComparisonSwitchOn = opts["comparison-type"] == "switch_on"
	if energy && len(errs) == 0 && len(o.missing) == 0 {
		switch {
		case o.EnsuredSleepMin > o.EnsuredSleepMax:
			errs = append(errs, fmt.Sprintf("ensured-sleep-time-lower-bound (%g) must not exceed ensured-sleep-time-upper-bound (%g)", o.EnsuredSleepMin, o.EnsuredSleepMax))
		case !(o.PowerIdle > o.PowerSleep):
			errs = append(errs, fmt.Sprintf("power-idle (%g) must exceed power-sleep (%g): batsched stops otherwise", o.PowerIdle, o.PowerSleep))
		}
	}
	if len(errs) > 0 {
		return o, &sched.OptionError{Msg: strings.Join(errs, "; ")}
	}
	return o, nil
}

// NewTwin builds the twin of o.Variant.
func NewTwin(o TwinOptions) (*Twin, error) {
	t := &Twin{o: o}
	switch o.Variant {
	case "energy_bf":
		t.eng = &energyBF{o: &t.o}
	case "energy_bf_monitoring":
		t.eng = &monitoring{energyBF: energyBF{o: &t.o}}
	case "energy_bf_monitoring_inertial":
		t.eng = newInertial(&t.o, inertialStage)
	case "energy_bf_idle_sleeper":
		t.eng = newInertial(&t.o, idleStage)
	case "energy_bf_subpart_sleeper":
		t.eng = newInertial(&t.o, subpartStage)
	case "energy_bf_dicho":
		t.eng = newDicho(&t.o)
	case "energy_watcher":
		t.eng = &watcher{energyBF: energyBF{o: &t.o}}
	default:
		return nil, fmt.Errorf("%s: %w", o.Variant, errUnknownVariant)
	}
	return t, nil
}

// parseAlteration reads inertial_alteration as batsched does:
// "\s*(x|p)\s*(\d+|\d+\.\d+)\s*".
func parseAlteration(s string) (Inertia, error) {
	t := strings.TrimSpace(s)
	if t == "" || (t[0] != 'x' && t[0] != 'p') {
		return Inertia{}, fmt.Errorf("inertial-alteration=%q: want xN or pN (N digits, or digits.digits)", s)
	}
	num := strings.TrimSpace(t[1:])
	intPart, frac, dot := strings.Cut(num, ".")
	digits := func(x string) bool {
		if x == "" {
			return false
		}
		for _, c := range x {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	if !digits(intPart) || (dot && !digits(frac)) {
		return Inertia{}, fmt.Errorf("inertial-alteration=%q: want xN or pN (N digits, or digits.digits)", s)
	}
	n, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return Inertia{}, fmt.Errorf("inertial-alteration=%q: %v", s, err)
	}
	return Inertia{Sum: t[0] == 'p', N: n}, nil
}

// BatschedKey is one key of batsched's --variant_options object that a
// variant reads, and the batsched-energy option that takes its value.
type BatschedKey struct {
	// Key is batsched's JSON key.
	Key string
	// Option is batsched-energy's option ("" for the keys that only name
	// batsched's debugging files: any value is accepted and none used).
	Option string
	// Kind is the JSON type batsched requires: "number", "int", "bool" or
	// "string".
	Kind string
	// Required: batsched stops without it.
	Required bool
}

// VariantKeys lists the keys of --variant_options that batsched's variant
// reads, by key, for a command-line drop-in to pass them to
// batsched-energy's options (nil for energy_watcher, which reads none).
func VariantKeys(variant string) []BatschedKey {
	if !slices.Contains(Variants, variant) || variant == "energy_watcher" {
		return nil
	}
	num := func(key string, required bool) BatschedKey {
		return BatschedKey{Key: key, Option: strings.ReplaceAll(key, "_", "-"), Kind: "number", Required: required}
	}
	keys := []BatschedKey{
		num("power_compute", true), num("power_idle", true), num("power_sleep", true),
		{Key: "pstate_compute", Option: "pstate-compute", Kind: "int", Required: true},
		{Key: "pstate_sleep", Option: "pstate-sleep", Kind: "int", Required: true},
		num("time_switch_on", true), num("time_switch_off", true), num("energy_switch_on", true), num("energy_switch_off", true),
		num("ensured_sleep_time_lower_bound", false), num("ensured_sleep_time_upper_bound", false),
	}
	switch variant {
	case "energy_bf":
		return keys
	case "energy_bf_dicho":
		return append(keys, num("tolerated_slowdown_loss_ratio", true), BatschedKey{Key: "comparison_type", Option: "comparison-type", Kind: "string"})
	}
	keys = append(keys, BatschedKey{Key: "output_dir", Kind: "string", Required: true}, num("monitoring_period", true))
	if variant == "energy_bf_monitoring" {
		return keys
	}
	keys = append(keys, BatschedKey{Key: "trace_output_filename", Kind: "string", Required: true},
		BatschedKey{Key: "allow_future_switches", Option: "allow-future-switches", Kind: "bool"},
		num("upper_llh_threshold", false),
		BatschedKey{Key: "inertial_alteration", Option: "inertial-alteration", Kind: "string"},
		num("idle_time_to_sedate", false),
		BatschedKey{Key: "sedate_idle_on_classical_events", Option: "sedate-idle-on-classical-events", Kind: "bool"})
	if variant == "energy_bf_subpart_sleeper" {
		keys = append(keys, num("fraction_of_machines_to_let_awake", true))
	}
	return keys
}
