// Package bot is the bag-of-tasks consolidation thesis' study (Tables 7,
// 8, 10, 11, 12 and 14): its plan, the published numbers, what a run of
// bags of tasks shows (VM moves, energy) and the report.
package bot

import (
	_ "embed"
	"fmt"

	"github.com/bucma-sched/bucma/expe/report"
)

// The bag-of-tasks consolidation experiment (docs/reproducing.md): the
// thesis' BoTs (Santos, "Modelo de Escalonamento Aplicativo para Bag of
// Tasks em Ambientes de Nuvem Computacional", UFPel, 2016/2017) consolidated
// on their VMs (Algorithm 1, cíclico, lowest cost first) and replayed on its
// cluster: trivial case 1 (Table 7: light BoTs H1-1..3 on 36 cores), trivial
// case 2 (Table 8: heavy BoTs H2-1..3 on 8 cores), the user profiles under
// external load without and with the system level (Tables 10 to 12) and the
// production run of ten BoTs (Table 14). Each variant runs on every case:
// the application level alone (bot-consolidation), with the threshold-based
// system level (threshold-vm-consolidation, nodes on or also switched off)
// and the event-driven packing (bot-packing-online).

// BotPlan is the name and kind of the plan.
const BotPlan = "bot"

//go:embed plan.yaml
var planFile []byte

// Register adds the plan and its report.
func Register(s *report.Studies) {
	s.Register(report.Study{Kind: BotPlan, Prepare: nodesOf, ReadWorkload: readWorkload, ReadRun: readRun,
		Report: func(r *report.Report) error { return (&reporter{Report: r, a: r.A}).bot() }})
	s.AddPlan(BotPlan, planFile)
}

type reporter struct {
	*report.Report
	a *report.Analysis
}

func (r *reporter) p(format string, args ...any) { r.P(format, args...) }

// The variants of plan bot.
const (
	BotConsolidationVariant  = "consolidation"
	BotThresholdVariant      = "threshold"
	BotThresholdPowerVariant = "threshold-power"
	BotPackingVariant        = "packing-online"
)

// botVariantTitles say what each variant is, for the report.
var botVariantTitles = map[string]string{
	BotConsolidationVariant:  "application level only (bot-consolidation)",
	BotThresholdVariant:      "with the system level (threshold-vm-consolidation, nodes always on)",
	BotThresholdPowerVariant: "with the system level, nodes without VMs switched off (threshold-vm-consolidation power=on)",
	BotPackingVariant:        "event-driven packing, no plan (bot-packing-online)",
}

// BotBackgrounds are the external loads of the user-profile cases
// (percent of every core): idle, 50 % and 75 %.
var BotBackgrounds = []int{0, 50, 75}

// BotProfiles are the user profiles of Table 9.
var BotProfiles = []string{"leve", "mediano", "pesado"}

// botProductionOrder and botProductionArrivals are the production BoTs in
// the order they arrived and their arrival steps (Table 14: 0, 65, 110 ...
// 530 minutes).
var (
	botProductionOrder    = []string{"UP-10", "UP-8", "UP-9", "UP-5", "UP-3", "UP-7", "UP-1", "UP-6", "UP-4", "UP-2"}
	botProductionArrivals = []int{0, 13, 22, 33, 40, 46, 54, 72, 80, 106}
)

// BotProductionCase is the name of the production case.
const BotProductionCase = "production"

// BotProfileCase names a user-profile case: "mediano-bg50".
func BotProfileCase(profile string, background int) string {
	return fmt.Sprintf("%s-bg%d", profile, background)
}
