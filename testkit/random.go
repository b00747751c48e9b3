package testkit

import (
	"math"
	"math/rand/v2"
	"strconv"
)

// Random draws a seeded workload on a random platform of 1 to 16 hosts
// (20 to 140 jobs): bursts of
// simultaneous submissions, jobs without walltime or with -1, jobs that run
// past their walltime, failing jobs, jobs too big for the platform, and
// anonymous users.
func Random(seed uint64) (speeds []float64, jobs []Job) {
	r := rand.New(rand.NewPCG(seed, 0x6275636d61))
	nh := 1 + r.IntN(16)
	speeds = make([]float64, nh)
	for i := range speeds {
		speeds[i] = float64(1+r.IntN(4)) * 1e9
	}
	users := []string{"", "alice", "bob", "carol", "dave", "erin"}
	n := 20 + r.IntN(120)
	t := 0.0
	for i := 0; i < n; i++ {
		if r.IntN(3) > 0 { // a third of the jobs arrive with the previous one
			t += float64(r.IntN(60))
		}
		j := Job{Name: strconv.Itoa(i), Submit: t, Res: 1 + r.IntN(nh), User: users[r.IntN(len(users))]}
		switch k := r.IntN(40); {
		case k == 0:
			j.Res = nh + 1 // never fits: rejected
		case k < 8:
			j.Res = 1
		}
		switch k := r.IntN(20); {
		case k == 0:
			j.Walltime = 0 // no walltime
		case k == 1:
			j.Walltime = -1
		default:
			j.Walltime = float64(1 + r.IntN(500))
		}
		base := j.Walltime
		if base <= 0 {
			base = float64(1 + r.IntN(300))
		}
		j.Run = base * (0.05 + 1.15*r.Float64()) // some exceed their walltime
		if r.IntN(25) == 0 {
			j.Ret = 1
		}
		jobs = append(jobs, j)
	}
	return speeds, jobs
}

// Crowded draws a seeded workload of n jobs whose queue grows to
// hundreds of jobs: bursts of arrivals faster than the
// platform runs them, many users, ties in submission times and walltimes.
func Crowded(seed uint64, n int) (speeds []float64, jobs []Job) {
	r := rand.New(rand.NewPCG(seed, 0x63726f77))
	speeds = make([]float64, 24+r.IntN(40))
	for i := range speeds {
		speeds[i] = float64(1+r.IntN(3)) * 1e9
	}
	t := 0.0
	for i := 0; i < n; i++ {
		if r.IntN(4) == 0 {
			t += float64(r.IntN(40))
		}
		j := Job{Name: strconv.Itoa(i), Submit: t, Res: 1 + r.IntN(1+r.IntN(len(speeds))),
			User: "u" + strconv.Itoa(r.IntN(90))}
		if r.IntN(60) == 0 {
			j.Res = len(speeds) + 1
		}
		if r.IntN(30) == 0 {
			j.User = ""
		}
		switch k := r.IntN(20); {
		case k == 0:
			j.Walltime = 0
		case k == 1:
			j.Walltime = -1
		default:
			j.Walltime = float64(60 * (1 + r.IntN(30)))
		}
		base := j.Walltime
		if base <= 0 {
			base = float64(60 + r.IntN(1200))
		}
		j.Run = math.Round(base * (0.05 + 1.1*r.Float64()))
		if r.IntN(40) == 0 {
			j.Ret = 1
		}
		jobs = append(jobs, j)
	}
	return speeds, jobs
}
