package expe

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/workloads/gen"
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

// checkFiles refuses a plan whose files changed since the campaign began.
func (p Plan) checkFiles() error {
	recipes := []gen.Recipe{p.Workload}
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
		if err := gen.Default().CheckFiles(r); err != nil {
			return err
		}
	}
	return nil
}
