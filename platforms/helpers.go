package platforms

// TotalSpeed is the summed speed of the compute hosts, in flop/s.
func (p *Platform) TotalSpeed() float64 {
	t := 0.0
	for _, h := range p.Hosts {
		t += h.Speed
	}
	return t
}

// SharesByProperty gives, for each value of the host property key, the
// fraction of the platform's total compute speed held by the hosts with that
// value (for instance the share of each owner of the OSEP grid). Hosts
// without the property count under "". The result is empty when the
// platform has no compute power.
func (p *Platform) SharesByProperty(key string) map[string]float64 {
	shares := map[string]float64{}
	total := p.TotalSpeed()
	if total <= 0 {
		return shares
	}
	for _, h := range p.Hosts {
		shares[h.Properties[key]] += h.Speed
	}
	for k, v := range shares {
		shares[k] = v / total
	}
	return shares
}

// HostByName returns the compute host with that name.
func (p *Platform) HostByName(name string) (Host, bool) {
	for _, h := range p.Hosts {
		if h.Name == name {
			return h, true
		}
	}
	return Host{}, false
}
