package sim

import (
	"context"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/policies"

	"github.com/bucma-sched/bucma/batsim"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/workloads"
)

// hostViewsAgree checks, before each message to the scheduler, that every
// host the engine runs a job on is busy with that job in the framework's
// state, and that every host the framework thinks busy is either busy in
// the engine or held by a job that ended and whose completion is about to
// be (or is being) delivered.
func hostViewsAgree(sess *sched.Session) func(e *engine) error {
	return func(e *engine) error {
		st := sess.State()
		if st == nil {
			return nil
		}
		onHost := make([]map[string]bool, len(e.hostJob))
		for _, j := range e.jobs {
			if j.run == nil || !j.run.computing {
				continue
			}
			for _, h := range j.run.alloc {
				if h < len(onHost) {
					if onHost[h] == nil {
						onHost[h] = map[string]bool{}
					}
					onHost[h][j.id] = true
				}
			}
		}
		for h := range onHost {
			if int(e.hostJobs[h]) != len(onHost[h]) {
				return fmt.Errorf("host %d counts %d jobs in the engine, runs %d", h, e.hostJobs[h], len(onHost[h]))
			}
			inFramework := map[string]bool{}
			for _, sj := range st.Host(h).Jobs() {
				inFramework[sj.ID()] = true
				if !onHost[h][sj.ID()] {
					j := e.jobs[sj.ID()]
					if j == nil || !isComplete(j.state) {
						return fmt.Errorf("host %d does not run %s in the engine but the framework has it running (engine: %v)", h, sj.ID(), j)
					}
				}
			}
			for id := range onHost[h] {
				if !inFramework[id] {
					return fmt.Errorf("host %d runs %s in the engine, framework has %v", h, id, st.Host(h).Jobs())
				}
			}
		}
		return nil
	}
}

type row struct {
	id, state  string
	start, end float64
	hosts      []int
}

func readRows(t *testing.T, path string) []row {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []row
	for _, r := range recs[1:] {
		x := row{id: r[1] + "!" + r[0], state: r[7]}
		if x.state != batsim.StateRejected {
			x.start, _ = strconv.ParseFloat(r[8], 64)
			x.end, _ = strconv.ParseFloat(r[10], 64)
			set, err := batsim.ParseIntervalSet(r[14])
			if err != nil {
				t.Fatal(err)
			}
			x.hosts = set
		}
		out = append(out, x)
	}
	return out
}

func TestPropertyRandomRuns(t *testing.T) {
	// The policies that preempt need hosts with owners and dynamic jobs:
	// schedulers' TestOSEPPropertyRandom runs them through the engine; the
	// bag-of-tasks ones need BoT workloads (schedulers' bot_test.go).
	reg := policies.Builtin()
	var names []string
	for _, n := range reg.Names() {
		if spec, _ := reg.Get(n); !spec.DynamicJobs && !spec.Energy {
			names = append(names, n)
		}
	}
	runs := 40
	if testing.Short() {
		runs = 10
	}
	for seed := uint64(1); seed <= uint64(runs); seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		nh := 2 + r.IntN(11)
		speeds := make([]float64, 1+r.IntN(4))
		for i := range speeds {
			speeds[i] = float64(1+r.IntN(8)) * 1e9
		}
		policy := names[r.IntN(len(names))]
		lat := LatencyBatsim
		if r.IntN(3) == 0 {
			lat = LatencyNone
		}
		o := genOpts{jobs: 20 + r.IntN(60), maxRes: nh + 2, meanGap: float64(r.IntN(5)), walltime: r.IntN(4) > 0, mixed: true}
		t.Run(fmt.Sprintf("seed%d_%s_%dhosts_%s", seed, policy, nh, lat), func(t *testing.T) {
			w := genWorkload(t, seed, o)
			// A policy that shares hosts gets 1 to 4 slots per host and
			// Batsim's compute sharing.
			spec, _ := reg.Get(policy)
			slots := make([]int, nh)
			var opts sched.Options
			for i := range slots {
				slots[i] = 1
				if spec.ComputeSharing {
					slots[i] = 1 + r.IntN(4)
				}
			}
			if spec.ComputeSharing {
				opts = sched.Options{"slots": strings.Trim(strings.Join(strings.Fields(fmt.Sprint(slots)), ","), "[]")}
			}
			sess := newSession(t, policy, opts, true)
			prefix := filepath.Join(t.TempDir(), "out")
			checkHook = hostViewsAgree(sess)
			defer func() { checkHook = nil }()
			res, err := Run(context.Background(), Config{Platform: genPlatform(nh, speeds), Workloads: []*workloads.Workload{w},
				ExportPrefix: prefix, Latency: lat, ComputeSharing: spec.ComputeSharing}, InProcess(sess))
			if err != nil {
				t.Fatal(err)
			}
			rows := readRows(t, prefix+"_jobs.csv")
			if len(rows) != len(w.Jobs) || res.Jobs != len(w.Jobs) {
				t.Fatalf("%d rows, result %d jobs, workload %d jobs", len(rows), res.Jobs, len(w.Jobs))
			}
			seen := map[string]bool{}
			perHost := map[int][]row{}
			for _, x := range rows {
				if seen[x.id] {
					t.Errorf("job %s written twice", x.id)
				}
				seen[x.id] = true
				switch x.state {
				case batsim.StateSuccess, batsim.StateWalltimeReached, batsim.StateRejected, batsim.StateFailed:
				case batsim.StateKilled:
					// killer and killer2 (batsched's test variants) kill
					// the jobs they start.
					if policy != "killer" && policy != "killer2" {
						t.Errorf("job %s ends in state %s", x.id, x.state)
					}
				default:
					t.Errorf("job %s ends in state %s", x.id, x.state)
				}
				for _, h := range x.hosts {
					if h < 0 || h >= nh {
						t.Errorf("job %s on host %d of %d", x.id, h, nh)
					}
					perHost[h] = append(perHost[h], x)
				}
			}
			// No host runs more jobs at once than its slots.
			for h, rs := range perHost {
				for _, x := range rs {
					var at []string
					for _, y := range rs {
						if y.start <= x.start && x.start < y.end-1e-9 {
							at = append(at, y.id)
						}
					}
					if len(at) > slots[h] {
						t.Errorf("host %d of %d slots runs %v at once (t=%f)", h, slots[h], at, x.start)
					}
				}
			}
			if st := sess.State(); st.NbFree() != nh || len(st.Running()) != 0 || !sess.Ended() {
				t.Errorf("framework at the end: %d free hosts of %d, %d running, ended=%v", st.NbFree(), nh, len(st.Running()), sess.Ended())
			}
			if b, err := os.ReadFile(prefix + "_schedule.csv"); err != nil || !strings.Contains(string(b), BatsimVersion) {
				t.Errorf("schedule file: %v", err)
			}
		})
	}
}

// Same inputs, same outputs: the engine is deterministic.
func TestDeterministic(t *testing.T) {
	w := genWorkload(t, 99, genOpts{jobs: 300, maxRes: 10, meanGap: 1, walltime: true, mixed: true})
	var outs []string
	for i := 0; i < 2; i++ {
		prefix := filepath.Join(t.TempDir(), "out")
		if _, err := Run(context.Background(), Config{Platform: genPlatform(8, []float64{1e9, 3e9}), Workloads: []*workloads.Workload{w}, ExportPrefix: prefix},
			InProcess(newSession(t, "easy", nil, true))); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(prefix + "_jobs.csv")
		outs = append(outs, string(b))
	}
	if outs[0] != outs[1] || len(outs[0]) < 1000 {
		t.Error("two identical runs gave different _jobs.csv")
	}
}
