package workloads

import (
	"fmt"
	"sort"
)

// OSEP task size classes in MFLOP (experiments.md §3), uniform in range.
var osepSizes = map[string][2]float64{
	"small":  {39675000, 238050000},
	"medium": {238050000, 634800000},
	"large":  {634800000, 3332700000},
}

// osepDemands gives, per demand level, how many small, medium and large
// tasks each user submits (10 in all).
var osepDemands = map[string][3]int{
	"small":  {6, 3, 1},
	"medium": {3, 6, 1},
	"large":  {1, 3, 6},
}

// OSEPOptions parameterises GenerateOSEP.
type OSEPOptions struct {
	Demand string  // small, medium or large (default medium)
	Late   string  // the user who submits late: user1 or user4 (default user1)
	LateBy float64 // submission time of the late user, seconds (the experiments use 360)
	Seed   uint64  // default 1
	NbRes  int     // nb_res written (default 12, the OSEP grid)
}

// OSEPUsers are the users of the OSEP experiments.
var OSEPUsers = []string{"user1", "user2", "user3", "user4"}

// GenerateOSEP builds one OSEP demand (experiments.md §3): 4 users × 10
// sequential tasks (res 1), sizes uniform in their class range (MFLOP,
// converted to flop: parallel_homogeneous cpu = MFLOP × 1e6, com 0), no
// walltime. Everybody submits at 0 except the late user, at LateBy. Each
// user's 10 tasks are in a random order; ids are "<user>-NN". Jobs carry
// "user", "size_class" and "mflop".
func GenerateOSEP(o OSEPOptions) (*Workload, error) {
	if o.Demand == "" {
		o.Demand = "medium"
	}
	if o.Late == "" {
		o.Late = "user1"
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.NbRes == 0 {
		o.NbRes = 12
	}
	counts, ok := osepDemands[o.Demand]
	if !ok {
		return nil, fmt.Errorf("osep: unknown demand %q (want small, medium or large)", o.Demand)
	}
	lateOK := false
	for _, u := range OSEPUsers {
		lateOK = lateOK || u == o.Late
	}
	if !lateOK {
		return nil, fmt.Errorf("osep: unknown late user %q (want one of user1..user4)", o.Late)
	}
	if o.LateBy < 0 {
		return nil, fmt.Errorf("osep: --late-by must be ≥ 0 (got %g)", o.LateBy)
	}
	r := newRand(o.Seed)
	w := &Workload{NbRes: o.NbRes, Profiles: map[string]Profile{}}
	for _, u := range OSEPUsers {
		var classes []string
		for ci, name := range []string{"small", "medium", "large"} {
			for k := 0; k < counts[ci]; k++ {
				classes = append(classes, name)
			}
		}
		r.Shuffle(len(classes), func(a, b int) { classes[a], classes[b] = classes[b], classes[a] })
		sub := 0.0
		if u == o.Late {
			sub = o.LateBy
		}
		for k, c := range classes {
			rg := osepSizes[c]
			mflop := float64(int64(rg[0] + r.Float64()*(rg[1]-rg[0])))
			id := fmt.Sprintf("%s-%02d", u, k+1)
			pname := "p-" + id
			w.AddProfile(computeProfile(pname, mflop*1e6))
			var jb objBuilder
			jb.str("id", id).num("subtime", sub).int("res", 1).str("profile", pname).
				str("user", u).str("size_class", c).num("mflop", mflop)
			w.Jobs = append(w.Jobs, Job{ID: id, Subtime: sub, Res: 1, Walltime: -1, Profile: pname, Raw: jb.bytes()})
		}
	}
	// File order: by subtime (stable).
	sortJobsBySubtime(w.Jobs)
	meta := map[string]any{
		"generator": "osep",
		"seed":      o.Seed,
		"params": map[string]any{
			"demand": o.Demand, "late": o.Late, "late_by": o.LateBy, "nb_res": o.NbRes,
			"sizes_mflop": osepSizes, "tasks_per_class": counts,
		},
	}
	mb, err := marshalSorted(meta)
	if err != nil {
		return nil, err
	}
	w.SetExtra("meta", mb)
	return w, nil
}

func sortJobsBySubtime(jobs []Job) {
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].Subtime < jobs[b].Subtime })
}
