package energy

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/bucma-sched/bucma/policies/batsched"
	"github.com/bucma-sched/bucma/sched/xtime"
)

// BenchmarkScheduleCompress times batsched's compression (every planned
// job, in order, taken out of the schedule and placed again first fit on
// the lowest machines: what conservative_bf does when a job ends) on the
// two copies of batsched's Schedule, with the same n jobs of 1 to 64
// machines and 1 minute to 1 day of walltime planned on 1000 machines:
// this package's slice for slice (slices: each insertion walks the time
// slices one by one) and policies/batsched's over a profile (profile: it
// jumps over the slices with too few machines). It is the measure behind
// the choice of two copies (see doc.go): the copy of this package is the
// slower by 31 to 33 times at both sizes (measured on 2 cores under a load
// of 13 with the command below), a cost conservative at 100 000 waiting
// jobs cannot take.
//
//	go test ./policies/energy -run '^$' -bench ScheduleCompress -benchtime 3x
func BenchmarkScheduleCompress(b *testing.B) {
	const hosts = 1000
	for _, n := range []int{1000, 4000} {
		r := rand.New(rand.NewPCG(uint64(n), 7))
		jobs := make([]*bjob, n)
		for i := range jobs {
			jobs[i] = &bjob{id: fmt.Sprintf("j%06d", i), res: 1 + r.IntN(64), walltime: xtime.Of(float64(60 + r.IntN(86400))), hasWalltime: true}
		}
		b.Run(fmt.Sprintf("slices/%d", n), func(b *testing.B) {
			s := newSchedule(hosts, xtime.Of(0))
			for _, j := range jobs {
				s.addJobFirstFit(j, basicSelector{}, true)
			}
			for b.Loop() {
				for _, j := range jobs {
					s.removeJob(j)
					s.addJobFirstFit(j, basicSelector{}, true)
				}
			}
			b.ReportMetric(float64(len(s.sl)), "slices")
		})
		b.Run(fmt.Sprintf("profile/%d", n), func(b *testing.B) {
			s := batsched.NewSchedule(hosts, xtime.Of(0))
			for _, j := range jobs {
				s.AddFirstFit(j.id, j.res, j.walltime, batsched.Basic{})
			}
			for b.Loop() {
				for _, j := range jobs {
					s.Remove(j.id)
					if _, ok := s.AddFirstFit(j.id, j.res, j.walltime, batsched.Basic{}); !ok {
						b.Fatalf("%s fits nowhere", j.id)
					}
				}
			}
			b.ReportMetric(float64(s.NbSlices()), "slices")
		})
	}
}
