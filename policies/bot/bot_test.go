package bot_test

import (
	"context"
	"math"
	"testing"

	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/policies/bot"
	"github.com/bucma-sched/bucma/testkit"

	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/sched"
	"github.com/bucma-sched/bucma/sim"
	"github.com/bucma-sched/bucma/workloads"
)

// runBoT runs policy on the bots through the engine (compute sharing and
// energy on) and returns the jobs' rows.
func runBoT(t *testing.T, platform, policy string, opts sched.Options, bots []workloads.BotSpec, o workloads.BotWorkloadOptions) ([]testkit.JobRow, *sim.Result) {
	t.Helper()
	plat, err := platforms.Resolve(platform)
	if err != nil {
		t.Fatal(err)
	}
	o.Hosts = len(plat.Hosts)
	w, err := workloads.BotWorkload(bots, o)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := policies.Builtin().Lookup(policy)
	if err != nil {
		t.Fatal(err)
	}
	res := testkit.Simulate(t, testkit.EngineRun{Platform: plat, Workloads: []*workloads.Workload{w}, Spec: spec, Options: opts})
	rows := make([]testkit.JobRow, len(res.Jobs))
	for i, r := range res.Jobs {
		rows[i] = testkit.Row(r)
	}
	return rows, res.Sim
}

// TestBotConsolidationReplaysThePlan: on enough cores (one VM per core),
// bot-consolidation runs each BoT of the thesis' trivial cases in exactly
// its planned length (t steps of 300 s) and every step's jobs end within
// their step.
func TestBotConsolidationReplaysThePlan(t *testing.T) {
	for _, name := range []string{"H1-1", "H1-2", "H1-3", "example"} {
		for _, policy := range []string{"bot-consolidation", "threshold-vm-consolidation"} {
			t.Run(name+"/"+policy, func(t *testing.T) {
				b, _ := workloads.NamedBoT(name)
				rows, _ := runBoT(t, "bot", policy, nil, []workloads.BotSpec{b}, workloads.BotWorkloadOptions{})
				plan, err := bot.PlanBoT(b.Quads, bot.BotPlanOptions{VMs: b.VMs, Alloc: bot.BotCyclic, Priority: bot.BotPrioCost})
				if err != nil {
					t.Fatal(err)
				}
				last := 0.0
				for _, r := range rows {
					last = math.Max(last, r.Start)
					if r.Finish-r.Start > 300+1e-6 {
						t.Errorf("job %s ran %g s, longer than a step", r.ID, r.Finish-r.Start)
					}
				}
				// The last row starts t-1 steps after the arrival (plus
				// Batsim's message latencies, microseconds).
				if want := float64(plan.T-1) * 300; math.Abs(last-want) > 1e-3 {
					t.Errorf("last row at %g, planned at %g (t = %d)", last, want, plan.T)
				}
			})
		}
	}
}

// TestBotPoliciesContention: on 8 cores, the thesis' heavy BoTs (10, 17 and
// 24 VMs) take longer than planned, the threshold system level moves VMs,
// and the online packer finishes every job; every job succeeds.
func TestBotPoliciesContention(t *testing.T) {
	for _, name := range []string{"H2-1", "H2-2", "H2-3"} {
		for _, policy := range []string{"bot-consolidation", "threshold-vm-consolidation", "bot-packing-online"} {
			t.Run(name+"/"+policy, func(t *testing.T) {
				b, _ := workloads.NamedBoT(name)
				rows, res := runBoT(t, "bot-2nodes", policy, nil, []workloads.BotSpec{b}, workloads.BotWorkloadOptions{})
				if len(rows) != b.Jobs() || res.ByState["COMPLETED_SUCCESSFULLY"] != b.Jobs() {
					t.Fatalf("%d rows, %v, want %d successes", len(rows), res.ByState, b.Jobs())
				}
				t.Logf("%s %s makespan %.0f s", name, policy, res.Metrics.Makespan)
			})
		}
	}
}

// TestBotPoliciesRejectOtherJobs: a job without the BoT fields is
// rejected (with the reason logged) and the BoT beside it still runs.
func TestBotPoliciesRejectOtherJobs(t *testing.T) {
	plat, err := platforms.Resolve("bot-2nodes")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := workloads.NamedBoT("H2-1")
	w, err := workloads.BotWorkload([]workloads.BotSpec{b}, workloads.BotWorkloadOptions{Hosts: len(plat.Hosts)})
	if err != nil {
		t.Fatal(err)
	}
	extra, err := workloads.Parse([]byte(`{"nb_res": 8, "jobs": [{"id": "plain", "subtime": 0, "res": 1, "profile": "p"}, {"id": "bad", "subtime": 0, "res": 1, "profile": "p", "bot": "x", "quad": 0}], "profiles": {"p": {"type": "delay", "delay": 5}}}`), "extra.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, policy := range []string{"bot-consolidation", "threshold-vm-consolidation", "bot-packing-online"} {
		spec, _ := policies.Builtin().Lookup(policy)
		run, err := testkit.RunEngine(context.Background(), testkit.EngineRun{Platform: plat, Workloads: []*workloads.Workload{w, extra}, Spec: spec}, "")
		if err != nil {
			t.Fatalf("%s: %v", policy, err)
		}
		res := run.Sim
		if res.ByState["REJECTED"] != 2 || res.ByState["COMPLETED_SUCCESSFULLY"] != b.Jobs() {
			t.Errorf("%s: %v, want 2 rejected and %d successes", policy, res.ByState, b.Jobs())
		}
	}
}
