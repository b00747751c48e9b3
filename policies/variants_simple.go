package policies

import "github.com/bucma-sched/bucma/sched"

// The flags of batsched's simple variants: -o is the queue order of those
// that sort a queue, -p the host selection of those that fit jobs with
// batsched's resource selector; -d changes none of their decisions (they
// plan with no walltime) and none asks to be called later.
var (
	orderFlag = BatschedParam{Option: "order"}
	hostsFlag = BatschedParam{Option: "hosts", Values: map[string]string{"basic": "first-fit", "contiguous": "contiguous"}}
	// simpleFlags: a queue in order, jobs fitted by the selector.
	simpleFlags = map[string]BatschedParam{"queue_order": orderFlag, "policy": hostsFlag, "rjms_delay": ignored, "call_make_decisions_on_single_nop": ignored}
	// lowestFlags: a queue in order, jobs on the lowest hosts whatever -p.
	lowestFlags = map[string]BatschedParam{"queue_order": orderFlag, "policy": ignored, "rjms_delay": ignored, "call_make_decisions_on_single_nop": ignored}
	// noQueueFlags: no queue, no host selection.
	noQueueFlags = map[string]BatschedParam{"queue_order": ignored, "policy": ignored, "rjms_delay": ignored, "call_make_decisions_on_single_nop": ignored}
	// twin is the queue of batsched's simple variants and their lowest
	// free hosts.
	twin = sched.Options{"queue": "batsched", "hosts": "first-fit"}
)

const simpleProof = "internal/realbatsim TestSimpleVariantsMatchBatsched"

// simpleVariants are batsched's variants that the simple policies
// reproduce. batsched's random is not among them: it draws its hosts from
// an unseeded generator (std::random_device), so that two of its runs
// differ; bucma's random is seeded.
var simpleVariants = []BatschedVariant{
	{Name: "filler", Policy: "filler", Options: twin, Proven: simpleProof, Flags: simpleFlags,
		VariantOptions: map[string]BatschedParam{
			// Fewer hosts than requested (a mapping of several executors
			// per host) is not reproduced.
			"fraction_of_machines_to_use": {Only: "1", Kind: "number"},
			// With every requested host, batsched's mapping is the
			// identity, the same as none for Batsim.
			"custom_mapping":   {Kind: "bool"},
			"set_job_metadata": {Option: "metadata", Kind: "bool"},
		}},
	{Name: "sequencer", Policy: "sequencer", Options: twin, Proven: simpleProof, Flags: lowestFlags},
	{Name: "rejecter", Policy: "rejecter", Proven: simpleProof, Flags: noQueueFlags},
	{Name: "waiting_time_estimator", Policy: "rejecter", Proven: simpleProof, Flags: noQueueFlags},
	{Name: "killer", Policy: "killer", Options: twin, Proven: simpleProof, Flags: simpleFlags,
		VariantOptions: map[string]BatschedParam{
			"nb_kills_per_job":  {Option: "kills", Kind: "int"},
			"delay_before_kill": {Option: "kill-delay", Kind: "number"},
		}},
	{Name: "killer2", Policy: "killer2", Options: twin, Proven: simpleProof, Flags: simpleFlags},
	{Name: "submitter", Policy: "submitter", Options: twin, Proven: simpleProof, Flags: simpleFlags,
		VariantOptions: map[string]BatschedParam{
			"nb_jobs_to_submit":      {Option: "jobs", Kind: "int"},
			"increase_jobs_duration": {Option: "increase", Kind: "bool"},
			"set_job_metadata":       {Option: "metadata", Kind: "bool"},
			// A profile registered twice, or sent inside REGISTER_JOB,
			// makes Batsim 4.2.1 abort.
			"send_profile_if_already_sent":    {Only: "false", Kind: "bool"},
			"send_profiles_in_separate_event": {Only: "true", Kind: "bool"},
		}},
	{Name: "sleeper", Policy: "sleeper", Options: sched.Options{"queue": "batsched"}, Proven: simpleProof, Flags: lowestFlags,
		VariantOptions: map[string]BatschedParam{
			"pstate_compute": {Option: "pstate-compute", Kind: "int", Required: true},
			"pstate_sleep":   {Option: "pstate-sleep", Kind: "int", Required: true},
		}},
}
