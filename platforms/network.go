package platforms

import (
	"fmt"
	"math"
	"strings"
)

// zoneKind is the routing model of a zone.
type zoneKind int

const (
	kindFull zoneKind = iota
	kindFloyd
	kindDijkstra
	kindStar // routing="Cluster" and <cluster>: SimGrid's StarZone
	kindNone
	kindVivaldi
	kindWifi
)

// zoneKindOf maps the routing attribute (case-insensitive, as SimGrid
// compares it) to a routing model.
func zoneKindOf(routing string) (zoneKind, bool) {
	switch strings.ToLower(routing) {
	case "full":
		return kindFull, true
	case "floyd":
		return kindFloyd, true
	case "dijkstra", "dijkstracache": // the cache changes no route
		return kindDijkstra, true
	case "cluster":
		return kindStar, true
	case "none":
		return kindNone, true
	case "vivaldi":
		return kindVivaldi, true
	case "wifi":
		return kindWifi, true
	}
	return 0, false
}

// recursive tells whether the zone routes between sub-zones (SimGrid's
// RoutingMode::recursive) rather than between hosts and routers.
func (z *zone) recursive() bool { return len(z.children) > 0 }

// zroute is one route of a routing table: its links, in order, and, between
// sub-zones, the gateways it leaves and enters them by.
type zroute struct {
	gwSrc, gwDst *netpoint
	links        []int
}

// zoneRouting is the routing table of a zone, one of the types below.
type zoneRouting any

// fullTable is a Full zone: one declared route per ordered pair of
// components (by component id).
type fullTable struct {
	routes map[[2]int]*zroute
}

// floydTable is a Floyd zone: the declared routes, then, once sealed (on
// first use), the all-pairs shortest paths in number of links.
type floydTable struct {
	n      int
	link   []*zroute // link[a*n+b]: declared route from a to b
	cost   []uint64
	pred   []int
	sealed bool
}

// dijkstraGraph is a Dijkstra zone: a graph whose nodes are the components
// that appear in routes (in order of appearance) and whose edges are the
// declared routes (out-edges in declaration order).
type dijkstraGraph struct {
	nodeOf map[int]int // component id -> node
	out    [][]dedge
	preds  map[int][]int // per source node: the predecessor array
}

type dedge struct {
	dst   int
	route *zroute
}

// starTable is a star zone: each component reaches the centre by its up
// links and is reached by its down links; a loopback replaces both for the
// route from a component to itself.
type starTable struct {
	routes map[int]*starRoute
}

type starRoute struct {
	up, down, loopback []int
	gateway            *netpoint
	upSet, downSet     bool
	fromHostLink       bool // set by a <host_link> or a <cabinet>
}

func newStar() *starTable { return &starTable{routes: map[int]*starRoute{}} }

func (s *starTable) entry(id int) *starRoute {
	e := s.routes[id]
	if e == nil {
		e = &starRoute{}
		s.routes[id] = e
	}
	return e
}

func (e *starRoute) setUp(links []int)   { e.up, e.upSet = links, true }
func (e *starRoute) setDown(links []int) { e.down, e.downSet = links, true }

// sealedStarRoute is the route of a component nothing was declared for: the
// zone's seal gives it empty up and down routes.
var sealedStarRoute = &starRoute{upSet: true, downSet: true}

// linkIDs is SimGrid's get_link_list_impl: the links of a route, split-duplex
// links taken in their direction, or in the other one for the way back.
func linkIDs(refs []linkInRoute, back bool) []int {
	out := make([]int, 0, len(refs))
	for _, r := range refs {
		switch {
		case r.link != nil:
			out = append(out, r.link.id)
		case r.down != back:
			out = append(out, r.split.down.id)
		default:
			out = append(out, r.split.up.id)
		}
	}
	return out
}

