package platforms

import (
	"container/heap"
	"errors"
	"fmt"
	"sync"
)

// Link is one link of the network, as SimGrid's network model holds it.
type Link struct {
	Name      string  // SimGrid's name (split-duplex halves: "<id>_UP" / "<id>_DOWN"; the model loopback "__loopback__")
	Bandwidth float64 // bytes/s
	Latency   float64 // seconds
	Fatpipe   bool    // sharing_policy FATPIPE (otherwise SHARED)
}

// ErrUndeclaredRoute marks a route SimGrid computes without complaint
// although part of it is not declared: a Full zone without a route between
// two of its points, or a host of a <zone routing="Cluster"> without a
// <host_link>. SimGrid routes through nothing there (no link, no latency).
// Route returns an error wrapping it together with the links and latency
// SimGrid uses.
var ErrUndeclaredRoute = errors.New("undeclared route")

// maxRouteDepth bounds the recursion of route resolution across zones
// (SimGrid would overflow its stack on a cycle of gateways).
const maxRouteDepth = 64

// network is the routing state of a platform: the links, the zones with
// their routing tables, and the routes computed so far.
type network struct {
	name     string
	links    []*linkDecl
	loopback int // id of the network model's loopback link
	hosts    map[string]*netpoint

	mu   sync.Mutex
	memo map[[2]*netpoint]*routeResult
}

type routeResult struct {
	links   []int
	latency float64
	err     error
}

// Links lists every link that can appear in a route; a link's index is the
// id Route gives it. The model's loopback, "__loopback__", is link 0.
func (p *Platform) Links() []Link {
	if p.net == nil {
		return nil
	}
	out := make([]Link, len(p.net.links))
	for i, l := range p.net.links {
		out[i] = Link{Name: l.name, Bandwidth: l.bandwidth, Latency: l.latency, Fatpipe: l.fatpipe}
	}
	return out
}

// Route returns the route from host src to host dst (any host of the
// platform: compute, storage or master, by name) as SimGrid's
// Host::route_to returns it: the ids of its links (indexes in Links()) in
// SimGrid's order, duplicates kept as SimGrid keeps them, and its latency
// summed in SimGrid's order. src == dst gives the route from a host to
// itself (a declared loopback route, the model's "__loopback__" in a Full,
// Floyd or Dijkstra zone, a cluster's loopback or its up and down links).
// Routes are computed on first request and remembered; the returned slice
// is shared and must not be modified.
//
// A route SimGrid cannot compute (it throws or aborts) is an error naming
// both hosts and the reason. A route with an undeclared part is an error
// wrapping ErrUndeclaredRoute, returned with the links and latency SimGrid
// uses.
func (p *Platform) Route(src, dst string) ([]int, float64, error) {
	if p.net == nil {
		return nil, 0, fmt.Errorf("%s: route from %q to %q: the platform has no network description", p.Path, src, dst)
	}
	s, ok := p.net.hosts[src]
	if !ok {
		return nil, 0, fmt.Errorf("%s: route from %q to %q: no host %q", p.net.name, src, dst, src)
	}
	d, ok := p.net.hosts[dst]
	if !ok {
		return nil, 0, fmt.Errorf("%s: route from %q to %q: no host %q", p.net.name, src, dst, dst)
	}
	r := p.net.route(s, d)
	if r.err != nil {
		return r.links, r.latency, fmt.Errorf("%s: route from %q to %q: %w", p.net.name, src, dst, r.err)
	}
	return r.links, r.latency, nil
}

func (n *network) route(src, dst *netpoint) *routeResult {
	n.mu.Lock()
	defer n.mu.Unlock()
	key := [2]*netpoint{src, dst}
	if r, ok := n.memo[key]; ok {
		return r
	}
	w := &walk{net: n}
	var links []int
	res := &routeResult{}
	if err := w.global(src, dst, &links, 0); err != nil {
		res.err = err
	} else {
		res.links, res.latency = links[:len(links):len(links)], w.lat
		if w.undeclared != "" {
			res.err = fmt.Errorf("%w: %s", ErrUndeclaredRoute, w.undeclared)
		}
	}
	n.memo[key] = res
	return res
}

// walk is one computation of a route: the latency accumulates in the order
// SimGrid adds link latencies.
type walk struct {
	net        *network
	lat        float64
	undeclared string // the first undeclared part met
}

func (w *walk) noteUndeclared(format string, args ...any) {
	if w.undeclared == "" {
		w.undeclared = fmt.Sprintf(format, args...)
	}
}

// add appends links to list (add_link_latency).
func (w *walk) add(list *[]int, links []int) {
	*list = append(*list, links...)
	for _, l := range links {
		w.lat += w.net.links[l].latency
	}
}

