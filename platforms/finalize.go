package platforms

import (
	"fmt"
	"sort"
	"strings"
)

// finalize resolves names, builds the routing tables, assigns roles and ids,
// and computes the latencies of the timing model.
func (p *parser) finalize() (*Platform, error) {
	if err := p.resolveRoutes(); err != nil {
		return nil, err
	}
	if err := p.buildTables(); err != nil {
		return nil, err
	}

	// Roles, as Batsim's Machines::create_machines assigns them.
	masterName := p.opt.masterHost()
	var master *hostDecl
	var compute, storage []*hostDecl
	for _, h := range p.hosts {
		role, hasRole := h.props["role"]
		if h.name == masterName {
			if hasRole {
				role = role + ",master"
			} else {
				role = "master"
			}
		}
		switch role {
		case "", "compute_node":
			compute = append(compute, h)
		case "storage":
			storage = append(storage, h)
		case "master":
			if master != nil {
				return nil, fmt.Errorf("%s: two master hosts: %q (line %d) and %q (line %d): exactly one host may have the master role (a role=master property, or the master-host name %q)",
					p.name, master.name, master.line, h.name, h.line, masterName)
			}
			master = h
		default:
			if h.name == masterName {
				return nil, p.errf(h.line, "<host id=%q>: Cannot create any role from string description %q: the host is named like the master host (%q) and also has the role property %q",
					h.name, role, masterName, h.props["role"])
			}
			return nil, p.errf(h.line, "<host id=%q>: unknown role %q (expected master, storage, compute_node or none)", h.name, role)
		}
	}
	if master == nil {
		return nil, fmt.Errorf("%s: Cannot find the master host: no host is named %q and no host has <prop id=\"role\" value=\"master\"/>",
			p.name, masterName)
	}
	for _, h := range compute {
		if !(h.speeds[0] > 0) {
			return nil, p.errf(h.line, "<host id=%q>: compute host has a non-positive speed %q", h.name, h.speed)
		}
	}

	byName := func(l []*hostDecl) {
		sort.Slice(l, func(i, j int) bool { return l[i].name < l[j].name })
	}
	byName(compute)
	byName(storage)

	r := newResolver(p)
	masterNP := p.netpoints[master.name]
	pl := &Platform{Master: master.name}
	pl.MasterLoopbackLatency = r.latency(masterNP, masterNP)
	for i, h := range compute {
		pl.Hosts = append(pl.Hosts, p.publicHost(h, i))
		pl.HostToMasterLatency = append(pl.HostToMasterLatency, r.latency(p.netpoints[h.name], masterNP))
	}
	for i, h := range storage {
		pl.Storage = append(pl.Storage, p.publicHost(h, len(compute)+i))
		pl.StorageToMasterLatency = append(pl.StorageToMasterLatency, r.latency(p.netpoints[h.name], masterNP))
	}
	pl.Warnings = r.warnings
	return pl, nil
}

func (p *parser) publicHost(h *hostDecl, id int) Host {
	props := copyMap(h.props)
	if _, ok := props["role"]; !ok {
		props["role"] = ""
	}
	// Zone properties: outer zones first, inner ones override.
	var chain []*zone
	for z := h.zone; z != nil; z = z.parent {
		chain = append(chain, z)
	}
	zp := map[string]string{}
	for i := len(chain) - 1; i >= 0; i-- {
		for k, v := range chain[i].props {
			zp[k] = v
		}
	}
	return Host{
		ID:             id,
		Name:           h.name,
		Speed:          h.speeds[0],
		Cores:          h.cores,
		Properties:     props,
		ZoneProperties: zp,
		Pstates:        append([]float64(nil), h.speeds...),
		Zone:           h.zone.id,
	}
}

func (p *parser) lookupNP(r *routeDecl, what, name string) (*netpoint, error) {
	np, ok := p.netpoints[name]
	if !ok {
		return nil, p.errf(r.line, "<%s src=%q dst=%q>: unknown %s %q", r.elem, r.src, r.dst, what, name)
	}
	return np, nil
}

