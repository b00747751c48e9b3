package energy

import (
	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sched/xtime"
)

// monitoring is EnergyBackfillingMonitoringPeriod (energy_bf_monitoring):
// energy_bf plus a CALL_ME_LATER every monitoring period from the first
// submission, each REQUESTED_CALL being a monitoring stage (stage, which
// does nothing here).
type monitoring struct {
	energyBF
	launched, finished, stopCalls bool
	stage                         func(s *sched.State, d *sched.Decider, date xtime.Time)
}

func (m *monitoring) event(s *sched.State, d *sched.Decider, ev *batsim.Event) {
	switch ev.Data.(type) {
	case *batsim.SimulationEnds:
		m.finished = true
		return
	case *batsim.JobSubmitted:
		if !m.launched {
			if !d.CallMeLater(ev.Timestamp + m.o.MonitoringPeriod) {
				return
			}
			m.cmlCount++
			m.launched = true
		}
	case *batsim.RequestedCall:
		m.requestedCall()
		if m.finished {
			return
		}
		if m.stage != nil {
			m.stage(s, d, xtime.Of(ev.Timestamp))
		}
		if !m.stopCalls {
			if !d.CallMeLater(ev.Timestamp + m.o.MonitoringPeriod) {
				return
			}
			m.cmlCount++
		}
		return
	}
	m.energyBF.event(s, d, ev)
}

// watcher is EnergyWatcher (energy_watcher): the jobs in arrival order,
// one at a time on the lowest machines, and a consumed-energy query at
// each message with submissions.
type watcher struct {
	energyBF
	busy bool
}

func (w *watcher) event(s *sched.State, _ *sched.Decider, ev *batsim.Event) {
	switch e := ev.Data.(type) {
	case *batsim.SimulationBegins:
		w.n = s.NbHosts()
		w.jobs = map[string]*bjob{}
	case *batsim.JobSubmitted:
		w.release(s, e.JobID, ev.Timestamp)
	case *batsim.JobCompleted:
		w.ended = append(w.ended, w.jobs[e.JobID])
	}
}

func (w *watcher) decide(s *sched.State, d *sched.Decider, _ xtime.Time) {
	if len(w.ended) > 0 {
		if !w.busy {
			fail("_is_machine_busy == true")
		}
		w.busy = false
	}
	for _, j := range w.released {
		if j.res <= w.n {
			w.queue = append(w.queue, j)
		}
	}
	if len(w.released) > 0 {
		d.Reply().QueryConsumedEnergy()
	}
	if len(w.queue) > 0 && !w.busy {
		j := w.queue[0]
		hosts := make([]int, j.res)
		for i := range hosts {
			hosts[i] = i
		}
		if !d.Start(j.job, hosts) {
			return
		}
		w.busy = true
		w.queue = w.queue[1:]
	}
}