// insertFront puts links, reversed, in front of list, as SimGrid's
// insert_link_latency does (Dijkstra zones build their routes backwards).
func (w *walk) insertFront(list *[]int, links []int) {
	out := make([]int, 0, len(links)+len(*list))
	for i := len(links) - 1; i >= 0; i-- {
		out = append(out, links[i])
	}
	*list = append(out, *list...)
	for _, l := range links {
		w.lat += w.net.links[l].latency
	}
}

// zonePath lists z and its ancestors, innermost first.
func zonePath(z *zone) []*zone {
	var path []*zone
	for ; z != nil; z = z.parent {
		path = append(path, z)
	}
	return path
}

// commonAncestors is SimGrid's find_common_ancestors: the zone where the
// routes of src and dst meet, and its children that hold each of them (the
// common zone itself when src and dst are both in it).
func commonAncestors(src, dst *netpoint) (common, sa, da *zone, err error) {
	if src.zone == dst.zone {
		return src.zone, src.zone, src.zone, nil
	}
	ps, pd := zonePath(src.zone), zonePath(dst.zone)
	var parent *zone
	for len(ps) > 1 && len(pd) > 1 && ps[len(ps)-1] == pd[len(pd)-1] {
		parent = ps[len(ps)-1]
		ps, pd = ps[:len(ps)-1], pd[:len(pd)-1]
	}
	sa, da = ps[len(ps)-1], pd[len(pd)-1]
	if sa == da {
		return sa, sa, da, nil
	}
	if parent == nil {
		return nil, nil, nil, fmt.Errorf("%s and %s have no common zone", src.name, dst.name)
	}
	return parent, sa, da, nil
}

// global is SimGrid's get_global_route_with_netzones: the route from src to
// dst is appended to list. Latencies are added in SimGrid's order: the
// route between the two sub-zones first, then the way out of the source's
// sub-zone, then the way into the destination's.
func (w *walk) global(src, dst *netpoint, list *[]int, depth int) error {
	if depth > maxRouteDepth {
		return fmt.Errorf("routing recursion deeper than %d at %s -> %s (a cycle of gateways)", maxRouteDepth, src.name, dst.name)
	}
	common, sa, da, err := commonAncestors(src, dst)
	if err != nil {
		return err
	}
	if ok, err := w.bypass(common, src, dst, list, depth); ok || err != nil {
		return err
	}
	if sa == da {
		_, _, err := w.local(common, src, dst, list, depth)
		return err
	}
	var between []int
	gwSrc, gwDst, err := w.local(common, sa.np, da.np, &between, depth)
	if err != nil {
		return err
	}
	if gwSrc == nil || gwDst == nil {
		return fmt.Errorf("bad gateways for the route from %s to %s: zone %q has no zone route from %q to %q", src.name, dst.name, common.id, sa.id, da.id)
	}
	if src != gwSrc {
		if err := w.global(src, gwSrc, list, depth+1); err != nil {
			return err
		}
	}
	*list = append(*list, between...)
	if gwDst != dst {
		return w.global(gwDst, dst, list, depth+1)
	}
	return nil
}

// bypass is SimGrid's get_bypass_route, in zone z, the common ancestor of src
// and dst: a bypass route between them when both are components of z, or
// else between the zones that hold them, the innermost first.
func (w *walk) bypass(z *zone, src, dst *netpoint, list *[]int, depth int) (bool, error) {
	if len(z.bypass) == 0 {
		return false, nil
	}
	if src.zone == z && dst.zone == z {
		if b := z.bypass[[2]*netpoint{src, dst}]; b != nil {
			w.add(list, b.links)
			return true, nil
		}
		return false, nil
	}
	ps, pd := zonePath(src.zone), zonePath(dst.zone)
	for len(ps) > 1 && len(pd) > 1 && ps[len(ps)-1] == pd[len(pd)-1] {
		ps, pd = ps[:len(ps)-1], pd[:len(pd)-1]
	}
	var found *zroute
	var key [2]*netpoint
	lookup := func(i, j int) bool {
		if i < len(ps) && j < len(pd) {
			key = [2]*netpoint{ps[i].np, pd[j].np}
			if b := z.bypass[key]; b != nil {
				found = b
				return true
			}
		}
		return false
	}
	for m := 0; m < max(len(ps), len(pd)); m++ {
		for i := 0; i < m; i++ {
			if lookup(i, m) || lookup(m, i) {
				break
			}
		}
		if found != nil || lookup(m, m) {
			break
		}
	}
	if found == nil {
		return false, nil
	}
	if src != key[0] {
		if found.gwSrc == nil {
			return false, fmt.Errorf("the bypass route from %s to %s of zone %q has no gw_src (SimGrid crashes)", key[0].name, key[1].name, z.id)
		}
		if err := w.global(src, found.gwSrc, list, depth+1); err != nil {
			return false, err
		}
	}
	w.add(list, found.links)
	if dst != key[1] {
		if found.gwDst == nil {
			return false, fmt.Errorf("the bypass route from %s to %s of zone %q has no gw_dst (SimGrid crashes)", key[0].name, key[1].name, z.id)
		}
		if err := w.global(found.gwDst, dst, list, depth+1); err != nil {
			return false, err
		}
	}
	return true, nil
}

