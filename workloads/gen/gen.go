package gen

import (
	"crypto/sha256"
	"encoding/hex"
	"os"

	"github.com/bucma-sched/bucma/platforms"
)

// Generate makes the workload of a recipe for one seed and load, as a
// campaign makes it by default (expe.WorkloadMaker): the recipe's generator,
// then its steps, all seeded with seed (Default().Make), sized for the
// compute hosts of the platform file.
func Generate(r Recipe, seed uint64, load float64, platform string) ([]byte, error) {
	p, err := platforms.Load(platform)
	if err != nil {
		return nil, err
	}
	speeds := make([]float64, len(p.Hosts))
	for i, h := range p.Hosts {
		speeds[i] = h.Speed
	}
	w, err := Default().Make(r, seed, load, speeds)
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
