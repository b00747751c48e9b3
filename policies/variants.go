package policies

import (
	"slices"

	"github.com/bucma-sched/bucma/sched"
)

// BatschedVariant is one of batsched's scheduling variants (the name its
// -v/--variant flag takes) and the built-in policy, with the options, that
// takes the same decisions through Batsim.
type BatschedVariant struct {
	// Name is batsched's variant name.
	Name string
	// Policy is the built-in policy that decides as the variant.
	Policy string
	// Options are the policy's options that make it decide as the
	// variant.
	Options sched.Options
	// Proven names the test that compares the twin with batsched through
	// the real Batsim.
	Proven string
}

// basicVariants are batsched's variants that the basic policies reproduce.
var basicVariants = []BatschedVariant{
	{Name: "fcfs_fast", Policy: "fcfs", Options: sched.Options{"hosts": "first-fit"}, Proven: "internal/realbatsim TestPoliciesMatchBatsched"},
	{Name: "easy_bf", Policy: "easy", Options: sched.Options{"hosts": "first-fit", "backfill": "batsched", "no-walltime": "reject"}, Proven: "internal/realbatsim TestPoliciesMatchBatsched"},
}

// BatschedVariants lists batsched's variants that a built-in policy
// reproduces, in batsched's order of names.
func BatschedVariants() []BatschedVariant {
	all := slices.Concat(basicVariants, conservativeVariants, energyVariants)
	slices.SortFunc(all, func(a, b BatschedVariant) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return all
}
