package platforms

import (
	"container/heap"
	"fmt"
	"log/slog"
	"strings"
)

// maxRouteDepth bounds the recursion of route resolution across zones.
const maxRouteDepth = 64

// resolver computes route latencies the way SimGrid routes messages: the
// common ancestor zone of both ends gives the route between the two child
// zones that hold them (through their gateways), and the route continues
// inside each of them.
type resolver struct {
	p        *parser
	warnings []string
	seen     map[string]bool
	memo     map[[2]*netpoint]memoEntry
}

// memoEntry caches a resolved route; busy marks a route being resolved, so
// that a cycle of gateways fails instead of recursing forever.
type memoEntry struct {
	latency  float64
	ok, busy bool
}

func newResolver(p *parser) *resolver {
	return &resolver{p: p, seen: map[string]bool{}, memo: map[[2]*netpoint]memoEntry{}}
}

func (r *resolver) warn(format string, args ...any) {
	msg := fmt.Sprintf("%s: %s", r.p.name, fmt.Sprintf(format, args...))
	if r.seen[msg] {
		return
	}
	r.seen[msg] = true
	r.warnings = append(r.warnings, msg)
	slog.Debug("platform routing", "warning", msg)
}

// latency is the summed link latency of the route from src to dst, or 0 with
// a warning when the route cannot be resolved.
func (r *resolver) latency(src, dst *netpoint) float64 {
	lat, ok := r.global(src, dst, 0)
	if !ok {
		r.warn("route %s -> %s: unresolved, latency counted as 0", src.name, dst.name)
		return 0
	}
	return lat
}

func sumLatency(links []*linkDecl) float64 {
	s := 0.0
	for _, l := range links {
		s += l.latency
	}
	return s
}

func ancestors(z *zone) []*zone {
	var chain []*zone
	for ; z != nil; z = z.parent {
		chain = append(chain, z)
	}
	for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
		chain[i], chain[j] = chain[j], chain[i]
	}
	return chain
}

func (r *resolver) global(src, dst *netpoint, depth int) (float64, bool) {
	key := [2]*netpoint{src, dst}
	if e, ok := r.memo[key]; ok {
		if e.busy {
			r.warn("route %s -> %s: cycle of gateways", src.name, dst.name)
			return 0, false
		}
		return e.latency, e.ok
	}
	r.memo[key] = memoEntry{busy: true}
	lat, ok := r.resolve(src, dst, depth)
	r.memo[key] = memoEntry{latency: lat, ok: ok}
	return lat, ok
}

func (r *resolver) resolve(src, dst *netpoint, depth int) (float64, bool) {
	if depth > maxRouteDepth {
		r.warn("route %s -> %s: routing recursion deeper than %d", src.name, dst.name, maxRouteDepth)
		return 0, false
	}
	if b, ok := r.p.bypass[[2]string{src.name, dst.name}]; ok {
		return sumLatency(b.links), true
	}
	ps, pd := ancestors(src.zone), ancestors(dst.zone)
	i := 0
	for i < len(ps) && i < len(pd) && ps[i] == pd[i] {
		i++
	}
	if i == 0 {
		r.warn("route %s -> %s: no common zone", src.name, dst.name)
		return 0, false
	}
	common := ps[i-1]
	sa, da := src, dst
	if i < len(ps) {
		sa = ps[i].np
	}
	if i < len(pd) {
		da = pd[i].np
	}
	lr, ok := r.local(common, sa, da, depth)
	if !ok {
		return 0, false
	}
	lat := lr.latency
	if sa != src {
		if lr.gwSrc == nil {
			r.warn("route %s -> %s in zone %q: no gw_src to leave zone %q", src.name, dst.name, common.id, sa.name)
			return 0, false
		}
		if lr.gwSrc != src {
			l, ok := r.global(src, lr.gwSrc, depth+1)
			if !ok {
				return 0, false
			}
			lat += l
		}
	}
	if da != dst {
		if lr.gwDst == nil {
			r.warn("route %s -> %s in zone %q: no gw_dst to enter zone %q", src.name, dst.name, common.id, da.name)
			return 0, false
		}
		if lr.gwDst != dst {
			l, ok := r.global(lr.gwDst, dst, depth+1)
			if !ok {
				return 0, false
			}
			lat += l
		}
	}
	return lat, true
}

type localRoute struct {
	latency      float64
	gwSrc, gwDst *netpoint
}