func (p *parser) resolveRoutes() error {
	for _, r := range p.allRoutes {
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
		for i, n := range r.linkNames {
			l, ok := p.links[n]
			if !ok {
				return p.errf(r.linkLines[i], "<%s src=%q dst=%q>: <link_ctn id=%q>: unknown link", r.elem, r.src, r.dst, n)
			}
			r.links = append(r.links, l)
		}
	}
	return nil
}

func (p *parser) link(name string, line int, elem string) (*linkDecl, error) {
	l, ok := p.links[name]
	if !ok {
		return nil, p.errf(line, "<%s>: unknown link %q", elem, name)
	}
	return l, nil
}

func (p *parser) buildTables() error {
	for _, z := range p.zones {
		switch strings.ToLower(z.routing) {
		case "cluster":
			if err := p.buildStar(z); err != nil {
				return err
			}
		default:
			z.table = map[[2]*netpoint]*routeDecl{}
			for _, r := range z.routes {
				k := [2]*netpoint{r.srcNP, r.dstNP}
				if _, dup := z.table[k]; !dup {
					z.table[k] = r
					z.ordered = append(z.ordered, r)
				}
			}
			// Symmetrical routes give the reverse route when none is declared.
			for _, r := range z.routes {
				if !r.symmetrical {
					continue
				}
				k := [2]*netpoint{r.dstNP, r.srcNP}
				if _, ok := z.table[k]; ok {
					continue
				}
				rev := &routeDecl{
					elem: r.elem, src: r.dst, dst: r.src, gwSrc: r.gwDst, gwDst: r.gwSrc, line: r.line,
					srcNP: r.dstNP, dstNP: r.srcNP, gwSrcNP: r.gwDstNP, gwDstNP: r.gwSrcNP,
					links: reversed(r.links),
				}
				z.table[k] = rev
				z.ordered = append(z.ordered, rev)
			}
		}
	}
	return nil
}

// buildStar fills the star table of a <zone routing="Cluster">: each host
// reaches the centre through its host_link (and the backbone, if any).
func (p *parser) buildStar(z *zone) error {
	if z.fromCluster {
		return nil
	}
	z.star = map[*netpoint]*starRoute{}
	var bb *linkDecl
	if z.backbone != "" {
		bb = p.links[z.backbone]
	}
	attach := func(np *netpoint, up, down *linkDecl) {
		sr := z.star[np]
		if sr == nil {
			sr = &starRoute{}
			z.star[np] = sr
		}
		sr.up = []*linkDecl{up}
		sr.down = []*linkDecl{down}
		if bb != nil {
			sr.up = append(sr.up, bb)
			sr.down = []*linkDecl{bb, down}
		}
	}
	for _, hl := range z.hostLinks {
		np, ok := p.netpoints[hl.host]
		if !ok || np.kind != npHost {
			return p.errf(hl.line, "<host_link id=%q>: unknown host", hl.host)
		}
		up, err := p.link(hl.up, hl.line, fmt.Sprintf("host_link id=%q up", hl.host))
		if err != nil {
			return err
		}
		down, err := p.link(hl.down, hl.line, fmt.Sprintf("host_link id=%q down", hl.host))
		if err != nil {
			return err
		}
		attach(np, up, down)
	}
	for _, c := range z.cabinets {
		for _, h := range c.hosts {
			attach(p.netpoints[h.name], p.links["link_"+h.name+"_UP"], p.links["link_"+h.name+"_DOWN"])
		}
	}
	for _, r := range z.routes {
		if r.srcNP == r.dstNP {
			sr := z.star[r.srcNP]
			if sr == nil {
				sr = &starRoute{}
				z.star[r.srcNP] = sr
			}
			sr.loopback = r.links
			sr.hasLoopback = true
		}
	}
	return nil
}
