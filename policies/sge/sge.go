package sge

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/bucma-sched/bucma/sched"

	"github.com/bucma-sched/bucma/batsim"
)

// The two Sun Grid Engine queue choices of the SGE load-balancing paper
// (docs/policies.md, "SGE queue choices"): each host is an execution queue of a
// number of slots, every slot may run one job, and the jobs of a host
// share its processor (Batsim's compute sharing). Pending jobs are
// examined in arrival order at every decision; a job goes to the host the
// rule picks among those with a free slot, and a job that finds no host
// waits while the walk goes on (SGE dispatches without reservations). A
// job wider than one host takes that many distinct hosts, picked one
// after the other by the same rule (an extension: the paper's tasks are
// sequential).

// SGELoadBalanced is sge-loadbalanced, the paper's proposal (Figure 3 with
// its ambiguity resolved as §2.2 says): the host with the largest fraction
// of free slots, recomputed after each dispatch.
type SGELoadBalanced struct {
	Slots []int // per host (nil: the platform's slots property)
	// PreferLowestID breaks ties between equal fractions by host id only;
	// by default the host with more slots (a faster machine, by the
	// administrator's choice) comes first, then the lowest id.
	PreferLowestID bool
}

// SGEChoice is how sge-default-rr picks among hosts with a free slot.
type SGEChoice int

const (
	// SGERoundRobin cycles over the hosts from a start offset; the next
	// pick starts after the last host given.
	SGERoundRobin SGEChoice = iota
	// SGESeqno takes the lowest-numbered host (SGE's queue sequence
	// number): fill first.
	SGESeqno
	// SGELeastLoad takes the host running the fewest jobs (the load
	// average of a one-processor host under CPU-bound jobs), ties by id.
	SGELeastLoad
)

// SGEDefault is sge-default-rr, SGE's default queue choice as the paper's
// baseline.
type SGEDefault struct {
	Slots  []int // per host (nil: the platform's slots property)
	Choice SGEChoice
	// Start is the round robin's first host (RandomStart: drawn from Seed
	// once the platform is known).
	Start       int
	RandomStart bool
	Seed        uint64

	next int // round robin: the host the next scan starts at
}

var sgeSlotsOption = sched.OptionSpec{Name: "slots", Default: "platform",
	Help: "slots of every host: platform (each host's \"slots\" property, 1 when absent) or a comma-separated count per host in resource-id order (5,5,5,4)"}

// Register adds sge-loadbalanced and sge-default-rr to r.
func Register(r *sched.Registry) {
	r.Add(sched.Spec{
		Name:           "sge-loadbalanced",
		Description:    "SGE load balancing (the SGE load-balancing paper, Figure 3): jobs in arrival order, each to the host with the largest fraction of free slots; hosts run several jobs at once (compute sharing)",
		ComputeSharing: true,
		Options: []sched.OptionSpec{
			sgeSlotsOption,
			{Name: "tie", Default: "more-slots", Values: []string{"more-slots", "lowest-id"},
				Help: "among hosts with the same free fraction: more slots first, then the lowest id; or the lowest id"},
		},
		New: func(opts sched.Options) (sched.Policy, error) {
			slots, err := parseSlotsOption(opts["slots"])
			if err != nil {
				return nil, err
			}
			return &SGELoadBalanced{Slots: slots, PreferLowestID: opts["tie"] == "lowest-id"}, nil
		},
	})
	r.Add(sched.Spec{
		Name:           "sge-default-rr",
		Description:    "SGE's default queue choice (the paper's baseline): jobs in arrival order, each to the next host with a free slot in round robin (or seqno, least-load); hosts run several jobs at once (compute sharing)",
		ComputeSharing: true,
		Options: []sched.OptionSpec{
			sgeSlotsOption,
			{Name: "choice", Default: "round-robin", Values: []string{"round-robin", "seqno", "least-load"},
				Help: "round-robin over the hosts with a free slot from start; seqno: the lowest-numbered host with a free slot; least-load: the host running the fewest jobs (ties by id)"},
			{Name: "start", Default: "0", Help: "round robin's first host: a resource id, or random (drawn with seed)"},
			{Name: "seed", Default: "1", Help: "seed of start=random"},
		},
		New: newSGEDefault,
	})
}

func newSGEDefault(opts sched.Options) (sched.Policy, error) {
	slots, err := parseSlotsOption(opts["slots"])
	if err != nil {
		return nil, err
	}
	p := &SGEDefault{Slots: slots}
	switch opts["choice"] {
	case "seqno":
		p.Choice = SGESeqno
	case "least-load":
		p.Choice = SGELeastLoad
	}
	if opts["start"] == "random" {
		p.RandomStart = true
	} else if p.Start, err = strconv.Atoi(opts["start"]); err != nil || p.Start < 0 {
		return nil, &sched.OptionError{Msg: fmt.Sprintf("option start=%q: want a resource id (0, 1, ...) or random", opts["start"])}
	}
	if p.Seed, err = strconv.ParseUint(opts["seed"], 10, 64); err != nil {
		return nil, &sched.OptionError{Msg: fmt.Sprintf("option seed=%q: want a whole number >= 0", opts["seed"])}
	}
	return p, nil
}