// local is the route between two netpoints of zone z (hosts, routers or
// child zones), following z's routing model.
func (r *resolver) local(z *zone, a, b *netpoint, depth int) (localRoute, bool) {
	switch strings.ToLower(z.routing) {
	case "full":
		if rt, ok := z.table[[2]*netpoint{a, b}]; ok {
			return localRoute{sumLatency(rt.links), rt.gwSrcNP, rt.gwDstNP}, true
		}
		if a == b {
			return localRoute{}, true // SimGrid's default loopback: no latency
		}
		r.warn("zone %q (Full routing): no route from %s to %s", z.id, a.name, b.name)
		return localRoute{}, false
	case "floyd", "dijkstra", "dijkstracache":
		if rt, ok := z.table[[2]*netpoint{a, b}]; ok && a == b {
			return localRoute{sumLatency(rt.links), rt.gwSrcNP, rt.gwDstNP}, true
		}
		if a == b {
			return localRoute{}, true
		}
		return r.shortest(z, a, b, depth)
	case "cluster":
		return r.star(z, a, b)
	default:
		r.warn("zone %q: routing %q is not supported for latency computation", z.id, z.routing)
		return localRoute{}, false
	}
}

func (r *resolver) star(z *zone, a, b *netpoint) (localRoute, bool) {
	sa, sb := z.star[a], z.star[b]
	if sa == nil {
		sa = &starRoute{}
	}
	if sb == nil {
		sb = &starRoute{}
	}
	if a == b && sa.hasLoopback {
		return localRoute{latency: sumLatency(sa.loopback)}, true
	}
	seen := map[*linkDecl]bool{}
	lat := 0.0
	for _, l := range append(append([]*linkDecl(nil), sa.up...), sb.down...) {
		if !seen[l] {
			seen[l] = true
			lat += l.latency
		}
	}
	return localRoute{latency: lat, gwSrc: sa.gateway, gwDst: sb.gateway}, true
}

// shortest finds the route of a Floyd or Dijkstra zone: the shortest chain of
// declared routes (cost: number of links), joined through their gateways.
func (r *resolver) shortest(z *zone, a, b *netpoint, depth int) (localRoute, bool) {
	if z.adj == nil {
		z.adj = map[*netpoint][]*routeDecl{}
		for _, rt := range z.ordered {
			if rt.srcNP != rt.dstNP {
				z.adj[rt.srcNP] = append(z.adj[rt.srcNP], rt)
			}
		}
	}
	adj := z.adj
	type state struct {
		cost, hops int
		via        *routeDecl
	}
	best := map[*netpoint]state{a: {}}
	pq := &npQueue{}
	heap.Push(pq, npItem{a, 0, 0})
	done := map[*netpoint]bool{}
	for pq.Len() > 0 {
		it := heap.Pop(pq).(npItem)
		if done[it.np] {
			continue
		}
		done[it.np] = true
		if it.np == b {
			break
		}
		for _, rt := range adj[it.np] {
			c, h := it.cost+len(rt.links), it.hops+1
			if s, ok := best[rt.dstNP]; !ok || c < s.cost || (c == s.cost && h < s.hops) {
				best[rt.dstNP] = state{c, h, rt}
				heap.Push(pq, npItem{rt.dstNP, c, h})
			}
		}
	}
	if _, ok := best[b]; !ok {
		r.warn("zone %q (%s routing): no route from %s to %s", z.id, z.routing, a.name, b.name)
		return localRoute{}, false
	}
	var chain []*routeDecl
	for n := b; n != a; {
		rt := best[n].via
		chain = append(chain, rt)
		n = rt.srcNP
		if len(chain) > len(z.table) {
			return localRoute{}, false
		}
	}
	lr := localRoute{}
	var prevGw *netpoint
	for i := len(chain) - 1; i >= 0; i-- {
		rt := chain[i]
		if i == len(chain)-1 {
			lr.gwSrc = rt.gwSrcNP
		}
		if prevGw != nil && rt.gwSrcNP != nil && prevGw != rt.gwSrcNP {
			l, ok := r.global(prevGw, rt.gwSrcNP, depth+1)
			if !ok {
				return localRoute{}, false
			}
			lr.latency += l
		}
		lr.latency += sumLatency(rt.links)
		prevGw = rt.gwDstNP
	}
	lr.gwDst = prevGw
	return lr, true
}

type npItem struct {
	np         *netpoint
	cost, hops int
}

type npQueue []npItem

func (q npQueue) Len() int { return len(q) }
func (q npQueue) Less(i, j int) bool {
	if q[i].cost != q[j].cost {
		return q[i].cost < q[j].cost
	}
	if q[i].hops != q[j].hops {
		return q[i].hops < q[j].hops
	}
	return q[i].np.name < q[j].np.name
}
func (q npQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *npQueue) Push(x any)   { *q = append(*q, x.(npItem)) }
func (q *npQueue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}
