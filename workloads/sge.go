package workloads

import (
	"fmt"
	"strings"
)

// The scenarios of the SGE load-balancing paper (workloads/README.md):
// n identical sequential CPU-bound tasks submitted together
// at t=0. The work of each application is its one-instance time on the
// reference host times that host's speed on the platform it is meant for:
// pi with 50 decimals on sge-pi50.xml (10^10 flop: 11.17 s on h1), pi with
// 80 decimals and Smith-Waterman on sge.xml (50.6 s and 39.6 s on a
// 1.1 GHz host).

// SGEApp is an application of the SGE scenarios.
type SGEApp struct {
	Name     string  // pi50, pi80, sw
	Title    string  // how reports name it
	Flop     float64 // work of one task
	Platform string  // the bundled platform it is calibrated for
	Tasks    []int   // the paper's task counts
}

// SGEApps are the paper's three applications.
var SGEApps = []SGEApp{
	{Name: "pi50", Title: "pi, 50 decimals", Flop: 1e10, Platform: "sge-pi50", Tasks: []int{5, 9, 13}},
	{Name: "pi80", Title: "pi, 80 decimals", Flop: 50.6 * 1.1e9, Platform: "sge", Tasks: []int{5, 9, 13}},
	{Name: "sw", Title: "Smith-Waterman, 1000 comparisons", Flop: 39.6 * 1.1e9, Platform: "sge", Tasks: []int{5, 9, 13, 17}},
}

// SGEAppByName returns an application of SGEApps.
func SGEAppByName(name string) (SGEApp, error) {
	var names []string
	for _, a := range SGEApps {
		if a.Name == name {
			return a, nil
		}
		names = append(names, a.Name)
	}
	return SGEApp{}, fmt.Errorf("sge: unknown application %q (want %s)", name, strings.Join(names, ", "))
}

// SGEOptions are the generator's parameters.
type SGEOptions struct {
	App   string // pi50, pi80 or sw
	Tasks int    // how many tasks, at least 1
}

// GenerateSGE makes a scenario: Tasks sequential tasks of App, all
// submitted at 0, without walltime, sharing one profile.
func GenerateSGE(o SGEOptions) (*Workload, error) {
	app, err := SGEAppByName(o.App)
	if err != nil {
		return nil, err
	}
	if o.Tasks < 1 {
		return nil, fmt.Errorf("sge: --tasks must be at least 1 (got %d)", o.Tasks)
	}
	w := &Workload{NbRes: 4, Profiles: map[string]Profile{}}
	w.AddProfile(computeProfile(app.Name, app.Flop))
	for k := 1; k <= o.Tasks; k++ {
		id := fmt.Sprintf("%s-%02d", app.Name, k)
		var jb objBuilder
		jb.str("id", id).int("subtime", 0).int("res", 1).str("profile", app.Name)
		w.Jobs = append(w.Jobs, Job{ID: id, Subtime: 0, Res: 1, Walltime: -1, Profile: app.Name, Raw: jb.bytes()})
	}
	mb, err := marshalSorted(map[string]any{
		"generator": "sge",
		"params":    map[string]any{"app": app.Name, "tasks": o.Tasks, "flop": app.Flop, "platform": app.Platform},
	})
	if err != nil {
		return nil, err
	}
	w.SetExtra("meta", mb)
	return w, nil
}