func (p *parser) lookupNP(r *routeDecl, what, name string) (*netpoint, error) {
	np, ok := p.netpoints[name]
	if !ok {
		return nil, p.errf(r.line, "<%s src=%q dst=%q>: unknown %s %q", r.elem, r.src, r.dst, what, name)
	}
	if np.seq >= r.seq {
		return nil, p.errf(r.line, "<%s src=%q dst=%q>: %s %q is declared after the route (line %d); SimGrid only knows what is declared before",
			r.elem, r.src, r.dst, what, name, np.line)
	}
	return np, nil
}

// linkByName finds a link the way SimGrid's Engine::link_by_name does:
// "__loopback__" is the network model's loopback.
func (p *parser) linkByName(name string) (*linkDecl, bool) {
	if name == "__loopback__" {
		return p.loopback, true
	}
	l, ok := p.links[name]
	return l, ok
}

// resolveRoute finds the netpoints and links a route names.
func (p *parser) resolveRoute(r *routeDecl) error {
	var err error
	if r.srcNP, err = p.lookupNP(r, "src", r.src); err != nil {
		return err
	}
	if r.dstNP, err = p.lookupNP(r, "dst", r.dst); err != nil {
		return err
	}
	if r.gwSrc != "" {
		if r.gwSrcNP, err = p.lookupNP(r, "gw_src", r.gwSrc); err != nil {
			return err
		}
	}
	if r.gwDst != "" {
		if r.gwDstNP, err = p.lookupNP(r, "gw_dst", r.gwDst); err != nil {
			return err
		}
	}
	for _, c := range r.ctns {
		if c.direction == "" {
			l, ok := p.linkByName(c.name)
			if !ok {
				if _, split := p.splits[c.name]; split {
					return p.errf(c.line, "<%s src=%q dst=%q>: <link_ctn id=%q>: split-duplex link used without a direction (give direction=\"UP\" or \"DOWN\")", r.elem, r.src, r.dst, c.name)
				}
				return p.errf(c.line, "<%s src=%q dst=%q>: <link_ctn id=%q>: unknown link", r.elem, r.src, r.dst, c.name)
			}
			if l.seq >= c.seq {
				return p.errf(c.line, "<%s src=%q dst=%q>: <link_ctn id=%q>: the link is declared after the route (line %d); SimGrid only knows what is declared before", r.elem, r.src, r.dst, c.name, l.line)
			}
			r.links = append(r.links, linkInRoute{link: l})
			continue
		}
		s, ok := p.splits[c.name]
		if !ok {
			return p.errf(c.line, "<%s src=%q dst=%q>: <link_ctn id=%q direction=%q>: unknown split-duplex link", r.elem, r.src, r.dst, c.name, c.direction)
		}
		if s.up.seq >= c.seq {
			return p.errf(c.line, "<%s src=%q dst=%q>: <link_ctn id=%q>: the link is declared after the route (line %d); SimGrid only knows what is declared before", r.elem, r.src, r.dst, c.name, s.line)
		}
		r.links = append(r.links, linkInRoute{split: s, down: c.direction == "DOWN"})
	}
	return nil
}

// inZone tells whether np is a component of z or of one of its sub-zones.
func inZone(np *netpoint, z *zone) bool {
	for y := np.zone; y != nil; y = y.parent {
		if y == z {
			return true
		}
	}
	return false
}

