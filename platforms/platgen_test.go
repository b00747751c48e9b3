package platforms

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// randomPlatform writes a random, valid SimGrid platform covering the
// routing constructs the loader supports: Full, Floyd and Dijkstra zones
// (multi-link routes, ties between equal paths, symmetrical="NO", loopback
// routes), <cluster>s (backbone, limiter, loopback, every sharing policy),
// <zone routing="Cluster"> (host_link, backbone, cabinet), zones nested up
// to three levels with zoneRoutes, split-duplex links used in both
// directions, bypass routes, and <config> loopback settings. One host is
// the master. The same seed gives the same platform.
func randomPlatform(seed uint64) string {
	for attempt := uint64(0); ; attempt++ {
		if xml, ok := randomPlatformAttempt(seed, attempt); ok {
			return xml
		}
	}
}

// randomPlatformAttempt fails when no plain host could take the master
// role (the platform holds only <cluster>s).
func randomPlatformAttempt(seed, attempt uint64) (string, bool) {
	g := &platGen{r: rand.New(rand.NewPCG(seed, 0x5eed+attempt))}
	g.b.WriteString("<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n")
	if g.r.IntN(5) == 0 {
		g.b.WriteString("<config>\n")
		if g.r.IntN(2) == 0 {
			fmt.Fprintf(&g.b, "  <prop id=\"network/loopback-bw\" value=\"%d\"/>\n", 1+g.r.IntN(50)*100000000)
		}
		fmt.Fprintf(&g.b, "  <prop id=\"network/loopback-lat\" value=\"%de-6\"/>\n", g.r.IntN(20))
		g.b.WriteString("</config>\n")
	}
	g.zone("z", g.r.IntN(4), true)
	g.b.WriteString("</platform>\n")
	xml := g.b.String()
	if len(g.plain) == 0 {
		return "", false
	}
	m := g.plain[g.r.IntN(len(g.plain))]
	return strings.Replace(xml, hostTag(m), fmt.Sprintf("<host id=%q speed=\"1Gf\"><prop id=\"role\" value=\"master\"/></host>", m), 1), true
}

func hostTag(name string) string { return fmt.Sprintf("<host id=%q speed=\"1Gf\"/>", name) }

type platGen struct {
	r       *rand.Rand
	b       strings.Builder
	n       int      // name counter
	plain   []string // hosts declared by <host> (master candidates)
	zoneIDs []string // zones in creation order: a zone's subtree follows it
	gwsOf   map[string][]string
}

// reg records a zone and the gateways its subtree offers.
func (g *platGen) reg(id string, gws []string) []string {
	if g.gwsOf == nil {
		g.gwsOf = map[string][]string{}
	}
	if _, ok := g.gwsOf[id]; !ok {
		g.zoneIDs = append(g.zoneIDs, id)
	}
	g.gwsOf[id] = gws
	return gws
}

func (g *platGen) name(prefix string) string {
	g.n++
	return fmt.Sprintf("%s%d", prefix, g.n)
}

func (g *platGen) pick(options ...string) string { return options[g.r.IntN(len(options))] }

// latency is a random latency in one of SimGrid's notations.
func (g *platGen) latency() string {
	switch g.r.IntN(7) {
	case 0:
		return fmt.Sprintf("%dus", 1+g.r.IntN(500))
	case 1:
		return fmt.Sprintf("%.1fms", 0.1+float64(g.r.IntN(50))/10)
	case 2:
		return fmt.Sprintf("%dns", 1+g.r.IntN(9000))
	case 3:
		return fmt.Sprintf("%de-6", 1+g.r.IntN(300))
	case 4:
		return fmt.Sprintf("%.2fus", float64(g.r.IntN(1000))/7)
	case 5:
		return "0"
	default:
		return fmt.Sprintf("%ds", g.r.IntN(2))
	}
}

func (g *platGen) bandwidth() string {
	switch g.r.IntN(6) {
	case 0:
		return fmt.Sprintf("%dGbps", 1+g.r.IntN(100))
	case 1:
		return fmt.Sprintf("%dGBps", 1+g.r.IntN(10))
	case 2:
		return fmt.Sprintf("%.1fMBps", 0.5+float64(g.r.IntN(1000)))
	case 3:
		return fmt.Sprintf("%dkbps", 1+g.r.IntN(100000))
	case 4:
		return fmt.Sprintf("%dMiBps", 1+g.r.IntN(2000))
	default:
		return fmt.Sprintf("%de8", 1+g.r.IntN(9))
	}
}

