package sim

import (
	"fmt"

	"bucma/platforms"
)

// network holds the platform's links as max-min constraints and the routes
// between hosts, computed when first needed.
type network struct {
	p     *platforms.Platform
	names []string
	links []link
	memo  map[[2]int]netRoute
}

type netRoute struct {
	links   []int
	latency float64
	err     error
}

func newNetwork(p *platforms.Platform, names []string) *network {
	n := &network{p: p, names: names, memo: map[[2]int]netRoute{}}
	// Provisional: the master loopback and one link per host to the master.
	n.links = append(n.links, link{latency: p.MasterLoopbackLatency, cnst: &lmmCnst{bound: 1e10, fatpipe: true}})
	for i := range p.Hosts {
		lat := 0.0
		if i < len(p.HostToMasterLatency) {
			lat = p.HostToMasterLatency[i]
		}
		n.links = append(n.links, link{latency: lat, cnst: &lmmCnst{bound: 1e10}})
	}
	return n
}

func (n *network) route(src, dst int) ([]int, float64, error) {
	key := [2]int{src, dst}
	if r, ok := n.memo[key]; ok {
		return r.links, r.latency, r.err
	}
	var r netRoute
	master := len(n.names) - 1
	switch {
	case src == master && dst == master:
		r.links, r.latency = []int{0}, n.links[0].latency
	case dst == master && src < len(n.p.Hosts):
		r.links, r.latency = []int{1 + src}, n.links[1+src].latency
	case src == master && dst < len(n.p.Hosts):
		r.links, r.latency = []int{1 + dst}, n.links[1+dst].latency
	default:
		r.err = fmt.Errorf("no route from %s to %s", n.names[src], n.names[dst])
	}
	n.memo[key] = r
	return r.links, r.latency, r.err
}
