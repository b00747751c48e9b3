// Package conservative holds conservative backfilling: the textbook
// policy (the framework's Conservative start rule over a profile of free
// host counts, under any queue order and host selection), and batsched's
// conservative_bf decision for decision (backfill=batsched: batsched's
// Schedule, queue and resource selection, policies/batsched).
package conservative

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bucma-sched/bucma/policies/batsched"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sched/xtime"
)

// base is conservative backfilling as a base policy (what BUCMA's
// base=conservative runs): FCFS order, the Conservative rule.
var base = sched.Base{Order: sched.FCFSOrder{}, Rule: sched.NewConservative(), Rank: 25}

var backfillOption = sched.OptionSpec{
	Name:    "backfill",
	Default: "count",
	Help: "count: textbook conservative backfilling (reservations in numbers of hosts; hosts picked when a job starts); " +
		"batsched: batsched's conservative_bf (reservations on the very hosts, queue by release date then id, exact dates). " +
		"With hosts=first-fit and no-walltime=reject, batsched takes conservative_bf's decisions",
	Values: []string{"count", "batsched"},
}

var orderOption = sched.OptionSpec{
	Name:    "order",
	Default: "fcfs",
	Help: "queue order, batsched's names (its -o): fcfs; lcfs; desc_slowdown and desc_bounded_slowdown (the longest wait first: fcfs); " +
		"asc_size, desc_size (requested hosts); asc_walltime, desc_walltime. With backfill=count ties go by submission time then id, " +
		"and a job without walltime comes last by walltime; with backfill=batsched by release date, ties by id, and a job without walltime counts as -1 s",
	Values: batsched.OrderNames,
}

// hostsOption is the shared hosts option with batsched's contiguous
// selection on top.
var hostsOption = sched.OptionSpec{
	Name:    "hosts",
	Default: sched.HostsOption.Default,
	Help:    sched.HostsOption.Help + "; or contiguous (with backfill=batsched: batsched's -p contiguous, the first run of consecutive free hosts long enough)",
	Values:  append(append([]string(nil), sched.HostsOption.Values...), "contiguous"),
}

var delayOption = sched.OptionSpec{
	Name:    "rjms-delay",
	Default: "auto",
	Help:    "seconds added to every walltime in the plan (batsched's -d, RJMS delay); auto: 5 with backfill=batsched (batsched's default), 0 with count",
}

var noWalltimeOption = sched.OptionSpec{
	Name:    "no-walltime",
	Default: "forever",
	Help:    "jobs without walltime: forever (queued, planned to hold their hosts for ever) or reject (at submission, as conservative_bf)",
	Values:  []string{"forever", "reject"},
}

// Register adds conservative to r.
func Register(r *sched.Registry) {
	r.Add(sched.Spec{
		Name:        "conservative",
		Description: "conservative backfilling: every waiting job holds a reservation; a job starts earlier only where it delays none, and reservations move earlier when jobs end early",
		Options:     []sched.OptionSpec{orderOption, hostsOption, backfillOption, delayOption, noWalltimeOption},
		New:         newPolicy,
		Base:        &base,
	})
}

func newPolicy(opts sched.Options) (sched.Policy, error) {
	delay, err := parseDelay(opts["rjms-delay"], opts["backfill"])
	if err != nil {
		return nil, err
	}
	reject := opts["no-walltime"] == "reject"
	switch opts["backfill"] {
	case "count":
		if opts["hosts"] == "contiguous" {
			return nil, fmt.Errorf("hosts=contiguous plans on the very hosts: it needs backfill=batsched")
		}
		sel, err := sched.HostsFrom(opts)
		if err != nil {
			return nil, err
		}
		order, err := countOrder(opts["order"])
		if err != nil {
			return nil, err
		}
		return &sched.Composite{Order: order, Rule: &sched.Conservative{Delay: delay}, Hosts: sel, RejectNoWalltime: reject}, nil
	case "batsched":
		order, err := batsched.ParseOrder(opts["order"])
		if err != nil {
			return nil, err
		}
		var sel batsched.Selector
		fastest := false
		switch opts["hosts"] {
		case "first-fit":
			sel = batsched.Basic{}
		case "contiguous":
			sel = batsched.Contiguous{}
		case "fastest":
			fastest = true
		default:
			return nil, fmt.Errorf("hosts=%s: with backfill=batsched, hosts is first-fit (batsched's basic), contiguous or fastest", opts["hosts"])
		}
		return &BatschedConservative{Order: order, Selector: sel, fastest: fastest, Delay: xtime.Of(delay), Recent: batsched.Recent{RejectNoWalltime: reject}}, nil
	}
	return nil, fmt.Errorf("unknown backfill %q", opts["backfill"])
}

// parseDelay reads the rjms-delay option.
func parseDelay(v, backfill string) (float64, error) {
	if strings.TrimSpace(v) == "auto" {
		if backfill == "batsched" {
			return batsched.DefaultRJMSDelay, nil
		}
		return 0, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || !(f >= 0) || f > 1e15 {
		return 0, fmt.Errorf("rjms-delay %q: want auto or a number of seconds, at least 0", v)
	}
	return f, nil
}

// countOrder is the framework's order for an order option value (the
// orders are kept indexed by the framework; build one per policy).
func countOrder(name string) (sched.Order, error) {
	o, err := batsched.ParseOrder(name)
	if err != nil {
		return nil, err
	}
	switch o {
	case batsched.FCFS, batsched.DescSlowdown, batsched.DescBoundedSlowdown:
		return sched.FCFSOrder{}, nil
	case batsched.LCFS:
		return sched.NewKeyOrder("lcfs", func(j *sched.Job) float64 { return -j.Submit() }), nil
	case batsched.AscSize:
		return sched.NewKeyOrder("asc_size", func(j *sched.Job) float64 { return float64(j.Res()) }), nil
	case batsched.DescSize:
		return sched.NewKeyOrder("desc_size", func(j *sched.Job) float64 { return -float64(j.Res()) }), nil
	case batsched.AscWalltime:
		return sched.WalltimeOrder{}, nil
	case batsched.DescWalltime:
		return sched.WalltimeOrder{Descending: true}, nil
	}
	return nil, fmt.Errorf("unknown order %q", name)
}