// link declares a link and returns how a route names it: a split-duplex
// link is named with a random direction.
type genLink struct {
	name  string
	split bool
}

func (g *platGen) links(n int, indent string) []genLink {
	var out []genLink
	for i := 0; i < n; i++ {
		l := genLink{name: g.name("l")}
		pol := g.pick("", "SHARED", "FATPIPE", "SPLITDUPLEX", "SPLITDUPLEX")
		l.split = pol == "SPLITDUPLEX"
		attr := ""
		if pol != "" {
			attr = fmt.Sprintf(" sharing_policy=%q", pol)
		}
		fmt.Fprintf(&g.b, "%s<link id=%q bandwidth=%q latency=%q%s/>\n", indent, l.name, g.bandwidth(), g.latency(), attr)
		out = append(out, l)
	}
	return out
}

// ctns writes 1 to 3 <link_ctn>s taken from pool (repeats allowed).
func (g *platGen) ctns(pool []genLink) string {
	var b strings.Builder
	for i, n := 0, 1+g.r.IntN(3); i < n; i++ {
		l := pool[g.r.IntN(len(pool))]
		if l.split {
			fmt.Fprintf(&b, "<link_ctn id=%q direction=%q/>", l.name, g.pick("UP", "DOWN"))
		} else {
			fmt.Fprintf(&b, "<link_ctn id=%q/>", l.name)
		}
	}
	return b.String()
}

// graphRoutes writes routes between nodes: a symmetrical spanning tree
// (every node reachable from every other), then extra routes, some one-way,
// and loopback routes. route(src, dst, attrs) writes one route.
func (g *platGen) graphRoutes(nodes []string, full, allowLoop bool, route func(s, d, attrs string)) {
	declared := map[[2]string]bool{}
	free := func(s, d string, sym bool) bool {
		return !declared[[2]string{s, d}] && (!sym || !declared[[2]string{d, s}])
	}
	add := func(s, d string, sym bool) {
		declared[[2]string{s, d}] = true
		attrs := ""
		if sym {
			declared[[2]string{d, s}] = true
		} else {
			attrs = fmt.Sprintf(" symmetrical=%q", g.pick("NO", "no"))
		}
		route(s, d, attrs)
	}
	if full {
		for i, a := range nodes {
			for _, b := range nodes[i+1:] {
				switch g.r.IntN(10) {
				case 0: // undeclared
				case 1, 2, 3:
					add(a, b, false)
					if g.r.IntN(4) > 0 {
						add(b, a, false)
					}
				default:
					add(a, b, true)
				}
			}
		}
	} else {
		perm := g.r.Perm(len(nodes))
		for i := 1; i < len(perm); i++ {
			a, b := nodes[perm[i]], nodes[perm[g.r.IntN(i)]]
			if g.r.IntN(2) == 0 {
				a, b = b, a
			}
			add(a, b, true)
		}
		for i := g.r.IntN(2 * len(nodes)); i > 0; i-- {
			a, b := nodes[g.r.IntN(len(nodes))], nodes[g.r.IntN(len(nodes))]
			sym := g.r.IntN(2) == 0
			if a != b && free(a, b, sym) {
				add(a, b, sym)
			}
		}
	}
	if allowLoop {
		for _, a := range nodes {
			if g.r.IntN(4) == 0 && free(a, a, false) {
				add(a, a, false)
			}
		}
	}
}

