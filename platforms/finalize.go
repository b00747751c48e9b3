package platforms

import (
	"errors"
	"fmt"
	"log/slog"
	"sort"
)

// finalize resolves names, builds the routing tables, assigns roles and ids,
// and computes the latencies of the timing model.
func (p *parser) finalize() (*Platform, error) {
	p.loopback.bandwidth, p.loopback.latency = p.loopbackBw, p.loopbackLat
	for _, r := range p.allRoutes {
		if err := p.resolveRoute(r); err != nil {
			return nil, err
		}
	}
	if err := p.buildRouting(); err != nil {
		return nil, err
	}
	if err := p.buildBypasses(); err != nil {
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

	net := &network{name: p.name, links: p.linkList, loopback: p.loopback.id, hosts: map[string]*netpoint{},
		memo: map[[2]*netpoint]*routeResult{}}
	for _, h := range p.hosts {
		net.hosts[h.name] = p.netpoints[h.name]
	}
	pl := &Platform{Master: master.name, net: net, Unmodelled: p.unmodelled}
	masterNP := p.netpoints[master.name]
	pl.MasterLoopbackLatency = pl.latency(masterNP, masterNP)
	for i, h := range compute {
		pl.Hosts = append(pl.Hosts, p.publicHost(h, i))
		pl.HostToMasterLatency = append(pl.HostToMasterLatency, pl.latency(p.netpoints[h.name], masterNP))
	}
	for i, h := range storage {
		pl.Storage = append(pl.Storage, p.publicHost(h, len(compute)+i))
		pl.StorageToMasterLatency = append(pl.StorageToMasterLatency, pl.latency(p.netpoints[h.name], masterNP))
	}
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
		Speed:          h.speeds[h.pstate],
		PState:         h.pstate,
		Cores:          h.cores,
		Properties:     props,
		ZoneProperties: zp,
		Pstates:        append([]float64(nil), h.speeds...),
		Zone:           h.zone.id,
	}
}

// latency is the latency of the route from src to dst as Route gives it.
// When SimGrid cannot compute the route, it counts as 0; either way, a route
// Route reports an error for gets a warning.
func (p *Platform) latency(src, dst *netpoint) float64 {
	r := p.net.route(src, dst)
	if r.err == nil {
		return r.latency
	}
	var msg string
	if errors.Is(r.err, ErrUndeclaredRoute) {
		msg = fmt.Sprintf("%s: route %s -> %s: %v (SimGrid routes through nothing there)", p.net.name, src.name, dst.name, r.err)
	} else {
		msg = fmt.Sprintf("%s: route %s -> %s: unresolved, latency counted as 0: %v", p.net.name, src.name, dst.name, r.err)
	}
	for _, w := range p.Warnings {
		if w == msg {
			return r.latency
		}
	}
	p.Warnings = append(p.Warnings, msg)
	slog.Debug("platform routing", "warning", msg)
	return r.latency
}