// checkRoute makes the checks of SimGrid's add_route_check_params.
func (p *parser) checkRoute(z *zone, r *routeDecl) error {
	src, dst := r.srcNP, r.dstNP
	head := fmt.Sprintf("<%s src=%q dst=%q>", r.elem, r.src, r.dst)
	if src.zone != z || dst.zone != z {
		return p.errf(r.line, "%s: both ends must be components of zone %q, where the route is declared (%s is in %s, %s in %s)",
			head, z.id, src.name, zoneName(src.zone), dst.name, zoneName(dst.zone))
	}
	if len(r.links) == 0 {
		return p.errf(r.line, "%s: empty route (SimGrid forbids routes without links)", head)
	}
	if r.gwSrcNP == nil || r.gwDstNP == nil {
		if src.kind == npZone || dst.kind == npZone {
			return p.errf(r.line, "%s: a <route> joins hosts or routers; between zones, use a <zoneRoute> with gateways", head)
		}
		return nil
	}
	if src.kind != npZone || dst.kind != npZone {
		return p.errf(r.line, "%s: a zone route joins two zones", head)
	}
	for _, gw := range []*netpoint{r.gwSrcNP, r.gwDstNP} {
		if gw.kind == npZone {
			return p.errf(r.line, "%s: gateway %q must be a host or a router", head, gw.name)
		}
	}
	if r.gwSrcNP == r.gwDstNP {
		return p.errf(r.line, "%s: gw_src and gw_dst are both %q", head, r.gwSrc)
	}
	if !inZone(r.gwSrcNP, src.self) {
		return p.errf(r.line, "%s: gw_src %q is not in zone %q", head, r.gwSrc, r.src)
	}
	if !inZone(r.gwDstNP, dst.self) {
		return p.errf(r.line, "%s: gw_dst %q is not in zone %q", head, r.gwDst, r.dst)
	}
	return nil
}

func zoneName(z *zone) string {
	if z == nil {
		return "no zone"
	}
	return fmt.Sprintf("zone %q", z.id)
}

// declared converts a route as SimGrid's new_extended_route does: gateways
// are kept between sub-zones only; the way back is reversed, split-duplex
// links taken the other way.
func declared(z *zone, r *routeDecl, back bool) *zroute {
	zr := &zroute{}
	if back {
		zr.links = reversedInts(linkIDs(r.links, true))
	} else {
		zr.links = linkIDs(r.links, false)
	}
	if z.recursive() {
		zr.gwSrc, zr.gwDst = r.gwSrcNP, r.gwDstNP
		if back {
			zr.gwSrc, zr.gwDst = zr.gwDst, zr.gwSrc
		}
	}
	return zr
}

