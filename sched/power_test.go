package sched

import (
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/batsim"
)

// powerHosts are three hosts with pstates 0 (computation), 1 (sleep), 2
// and 3 (its switching pstates), the third without power properties.
func powerHosts(t *testing.T) *State {
	t.Helper()
	props := map[string]string{"wattage_per_state": "95:190, 9:9, 100:100, 125:125", "sleep_pstates": "1:2:3"}
	var hosts []Host
	for i := 0; i < 2; i++ {
		pw, err := parseHostPstates(props)
		if err != nil {
			t.Fatal(err)
		}
		hosts = append(hosts, Host{id: i, speed: 1, pstates: pw})
	}
	hosts = append(hosts, Host{id: 2, speed: 1})
	return newState(hosts)
}

// TestSetPStateFollowsHosts: a host switched off is not free from the
// request to the RESOURCE_STATE_CHANGED that wakes it up again; the
// requests Batsim would abort on are refused with a reason.
func TestSetPStateFollowsHosts(t *testing.T) {
	s := powerHosts(t)
	d := &Decider{s: s, reply: batsim.NewReply(0)}
	if s.NbFree() != 3 || !d.SetPState([]int{0, 1}, 1) || d.Err() != nil {
		t.Fatalf("switch off: %v (free %d)", d.Err(), s.NbFree())
	}
	if s.hosts[0].Power() != PowerSwitchingOff || s.hosts[0].Free() || s.NbFree() != 1 {
		t.Fatalf("after the request: %v, free %d", s.hosts[0].Power(), s.NbFree())
	}
	if err := s.resourceStateChanged(&batsim.ResourceStateChanged{Resources: "0-1", State: "1"}); err != nil || s.hosts[1].Power() != PowerSleeping {
		t.Fatalf("asleep: %v %v", err, s.hosts[1].Power())
	}
	for _, c := range []struct {
		hosts []int
		ps    int
		want  string
	}{
		{[]int{0}, 1, "cannot go to another sleep pstate"},
		{[]int{0}, 2, "switching pstate"},
		{[]int{0}, 7, "no pstate 7"},
		{[]int{2, 2}, 0, "given twice"},
		{[]int{5}, 0, "does not exist"},
	} {
		d := &Decider{s: s, reply: batsim.NewReply(0)}
		if d.SetPState(c.hosts, c.ps) || d.Err() == nil || !strings.Contains(d.Err().Error(), c.want) {
			t.Errorf("SetPState(%v, %d): %v, want %q", c.hosts, c.ps, d.Err(), c.want)
		}
	}
	d = &Decider{s: s, reply: batsim.NewReply(0)}
	if !d.SetPState([]int{0}, 0) || s.hosts[0].Power() != PowerSwitchingOn {
		t.Fatalf("wake up: %v %v", d.Err(), s.hosts[0].Power())
	}
	d = &Decider{s: s, reply: batsim.NewReply(0)}
	if d.SetPState([]int{0}, 0) || !strings.Contains(d.Err().Error(), "switching on") {
		t.Errorf("request while switching: %v", d.Err())
	}
	if err := s.resourceStateChanged(&batsim.ResourceStateChanged{Resources: "0", State: "0"}); err != nil || !s.hosts[0].Free() || s.NbFree() != 2 {
		t.Fatalf("awake: %v, free %d", err, s.NbFree())
	}
	// A busy host cannot be switched off.
	j := &Job{id: "w!1", res: 1, state: batsim.StateRunning}
	s.hosts[2].jobs = []*Job{j}
	s.hosts[2].pstates, _ = parseHostPstates(map[string]string{"sleep_pstates": "1:2:3"})
	d = &Decider{s: s, reply: batsim.NewReply(0)}
	if d.SetPState([]int{2}, 1) || !strings.Contains(d.Err().Error(), "runs 1 job") {
		t.Errorf("busy host switched off: %v", d.Err())
	}
	if _, err := parseHostPstates(map[string]string{"sleep_pstates": "1:2"}); err == nil {
		t.Error("a sleep_pstates pair was accepted")
	}
	if got := s.hosts[1].SleepPStates(); len(got) != 1 || got[0] != 1 {
		t.Errorf("SleepPStates = %v", got)
	}
}
