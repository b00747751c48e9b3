package policies

import "github.com/bucma-sched/bucma/sched"

// conservativeVariants are batsched's variants over its Schedule and its
// other backfilling variants: conservative_bf (conservative), easy_bf_fast
// (easy), fcfs (which decides as fcfs_fast with -p basic) and
// easy_bf_plot_liquid_load_horizon (which decides as easy_bf and writes a
// CSV of the queue's load bucma does not write).
//
// Their flags, as batsched 1.4.0's sources read them (src/algo/*.cpp):
// conservative_bf sorts its queue by -o, fits jobs with -p's selector and
// plans walltimes plus -d, which conservative's order, hosts and
// rjms-delay options take. easy_bf_fast keeps its own list in arrival
// order and takes the lowest free hosts, whatever -o and -p say; its
// dates are floating-point sums of walltimes plus -d, so that -d changes
// its decisions through roundings: the twin takes the default only. fcfs
// keeps its own list too (-o changes nothing) and never reads a walltime
// (nor -d), but fits the jobs it starts after an end with -p's selector:
// basic only. easy_bf_plot_liquid_load_horizon is easy_bf (its -o and -p
// at their defaults, -d shifting every expected end alike) but stops on
// its assertion at a job without walltime where easy_bf rejects it
// (no-walltime=stop), and requires trace_output_filename, the file of its
// CSV. None of them asks to be
// called later, so --call_make_decisions_on_single_nop changes nothing.
var conservativeVariants = []BatschedVariant{
	{Name: "conservative_bf", Policy: "conservative", Options: sched.Options{"hosts": "first-fit", "backfill": "batsched", "no-walltime": "reject"}, Proven: "internal/realbatsim TestConservativeMatchesBatsched",
		Flags: map[string]BatschedParam{"queue_order": orderFlag, "policy": hostsFlag, "rjms_delay": {Option: "rjms-delay"}, "call_make_decisions_on_single_nop": ignored},
		VariantOptions: map[string]BatschedParam{
			// Dumps of the plan after each decision, for debugging:
			// read (batsched stops on a value of another type), not
			// written by the twin.
			"dump_previsional_schedules": {Kind: "bool"},
			"dump_prefix":                {},
		}},
	{Name: "easy_bf_fast", Policy: "easy", Options: sched.Options{"hosts": "first-fit", "backfill": "batsched-fast"}, Proven: "internal/realbatsim TestConservativeMatchesBatsched",
		Flags: map[string]BatschedParam{"queue_order": ignored, "policy": ignored, "call_make_decisions_on_single_nop": ignored}},
	{Name: "fcfs", Policy: "fcfs", Options: sched.Options{"hosts": "first-fit"}, Proven: "internal/realbatsim TestConservativeMatchesBatsched",
		Flags: map[string]BatschedParam{"queue_order": ignored, "rjms_delay": ignored, "call_make_decisions_on_single_nop": ignored}},
	{Name: "easy_bf_plot_liquid_load_horizon", Policy: "easy", Options: sched.Options{"hosts": "first-fit", "backfill": "batsched", "no-walltime": "stop"}, Proven: "internal/realbatsim TestConservativeMatchesBatsched",
		Flags: map[string]BatschedParam{"rjms_delay": ignored, "call_make_decisions_on_single_nop": ignored},
		VariantOptions: map[string]BatschedParam{
			// The file of its CSV of the queue's load, which the twin
			// does not write; batsched stops without it.
			"trace_output_filename": {Required: true},
		}},
}
