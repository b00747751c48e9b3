package sim

import (
	"errors"
	"fmt"

	"github.com/bucma-sched/bucma/platforms"
)

// network holds the platform's links as max-min constraints and the routes
// between hosts (SimGrid's, from the platform loader), looked up when first
// needed.
type network struct {
	p     *platforms.Platform
	names []string
	links []link
	memo  map[[2]int]netRoute
	// approximate counts a route the engine cannot compute as empty
	// (instantaneous) instead of failing.
	approximate bool
}

type netRoute struct {
	links   []int
	latency float64
	err     error
}

func newNetwork(p *platforms.Platform, names []string, approximate bool) *network {
	n := &network{p: p, names: names, memo: map[[2]int]netRoute{}, approximate: approximate}
	for _, l := range p.Links() {
		n.links = append(n.links, link{latency: l.Latency, cnst: &lmmCnst{bound: l.Bandwidth, fatpipe: l.Fatpipe}})
	}
	return n
}

func (n *network) route(src, dst int) ([]int, float64, error) {
	key := [2]int{src, dst}
	if r, ok := n.memo[key]; ok {
		return r.links, r.latency, r.err
	}
	var r netRoute
	r.links, r.latency, r.err = n.p.Route(n.names[src], n.names[dst])
	if errors.Is(r.err, platforms.ErrUndeclaredRoute) {
		// SimGrid uses the route as it stands (an undeclared piece is
		// empty); so does the engine.
		r.err = nil
	}
	if r.err != nil && n.approximate {
		r = netRoute{}
	}
	if r.err != nil {
		r.err = fmt.Errorf("route from %s to %s: %w (not modelled by the engine; --approximate counts it as instantaneous)", n.names[src], n.names[dst], r.err)
	}
	n.memo[key] = r
	return r.links, r.latency, r.err
}