// parseSlotsOption reads the slots option: nil for "platform".
func parseSlotsOption(v string) ([]int, error) {
	if v == "platform" {
		return nil, nil
	}
	parts := strings.Split(v, ",")
	out := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 {
			return nil, &sched.OptionError{Msg: fmt.Sprintf("option slots=%q: item %d (%q): want platform or a positive whole number of slots per host, comma-separated", v, i+1, p)}
		}
		out[i] = n
	}
	return out, nil
}

// setSlots applies a slots option to the platform.
func setSlots(s *sched.State, slots []int) error {
	if slots == nil {
		return nil
	}
	if len(slots) != s.NbHosts() {
		return &sched.OptionError{Msg: fmt.Sprintf("option slots: %d counts given for the platform's %d hosts", len(slots), s.NbHosts())}
	}
	return s.SetSlots(slots)
}

// SimulationBegins applies the slots option.
func (p *SGELoadBalanced) SimulationBegins(s *sched.State) error { return setSlots(s, p.Slots) }

// SimulationBegins applies the slots option and places the round robin.
func (p *SGEDefault) SimulationBegins(s *sched.State) error {
	if err := setSlots(s, p.Slots); err != nil {
		return err
	}
	n := s.NbHosts()
	switch {
	case n == 0:
	case p.RandomStart:
		p.next = rand.New(rand.NewPCG(p.Seed, 0x5ce)).IntN(n)
	case p.Start >= n:
		return &sched.OptionError{Msg: fmt.Sprintf("option start=%d: the platform has hosts 0..%d", p.Start, n-1)}
	default:
		p.next = p.Start
	}
	return nil
}

// sgeWalk starts the waiting jobs in arrival order, each on the hosts pick
// chooses (nil: the job waits), until no host has a free slot.
func sgeWalk(s *sched.State, d *sched.Decider, pick func(s *sched.State, res int) []int) {
	for _, j := range s.Waiting() {
		if s.NbFree() == 0 {
			return
		}
		if j.State() != batsim.StateSubmitted || j.Refused() || j.Res() > s.NbFree() {
			continue
		}
		if hosts := pick(s, j.Res()); hosts != nil && !d.Start(j, hosts) {
			return
		}
	}
}

// pickDistinct picks res distinct hosts with a free slot, one after the
// other, each the best by better among those not picked yet; nil when
// fewer than res hosts have a free slot.
func pickDistinct(s *sched.State, res int, better func(a, b *sched.Host) bool) []int {
	out := make([]int, 0, res)
	for len(out) < res {
		best := -1
		for i := range s.NbHosts() {
			h := s.Host(i)
			if !h.Free() || slices.Contains(out, i) {
				continue
			}
			if best < 0 || better(h, s.Host(best)) {
				best = i
			}
		}
		if best < 0 {
			return nil
		}
		out = append(out, best)
	}
	return out
}

// Decide implements Policy.
func (p *SGELoadBalanced) Decide(s *sched.State, d *sched.Decider) {
	sgeWalk(s, d, func(s *sched.State, res int) []int {
		return pickDistinct(s, res, func(a, b *sched.Host) bool {
			// free(a)/slots(a) > free(b)/slots(b), exactly.
			fa, fb := a.FreeSlots()*b.Capacity(), b.FreeSlots()*a.Capacity()
			if fa != fb {
				return fa > fb
			}
			if !p.PreferLowestID && a.Capacity() != b.Capacity() {
				return a.Capacity() > b.Capacity()
			}
			return a.ID() < b.ID()
		})
	})
}

// Decide implements Policy.
func (p *SGEDefault) Decide(s *sched.State, d *sched.Decider) {
	switch p.Choice {
	case SGESeqno:
		sgeWalk(s, d, func(s *sched.State, res int) []int {
			return pickDistinct(s, res, func(a, b *sched.Host) bool { return a.ID() < b.ID() })
		})
	case SGELeastLoad:
		sgeWalk(s, d, func(s *sched.State, res int) []int {
			return pickDistinct(s, res, func(a, b *sched.Host) bool {
				if len(a.Jobs()) != len(b.Jobs()) {
					return len(a.Jobs()) < len(b.Jobs())
				}
				return a.ID() < b.ID()
			})
		})
	default:
		sgeWalk(s, d, p.roundRobin)
	}
}

// roundRobin takes the first res hosts with a free slot from the pointer
// on, cyclically, and moves the pointer past the last one.
func (p *SGEDefault) roundRobin(s *sched.State, res int) []int {
	n := s.NbHosts()
	out := make([]int, 0, res)
	for k := 0; k < n && len(out) < res; k++ {
		h := (p.next + k) % n
		if s.Host(h).Free() {
			out = append(out, h)
		}
	}
	if len(out) < res {
		return nil
	}
	p.next = (out[len(out)-1] + 1) % n
	return out
}
