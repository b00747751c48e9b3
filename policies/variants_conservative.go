package policies

import "github.com/bucma-sched/bucma/sched"

// conservativeVariants are batsched's variants over its Schedule (and its
// other backfilling variants) that conservative, easy and fcfs reproduce.
var conservativeVariants = []BatschedVariant{
	{Name: "conservative_bf", Policy: "conservative", Options: sched.Options{"hosts": "first-fit", "backfill": "batsched", "no-walltime": "reject"}, Proven: "internal/realbatsim TestConservativeMatchesBatsched"},
}
