package expe

import (
	"fmt"
	"os"

	"bucma/platforms"
	"bucma/workloads"
)

// PlatformXML returns the XML of a bundled platform ("lille", ...) or of a
// platform file.
func PlatformXML(name string) ([]byte, error) {
	for _, b := range platforms.BundledNames() {
		if b == name || b == name+".xml" {
			return platforms.BundledXML(b)
		}
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("not a bundled platform (%v) nor a readable file: %w", platforms.BundledNames(), err)
	}
	return data, nil
}

// GenerateWorkload is the default WorkloadMaker: the workloads package's
// generator, then its transformations, all seeded with seed. The generator
// is sized for the platform's compute hosts. The "osep" generator makes one
// OSEP demand (r.Demand, r.Late, r.LateBy; load is not used).
func GenerateWorkload(r WorkloadRecipe, seed uint64, load float64, platform string) ([]byte, error) {
	p, err := platforms.Load(platform)
	if err != nil {
		return nil, err
	}
	speeds := make([]float64, len(p.Hosts))
	for i, h := range p.Hosts {
		speeds[i] = h.Speed
	}
	var w *workloads.Workload
	switch r.Generator {
	case "lille":
		w, err = workloads.GenerateLille(workloads.LilleOptions{Jobs: r.Jobs, Seed: seed, Load: load, HostSpeeds: speeds})
	case "osep":
		w, err = workloads.GenerateOSEP(osepOptions(r, seed, len(p.Hosts)))
	default:
		return nil, fmt.Errorf("unknown workload generator %q (valid: lille, osep)", r.Generator)
	}
	if err != nil {
		return nil, err
	}
	for _, step := range r.Steps {
		switch step {
		case "bucma-insert":
			w, err = workloads.BucmaInsert(w, workloads.InsertOptions{Seed: seed})
		case "precise":
			w, err = workloads.MakePrecise(w, workloads.PreciseOptions{Seed: seed})
		default:
			return nil, fmt.Errorf("unknown workload step %q (valid: bucma-insert, precise)", step)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", step, err)
		}
	}
	return w.Bytes()
}

// osepOptions are the OSEP generator's options for a recipe.
func osepOptions(r WorkloadRecipe, seed uint64, hosts int) workloads.OSEPOptions {
	return workloads.OSEPOptions{Demand: r.Demand, Late: r.Late, LateBy: r.LateBy, Seed: seed, NbRes: hosts}
}

// checkRecipe reports a recipe the generator would refuse, before any
// workload is made (only the osep generator's parameters are checked: it
// is cheap to run).
func checkRecipe(r WorkloadRecipe) error {
	if r.Generator != "osep" {
		return nil
	}
	_, err := workloads.GenerateOSEP(osepOptions(r, 1, 0))
	return err
}
