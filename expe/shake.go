package expe

import (
	"fmt"
	"strconv"

	"github.com/bucma-sched/bucma/workloads"
)

// ShakeSpec is a plan's input shaking (Tsafrir, Ouaknine and Feitelson,
// MASCOTS 2007): every workload of the plan is made as without it, then
// shaken into Copies copies (workloads.Shake), and every variant runs on
// each copy; the comparison report counts on how many copies each paired
// difference keeps its sign.
type ShakeSpec struct {
	// Submit bounds the shift of each submission time (s).
	Submit float64 `json:"submit"`
	// RuntimePercent or RuntimeSeconds bounds the change of each run time
	// (a delay profile's delay), relative or absolute; 0: run times stay.
	RuntimePercent float64 `json:"runtime_percent,omitempty"`
	RuntimeSeconds float64 `json:"runtime_seconds,omitempty"`
	// Copies is the number of shaken copies of each workload.
	Copies int `json:"copies"`
}

// options are the workloads.Shake options of one copy of the workload of
// a seed.
func (s ShakeSpec) options(seed uint64, copy int) workloads.ShakeOptions {
	return workloads.ShakeOptions{Submit: s.Submit, RuntimeFraction: s.RuntimePercent / 100, RuntimeSeconds: s.RuntimeSeconds,
		Seed: ShakeSeed(seed, copy)}
}

// check checks the bounds and the number of copies (1 to MaxRuns: each
// copy is a run of every variant).
func (s ShakeSpec) check() error {
	if s.Copies < 1 || s.Copies > MaxRuns {
		return fmt.Errorf("shake: %d copies: must be in 1..%d", s.Copies, MaxRuns)
	}
	if err := s.options(1, 1).Check(); err != nil {
		return fmt.Errorf("shake: %w", err)
	}
	return nil
}

// Bounds says what each copy changes ("submission times ± 30 s, run
// times ± 5 %").
func (s ShakeSpec) Bounds() string {
	out := fmt.Sprintf("submission times ± %s s", num(s.Submit))
	switch {
	case s.RuntimePercent > 0:
		out += fmt.Sprintf(", run times ± %s %%", num(s.RuntimePercent))
	case s.RuntimeSeconds > 0:
		out += fmt.Sprintf(", run times ± %s s", num(s.RuntimeSeconds))
	}
	return out
}

func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// ShakeSeed is the seed of the shaken copy copy of the workload of seed:
// a function of both alone (splitmix64 of each), so that a copy is the
// same whatever the number of workers, the order of the runs and the
// executions that made the campaign.
func ShakeSeed(seed uint64, copy int) uint64 {
	return splitmix(seed ^ splitmix(uint64(copy)+0x5348414b45)) // "SHAKE"
}

// splitmix is splitmix64's finalizer: a bijection of 64-bit integers that
// spreads neighbouring values apart.
func splitmix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}

// ShakenKey names the workload of a shaken copy: the key of the workload
// it is a copy of, then "_c" and the copy (c001 ...).
func ShakenKey(key string, copy int) string { return fmt.Sprintf("%s_c%03d", key, copy) }

// Copies lists the copies each workload of the plan is run on: 1 to
// Shake.Copies, or the single 0 (the workload itself) without shaking.
func (p Plan) Copies() []int {
	if p.Shake == nil {
		return []int{0}
	}
	out := make([]int, p.Shake.Copies)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

// ShakeWorkload shakes the workload file data into its copy copy for
// seed.
func ShakeWorkload(data []byte, s ShakeSpec, seed uint64, copy int) ([]byte, error) {
	w, err := workloads.Parse(data, "workload")
	if err != nil {
		return nil, err
	}
	if w, err = workloads.Shake(w, s.options(seed, copy)); err != nil {
		return nil, err
	}
	return w.Bytes()
}

// copiesText is " × N shaken copies" for a plan that shakes its
// workloads, else "".
func (p Plan) copiesText() string {
	if p.Shake == nil {
		return ""
	}
	return fmt.Sprintf(" × %d shaken copies", p.Shake.Copies)
}
