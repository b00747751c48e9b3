package workloads

import (
	"fmt"
	"strconv"
)

// MaxSequenceTasks bounds the tasks one execution of a composed profile runs
// (its delay and parallel tasks, repetitions and nested sequences
// multiplied out). Batsim 4.2.1 builds every one of them when the job
// starts, about 150 bytes each (a sequence of a million delays took Batsim
// 171 MB): a profile above the bound is one Batsim itself cannot run on a
// machine with less than 15 GB, and one execution of it costs the embedded
// engine over half a minute (its memory does not grow with the count: it
// makes each task as the sequence reaches it). Validate refuses it, naming
// the profile.
const MaxSequenceTasks = 100_000_000

// sequenceCap is where a SequenceCounter stops counting.
const sequenceCap = int64(1) << 62

// SequenceCounter counts the delay and parallel tasks one execution of a
// profile runs: 1 for a delay or parallel profile, repeat × the sum of its
// parts' for a composed one. Each profile is counted once (a part used by
// many sequences, or many counts, costs nothing more).
type SequenceCounter[K comparable] struct {
	// parts describes a profile: its repeat and parts when it is composed.
	parts func(K) (repeat int, seq []K, composed bool)
	memo  map[K]int64
}

// NewSequenceCounter returns a counter over the profiles parts describes.
func NewSequenceCounter[K comparable](parts func(K) (repeat int, seq []K, composed bool)) *SequenceCounter[K] {
	return &SequenceCounter[K]{parts: parts, memo: map[K]int64{}}
}

// Tasks returns the number of tasks one execution of profile k runs; a
// count that does not fit (or a cycle of sequences) is returned as 2^62.
func (c *SequenceCounter[K]) Tasks(k K) int64 {
	const visiting = -1
	if n, ok := c.memo[k]; ok {
		if n == visiting {
			return sequenceCap
		}
		return n
	}
	repeat, seq, composed := c.parts(k)
	if !composed {
		return 1
	}
	c.memo[k] = visiting
	var sum int64
	for _, s := range seq {
		n := c.Tasks(s)
		sum = min(sum, sequenceCap-n) + n // saturates at sequenceCap
	}
	n := sum
	if repeat > 1 {
		if sum > sequenceCap/int64(repeat) {
			n = sequenceCap
		} else {
			n = sum * int64(repeat)
		}
	}
	c.memo[k] = n
	return n
}

// sequenceCounter counts on the profiles of w (an unknown part counts as
// one task: Validate reports it apart).
func (w *Workload) sequenceCounter() *SequenceCounter[string] {
	return NewSequenceCounter(func(n string) (int, []string, bool) {
		p, ok := w.Profiles[n]
		if !ok || p.Type != TypeComposed {
			return 0, nil, false
		}
		return p.Repeat, p.Seq, true
	})
}

// countText writes a task count, "over 4.6e18" when SequenceTasks
// stopped counting.
func countText(n int64) string {
	if n >= sequenceCap {
		return fmt.Sprintf("over %.2g", float64(sequenceCap))
	}
	return strconv.FormatInt(n, 10)
}
