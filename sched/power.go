package sched

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bucma-sched/bucma/batsim"
)

// Power states: a policy switches hosts to a sleep pstate and back with
// Decider.SetPState (SET_RESOURCE_STATE, Batsim with --energy); the
// framework follows each host through switching off, sleeping and
// switching on (Host.Power) from the requests and Batsim's
// RESOURCE_STATE_CHANGED, and never lets a job start on a host that is not
// on.

// parseHostPstates reads a host's pstates from the properties Batsim
// forwards: wattage_per_state (one entry per pstate) and sleep_pstates
// ("sleep:switch_off:switch_on" triplets).
func parseHostPstates(props map[string]string) (*hostPstates, error) {
	w, hasW := props["wattage_per_state"]
	sp, hasS := props["sleep_pstates"]
	if !hasW && !hasS {
		return nil, nil
	}
	p := &hostPstates{sleep: map[int]bool{}, virt: map[int]bool{}}
	if hasW {
		p.n = len(strings.Split(w, ","))
	}
	if hasS {
		for _, t := range strings.Split(sp, ",") {
			if strings.TrimSpace(t) == "" {
				continue
			}
			f := strings.Split(t, ":")
			if len(f) != 3 {
				return nil, fmt.Errorf("sleep_pstates: %q is not sleep:switch_off:switch_on", t)
			}
			var v [3]int
			for i, x := range f {
				n, err := strconv.Atoi(strings.TrimSpace(x))
				if err != nil || n < 0 || (p.n > 0 && n >= p.n) {
					return nil, fmt.Errorf("sleep_pstates: %q: %q is not a pstate of the host", t, x)
				}
				v[i] = n
			}
			p.sleep[v[0]] = true
			p.virt[v[1]], p.virt[v[2]] = true, true
		}
	}
	return p, nil
}

// isSleep reports whether pstate ps is a sleep pstate of h.
func (h *Host) isSleep(ps int) bool { return h.pstates != nil && h.pstates.sleep[ps] }

// SetPState asks Batsim to put hosts in pstate ps: a sleep pstate switches
// idle hosts off, a computation pstate wakes sleeping hosts up (or changes
// the pstate of hosts that are on). It returns false, records an error and
// changes nothing when the request is invalid: a host that does not exist
// or is given twice, a pstate the host does not have or that is one of its
// switching pstates, a host that is switching, a busy host to switch off,
// or a sleeping host sent to another sleep pstate.
func (d *Decider) SetPState(hosts []int, ps int) bool {
	if d.err != nil {
		return false
	}
	if err := d.s.checkPState(hosts, ps); err != nil {
		return d.broke(err)
	}
	set := batsim.NewIntervalSet(hosts...)
	if err := d.reply.SetResourceState(set, ps); err != nil {
		return d.fail("%v", err)
	}
	d.s.applyPState(set, ps)
	return true
}

// resourceStateChanged applies RESOURCE_STATE_CHANGED: the hosts reached
// the pstate.
func (s *State) resourceStateChanged(d *batsim.ResourceStateChanged) error {
	set, err := batsim.ParseIntervalSet(d.Resources)
	if err != nil {
		return err
	}
	ps, err := strconv.Atoi(d.State)
	if err != nil {
		return fmt.Errorf("state %q is not a pstate number", d.State)
	}
	for _, id := range set {
		if id < 0 || id >= len(s.hosts) {
			return fmt.Errorf("host %d does not exist", id)
		}
		h := &s.hosts[id]
		was := h.Free()
		h.pstate = ps
		if h.isSleep(ps) {
			h.power = PowerSleeping
		} else {
			h.power = PowerOn
		}
		if !was && h.Free() {
			s.nfree++
		}
	}
	return nil
}
