package edctwins

import (
	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/sched"
)

// edcJob is a job as Batsim's easy component keeps it.
type edcJob struct {
	job       *sched.Job
	maxFinish float64 // start + walltime: a double, or a float's value for a backfilled job
}

// edcEasy takes the decisions of Batsim 5's test component easy
// (test/edc-lib/easy.cpp) exactly, where bucma's own easy policy
// (first-fit hosts, jobs without walltime rejected), a textbook EASY, can
// differ:
//   - it decides only when a message brought a job it queued or a job's
//     end;
//   - the reservation of the first job that cannot start is found by
//     walking the running jobs by expected end and stopping at the first
//     that frees enough hosts: among jobs ending at the same instant,
//     those counted depend on the order of its std::unordered_map and of
//     std::sort (textbook EASY counts every job ending then), reproduced
//     by cxxMap and cxxSort;
//   - the reservation's date and a candidate's expected end are compared
//     as C floats (single precision), and a backfilled job keeps its
//     expected end as that float.
type edcEasy struct {
	running *cxxMap
	queue   []*edcJob // waiting jobs it accepted, in arrival order
	decide  bool      // the message brought a queued job or an end
	byJob   map[*sched.Job]*edcJob
}

func newEasy(sched.Options) (sched.Policy, error) {
	return &edcEasy{running: newCxxMap(), byJob: map[*sched.Job]*edcJob{}}, nil
}

// Admits refuses jobs without walltime (the framework rejects them and the
// jobs bigger than the platform at submission, in arrival order, as easy
// does).
func (p *edcEasy) Admits(_ *sched.State, j *sched.Job) bool { return j.HasWalltime() }

func (p *edcEasy) JobSubmitted(_ *sched.State, j *sched.Job) {
	if j.Refused() {
		return
	}
	e := &edcJob{job: j, maxFinish: -1}
	p.byJob[j] = e
	p.queue = append(p.queue, e)
	p.decide = true
}

func (p *edcEasy) JobEnded(_ *sched.State, j *sched.Job) {
	if _, ok := p.byJob[j]; !ok || j.State() == batsim.StateRejected {
		return
	}
	delete(p.byJob, j)
	p.running.erase(j.ID())
	p.decide = true
}

func (p *edcEasy) start(s *sched.State, d *sched.Decider, e *edcJob, maxFinish float64) bool {
	// available_hosts.left(n): the n lowest free hosts.
	if !d.Start(e.job, sched.FirstFit{}.Select(s, e.job, e.job.Res())) {
		return false
	}
	e.maxFinish = maxFinish
	p.running.set(e.job.ID(), e)
	return true
}

func (p *edcEasy) Decide(s *sched.State, d *sched.Decider) {
	if !p.decide {
		return
	}
	p.decide = false
	now := s.Now()
	i := 0
	var priority *edcJob
	for ; i < len(p.queue); i++ {
		e := p.queue[i]
		if e.job.Res() > s.NbFree() {
			priority = e
			break
		}
		if !p.start(s, d, e, now+e.job.Walltime()) {
			return
		}
	}
	rest := p.queue[i:]
	if priority == nil {
		p.queue = p.queue[:0]
		return
	}
	// The reservation: running jobs by expected end, until enough hosts.
	atStart := s.NbFree()
	startTime := float32(-1)
	byEnd := p.running.values()
	cxxSort(byEnd, func(a, b *edcJob) bool { return a.maxFinish < b.maxFinish })
	for _, r := range byEnd {
		atStart += r.job.Res()
		if atStart >= priority.job.Res() {
			atStart -= priority.job.Res()
			startTime = float32(r.maxFinish)
			break
		}
	}
	kept := []*edcJob{priority}
	for k := 1; k < len(rest); k++ {
		e := rest[k]
		finish := float32(now + e.job.Walltime())
		if e.job.Res() <= s.NbFree() && (e.job.Res() <= atStart || finish <= startTime) {
			if !p.start(s, d, e, float64(finish)) {
				return
			}
			if finish > startTime {
				atStart -= e.job.Res()
			}
			continue
		}
		if s.NbFree() == 0 {
			kept = append(kept, rest[k:]...)
			break
		}
		kept = append(kept, e)
	}
	p.queue = append(p.queue[:0], kept...)
}