// local is the route between two components of zone z (hosts, routers or
// sub-zones), following z's routing model; its links go to list. It returns
// the gateways of a route between sub-zones.
func (w *walk) local(z *zone, src, dst *netpoint, list *[]int, depth int) (gwSrc, gwDst *netpoint, err error) {
	switch t := z.table.(type) {
	case *fullTable:
		return w.full(z, t, src, dst, list)
	case *floydTable:
		return w.floyd(z, t, src, dst, list, depth)
	case *dijkstraGraph:
		return w.dijkstra(z, t, src, dst, list)
	case *starTable:
		return w.star(z, t, src, dst, list)
	}
	switch {
	case z.kind == kindNone:
		return nil, nil, fmt.Errorf("zone %q has routing None: SimGrid aborts on any route through it (\"There can't be route in an Empty zone\")", z.id)
	case z.topology != "":
		return nil, nil, fmt.Errorf("zone %q: <cluster topology=%q> is not supported", z.id, z.topology)
	}
	return nil, nil, fmt.Errorf("zone %q: routing %q is not supported", z.id, z.routing)
}

func (w *walk) full(z *zone, t *fullTable, src, dst *netpoint, list *[]int) (*netpoint, *netpoint, error) {
	e := t.routes[[2]int{src.id, dst.id}]
	if e == nil && src == dst && !z.recursive() {
		w.add(list, []int{w.net.loopback}) // FullZone::do_seal's loopback
		return nil, nil, nil
	}
	if e == nil {
		w.noteUndeclared("zone %q (Full routing) declares no route from %s to %s", z.id, src.name, dst.name)
		return nil, nil, nil
	}
	w.add(list, e.links)
	return e.gwSrc, e.gwDst, nil
}

func (w *walk) floyd(z *zone, t *floydTable, src, dst *netpoint, list *[]int, depth int) (*netpoint, *netpoint, error) {
	if !t.sealed {
		t.seal(z, w.net.loopback)
	}
	n, s := t.n, src.id
	var stack []*zroute
	for cur := dst.id; ; {
		pred := t.pred[s*n+cur]
		if pred == -1 {
			return nil, nil, fmt.Errorf("no route from %s to %s in zone %q (Floyd routing)", src.name, dst.name, z.id)
		}
		stack = append(stack, t.link[pred*n+cur])
		cur = pred
		if cur == s {
			break
		}
		if len(stack) > n {
			return nil, nil, fmt.Errorf("no route from %s to %s in zone %q (Floyd routing): the path loops", src.name, dst.name, z.id)
		}
	}
	var gwSrc, gwDst *netpoint
	if z.recursive() {
		gwSrc, gwDst = stack[len(stack)-1].gwSrc, stack[0].gwDst
	}
	var prev *netpoint
	for i := len(stack) - 1; i >= 0; i-- {
		e := stack[i]
		if z.recursive() && prev != nil && prev != e.gwSrc {
			if err := w.global(prev, e.gwSrc, list, depth+1); err != nil {
				return nil, nil, err
			}
		}
		w.add(list, e.links)
		prev = e.gwDst
	}
	return gwSrc, gwDst, nil
}

