package expe

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bucma-sched/bucma/platforms"
)

// PlatformXML returns the XML of a plan's platform: a bundled platform's
// name ("lille", "lille.xml") or a platform file's absolute path (a
// relative path is a file too).
func PlatformXML(name string) ([]byte, error) {
	if bundled, ok := platforms.BundledName(name); ok && !filepath.IsAbs(name) {
		return platforms.BundledXML(bundled)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("not a bundled platform (%s) nor a readable file: %w", platforms.BundledList(), err)
	}
	return data, nil
}

// ResolvePlatform finds the platform a plan file or a command line names,
// as every command finds one (platforms.Locate: a file at that path,
// relative to dir, else the bundled platform the name spells), and returns
// it as a plan holds it: a bundled platform's name ("lille", for lille.xml
// too), or a file's absolute path, once read as a platform.
func ResolvePlatform(dir, name string) (string, error) {
	file, bundled, err := platforms.Locate(dir, name)
	switch {
	case err != nil:
		return "", err
	case bundled != "":
		return bundled, nil
	}
	if abs, err := filepath.Abs(file); err == nil {
		file = abs
	}
	if _, err := platforms.Load(file); err != nil {
		return "", fmt.Errorf("platform %s: not a platform bucma reads: %v", name, err)
	}
	return file, nil
}

// samePlatform reports whether two plans' platforms are the same: a
// bundled platform however spelled, a file by its path.
func samePlatform(a, b string) bool {
	canon := func(s string) string {
		if n, ok := platforms.BundledName(s); ok && !filepath.IsAbs(s) {
			return n
		}
		return s
	}
	return canon(a) == canon(b)
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
