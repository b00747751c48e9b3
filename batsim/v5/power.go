package v5

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/bucma-sched/bucma/batsim"
)

// power translates Batsim 4's power-state requests. Batsim 4 switches a
// host off by putting it in one of its sleep pstates (the host property
// sleep_pstates, "sleep:switch_off:switch_on"), through the virtual
// switching-off pstate, and back on by asking for a computation pstate;
// Batsim 5 does the same switches with TurnOnOffHostsEvent (same virtual
// pstates, same durations and energies) and changes the pstate of a host
// that is on with ChangeHostsPStateEvent, at once. So a request for a sleep
// pstate becomes a switch-off, a request for a computation pstate on a
// sleeping host a switch-on, any other a pstate change; Batsim 5's
// HostsTurnedOnOffEvent is reported as Batsim 4's RESOURCE_STATE_CHANGED
// with the pstate that was asked for.
type power struct {
	sleep  []map[int]bool // host -> its sleep pstates
	asleep []bool         // host is asleep or switching off
	pstate []int          // pstate of a host that is on (that it wakes into)
	target []int          // pstate asked for by the switch under way
}

func (p *power) begin(hosts []Host) {
	n := len(hosts)
	p.sleep, p.asleep, p.pstate, p.target = make([]map[int]bool, n), make([]bool, n), make([]int, n), make([]int, n)
	for _, h := range hosts {
		id := int(h.ID)
		if id < 0 || id >= n {
			continue
		}
		p.pstate[id] = int(h.PState)
		p.asleep[id] = h.State == HostSleeping || h.State == HostSwitchingOff
		for _, kv := range h.Properties {
			if kv.Key != "sleep_pstates" {
				continue
			}
			for _, t := range strings.Split(kv.Value, ",") {
				f := strings.Split(strings.TrimSpace(t), ":")
				if s, err := strconv.Atoi(strings.TrimSpace(f[0])); err == nil && len(f) == 3 {
					if p.sleep[id] == nil {
						p.sleep[id] = map[int]bool{}
					}
					p.sleep[id][s] = true
				}
			}
		}
	}
}

func (p *power) known(h int) bool { return h >= 0 && h < len(p.asleep) }

// set translates SET_RESOURCE_STATE into one or more Batsim 5 decisions
// (a []any when there are several).
func (p *power) set(d *batsim.SetResourceState) (any, error) {
	var off, on, change []int
	for _, h := range d.Resources {
		if !p.known(h) {
			change = append(change, h) // Batsim names the problem
			continue
		}
		switch {
		case p.sleep[h][d.PState] && !p.asleep[h]:
			off = append(off, h)
		case !p.sleep[h][d.PState] && p.asleep[h]:
			if d.PState != p.pstate[h] {
				return nil, fmt.Errorf("waking host %d into pstate %d: Batsim 5 wakes a host into the pstate it slept from (%d): %w", h, d.PState, p.pstate[h], ErrNoEquivalent)
			}
			on = append(on, h)
		default:
			change = append(change, h)
		}
	}
	var out []any
	if len(change) > 0 {
		for _, h := range change {
			if p.known(h) {
				p.pstate[h] = d.PState
			}
		}
		out = append(out, &ChangeHostsPState{HostIDs: batsim.NewIntervalSet(change...).String(), PState: uint32(d.PState)})
	}
	if len(off) > 0 {
		for _, h := range off {
			p.asleep[h], p.target[h] = true, d.PState
		}
		out = append(out, &TurnOnOffHosts{HostIDs: batsim.NewIntervalSet(off...).String(), State: 1})
	}
	if len(on) > 0 {
		for _, h := range on {
			p.asleep[h], p.target[h] = false, d.PState
		}
		out = append(out, &TurnOnOffHosts{HostIDs: batsim.NewIntervalSet(on...).String(), State: 0})
	}
	if len(out) == 1 {
		return out[0], nil
	}
	return out, nil
}

// turned reports a finished switch as Batsim 4 does: the hosts in the
// pstate asked for, one RESOURCE_STATE_CHANGED per pstate.
func (p *power) turned(d *HostsTurnedOnOff) ([]*batsim.ResourceStateChanged, error) {
	set, err := batsim.ParseIntervalSet(d.HostIDs)
	if err != nil {
		return nil, err
	}
	groups := map[int][]int{}
	for _, h := range set {
		if !p.known(h) {
			return nil, fmt.Errorf("host %d does not exist", h)
		}
		ps := p.target[h]
		if d.State == 0 {
			p.asleep[h] = false
		} else {
			p.asleep[h] = true
			if !p.sleep[h][ps] { // not asked for by the decision process
				ps = -1
				for s := range p.sleep[h] {
					if ps < 0 || s < ps {
						ps = s
					}
				}
			}
		}
		groups[ps] = append(groups[ps], h)
	}
	pstates := make([]int, 0, len(groups))
	for ps := range groups {
		pstates = append(pstates, ps)
	}
	sort.Ints(pstates)
	out := make([]*batsim.ResourceStateChanged, len(pstates))
	for i, ps := range pstates {
		out[i] = &batsim.ResourceStateChanged{Resources: batsim.NewIntervalSet(groups[ps]...).String(), State: strconv.Itoa(ps)}
	}
	return out, nil
}