func (w *walk) dijkstra(z *zone, g *dijkstraGraph, src, dst *netpoint, list *[]int) (*netpoint, *netpoint, error) {
	ns, ok1 := g.nodeOf[src.id]
	nd, ok2 := g.nodeOf[dst.id]
	if !ok1 || !ok2 {
		missing := src
		if ok1 {
			missing = dst
		}
		return nil, nil, fmt.Errorf("%s appears in no route of zone %q (Dijkstra routing; SimGrid crashes)", missing.name, z.id)
	}
	if ns == nd {
		e := g.edge(ns, ns)
		if e == nil {
			return nil, nil, fmt.Errorf("no route from %s to %s in zone %q (Dijkstra routing)", src.name, dst.name, z.id)
		}
		w.insertFront(list, e.links)
	}
	pred := g.predecessors(ns)
	var gwSrc, firstGw *netpoint
	steps := 0
	for v := nd; v != ns; v = pred[v] {
		if steps++; steps > len(g.out) {
			return nil, nil, fmt.Errorf("no route from %s to %s in zone %q (Dijkstra routing: SimGrid loops forever)", src.name, dst.name, z.id)
		}
		e := g.edge(pred[v], v)
		if e == nil {
			return nil, nil, fmt.Errorf("no route from %s to %s in zone %q (Dijkstra routing)", src.name, dst.name, z.id)
		}
		prevGwSrc := gwSrc
		gwSrc = e.gwSrc
		if v == nd {
			firstGw = e.gwDst
		}
		if z.recursive() && v != nd && e.gwDst != prevGwSrc {
			return nil, nil, fmt.Errorf("route from %s to %s in zone %q (Dijkstra routing): consecutive zone routes meet at different gateways %s and %s (SimGrid crashes)",
				src.name, dst.name, z.id, npName(e.gwDst), npName(prevGwSrc))
		}
		w.insertFront(list, e.links)
	}
	if z.recursive() {
		return gwSrc, firstGw, nil
	}
	return nil, nil, nil
}

// predecessors runs DijkstraZone's shortest-path search from node src,
// exactly: costs in number of links as unsigned 64-bit integers (overflow
// included), a priority queue of (cost, node) pairs where an equal cost
// goes to the smaller node, and a predecessor changed only by a strictly
// shorter path.
func (g *dijkstraGraph) predecessors(src int) []int {
	if p, ok := g.preds[src]; ok {
		return p
	}
	n := len(g.out)
	const inf = ^uint64(0)
	cost := make([]uint64, n)
	pred := make([]int, n)
	q := make(pqueue, 0, 2*n)
	for i := 0; i < n; i++ {
		if i != src {
			cost[i] = inf
		}
		q = append(q, pqItem{float64(cost[i]), i})
	}
	heap.Init(&q)
	for q.Len() > 0 {
		v := heap.Pop(&q).(pqItem).node
		for _, e := range g.out[v] {
			c := uint64(len(e.route.links)) + cost[v]
			if c < cost[e.dst] {
				pred[e.dst] = v
				cost[e.dst] = c
				heap.Push(&q, pqItem{float64(c), e.dst})
			}
		}
	}
	g.preds[src] = pred
	return pred
}

// pqItem and pqueue are the min-heap of std::priority_queue<pair<double,
// unsigned long>, ..., std::greater<>>: the pop order of equal pairs does
// not matter, so any correct heap pops what SimGrid's pops.
type pqItem struct {
	cost float64
	node int
}

type pqueue []pqItem

func (q pqueue) Len() int { return len(q) }
func (q pqueue) Less(i, j int) bool {
	return q[i].cost < q[j].cost || (q[i].cost == q[j].cost && q[i].node < q[j].node)
}
func (q pqueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *pqueue) Push(x any)   { *q = append(*q, x.(pqItem)) }
func (q *pqueue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}

func (w *walk) star(z *zone, t *starTable, src, dst *netpoint, list *[]int) (*netpoint, *netpoint, error) {
	if z.topology != "" {
		return nil, nil, fmt.Errorf("zone %q: <cluster topology=%q> is not supported", z.id, z.topology)
	}
	es, ed := t.routes[src.id], t.routes[dst.id]
	if es == nil {
		es = sealedStarRoute
	}
	if ed == nil {
		ed = sealedStarRoute
	}
	// StarZone never puts a link twice in one local route.
	var added []int
	addOnce := func(links []int) {
		for _, l := range links {
			dup := false
			for _, a := range added {
				if a == l {
					dup = true
					break
				}
			}
			if !dup {
				added = append(added, l)
				w.add(list, []int{l})
			}
		}
	}
	if src == dst && len(es.loopback) > 0 {
		addOnce(es.loopback)
		return nil, nil, nil
	}
	if !es.upSet {
		return nil, nil, fmt.Errorf("zone %q (Cluster routing): no link up from %s (SimGrid: \"no link UP from source node\")", z.id, src.name)
	}
	if !ed.downSet {
		return nil, nil, fmt.Errorf("zone %q (Cluster routing): no link down to %s (SimGrid: \"no link DOWN to destination node\")", z.id, dst.name)
	}
	if !z.fromCluster {
		for _, np := range []*netpoint{src, dst} {
			if e := t.routes[np.id]; np.kind == npHost && (e == nil || !e.fromHostLink) {
				w.noteUndeclared("host %s of zone %q (Cluster routing) has no <host_link>", np.name, z.id)
			}
		}
	}
	addOnce(es.up)
	addOnce(ed.down)
	return es.gateway, ed.gateway, nil
}

func npName(np *netpoint) string {
	if np == nil {
		return "(none)"
	}
	return np.name
}
