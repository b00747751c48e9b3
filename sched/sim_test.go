package sched_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"strconv"
	"strings"
	"testing"

	"github.com/bucma-sched/bucma/policies"

	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sim"
	"github.com/bucma-sched/bucma/workloads"
)

// TestPoliciesThroughEngine runs every registered policy through the
// embedded engine (Batsim's timing model) on the bundled Lille platform with
// a small synthetic Lille workload plus the paper's inserted requests, with
// the decision trace on. Every job must end with exactly one trace row, and
// under BUCMA the precise users (Su pinned at 100) must gain more queue
// positions at submission than the imprecise ones (Su 0), as in Figure 1.
func TestPoliciesThroughEngine(t *testing.T) {
	plat, err := platforms.Resolve("lille")
	if err != nil {
		t.Fatal(err)
	}
	base, err := workloads.GenerateLille(workloads.LilleOptions{Jobs: 300, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	wl, err := workloads.BucmaInsert(base, workloads.InsertOptions{Seed: 7, PerClass: 15})
	if err != nil {
		t.Fatal(err)
	}
	pins, err := sched.ParseOptionArgs([]string{workloads.PinnedScoresOption()})
	if err != nil {
		t.Fatal(err)
	}
	reg := policies.Builtin()
	for _, name := range reg.Names() {
		t.Run(name, func(t *testing.T) {
			spec, _ := reg.Get(name)
			if spec.DynamicJobs {
				t.Skip("preempts on hosts with owners: see TestOSEPThroughEngine")
			}
			if spec.Energy {
				t.Skip("runs bags of tasks with compute sharing and energy: see bot_test.go")
			}
			opts := sched.Options{}
			if strings.HasPrefix(name, "bucma") {
				opts = pins
			}
			var buf bytes.Buffer
			tr := sched.NewTrace(&buf)
			sess, err := sched.NewSession(sched.SessionConfig{Spec: spec, Options: opts, Validate: true, Observers: []sched.Observer{tr}})
			if err != nil {
				t.Fatal(err)
			}
			res, err := sim.Run(context.Background(), sim.Config{Platform: plat, Workloads: []*workloads.Workload{wl}}, sim.InProcess(sess))
			if err != nil {
				t.Fatal(err)
			}
			if res.Jobs != len(wl.Jobs) || tr.Err() != nil {
				t.Fatalf("%d of %d jobs ended; trace error %v", res.Jobs, len(wl.Jobs), tr.Err())
			}
			recs, err := csv.NewReader(&buf).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != len(wl.Jobs)+1 {
				t.Fatalf("%d trace rows for %d jobs", len(recs)-1, len(wl.Jobs))
			}
			if !strings.HasPrefix(name, "bucma") {
				return
			}
			col := map[string]int{}
			for i, c := range recs[0] {
				col[c] = i
			}
			gain := map[string][]float64{}
			for _, r := range recs[1:] {
				if r[col["queue_gain"]] == "" {
					continue
				}
				g, _ := strconv.ParseFloat(r[col["queue_gain"]], 64)
				gain[r[col["user"]]] = append(gain[r[col["user"]]], g)
			}
			mean := func(u string) float64 {
				s := 0.0
				for _, g := range gain[u] {
					s += g
				}
				return s / float64(len(gain[u]))
			}
			if len(gain["precise"]) == 0 || len(gain["imprecise"]) == 0 {
				t.Fatalf("no gain recorded for the inserted users: %v", gain)
			}
			if mean("precise") <= mean("imprecise") {
				t.Errorf("mean gain: precise %.1f, imprecise %.1f", mean("precise"), mean("imprecise"))
			}
			t.Logf("mean gain: precise %.1f (%d), medium %.1f (%d), imprecise %.1f (%d)",
				mean("precise"), len(gain["precise"]), mean("medium"), len(gain["medium"]), mean("imprecise"), len(gain["imprecise"]))
		})
	}
}