// buildRouting builds the routing table of every zone, adding routes in
// declaration order as SimGrid does, with its checks.
func (p *parser) buildRouting() error {
	for _, z := range p.zones {
		if z.fromCluster {
			continue
		}
		var err error
		switch z.kind {
		case kindFull:
			z.table, err = p.buildFull(z)
		case kindFloyd:
			z.table, err = p.buildFloyd(z)
		case kindDijkstra:
			z.table, err = p.buildDijkstra(z)
		case kindStar:
			z.table, err = p.buildStar(z)
		default:
			for _, r := range z.routes {
				if err := p.checkRoute(z, r); err != nil {
					return err
				}
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) duplicateRoute(r *routeDecl, reverse bool) error {
	if reverse {
		return p.errf(r.line, "<%s src=%q dst=%q>: the route from %s to %s already exists: do not declare the reverse of a route as symmetrical (set symmetrical=\"NO\" on both)",
			r.elem, r.src, r.dst, r.dst, r.src)
	}
	return p.errf(r.line, "<%s src=%q dst=%q>: the route from %s to %s already exists (routes are symmetrical by default)",
		r.elem, r.src, r.dst, r.src, r.dst)
}

func (p *parser) buildFull(z *zone) (*fullTable, error) {
	t := &fullTable{routes: map[[2]int]*zroute{}}
	for _, r := range z.routes {
		if err := p.checkRoute(z, r); err != nil {
			return nil, err
		}
		k := [2]int{r.srcNP.id, r.dstNP.id}
		if t.routes[k] != nil {
			return nil, p.duplicateRoute(r, false)
		}
		t.routes[k] = declared(z, r, false)
		if r.symmetrical && r.srcNP != r.dstNP {
			rk := [2]int{r.dstNP.id, r.srcNP.id}
			if t.routes[rk] != nil {
				return nil, p.duplicateRoute(r, true)
			}
			t.routes[rk] = declared(z, r, true)
		}
	}
	return t, nil
}

func (p *parser) buildFloyd(z *zone) (*floydTable, error) {
	n := len(z.vertices)
	t := &floydTable{n: n, link: make([]*zroute, n*n), cost: make([]uint64, n*n), pred: make([]int, n*n)}
	for i := range t.cost {
		t.cost[i] = math.MaxUint64
		t.pred[i] = -1
	}
	for _, r := range z.routes {
		if err := p.checkRoute(z, r); err != nil {
			return nil, err
		}
		s, d := r.srcNP.id, r.dstNP.id
		if t.link[s*n+d] != nil {
			return nil, p.duplicateRoute(r, false)
		}
		t.link[s*n+d] = declared(z, r, false)
		t.pred[s*n+d] = s
		t.cost[s*n+d] = uint64(len(r.links))
		if r.symmetrical {
			if t.link[d*n+s] != nil {
				if s == d {
					return nil, p.errf(r.line, "<%s src=%q dst=%q>: a route from a point to itself must be declared symmetrical=\"NO\" in a %s zone", r.elem, r.src, r.dst, z.routing)
				}
				return nil, p.duplicateRoute(r, true)
			}
			t.link[d*n+s] = declared(z, r, true)
			t.pred[d*n+s] = d
			t.cost[d*n+s] = uint64(len(r.links))
		}
	}
	return t, nil
}

// seal completes a Floyd table as FloydZone::do_seal does: the network
// model's loopback for every component without a route to itself (between
// hosts and routers only), then Floyd-Warshall on the number of links,
// keeping the first path found among equal ones.
func (t *floydTable) seal(z *zone, loopback int) {
	n := t.n
	if !z.recursive() {
		for i := 0; i < n; i++ {
			if t.link[i*n+i] == nil {
				t.link[i*n+i] = &zroute{links: []int{loopback}}
				t.pred[i*n+i] = i
				t.cost[i*n+i] = 1
			}
		}
	}
	const inf = math.MaxUint64
	for c := 0; c < n; c++ {
		for a := 0; a < n; a++ {
			ac := t.cost[a*n+c]
			if ac == inf {
				continue
			}
			for b := 0; b < n; b++ {
				cb := t.cost[c*n+b]
				if cb < inf && (t.cost[a*n+b] == inf || ac+cb < t.cost[a*n+b]) {
					t.cost[a*n+b] = ac + cb
					t.pred[a*n+b] = t.pred[c*n+b]
				}
			}
		}
	}
	t.sealed = true
}

func (p *parser) buildDijkstra(z *zone) (*dijkstraGraph, error) {
	g := &dijkstraGraph{nodeOf: map[int]int{}, preds: map[int][]int{}}
	node := func(id int) int {
		if n, ok := g.nodeOf[id]; ok {
			return n
		}
		g.nodeOf[id] = len(g.out)
		g.out = append(g.out, nil)
		return len(g.out) - 1
	}
	edge := func(s, d int, zr *zroute) bool {
		ns, nd := node(s), node(d)
		if g.edge(ns, nd) != nil {
			return false
		}
		g.out[ns] = append(g.out[ns], dedge{dst: nd, route: zr})
		return true
	}
	for _, r := range z.routes {
		if err := p.checkRoute(z, r); err != nil {
			return nil, err
		}
		if !edge(r.srcNP.id, r.dstNP.id, declared(z, r, false)) {
			return nil, p.duplicateRoute(r, false)
		}
		if r.symmetrical && !edge(r.dstNP.id, r.srcNP.id, declared(z, r, true)) {
			if r.srcNP == r.dstNP {
				return nil, p.errf(r.line, "<%s src=%q dst=%q>: a route from a point to itself must be declared symmetrical=\"NO\" in a %s zone", r.elem, r.src, r.dst, z.routing)
			}
			return nil, p.duplicateRoute(r, true)
		}
	}
	// DijkstraZone::do_seal: the loopback on every node without an edge to
	// itself, between hosts and routers only.
	if !z.recursive() {
		for n := range g.out {
			if g.edge(n, n) == nil {
				g.out[n] = append(g.out[n], dedge{dst: n, route: &zroute{links: []int{p.loopback.id}}})
			}
		}
	}
	return g, nil
}

// edge is the first edge from node s to node d (xbt_graph_get_edge).
func (g *dijkstraGraph) edge(s, d int) *zroute {
	for _, e := range g.out[s] {
		if e.dst == d {
			return e.route
		}
	}
	return nil
}

// buildStar fills the star table of a <zone routing="Cluster">: its
// loopback routes, then, as the zone closes, the routes of its host_links
// and cabinets (up link then backbone; backbone then down link).
func (p *parser) buildStar(z *zone) (*starTable, error) {
	t := newStar()
	for _, r := range z.routes {
		head := fmt.Sprintf("<%s src=%q dst=%q>", r.elem, r.src, r.dst)
		if r.srcNP != r.dstNP {
			return nil, p.errf(r.line, "%s: a Cluster zone only takes routes from a point to itself (loopbacks); its other routes come from <host_link>s", head)
		}
		if r.srcNP.zone != z {
			return nil, p.errf(r.line, "%s: %s is not a component of zone %q", head, r.src, z.id)
		}
		if r.srcNP.kind == npZone {
			return nil, p.errf(r.line, "%s: a loopback route of a zone is not supported", head)
		}
		t.entry(r.srcNP.id).loopback = linkIDs(r.links, false)
	}
	var bb []int
	if z.backbone != nil {
		bb = []int{z.backbone.id}
	}
	attach := func(np *netpoint, up, down *linkDecl) {
		e := t.entry(np.id)
		e.setUp(append([]int{up.id}, bb...))
		e.setDown(append(append([]int(nil), bb...), down.id))
		e.gateway = nil
		e.fromHostLink = true
	}
	for _, hl := range z.hostLinks {
		np, ok := p.netpoints[hl.host]
		if !ok || np.kind != npHost {
			return nil, p.errf(hl.line, "<host_link id=%q>: unknown host", hl.host)
		}
		if np.zone != z {
			return nil, p.errf(hl.line, "<host_link id=%q>: the host is in %s, not in zone %q", hl.host, zoneName(np.zone), z.id)
		}
		up, ok := p.linkByName(hl.up)
		if !ok || up.seq > z.endSeq {
			return nil, p.errf(hl.line, "<host_link id=%q>: unknown link %q (up)", hl.host, hl.up)
		}
		down, ok := p.linkByName(hl.down)
		if !ok || down.seq > z.endSeq {
			return nil, p.errf(hl.line, "<host_link id=%q>: unknown link %q (down)", hl.host, hl.down)
		}
		attach(np, up, down)
	}
	for _, c := range z.cabinets {
		for i, h := range c.hosts {
			attach(p.netpoints[h.name], c.up[i], c.down[i])
		}
	}
	return t, nil
}

// buildBypasses fills the bypass table of every zone (add_bypass_route).
func (p *parser) buildBypasses() error {
	for _, z := range p.zones {
		for _, r := range z.bypasses {
			if len(r.links) == 0 {
				return p.errf(r.line, "<%s src=%q dst=%q>: empty bypass route (SimGrid forbids it)", r.elem, r.src, r.dst)
			}
			if z.bypass == nil {
				z.bypass = map[[2]*netpoint]*zroute{}
			}
			k := [2]*netpoint{r.srcNP, r.dstNP}
			if z.bypass[k] != nil {
				return p.errf(r.line, "<%s src=%q dst=%q>: the bypass route from %s to %s already exists", r.elem, r.src, r.dst, r.src, r.dst)
			}
			z.bypass[k] = &zroute{gwSrc: r.gwSrcNP, gwDst: r.gwDstNP, links: linkIDs(r.links, false)}
		}
	}
	return nil
}
