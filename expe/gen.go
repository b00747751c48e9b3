package expe

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"

	"github.com/bucma-sched/bucma/platforms"
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

// GenerateWorkload is the default WorkloadMaker: the recipe's generator,
// then its steps, all seeded with seed (Generators().Make), sized for the
// compute hosts of the platform file.
func GenerateWorkload(r WorkloadRecipe, seed uint64, load float64, platform string) ([]byte, error) {
	p, err := platforms.Load(platform)
	if err != nil {
		return nil, err
	}
	speeds := make([]float64, len(p.Hosts))
	for i, h := range p.Hosts {
		speeds[i] = h.Speed
	}
	w, err := Generators().Make(r, seed, load, speeds)
	if err != nil {
		return nil, err
	}
	return w.Bytes()
}

// FileSHA256 is the checksum a recipe records for a file it names.
func FileSHA256(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// checkFiles refuses a plan whose files changed since the campaign began.
func (p Plan) checkFiles() error {
	recipes := []WorkloadRecipe{p.Workload}
	if len(p.Cases) > 0 {
		recipes = recipes[:0]
		for _, c := range p.Cases {
			recipes = append(recipes, p.Recipe(c.Name))
		}
	}
	for _, r := range recipes {
		if r.Generator == "" {
			continue
		}
		if err := Generators().CheckFiles(r); err != nil {
			return err
		}
	}
	return nil
}
