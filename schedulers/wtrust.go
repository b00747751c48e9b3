package schedulers

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The walltime-trust algorithm (specs/algorithms.md §4; bucma.txt Algorithm
// 1), meant for platforms where walltimes are precise. At every decision
// point: when the free hosts are at least the threshold fraction of all
// compute hosts, the queue is ordered by W × res descending (big jobs first,
// onto the fastest hosts), otherwise ascending; jobs start in that order
// while they fit, and the rest is EASY-backfilled behind the first job that
// does not fit.

// DefaultTrustThreshold is the free-host fraction at or above which big
// jobs go first.
const DefaultTrustThreshold = 0.8

// AreaOrder orders by walltime × requested hosts (unlimited walltime =
// +Inf), ties by submission time then job id.
type AreaOrder struct{ Descending bool }

// Sort implements Order.
func (o AreaOrder) Sort(_ *State, q []*Job) {
	type keyed struct {
		area float64
		j    *Job
	}
	k := make([]keyed, len(q))
	for i, j := range q {
		k[i] = keyed{j.WalltimeOrInf() * float64(j.Res), j}
	}
	slices.SortFunc(k, func(a, b keyed) int {
		if a.area != b.area {
			if (a.area > b.area) == o.Descending {
				return -1
			}
			return 1
		}
		if lessBySubmit(a.j, b.j) {
			return -1
		}
		if lessBySubmit(b.j, a.j) {
			return 1
		}
		return 0
	})
	for i := range k {
		q[i] = k[i].j
	}
}

// WalltimeTrust is the walltime-trust policy.
type WalltimeTrust struct {
	// Threshold is the free-host fraction (0..1) at or above which the
	// queue is ordered by W × res descending.
	Threshold float64
	Hosts     HostSelector
}

// BigFirst reports whether the queue is ordered big jobs first at this
// decision point: free hosts / compute hosts >= Threshold.
func (w *WalltimeTrust) BigFirst(s *State) bool {
	if s.NbHosts() == 0 {
		return false
	}
	return float64(s.NbFree())/float64(s.NbHosts()) >= w.Threshold
}

// Decide implements Policy.
// The two orders are kept by the State (jobSeq), so a decision walks the
// order it needs rather than sorting the queue.
func (w *WalltimeTrust) Decide(s *State, d *Decider) {
	if s.NbWaiting() == 0 || s.NbFree() == 0 {
		return
	}
	q, _ := s.seqFor(AreaOrder{Descending: w.BigFirst(s)})
	EASY{}.applyWalk(s, &seqWalk{q: q}, w.Hosts, d)
}

// ParseThreshold reads the threshold option: a number in [0, 1].
func ParseThreshold(v string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(f) {
		return 0, fmt.Errorf("threshold %q is not a number", v)
	}
	if f < 0 || f > 1 {
		return 0, fmt.Errorf("threshold %v is outside [0, 1] (it is a fraction of the compute hosts)", f)
	}
	return f, nil
}

func init() {
	Register(Spec{
		Name:        "wtrust",
		Description: "walltime trust: W×res descending when enough hosts are free, else ascending; blocking start, then EASY backfilling",
		Options: []OptionSpec{
			{
				Name:    "threshold",
				Default: strconv.FormatFloat(DefaultTrustThreshold, 'g', -1, 64),
				Help:    "free-host fraction (0..1) at or above which the biggest jobs (W×res) go first; below it the smallest do",
			},
			hostsOption,
		},
		New: func(opts Options) (Policy, error) {
			t, err := ParseThreshold(opts["threshold"])
			if err != nil {
				return nil, err
			}
			sel, err := hostsFrom(opts)
			if err != nil {
				return nil, err
			}
			return &WalltimeTrust{Threshold: t, Hosts: sel}, nil
		},
	})
}
