package simple

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"

	"github.com/bucma-sched/bucma/sched"
)

func randomSpec() sched.Spec {
	return sched.Spec{
		Name: "random",
		Description: "random: the queue in a random order (each job's rank drawn from the seed and its id) and every job that fits started, " +
			"on free hosts drawn at random; the same seed and workload give the same decisions",
		Options: []sched.OptionSpec{{Name: "seed", Default: "1", Help: "seed of the draws (an integer >= 0)"}},
		New: func(opts sched.Options) (sched.Policy, error) {
			seed, err := strconv.ParseUint(opts["seed"], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("random: seed=%q: want an integer >= 0", opts["seed"])
			}
			r := &Random{seed: seed}
			r.order = sched.NewKeyOrder("random", func(j *sched.Job) float64 {
				return float64(r.draw(j, 0)>>11) / (1 << 53)
			})
			return r, nil
		},
	}
}

// Random walks the queue in an order drawn once per job (from the seed and
// the job's id, so that it does not depend on how Batsim groups events
// into messages) and starts every job that fits, on free hosts drawn from
// the seed and the job's id. It is not batsched's random, which draws from
// an unseeded generator (std::random_device) and places each job at
// submission on hosts that may be busy: two runs of it differ.
type Random struct {
	seed  uint64
	order *sched.KeyOrder
}

// draw is the k-th draw of job j.
func (r *Random) draw(j *sched.Job, k uint64) uint64 {
	h := fnv.New64a()
	h.Write([]byte(j.ID()))
	return rand.New(rand.NewPCG(r.seed, h.Sum64()^k)).Uint64()
}

// Decide implements sched.Policy.
func (r *Random) Decide(s *sched.State, d *sched.Decider) {
	sched.Greedy{}.ApplyWalk(s, s.Walk(r.order), randomHosts{r}, d)
}

// EstimateWaitingTime implements sched.WaitingTimeEstimator (the greedy
// scan's forecast over the drawn order, sched.Forecast).
func (r *Random) EstimateWaitingTime(s *sched.State, j *sched.Job) (float64, bool) {
	return sched.EstimateWait(s, r.order, sched.Greedy{}, j)
}

// randomHosts draws a job's hosts among the free ones.
type randomHosts struct{ r *Random }

// Select implements sched.HostSelector.
func (h randomHosts) Select(s *sched.State, j *sched.Job, n int) []int {
	free := make([]int, 0, s.NbFree())
	for id := range s.NbHosts() {
		if s.Host(id).Free() {
			free = append(free, id)
		}
	}
	fh := fnv.New64a()
	fh.Write([]byte(j.ID()))
	g := rand.New(rand.NewPCG(h.r.seed^0x686f737473, fh.Sum64()))
	for i := 0; i < n; i++ {
		k := i + g.IntN(len(free)-i)
		free[i], free[k] = free[k], free[i]
	}
	return free[:n]
}
