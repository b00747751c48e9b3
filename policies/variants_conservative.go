package policies

import "github.com/bucma-sched/bucma/sched"

// conservativeVariants are batsched's variants over its Schedule and its
// other backfilling variants: conservative_bf (conservative), easy_bf_fast
// (easy), fcfs (which decides as fcfs_fast with -p basic) and
// easy_bf_plot_liquid_load_horizon (which decides as easy_bf and writes a
// CSV of the queue's load bucma does not write). conservative's options
// read conservative_bf's flags: -o NAME is order=NAME (batsched's names),
// -p basic is hosts=first-fit and -p contiguous hosts=contiguous, -d D is
// rjms-delay=D. easy_bf_fast, fcfs and easy_bf_plot_liquid_load_horizon
// take batsched's defaults (fcfs order, -p basic; their decisions do not
// depend on -d but through floating-point roundings).
var conservativeVariants = []BatschedVariant{
	{Name: "conservative_bf", Policy: "conservative", Options: sched.Options{"hosts": "first-fit", "backfill": "batsched", "no-walltime": "reject"}, Proven: "internal/realbatsim TestConservativeMatchesBatsched"},
	{Name: "easy_bf_fast", Policy: "easy", Options: sched.Options{"hosts": "first-fit", "backfill": "batsched-fast"}, Proven: "internal/realbatsim TestConservativeMatchesBatsched"},
	{Name: "fcfs", Policy: "fcfs", Options: sched.Options{"hosts": "first-fit"}, Proven: "internal/realbatsim TestConservativeMatchesBatsched"},
	{Name: "easy_bf_plot_liquid_load_horizon", Policy: "easy", Options: sched.Options{"hosts": "first-fit", "backfill": "batsched", "no-walltime": "reject"}, Proven: "internal/realbatsim TestConservativeMatchesBatsched"},
}
