package wtrust

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/bucma-sched/bucma/sched"
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

// WalltimeTrust is the walltime-trust policy.
type WalltimeTrust struct {
	// Threshold is the free-host fraction (0..1) at or above which the
	// queue is ordered by W × res descending.
	Threshold float64
	Hosts     sched.HostSelector
}

// BigFirst reports whether the queue is ordered big jobs first at this
// decision point: free hosts / compute hosts >= Threshold.
func (w *WalltimeTrust) BigFirst(s *sched.State) bool {
	if s.NbHosts() == 0 {
		return false
	}
	return float64(s.NbFree())/float64(s.NbHosts()) >= w.Threshold
}

// Decide implements Policy.
// The two orders are kept by the State (jobSeq), so a decision walks the
// order it needs rather than sorting the queue.
func (w *WalltimeTrust) Decide(s *sched.State, d *sched.Decider) {
	if s.NbWaiting() == 0 || s.NbFree() == 0 {
		return
	}
	sched.EASY{}.ApplyWalk(s, s.Walk(sched.AreaOrder{Descending: w.BigFirst(s)}), w.Hosts, d)
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

// Register adds wtrust to r.
func Register(r *sched.Registry) {
	r.Add(sched.Spec{
		Name:        "wtrust",
		Description: "walltime trust: W×res descending when enough hosts are free, else ascending; blocking start, then EASY backfilling",
		Options: []sched.OptionSpec{
			{
				Name:    "threshold",
				Default: strconv.FormatFloat(DefaultTrustThreshold, 'g', -1, 64),
				Help:    "free-host fraction (0..1) at or above which the biggest jobs (W×res) go first; below it the smallest do",
			},
			sched.HostsOption,
		},
		New: func(opts sched.Options) (sched.Policy, error) {
			t, err := ParseThreshold(opts["threshold"])
			if err != nil {
				return nil, err
			}
			sel, err := sched.HostsFrom(opts)
			if err != nil {
				return nil, err
			}
			return &WalltimeTrust{Threshold: t, Hosts: sel}, nil
		},
	})
}
