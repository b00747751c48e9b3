package workloads

import "fmt"

// Profile types of RuntimeProfiles.
const (
	ProfileTypeDelay   = "delay"
	ProfileTypeCompute = "compute"
)

// RuntimeProfiles makes the profile of a job known by its run time (an SWF
// trace's, a Lublin job's). The zero value makes delay profiles "d<run
// time>": the job takes its run time on any host, so host speeds change
// nothing. With Type ProfileTypeCompute it makes compute profiles
// "c<run time>" (parallel_homogeneous, no communication) of run time ×
// Speed flops on each host: the job takes its run time on a host of speed
// Speed, half of it on a host twice as fast.
type RuntimeProfiles struct {
	Type  string  // ProfileTypeDelay ("" too) or ProfileTypeCompute
	Speed float64 // compute: the reference host's speed (flop/s)
}

// maxReferenceSpeed bounds Speed (1e20 flop/s, far above any host), so
// that run time × Speed stays finite.
const maxReferenceSpeed = 1e20

func (r RuntimeProfiles) check() error {
	switch r.Type {
	case "", ProfileTypeDelay:
		return nil
	case ProfileTypeCompute:
		if !(r.Speed > 0) || r.Speed > maxReferenceSpeed {
			return fmt.Errorf("compute profiles need the reference host's speed in (0, %g] flop/s (got %g)", float64(maxReferenceSpeed), r.Speed)
		}
		return nil
	}
	return fmt.Errorf("profile type %q: want %s or %s", r.Type, ProfileTypeDelay, ProfileTypeCompute)
}

func (r RuntimeProfiles) compute() bool { return r.Type == ProfileTypeCompute }

// name is the profile's name for a run time.
func (r RuntimeProfiles) name(runtime float64) string {
	if r.compute() {
		return "c" + fmtNum(runtime)
	}
	return "d" + fmtNum(runtime)
}

// profile is the profile of a run time.
func (r RuntimeProfiles) profile(runtime float64) Profile {
	if r.compute() {
		return computeProfile(r.name(runtime), runtime*r.Speed)
	}
	var pb objBuilder
	pb.str("type", TypeDelay).num("delay", runtime)
	return Profile{Name: r.name(runtime), Type: TypeDelay, Delay: runtime, Repeat: 1, Raw: pb.bytes()}
}

// describe adds the profile type to a generator's recorded parameters
// (nothing for delay profiles, as before the option existed).
func (r RuntimeProfiles) describe(params map[string]any) {
	if r.compute() {
		params["profile_type"] = r.Type
		params["reference_speed"] = r.Speed
	}
}
