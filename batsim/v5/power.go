package v5

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/bucma-sched/bucma/batsim"
)

// power translates Batsim 4's power-state requests. Both Batsims switch a
// host off by putting it in one of its sleep pstates (the host property
// sleep_pstates, "sleep:switch_off:switch_on"), through the virtual
// switching-off pstate, and back on by asking for a computation pstate,
// through the switching-on one. Batsim 5 does these switches with
// TurnOnOffHostsEvent, whose state is the pstate to reach (a sleep pstate
// switches off, a computation pstate switches on), and changes the pstate
// of a host that is on with ChangeHostsPStateEvent, at once. So a request
// for a sleep pstate becomes a switch-off to it, a request for a
// computation pstate on a sleeping host a switch-on to it, any other a
// pstate change; Batsim 5's HostsTurnedOnOffEvent (the pstate reached) is
// reported as Batsim 4's RESOURCE_STATE_CHANGED.
type power struct {
	sleep  []map[int]bool // host -> its sleep pstates
	asleep []bool         // host is asleep or switching off
}

func (p *power) begin(hosts []Host) {
	n := len(hosts)
	p.sleep, p.asleep = make([]map[int]bool, n), make([]bool, n)
	for _, h := range hosts {
		id := int(h.ID)
		if id < 0 || id >= n {
			continue
		}
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
	if d.PState < 0 || d.PState > math.MaxUint32 {
		return nil, fmt.Errorf("pstate %d is not a pstate", d.PState)
	}
	var switched, change []int
	for _, h := range d.Resources {
		if !p.known(h) {
			change = append(change, h) // Batsim names the problem
			continue
		}
		sleep := p.sleep[h][d.PState]
		if sleep != p.asleep[h] {
			p.asleep[h] = sleep
			switched = append(switched, h)
		} else {
			change = append(change, h)
		}
	}
	var out []any
	if len(change) > 0 {
		out = append(out, &ChangeHostsPState{HostIDs: batsim.NewIntervalSet(change...).String(), PState: uint32(d.PState)})
	}
	if len(switched) > 0 {
		out = append(out, &TurnOnOffHosts{HostIDs: batsim.NewIntervalSet(switched...).String(), State: uint32(d.PState)})
	}
	if len(out) == 1 {
		return out[0], nil
	}
	return out, nil
}

// turned reports a finished switch as Batsim 4 does: the hosts in the
// pstate they reached, which is a sleep pstate of theirs when they were
// switched off.
func (p *power) turned(d *HostsTurnedOnOff) (*batsim.ResourceStateChanged, error) {
	set, err := batsim.ParseIntervalSet(d.HostIDs)
	if err != nil {
		return nil, err
	}
	for _, h := range set {
		if !p.known(h) {
			return nil, fmt.Errorf("host %d does not exist", h)
		}
		p.asleep[h] = p.sleep[h][int(d.State)]
	}
	return &batsim.ResourceStateChanged{Resources: set.String(), State: strconv.FormatUint(uint64(d.State), 10)}, nil
}