// zone writes a zone with id prefix p and returns hosts and routers of its
// subtree that can serve as gateways. A zone with depth > 0 holds sub-zones.
func (g *platGen) zone(p string, depth int, root bool) []string {
	if depth == 0 {
		switch g.r.IntN(5) {
		case 0:
			if !root {
				return g.cluster()
			}
			return g.leaf(p, "Full")
		case 1:
			return g.starZone(p)
		default:
			return g.leaf(p, g.pick("Full", "Floyd", "Dijkstra", "DijkstraCache"))
		}
	}
	routing := g.pick("Full", "Floyd", "Dijkstra")
	id := g.name(p)
	fmt.Fprintf(&g.b, "<zone id=%q routing=%q>\n", id, routing)
	if g.r.IntN(4) == 0 {
		fmt.Fprintf(&g.b, "<prop id=\"level\" value=\"%d\"/>\n", depth)
	}
	g.reg(id, nil)
	var kids []string
	var subtrees [][]string
	for i, n := 0, 2+g.r.IntN(3); i < n; i++ {
		mark := len(g.zoneIDs)
		g.zone(p, g.r.IntN(depth), false)
		kids = append(kids, g.zoneIDs[mark])
		subtrees = append(subtrees, g.zoneIDs[mark:])
	}
	pool := g.links(2+g.r.IntN(4), "")
	fixed := routing == "Dijkstra" // consecutive zone routes must meet at one gateway
	gw := func(z string) string {
		if fixed {
			return g.gwsOf[z][0]
		}
		return g.gwsOf[z][g.r.IntN(len(g.gwsOf[z]))]
	}
	g.graphRoutes(kids, routing == "Full", false, func(s, d, attrs string) {
		fmt.Fprintf(&g.b, "<%s src=%q dst=%q gw_src=%q gw_dst=%q%s>%s</%[1]s>\n",
			g.pick("zoneRoute", "ASroute"), s, d, gw(s), gw(d), attrs, g.ctns(pool))
	})
	// Bypass routes between zones of two subtrees, at any depth.
	bypassed := map[[2]string]bool{}
	for i := g.r.IntN(4) - 1; i > 0; i-- {
		a, b := g.r.IntN(len(kids)), g.r.IntN(len(kids))
		if a == b {
			continue
		}
		za, zb := subtrees[a][g.r.IntN(len(subtrees[a]))], subtrees[b][g.r.IntN(len(subtrees[b]))]
		if bypassed[[2]string{za, zb}] {
			continue
		}
		bypassed[[2]string{za, zb}] = true
		fmt.Fprintf(&g.b, "<%s src=%q dst=%q gw_src=%q gw_dst=%q>%s</%[1]s>\n", g.pick("bypassZoneRoute", "bypassASroute"),
			za, zb, gw(za), gw(zb), g.ctns(pool))
	}
	g.b.WriteString("</zone>\n")
	var all []string
	for _, k := range kids {
		all = append(all, g.gwsOf[k]...)
	}
	return g.reg(id, all)
}

// leaf writes a zone of hosts and routers with routing Full, Floyd or
// Dijkstra.
func (g *platGen) leaf(p, routing string) []string {
	id := g.name(p)
	fmt.Fprintf(&g.b, "<zone id=%q routing=%q>\n", id, routing)
	nodes := g.hosts(1 + g.r.IntN(5))
	for i, n := 0, g.r.IntN(3); i < n; i++ {
		r := g.name("r")
		fmt.Fprintf(&g.b, "<router id=%q/>\n", r)
		nodes = append(nodes, r)
	}
	pool := g.links(2+g.r.IntN(5), "")
	full := routing == "Full"
	loops := 0
	g.graphRoutes(nodes, full, true, func(s, d, attrs string) {
		if s == d {
			loops++
		}
		fmt.Fprintf(&g.b, "<route src=%q dst=%q%s>%s</route>\n", s, d, attrs, g.ctns(pool))
	})
	if len(nodes) == 1 && loops == 0 && !full {
		// A Dijkstra node must appear in a route.
		fmt.Fprintf(&g.b, "<route src=%q dst=%q symmetrical=\"NO\">%s</route>\n", nodes[0], nodes[0], g.ctns(pool))
	}
	if len(nodes) > 1 && g.r.IntN(3) == 0 {
		a, b := nodes[g.r.IntN(len(nodes))], nodes[g.r.IntN(len(nodes))]
		fmt.Fprintf(&g.b, "<bypassRoute src=%q dst=%q>%s</bypassRoute>\n", a, b, g.ctns(pool))
	}
	g.b.WriteString("</zone>\n")
	return g.reg(id, nodes)
}

// hosts writes n <host>s.
func (g *platGen) hosts(n int) []string {
	var hosts []string
	for i := 0; i < n; i++ {
		h := g.name("h")
		g.b.WriteString(hostTag(h) + "\n")
		g.plain = append(g.plain, h)
		hosts = append(hosts, h)
	}
	return hosts
}

