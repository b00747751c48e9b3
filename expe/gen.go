package expe

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"

	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/workloads"
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
// OSEP demand (r.Demand, r.Late, r.LateBy; load is not used), the "sge"
// generator one SGE scenario (r.App, r.Tasks; neither seed nor load is
// used), the "bot" generator bags of tasks (r.Bots, r.BotArrivals,
// r.Background; the seed draws the BoTs of profile classes, load is not
// used).
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
		var o workloads.LilleOptions
		if o, err = lilleOptions(r, seed, load, speeds); err != nil {
			return nil, err
		}
		w, err = workloads.GenerateLille(o)
	case "osep":
		w, err = workloads.GenerateOSEP(osepOptions(r, seed, len(p.Hosts)))
	case "sge":
		w, err = workloads.GenerateSGE(workloads.SGEOptions{App: r.App, Tasks: r.Tasks})
	case "gang":
		w, err = gangWorkload(r, seed, load, len(p.Hosts))
	case "bot":
		w, err = botWorkload(r, seed, len(p.Hosts))
	case "file":
		if err = checkFileSum(r); err != nil {
			return nil, err
		}
		w, _, err = workloads.LoadChecked(r.File, workloads.ValidateOptions{PlatformHosts: len(p.Hosts)})
		if err != nil {
			return nil, fmt.Errorf("workload file %s: %w", r.File, err)
		}
	default:
		return nil, fmt.Errorf("unknown workload generator %q (valid: %s)", r.Generator, strings.Join(Generators, ", "))
	}
	if err != nil {
		return nil, err
	}
	for _, step := range r.Steps {
		switch step {
		case "bucma-insert":
			w, err = workloads.BucmaInsert(w, workloads.InsertOptions{Seed: seed, Bursts: r.Bursts})
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

// Generators are the workload generators of a recipe: "file" reads a
// workload file (a real trace) instead of generating one.
var Generators = []string{"lille", "osep", "sge", "gang", "bot", "file"}

// lilleOptions are the lille generator's options for a recipe: the trace
// is sized for the platform's hosts, run times are on its slowest host (the
// default reference speed on the Lille platform), the load is the level's,
// or the case's when the plan has cases (load 0).
func lilleOptions(r WorkloadRecipe, seed uint64, load float64, speeds []float64) (workloads.LilleOptions, error) {
	o := workloads.LilleOptions{Jobs: r.Jobs, Seed: seed, Load: load, HostSpeeds: speeds,
		RefSpeed: workloads.SlowestSpeed(speeds), RuntimeScale: r.RuntimeScale, OneNodeShare: r.OneNodeShare}
	if load == 0 {
		o.Load = r.Load
	}
	if r.UserMix != "" {
		mix, err := workloads.ParseUserMix(r.UserMix)
		if err != nil {
			return o, err
		}
		o.UserMix = mix
	}
	return o, nil
}

// FileSHA256 is the checksum a recipe records for a workload file.
func FileSHA256(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// checkFileSum refuses a recipe's workload file that changed since the
// campaign began (its checksum is not the recorded one).
func checkFileSum(r WorkloadRecipe) error {
	if r.Generator != "file" {
		return nil
	}
	if r.File == "" {
		return fmt.Errorf("the file generator needs a workload file")
	}
	sum, err := FileSHA256(r.File)
	if err != nil {
		return fmt.Errorf("workload file: %w", err)
	}
	if r.FileSHA256 != "" && sum != r.FileSHA256 {
		return fmt.Errorf("workload file %s changed since the campaign began (sha256 %s, recorded %s): use another --out directory", r.File, sum, r.FileSHA256)
	}
	return nil
}

// checkFile checks the plan's workload file, if any (see checkFileSum).
func (p Plan) checkFile() error { return checkFileSum(p.Workload) }

// osepOptions are the OSEP generator's options for a recipe.
func osepOptions(r WorkloadRecipe, seed uint64, hosts int) workloads.OSEPOptions {
	return workloads.OSEPOptions{Demand: r.Demand, Late: r.Late, LateBy: r.LateBy, Seed: seed, NbRes: hosts}
}

// checkRecipe reports a recipe the generator would refuse, before any
// workload is made (only the osep, sge and bot generators' parameters are
// checked: they are cheap to run).
func checkRecipe(r WorkloadRecipe) error {
	if err := checkShape(r); err != nil {
		return err
	}
	switch r.Generator {
	case "osep":
		_, err := workloads.GenerateOSEP(osepOptions(r, 1, 0))
		return err
	case "sge":
		_, err := workloads.GenerateSGE(workloads.SGEOptions{App: r.App, Tasks: r.Tasks})
		return err
	case "bot":
		_, err := BotSpecs(r, 1)
		return err
	}
	return nil
}

// checkShape checks the trace-shape parameters of a recipe.
func checkShape(r WorkloadRecipe) error {
	if r.UserMix != "" {
		if _, err := workloads.ParseUserMix(r.UserMix); err != nil {
			return err
		}
	}
	if r.RuntimeScale < 0 || r.OneNodeShare < 0 || r.OneNodeShare > 1 || r.Bursts < 0 || r.Load < 0 {
		return fmt.Errorf("load %g, runtime_scale %g, one_node_share %g, bursts %d: must be ≥ 0 (one_node_share ≤ 1; 0: the default)",
			r.Load, r.RuntimeScale, r.OneNodeShare, r.Bursts)
	}
	return nil
}
