package simple

import (
	"fmt"
	"strconv"

	"github.com/bucma-sched/bucma/sched"
)

func sleeperSpec() sched.Spec {
	return sched.Spec{
		Name: "sleeper",
		Description: "sleeper: one job at a time in queue order, on the lowest idle hosts; every idle host is switched to a sleep pstate, " +
			"and sleeping hosts are woken up when the first job of the queue needs them (batsched's sleeper with queue=batsched)",
		Options: []sched.OptionSpec{orderOption, queueOption,
			{Name: "pstate-compute", Default: "0", Help: "the computation pstate hosts are woken up to (batsched's pstate_compute)"},
			{Name: "pstate-sleep", Default: "auto", Help: "the sleep pstate idle hosts are switched to; auto: the lowest sleep pstate of the hosts (their sleep_pstates property; batsched's pstate_sleep)"}},
		Energy: true,
		New: func(opts sched.Options) (sched.Policy, error) {
			compute, err := strconv.Atoi(opts["pstate-compute"])
			if err != nil || compute < 0 {
				return nil, fmt.Errorf("sleeper: pstate-compute=%q: want a pstate number >= 0", opts["pstate-compute"])
			}
			sleep := -1
			if opts["pstate-sleep"] != "auto" {
				sleep, err = strconv.Atoi(opts["pstate-sleep"])
				if err != nil || sleep < 0 {
					return nil, fmt.Errorf("sleeper: pstate-sleep=%q: want auto or a pstate number >= 0", opts["pstate-sleep"])
				}
			}
			qd, err := newQueued(opts)
			return &Sleeper{queued: qd, compute: compute, sleep: sleep}, err
		},
	}
}

// Sleeper runs one job at a time and keeps every other host asleep: when
// no job runs and the first job of the queue finds enough idle hosts on,
// it starts on the lowest of them and the other idle hosts are switched
// off; when it does not, sleeping hosts are woken up (the lowest first)
// until the hosts on or switching on are enough; hosts left idle are
// switched off whenever a job runs or none waits. With queue=batsched it
// decides as batsched's sleeper (which, unlike bucma, ignores Batsim's
// machine unavailability).
type Sleeper struct {
	queued
	compute, sleep int
}

// SimulationBegins implements sched.Starter: pstate-sleep=auto becomes the
// lowest sleep pstate, which every host must have; the pstates must be
// the hosts'.
func (p *Sleeper) SimulationBegins(s *sched.State) error {
	for h := range s.NbHosts() {
		sp := s.Host(h).SleepPStates()
		if len(sp) == 0 {
			return fmt.Errorf("sleeper: host %d (%s) has no sleep pstate (platform property sleep_pstates)", h, s.Host(h).Name())
		}
		if p.sleep < 0 {
			p.sleep = sp[0]
		}
		found := false
		for _, ps := range sp {
			found = found || ps == p.sleep
		}
		if !found {
			return fmt.Errorf("sleeper: pstate %d is not a sleep pstate of host %d (%s): its sleep pstates are %v", p.sleep, h, s.Host(h).Name(), sp)
		}
		if p.compute == p.sleep {
			return fmt.Errorf("sleeper: pstate-compute=%d is the sleep pstate", p.compute)
		}
	}
	return nil
}

// Decide implements sched.Policy.
func (p *Sleeper) Decide(s *sched.State, d *sched.Decider) {
	p.q.update(s)
	var idle, asleep []int
	waking := 0
	for h := range s.NbHosts() {
		host := s.Host(h)
		switch host.Power() {
		case sched.PowerOn:
			if host.Free() {
				idle = append(idle, h)
			}
		case sched.PowerSleeping:
			asleep = append(asleep, h)
		case sched.PowerSwitchingOn:
			waking++
		}
	}
	j := p.q.first(s)
	if j != nil && len(s.Running()) == 0 {
		if len(idle) < j.Res() {
			if n := min(len(asleep), j.Res()-len(idle)-waking); n > 0 {
				d.SetPState(asleep[:n], p.compute)
			}
			return
		}
		if !d.Start(j, idle[:j.Res()]) {
			return
		}
		idle = idle[j.Res():]
	}
	if len(idle) > 0 {
		d.SetPState(idle, p.sleep)
	}
}