// starZone writes a <zone routing="Cluster">.
func (g *platGen) starZone(p string) []string {
	id := g.name(p)
	fmt.Fprintf(&g.b, "<zone id=%q routing=\"Cluster\">\n", id)
	hosts := g.hosts(1 + g.r.IntN(5))
	router := g.name("gw")
	fmt.Fprintf(&g.b, "<router id=%q/>\n", router)
	pool := g.links(len(hosts)+1, "")
	if g.r.IntN(2) == 0 {
		fmt.Fprintf(&g.b, "<backbone id=%q bandwidth=%q latency=%q/>\n", g.name("bb"), g.bandwidth(), g.latency())
	}
	name := func(l genLink, dir string) string {
		if l.split {
			return l.name + "_" + dir
		}
		return l.name
	}
	var linked []string
	for _, h := range hosts {
		if g.r.IntN(8) == 0 {
			continue // no host_link: SimGrid routes through nothing
		}
		linked = append(linked, h)
		up := pool[g.r.IntN(len(pool))]
		down := up
		if g.r.IntN(3) == 0 {
			down = pool[g.r.IntN(len(pool))]
		}
		fmt.Fprintf(&g.b, "<host_link id=%q up=%q down=%q/>\n", h, name(up, "UP"), name(down, "DOWN"))
	}
	gws := append([]string{router}, hosts...)
	if g.r.IntN(3) == 0 {
		pre := g.name("k") + "-"
		fmt.Fprintf(&g.b, "<cabinet id=%q prefix=%q suffix=\".c\" radical=\"1-%d\" speed=\"1Gf\" bw=%q lat=%q/>\n",
			g.name("cab"), pre, 1+g.r.IntN(3), g.bandwidth(), g.latency())
		gws = append(gws, pre+"1.c")
	}
	for _, h := range linked {
		if g.r.IntN(4) == 0 {
			fmt.Fprintf(&g.b, "<route src=%q dst=%q>%s</route>\n", h, h, g.ctns(pool))
		}
	}
	g.b.WriteString("</zone>\n")
	return g.reg(id, gws)
}

// cluster writes a <cluster>.
func (g *platGen) cluster() []string {
	id := g.name("c")
	var attrs strings.Builder
	prefix, suffix := g.pick(id+"n", id+"-", "node"+id+"_"), g.pick("", ".grid", "x")
	rad := g.pick("0-3", "1", "0-1,4", "2-6,9", "0-7")
	fmt.Fprintf(&attrs, " prefix=%q suffix=%q radical=%q speed=\"1Gf\" bw=%q lat=%q", prefix, suffix, rad, g.bandwidth(), g.latency())
	if pol := g.pick("", "SHARED", "FATPIPE", "SPLITDUPLEX", "FULLDUPLEX"); pol != "" {
		fmt.Fprintf(&attrs, " sharing_policy=%q", pol)
	}
	if g.r.IntN(2) == 0 {
		fmt.Fprintf(&attrs, " bb_bw=%q", g.bandwidth())
	}
	if g.r.IntN(2) == 0 {
		fmt.Fprintf(&attrs, " bb_lat=%q", g.latency())
	}
	if g.r.IntN(3) == 0 {
		fmt.Fprintf(&attrs, " bb_sharing_policy=%q", g.pick("SHARED", "FATPIPE"))
	}
	if g.r.IntN(3) == 0 {
		fmt.Fprintf(&attrs, " limiter_link=%q", g.bandwidth())
	}
	if g.r.IntN(3) == 0 {
		fmt.Fprintf(&attrs, " loopback_bw=%q", g.bandwidth())
	}
	if g.r.IntN(3) == 0 {
		fmt.Fprintf(&attrs, " loopback_lat=%q", g.latency())
	}
	router := prefix + id + "_router" + suffix
	if g.r.IntN(3) == 0 {
		router = g.name("cr")
		fmt.Fprintf(&attrs, " router_id=%q", router)
	}
	fmt.Fprintf(&g.b, "<cluster id=%q%s/>\n", id, attrs.String())
	first, _, _ := strings.Cut(strings.Split(rad, ",")[0], "-")
	return g.reg(id, []string{router, prefix + first + suffix})
}
