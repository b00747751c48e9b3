package bot

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bucma-sched/bucma/policies/bot"
	"github.com/bucma-sched/bucma/workloads"
	"github.com/bucma-sched/bucma/workloads/gen"
)

// BotStep is the bag-of-tasks thesis' step, in seconds (5 minutes).
const BotStep = 300.0

// The bot generator is the study's: it sizes the external load of its
// workloads with the thesis' prediction (Predict). A program that links
// this package can name it in its plans.
func init() { gen.Default().Register(Generator()) }

// Generator is the "bot" workload generator: bags of tasks of the
// consolidation thesis, one job per task step (see botSpecs).
func Generator() gen.Generator {
	return gen.Generator{
		Name: "bot",
		Usage: "bags of tasks (the BoT consolidation thesis): one job per task step, the published BoTs (" +
			strings.Join(workloads.BotNames(), ", ") + ") or BoTs drawn from the thesis' classes",
		Params: []gen.Param{
			{Name: "bots", Type: gen.String, Required: true, Usage: "comma-separated published BoTs (" + strings.Join(workloads.BotNames(), ", ") +
				") and/or classes to draw a BoT from (" + strings.Join(workloads.BotProfileNames(), ", ") + "), in arrival order"},
			{Name: "bot_arrivals", Type: gen.String, Usage: `arrival steps, one per BoT ("0,13,22"), or a Weibull law of the steps between two arrivals ("I4^8"); default: every BoT at step 0`},
			{Name: "background", Type: gen.Int, Default: 0, Check: gen.Within(0, 100, false), Usage: "external load, percent of every host during the whole run (0: none)"},
		},
		Seeded: true,
		Check:  func(v gen.Values) error { _, _, err := botSpecs(v, 1); return err },
		Make: func(in gen.Input) (*workloads.Workload, error) {
			return botWorkload(in.Values, in.Seed, in.Hosts)
		},
	}
}

// botSpecs returns the bags of tasks of the bot generator's parameters for
// a seed and what the workload's meta records of them, as "bucma workload
// bot" does: the seed, the classes of the drawn BoTs, the law of drawn
// arrivals (and the arrival steps when given). Each name of "bots" is a
// published BoT (workloads.NamedBoT, the seed unused) or a profile class
// drawn from one random stream of the seed (workloads.NewBotRand), in the
// order of the list, so that a case holding one profile gets the same BoT
// under every external load. "bot_arrivals" gives the arrival steps, one
// per BoT ("0,13,22"), or a Weibull law of the intervals between them in
// the thesis' notation ("I4^8", the first BoT at 0), drawn after the BoTs.
func botSpecs(v gen.Values, seed uint64) ([]workloads.BotSpec, map[string]any, error) {
	if strings.TrimSpace(v.String("bots")) == "" {
		return nil, nil, fmt.Errorf("bot: no bag of tasks (bots)")
	}
	if bg := v.Int("background"); bg < 0 || bg > 100 {
		return nil, nil, fmt.Errorf("bot: external load %d %%: want 0..100", bg)
	}
	rng := workloads.NewBotRand(seed)
	meta := map[string]any{"seed": seed}
	classes := map[string]string{}
	var out []workloads.BotSpec
	seen := map[string]bool{}
	for _, n := range strings.Split(v.String("bots"), ",") {
		n = strings.TrimSpace(n)
		b, ok := workloads.NamedBoT(n)
		if !ok {
			cl, vms, isClass := workloads.BotProfileClass(n)
			if !isClass {
				return nil, nil, fmt.Errorf("bot: unknown bag of tasks %q (published: %s; classes: %s)", n,
					strings.Join(workloads.BotNames(), ", "), strings.Join(workloads.BotProfileNames(), ", "))
			}
			var err error
			if b, err = workloads.GenerateBoT(workloads.BotProfileName(n), cl, vms, rng); err != nil {
				return nil, nil, err
			}
			classes[b.Name] = cl.String()
		}
		if seen[b.Name] {
			return nil, nil, fmt.Errorf("bot: %s given twice", b.Name)
		}
		seen[b.Name] = true
		out = append(out, b)
	}
	if len(classes) > 0 {
		meta["classes"] = classes
	}
	arr := strings.TrimSpace(v.String("bot_arrivals"))
	switch {
	case arr == "":
	case strings.HasPrefix(strings.ToUpper(arr), "I"):
		shape, scale, err := workloads.ParseBotInterval(arr)
		if err != nil {
			return nil, nil, err
		}
		for i, a := range workloads.BotArrivals(len(out), shape, scale, rng) {
			out[i].Arrival = a
		}
		meta["interval"] = fmt.Sprintf("I%g^%g", shape, scale)
	default:
		parts := strings.Split(arr, ",")
		if len(parts) != len(out) {
			return nil, nil, fmt.Errorf("bot: %d arrival steps for %d bags of tasks", len(parts), len(out))
		}
		steps := make([]int, len(parts))
		for i, p := range parts {
			a, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil || a < 0 {
				return nil, nil, fmt.Errorf("bot: arrival step %q: want an integer ≥ 0", p)
			}
			out[i].Arrival, steps[i] = a, a
		}
		meta["arrivals"] = steps
	}
	return out, meta, nil
}

// Predict is the thesis' consolidated plan of a BoT on vms VMs: cíclico,
// the lowest cost first, the application-wide shift (its "Consolidado" is
// T × 5 minutes). The report sets every BoT's run beside it, and the bot
// generator's external load lasts twice its end.
func Predict(quads []bot.BotQuad, vms int) (*bot.BotPlan, error) {
	return bot.PlanBoT(quads, bot.BotPlanOptions{VMs: vms, Alloc: bot.BotCyclic, Priority: bot.BotPrioCost})
}

// botBackgroundSteps is how long the external load lasts: twice the
// predicted end of the last BoT, plus 4 steps (the report checks that
// every BoT ended before it).
func botBackgroundSteps(bots []workloads.BotSpec) (int, error) {
	end := 0
	for _, b := range bots {
		p, err := Predict(b.Quads, b.VMs)
		if err != nil {
			return 0, fmt.Errorf("bot %s: %w", b.Name, err)
		}
		end = max(end, b.Arrival+p.T)
	}
	return 2*end + 4, nil
}

// botWorkload makes the bot generator's workload: the one "bucma workload
// bot --bots ... --seed S --hosts H" writes (with --background L
// --background-steps N under an external load), given arrival steps aside.
func botWorkload(v gen.Values, seed uint64, hosts int) (*workloads.Workload, error) {
	bots, meta, err := botSpecs(v, seed)
	if err != nil {
		return nil, err
	}
	o := workloads.BotWorkloadOptions{Step: BotStep, Hosts: hosts, Background: v.Int("background"), Meta: meta}
	if o.Background > 0 {
		if o.BackgroundSteps, err = botBackgroundSteps(bots); err != nil {
			return nil, err
		}
	}
	return workloads.BotWorkload(bots, o)
}
