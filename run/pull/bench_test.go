package pull_test

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/run/pull"
)

// gymWindow writes n consecutive jobs of the Lille workload from job
// start, their submission times shifted to start at 0, as the Python
// environment (bucma.gym.JobPickingEnv) writes an episode's window.
func gymWindow(tb testing.TB, start, n int) string {
	tb.Helper()
	raw, err := os.ReadFile(lille)
	if err != nil {
		tb.Fatal(err)
	}
	var w struct {
		NbRes    int                        `json:"nb_res"`
		Jobs     []map[string]any           `json:"jobs"`
		Profiles map[string]json.RawMessage `json:"profiles"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		tb.Fatal(err)
	}
	sort.SliceStable(w.Jobs, func(a, b int) bool { return w.Jobs[a]["subtime"].(float64) < w.Jobs[b]["subtime"].(float64) })
	jobs := w.Jobs[start : start+n]
	t0 := jobs[0]["subtime"].(float64)
	profiles := map[string]json.RawMessage{}
	for _, j := range jobs {
		j["subtime"] = j["subtime"].(float64) - t0
		p := j["profile"].(string)
		profiles[p] = w.Profiles[p]
	}
	out, err := json.Marshal(map[string]any{"nb_res": w.NbRes, "jobs": jobs, "profiles": profiles})
	if err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(tb.TempDir(), "window.json")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// gymEpisode is an episode of the job-picking environment's random agent,
// decided from Go: at each decision, while no job is reserved, a job drawn
// among the first slots waiting starts when it fits, else it is reserved
// and starts once it fits. The caller's queue is kept from the points'
// new and ended records (a decide policy's points have no started ones).
// It returns the decision points.
func gymEpisode(tb testing.TB, path string, slots int, rng *rand.Rand) (points int) {
	r, err := pull.New(pull.Config{Platform: "lille", Workloads: []string{path},
		Policy: pull.Policy{Name: "gym", Caller: "decide"}}, nil, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close(nil)
	le := binary.LittleEndian
	type waiting struct {
		idx int64
		res int
	}
	var queue []waiting
	remove := func(idx int64) {
		for i, w := range queue {
			if w.idx == idx {
				queue = append(queue[:i], queue[i+1:]...)
				return
			}
		}
	}
	pending := -1 // the reserved job's place in queue
	for {
		k, err := r.Next()
		if err != nil {
			tb.Fatal(err)
		}
		switch k {
		case pull.Done:
			return points
		case pull.Running:
			continue
		}
		points++
		b := r.Point()
		nNew, nEnded := int(le.Uint32(b[20:])), int(le.Uint32(b[28:]))
		o := pull.HeaderSize
		for range nNew {
			queue = append(queue, waiting{int64(le.Uint64(b[o:])), int(int32(le.Uint32(b[o+24:])))})
			o += pull.NewSize
		}
		for range nEnded {
			remove(int64(le.Uint64(b[o:])))
			o += pull.EndedSize
		}
		for len(queue) > 0 {
			if pending < 0 {
				pending = rng.IntN(min(slots, len(queue)))
			}
			j := queue[pending]
			if j.res > r.Free() {
				break
			}
			if _, err := r.Start(j.idx, nil); err != nil {
				tb.Fatal(err)
			}
			queue = append(queue[:pending], queue[pending+1:]...)
			pending = -1
		}
	}
}

// BenchmarkGymEpisode is the Go side of a random agent's 1024-job episode
// of the Python environment (make bench-gym): the run's creation, its
// points and the starts.
func BenchmarkGymEpisode(b *testing.B) {
	path := gymWindow(b, 1000, 1024)
	rng := rand.New(rand.NewPCG(1, 2))
	points := 0
	b.ResetTimer()
	for range b.N {
		points += gymEpisode(b, path, 32, rng)
	}
	b.ReportMetric(float64(points)/float64(b.N), "points/op")
}
